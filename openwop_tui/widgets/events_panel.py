"""The events panel: every run event as it arrived, for inspecting a run live.

A `RichLog` (Line API) with one line per event: sequence, type, node and a compact payload.
Hidden until toggled. Bounded: each line shows at most `LINE_CHARS` of the payload (built from a
cut-down copy, so a 15 MB chunk is not serialised to show 300 characters of it), and the panel
keeps the last ``max_events`` lines, saying in its title how many events it let go.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text
from textual.widgets import RichLog

from openwop_tui.items import EVENTS_SHOWN
from openwop_tui.protocol.events import RunEvent
from openwop_tui.sanitize import clean
from openwop_tui.units import compact_json

#: Payload characters shown per event line.
LINE_CHARS = 300


def preview(value: Any, depth: int = 0) -> Any:
    """A copy of ``value`` small enough to serialise for one line: long strings cut, long lists
    and deep nesting elided. Linear in what is kept, not in what the value holds."""
    if isinstance(value, str):
        return value if len(value) <= LINE_CHARS else value[:LINE_CHARS] + "…"
    if depth >= 4:
        return "…"
    if isinstance(value, Mapping):
        items = list(value.items())[:20]
        return {str(k): preview(v, depth + 1) for k, v in items}
    if isinstance(value, list | tuple):
        return [preview(v, depth + 1) for v in value[:20]]
    return value


class EventsPanel(RichLog):
    """Raw run events, newest at the bottom."""

    DEFAULT_CSS = """
    EventsPanel { dock: right; width: 45%; border-left: tall $primary; display: none; }
    EventsPanel.-visible { display: block; }
    """

    def __init__(self, *, id: str | None = None, max_events: int = EVENTS_SHOWN) -> None:
        super().__init__(id=id, wrap=True, markup=False, highlight=False, max_lines=max_events)
        self.border_title = "events"
        self.max_events = max_events
        self.written = 0
        """Lines written so far (events and notes); past ``max_events`` the oldest scroll away."""

    def _log(self, line: Text) -> None:
        """Write a line, and say in the title once older lines are being let go."""
        self.written += 1
        if self.written > self.max_events:
            self.border_title = (
                f"events · last {self.max_events:,} lines of {self.written:,} (max_events_shown)"
            )
        self.write(line)

    def add_event(self, event: RunEvent) -> None:
        """Log one event."""
        line = Text()
        line.append(f"{event.sequence if event.sequence is not None else '-':>4} ", style="dim")
        style = "bold red" if event.type.endswith("failed") else "bold"
        line.append(clean(event.type), style=style)
        if event.node_id:
            line.append(f" [{clean(event.node_id)}]", style="cyan")
        if event.payload:
            payload = preview(event.payload)
            line.append(" " + clean(compact_json(payload, LINE_CHARS)), style="dim")
        self._log(line)

    def add_note(self, text: str, style: str = "yellow") -> None:
        """Log something that is not an event (a malformed frame, a reconnect)."""
        self._log(Text(clean(text), style=style))
