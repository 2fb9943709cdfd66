"""The first frame, drawn before the chat is made (issue 26).

Importing the chat's controllers, the conversation pipeline, the store and the renderers, and
making them, was about half of what the program did between its start and the prompt on screen
(measured in a pty), and none of it draws the first screen: a status line that says it is
connecting, an empty transcript, the prompt and the footer. So the program
(`openwop_tui.ui.options.AppOptions.draw_first`) composes those first: the real tab bar, status
line and input area (with the prompt) in the first tab's real pane (`FirstPane`), and
`openwop_tui.ui.app.ChatApp` makes the chat once that frame is drawn. The first tab takes these
widgets as its own, and the rest of its pane (the timeline panel, the transcript, the search
bar) is mounted around them (`openwop_tui.ui.controllers.tab.Tab`): nothing is drawn twice or
replaced, so the screen settles as it always did.

The prompt takes keys from the first frame on. What needs the chat waits for it, in the order it
came (`Held`): a message sent (Enter, or typed ahead of the start), files pasted, and the app's
key actions (Ctrl+N, F1 or Ctrl+Q pressed meanwhile is done once the chat is there, not lost).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from inspect import isawaitable
from typing import TYPE_CHECKING

from textual.app import App

from openwop_tui.ui.widgets.chat_pane import ChatPane
from openwop_tui.ui.widgets.prompt import InputArea, PromptInput
from openwop_tui.ui.widgets.status import StatusLine
from openwop_tui.ui.widgets.tab_bar import TabBar

if TYPE_CHECKING:
    from textual.actions import ActionParseResult
    from textual.dom import DOMNode

__all__ = ["FIRST_TAB", "FirstPane", "Held", "HoldsActions"]

#: The first tab's key (`openwop_tui.ui.controllers.tab.Tab.key`: the tabs count from 1).
FIRST_TAB = 1


@dataclass(frozen=True)
class FirstPane:
    """The widgets of the first frame, made before the chat (the tabs controller and the first
    tab take them as their own)."""

    bar: TabBar
    """The tab bar (hidden while one chat is open)."""
    pane: ChatPane
    """The first tab's pane, holding `status` and `input_area` until the rest is mounted."""
    status: StatusLine
    input_area: InputArea
    """The queued messages' line, the attachments' chips, the recording bar and the prompt."""

    @classmethod
    def make(cls) -> FirstPane:
        status, input_area = StatusLine(id="status"), InputArea(id="input-area")
        pane = ChatPane(status, input_area, tab=FIRST_TAB)
        return cls(TabBar(id="tab-bar"), pane, status, input_area)

    @property
    def prompt(self) -> PromptInput:
        """The prompt (there once the pane is mounted)."""
        return self.input_area.query_one(PromptInput)


class Held:
    """What came before the chat was made, to be done once it is (in the order it came)."""

    def __init__(self, *, holding: bool = True) -> None:
        """Hold what comes (``holding``), or hold nothing: the chat was made before the first
        frame."""
        self._calls: list[Callable[[], object]] | None = [] if holding else None

    @property
    def holding(self) -> bool:
        """Whether what comes is held (the chat is not made yet)."""
        return self._calls is not None

    def hold(self, call: Callable[[], object]) -> bool:
        """Keep ``call`` (a function, or one returning an awaitable) for `release`: True, or
        False when nothing is held any more (the caller does it now)."""
        if self._calls is None:
            return False
        self._calls.append(call)
        return True

    async def release(self) -> None:
        """Do what was held, in order; from now on nothing is (what was held is done as it
        would have been, not held again)."""
        calls, self._calls = self._calls or [], None
        for call in calls:
            done = call()
            if isawaitable(done):
                await done


class HoldsActions(App[None]):
    """An app whose own actions wait in `held` while it holds (a key pressed on the first
    frame is acted on once the chat is made, not lost, nor acted on a chat not there yet)."""

    held: Held
    """What came before the chat was made (the app makes it)."""

    async def run_action(
        self,
        action: str | ActionParseResult,
        default_namespace: DOMNode | None = None,
        namespaces: Mapping[str, DOMNode] | None = None,
    ) -> bool:
        if self.held.holding and self._aimed_at_app(action, default_namespace):
            run = super().run_action
            self.held.hold(lambda: run(action, default_namespace, namespaces))
            return True  # (the key is taken: it goes nowhere else meanwhile)
        return await super().run_action(action, default_namespace, namespaces)

    def _aimed_at_app(self, action: str | ActionParseResult, namespace: DOMNode | None) -> bool:
        """Whether ``action`` is the app's (``"app.quit"``, or one without a namespace, given
        none or the app's): a widget's (the prompt's own keys) runs at once."""
        if not isinstance(action, str):
            return namespace is None or namespace is self
        destination = action.partition("(")[0].rpartition(".")[0]
        return destination == "app" or (not destination and namespace in (None, self))
