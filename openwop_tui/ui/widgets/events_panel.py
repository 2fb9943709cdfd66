"""The events panel: every run event as it arrived, for inspecting a run live.

A `RichLog` (Line API) with one line per event: sequence, type, node and a compact payload.
Hidden until toggled. Bounded: each line shows at most `LINE_CHARS` of the payload (built from a
cut-down copy, so a 15 MB chunk is not serialised to show 300 characters of it), and the panel
keeps the last ``max_events`` lines, saying in its title how many events it let go.

Lines are drawn in the active theme's palette; the panel keeps what each line says (not how it
was drawn), so when the theme changes it writes them again in the new colours.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from rich.text import Text
from textual.theme import Theme
from textual.widgets import RichLog

from openwop_tui.core.items import EVENTS_SHOWN
from openwop_tui.present.palette import Palette
from openwop_tui.protocol.events import RunEvent
from openwop_tui.text.sanitize import HostText
from openwop_tui.text.units import compact_json
from openwop_tui.ui import theme_palette

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


NoteLevel = Literal["warning", "error", "info"]


@dataclass(frozen=True, slots=True)
class _Line:
    """What one line says: an event's parts, or a note (drawn with a palette when written)."""

    sequence: str = ""
    type: str = ""
    failed: bool = False
    node: str = ""
    payload: str = ""
    note: str = ""
    level: NoteLevel = "warning"

    def draw(self, palette: Palette) -> Text:
        if self.note:
            style = {"warning": palette.warning, "error": palette.error, "info": palette.muted}
            return Text(self.note, style=style[self.level])
        line = Text()
        line.append(f"{self.sequence:>4} ", style=palette.muted)
        line.append(self.type, style=palette.error if self.failed else "bold")
        if self.node:
            line.append(f" [{self.node}]", style=palette.accent)
        if self.payload:
            line.append(" " + self.payload, style=palette.muted)
        return line


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
        self._kept: deque[_Line] = deque(maxlen=max(1, max_events))
        """The lines on screen, to write again when the theme changes."""

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    @property
    def palette(self) -> Palette:
        return theme_palette.of(self.app.current_theme)

    def _theme_changed(self, theme: Theme) -> None:
        palette = theme_palette.of(theme)
        self.clear()
        for line in self._kept:
            self.write(line.draw(palette))

    def _log(self, line: _Line) -> None:
        """Write a line, and say in the title once older lines are being let go."""
        self.written += 1
        self._kept.append(line)
        if self.written > self.max_events:
            self.border_title = (
                f"events · last {self.max_events:,} lines of {self.written:,} (max_events_shown)"
            )
        self.write(line.draw(self.palette))

    def add_event(self, event: RunEvent) -> None:
        """Log one event."""
        # The payload was cleaned by `normalize`: its JSON is clean too.
        payload = compact_json(preview(event.payload), LINE_CHARS) if event.payload else ""
        self._log(
            _Line(
                sequence=str(event.sequence) if event.sequence is not None else "-",
                type=event.type,
                failed=event.type.endswith("failed"),
                node=event.node_id or "",
                payload=payload,
            )
        )

    def add_note(self, text: HostText, level: NoteLevel = "warning") -> None:
        """Log something that is not an event (a malformed frame, a reconnect): cleaned text
        (a `StreamNotice`'s, or the client's own through `clean_own`)."""
        self._log(_Line(note=text or " ", level=level))
