"""The events panel: every run event as it arrived, for inspecting a run live.

A `RichLog` (Line API, cheap however long it grows) with one line per event: sequence, type,
node and a compact payload. Hidden until toggled.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import RichLog

from openwop_tui.protocol.events import RunEvent
from openwop_tui.sanitize import clean
from openwop_tui.units import compact_json


class EventsPanel(RichLog):
    """Raw run events, newest at the bottom."""

    DEFAULT_CSS = """
    EventsPanel { dock: right; width: 45%; border-left: tall $primary; display: none; }
    EventsPanel.-visible { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, wrap=True, markup=False, highlight=False, max_lines=20_000)
        self.border_title = "events"

    def add_event(self, event: RunEvent) -> None:
        """Log one event."""
        line = Text()
        line.append(f"{event.sequence if event.sequence is not None else '-':>4} ", style="dim")
        style = "bold red" if event.type.endswith("failed") else "bold"
        line.append(clean(event.type), style=style)
        if event.node_id:
            line.append(f" [{clean(event.node_id)}]", style="cyan")
        if event.payload:
            line.append(" " + clean(compact_json(dict(event.payload), 300)), style="dim")
        self.write(line)

    def add_note(self, text: str, style: str = "yellow") -> None:
        """Log something that is not an event (a malformed frame, a reconnect)."""
        self.write(Text(clean(text), style=style))
