"""The event timeline as a screen of its own: the whole window for a run's events.

The same `TimelinePanel` as the one docked beside the transcript (F2), shown full-size, fed by
the same controller (`openwop_tui.ui.controllers.timeline`) with the same filter line, kept for
the chat. It opens with the filter line focused (typing filters; Enter or ↓ goes to the rows,
``/`` back to the filter). Esc (or ``q`` in the rows) goes back to the chat; Enter on a row
opens the event as a JSON tree, ``t`` goes to the transcript item it made.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen

from openwop_tui.ui.messages import TimelineScreenOpened
from openwop_tui.ui.widgets.footer import SteadyFooter
from openwop_tui.ui.widgets.timeline_panel import TimelinePanel


class TimelineScreen(Screen[None]):
    """Every event of the chat, filtered by the kept filter line."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Back"),
        Binding("q", "dismiss", "Back", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.panel = TimelinePanel(id="timeline-screen")

    def compose(self) -> ComposeResult:
        yield self.panel
        yield SteadyFooter(show_command_palette=False)

    def on_mount(self) -> None:
        # The app's controller fills the panel (it is not reachable from a screen otherwise).
        self.post_message(TimelineScreenOpened(self.panel))
        # The filter line has the keys: what is typed filters (in the rows, a letter is a
        # command: ``t`` leaves for the transcript). Enter or ↓ goes to the rows, ``/`` back.
        self.panel.filter_input.focus()
