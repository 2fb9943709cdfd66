"""One tab's chat screen: its status line, timeline panel, transcript, search bar and input, in a
pane the tab bar shows or hides.

Every open tab keeps its pane mounted; the tabs not shown are hidden (``display: none``), so a
tab switch lays out and paints one pane from what its widgets already hold (the transcript's
lines are cached per width): nothing is drawn again. A background tab's run goes on streaming
into its hidden pane.

What a pane's widgets say that needs the tab it came from (a hidden transcript asks for an
envelope to be drawn, a question form closed when its run ended, a message given back to the
prompt) goes on to the app as `ChatPane.Said`, which names the tab: without it, the app would
answer with the tab on screen.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget

from openwop_tui.ui.messages import DraftReturned, EnvelopeRenderRequested, InterruptFormClosed

__all__ = ["ChatPane"]


class ChatPane(Vertical):
    """The widgets of one chat, shown while its tab is the current one."""

    # Hidden, and invisible too: visibility is inherited, so nothing in a hidden pane can take
    # the keys (a question form that opens in a background tab, a form answered there).
    DEFAULT_CSS = """
    ChatPane { height: 1fr; }
    ChatPane.-hidden { display: none; visibility: hidden; }
    """

    @dataclass
    class Said(Message):
        """A message of this pane's widgets, with the tab it came from."""

        tab: int
        """The tab's number (`openwop_tui.ui.controllers.tab.Tab.key`: never reused)."""
        message: Message
        """What the widget said."""

    def __init__(self, *children: Widget, tab: int) -> None:
        super().__init__(*children)
        self.tab = tab
        """The tab this pane is (its key)."""

    @property
    def shown(self) -> bool:
        """Whether its tab is the one on screen."""
        return not self.has_class("-hidden")

    def show(self, shown: bool) -> None:
        """Show the pane (its tab is the current one), or hide it."""
        self.set_class(not shown, "-hidden")

    @on(EnvelopeRenderRequested)
    @on(InterruptFormClosed)
    @on(DraftReturned)
    def _tell_whose(self, message: Message) -> None:
        """What may come from a hidden pane goes on naming this tab."""
        message.stop()
        self.post_message(self.Said(self.tab, message))
