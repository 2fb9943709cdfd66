"""A key typed into the prompt is drawn at once, alone, not in the screen's next frame with
whatever else changed (`openwop_tui.ui.widgets.echo`, issue 26: keys first).

What is drawn is read from the app's output to the terminal (``App._display``'s updates,
rendered to text), so the tests see what a terminal would be sent.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from rich.console import Console
from textual.app import App, ComposeResult
from textual.events import Key
from textual.pilot import Pilot
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from openwop_tui.ui.widgets import echo, prompt
from openwop_tui.ui.widgets.echo import draw_now, keys_waiting
from openwop_tui.ui.widgets.prompt import PromptInput

pytestmark = pytest.mark.quick


class _Line(Widget):
    """One line of text; a change of it is drawn again, never laid out again."""

    text = reactive("ready")

    def render(self) -> str:
        return self.text


class _Screenful(App[None]):
    """A body above a one-line status docked at the bottom; every update sent to the terminal
    is kept, as text."""

    CSS = "#status { dock: bottom; height: 1; }"

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static("body", id="body")
        yield _Line(id="status")

    def _display(self, screen: Screen[Any], renderable: Any) -> None:
        if renderable is not None:
            console = Console(file=io.StringIO(), width=80, color_system=None, legacy_windows=False)
            self.sent.append(renderable.render_segments(console))
        super()._display(screen, renderable)


async def _idle(pilot: Pilot[Any], app: _Screenful) -> None:
    await pilot.pause()
    await pilot.pause()
    app.sent.clear()


async def test_it_draws_the_widget_alone_and_leaves_the_rest_for_the_next_frame() -> None:
    app = _Screenful()
    async with app.run_test(size=(80, 10)) as pilot:
        await _idle(pilot, app)
        body, status = app.query_one("#body", Static), app.query_one(_Line)
        body.update("the body changed")
        status.text = "status changed"
        assert draw_now(status)
        assert len(app.sent) == 1
        assert "status changed" in app.sent[0] and "body changed" not in app.sent[0]
        await pilot.pause()
        await pilot.pause()
        assert any("the body changed" in sent for sent in app.sent[1:])  # (the next frame)
        assert not draw_now(status)  # (nothing more changed in it: nothing drawn)


async def test_it_leaves_a_widget_whose_place_may_change_to_the_frame() -> None:
    app = _Screenful()
    async with app.run_test(size=(80, 10)) as pilot:
        await _idle(pilot, app)
        status = app.query_one(_Line)
        status.text = "taller\nnow"
        status.refresh(layout=True)
        assert not draw_now(status)
        await _idle(pilot, app)
        with app.batch_update():
            status.text = "in a batch"
            assert not draw_now(status)
            assert app.sent == []


async def test_keys_waiting_for_the_widget_are_seen() -> None:
    app = _Screenful()
    async with app.run_test(size=(80, 10)) as pilot:
        await _idle(pilot, app)
        status = app.query_one(_Line)
        assert not keys_waiting(status)
        app.post_message(Key("x", "x"))  # (queued at the app: not handled before an await)
        assert keys_waiting(status)
        await pilot.pause()
        assert not keys_waiting(status)


class _Prompt(App[None]):
    CSS = "#prompt { height: auto; max-height: 8; }"  # (as the app has it: it grows with its text)

    def compose(self) -> ComposeResult:
        yield Static("a long reply above", id="body")
        yield PromptInput(id="prompt")


async def test_a_key_typed_in_the_prompt_is_drawn_by_the_prompt_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    drawn: list[tuple[str, bool]] = []

    def noted(widget: Any) -> bool:
        result = echo.draw_now(widget)
        drawn.append((widget.text, result))
        return result

    monkeypatch.setattr(prompt, "draw_now", noted)
    app = _Prompt()
    async with app.run_test(size=(80, 12)) as pilot:
        await pilot.pause()
        await pilot.press("h", "i")
        # Each key, typed one at a time, was drawn by the prompt itself, with the key in it.
        assert drawn == [("h", True), ("hi", True)]
        drawn.clear()
        await pilot.press("ctrl+j")  # (a new line: a line taller, what is above it moves)
        assert app.query_one(PromptInput).text == "hi\n"
        assert not [text for text, done in drawn if done]  # (left to the frame's layout)
