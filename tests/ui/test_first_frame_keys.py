"""Keys pressed on the first frame, before the chat is made, are not lost (issue 26).

The program draws its first frame before it makes the chat (`AppOptions.draw_first`,
`openwop_tui.ui.first_frame`). Here the chat is made only when the test says so, so what is
pressed on the first frame is pressed while it is not there, whatever the machine's speed: the
prompt takes text at once, and an Enter (a message sent), the app's own keys (Ctrl+N) and the
keys typed while the program started are done, in order, once the chat is made.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app_support import NO_AUDIO, connected, items_of, settle

from openwop_tui.config import Config
from openwop_tui.core.fold import UserTurn
from openwop_tui.demo_host import DemoHost
from openwop_tui.ui import app as ui_app
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.options import AppOptions
from openwop_tui.ui.widgets.prompt import PromptInput


class MadeWhenAsked(ChatApp):
    """The app as the program starts it, making its chat only when `make` is called."""

    CSS_PATH = str(Path(ui_app.__file__).with_name("app.tcss"))  # (relative to the class's file)

    def __init__(self, typed: str = "") -> None:
        super().__init__(
            Config(),
            AppOptions(draw_first=True, typed=typed),
            demo_host=DemoHost(pace=0, deterministic=True),
            audio_support=NO_AUDIO,
        )
        self.first_frame_drawn = False

    async def after_first_frame(self) -> None:
        self.first_frame_drawn = True  # (and the chat waits for `make`)

    def make(self) -> None:
        self.call_later(super().after_first_frame)


def sent(app: ChatApp) -> list[Any]:
    return [turn.text for turn in items_of(app, UserTurn)]


async def test_keys_on_the_first_frame_wait_for_the_chat_and_are_done_in_order() -> None:
    app = MadeWhenAsked()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app, lambda: app.first_frame_drawn, what="the first frame")
        prompt = app.query_one(PromptInput)
        await pilot.press("h", "i")
        assert prompt.text == "hi"  # typed into at once
        await pilot.press("enter", "ctrl+n", "o", "k")
        assert app.held.holding  # nothing made yet: the Enter and Ctrl+N wait
        assert prompt.text == "ok"
        app.make()
        await settle(pilot, app, lambda: not app.held.holding, what="the chat made")
        # The message went to the first chat, then Ctrl+N opened a second one.
        assert len(app.tabs.tabs) == 2
        first = app.tabs.tabs[0]
        assert first.chat.parts.prompt is prompt
        app.tabs.show(0)
        await connected(pilot, app)
        await settle(pilot, app, lambda: sent(app) == ["hi"], what="'hi' sent")
        assert prompt.text == "ok"


async def test_keys_typed_while_the_program_started_are_sent_once_the_chat_is_made() -> None:
    app = MadeWhenAsked(typed="hello\rmore")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app, lambda: app.first_frame_drawn, what="the first frame")
        prompt = app.query_one(PromptInput)
        assert prompt.text == "more"  # in the prompt on the first frame; "hello" waits
        assert app.held.holding
        app.make()
        await settle(pilot, app, lambda: not app.held.holding, what="the chat made")
        await connected(pilot, app)
        await settle(pilot, app, lambda: sent(app) == ["hello"], what="'hello' sent")
        assert app.chat.parts.prompt is prompt
        assert prompt.text == "more"
