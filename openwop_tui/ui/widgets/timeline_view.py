"""The event timeline's rows: one row per run event (a line, or two where narrow), drawn only for
the visible range.

A Line-API widget (a `ScrollView` with `render_line`, like `openwop_tui.ui.widgets.json_tree`):
whatever the count, a frame costs the rows on screen, each drawn once per width, selection and
theme into a `Strip` kept in a small cache. Never one widget per row.

Each row: the sequence, the seconds since the run started, the lint marks (``⚠ OW214``), the
event type, the node and a one-line summary (`openwop_tui.inspect.timeline.Row`, already
cleaned). On one line where they all fit (`ONE_LINE` columns: the timeline screen, a wide
panel); narrower (the panel beside the transcript at 120 columns and less) on two, so the node
and the summary are not cut off: the sequence, time and type, then under them the marks, the
node and the summary, the summary ended with ``…`` where it is longer than the line (Enter
shows the event whole).

New rows arrive in batches (`extend`, from `openwop_tui.ui.controllers.timeline`, at most at
frame rate); while following, the view stays on the newest; moving the cursor up pauses
it, End or ``f`` follows again.

Keys (focused): ↑/↓ (k/j), PageUp/PageDown, Home/End; Enter posts `Opened` (the event as a JSON
tree); ``t`` posts `GoToItem` (the transcript item the event made); ``f`` pauses or follows.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol, overload

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.theme import Theme

from openwop_tui.inspect.findings import Severity
from openwop_tui.inspect.split_keys import EventPiece, with_piece
from openwop_tui.inspect.timeline import Row
from openwop_tui.protocol.events import RunEvent
from openwop_tui.ui import theme_palette
from openwop_tui.ui.scroll_size import set_virtual_size

#: Rows kept drawn (a few screens' worth at a few widths).
CACHED_ROWS = 1024
_TYPE = 24
_NODE = 14
_MARKS = 9
#: Columns a row needs on one line: the fixed columns and room for a summary.
ONE_LINE = 6 + 10 + (_MARKS + 1) + (_TYPE + 1) + (_NODE + 1) + 30
#: Where the second line of a two-line row starts (under the time).
_INDENT = 6


class Reread(Protocol):
    """An event kept as what gives it again (its frame's text, its place in the store)."""

    def event(self) -> RunEvent: ...


class Place:
    """What the entries of a timeline count their index from: rows put before them later
    (a session's stored events, read once the live ones arrived) move them all at once."""

    __slots__ = ("base",)

    def __init__(self) -> None:
        self.base = 0


@dataclass(slots=True, eq=False)
class Entry:
    """One event of the timeline: its row (what is drawn), the event (what Enter opens) and the
    transcript items it made or changed.

    A timeline keeps no entry for each event (`openwop_tui.ui.controllers.timeline_rows`): one
    is made for an event that is arriving, a row a view draws or a caller asks for. The event
    is kept as what gives it again: its frame's text (`openwop_tui.protocol.events.keep`) or
    its place in the session store, decoded again when it is opened.
    """

    row: Row
    kept: RunEvent | Reread
    items: tuple[str, ...] = ()
    piece: EventPiece | None = None
    """For a chunk or reasoning delta that a key cut across pieces touches (or may, when the
    next piece comes): its piece as it may be shown, which the row and `event` show in place
    of the host's text (`openwop_tui.inspect.split_keys`)."""
    ordinal: int = -1
    place: Place | None = None
    """Its index among the timeline's rows is ``ordinal`` past ``place``'s base (`index`)."""
    where: int = -1
    """The log position of the entry its event arrived in (-1: in no store)."""
    part: int = 0
    """Which event of that entry it is (a frame may hold several)."""

    @property
    def index(self) -> int:
        """Its place among the timeline's rows (-1: not one of them)."""
        return -1 if self.place is None else self.ordinal + self.place.base

    @property
    def event(self) -> RunEvent:
        """The event (decoded again if it was kept as its text), a key cut across pieces
        masked in it: what every view of the event shows or copies."""
        kept = self.kept
        event = kept if isinstance(kept, RunEvent) else kept.event()
        piece = self.piece
        return event if piece is None or piece.plain else with_piece(event, piece.text)


class Shown(Sequence[Entry]):
    """The rows a view shows, in order: every row of a timeline up to a count, or those at
    some indices (a filter's); each entry made by the timeline when it is drawn."""

    def __init__(self, source: Sequence[Entry], indices: Iterable[int] | None = None) -> None:
        """``source``: the timeline's rows (or any entries); ``indices``: the ones shown
        (``None``: all of them as they are now)."""
        self.source = source
        self._indices = None if indices is None else array("q", indices)
        self._count = len(source) if indices is None else 0

    def __len__(self) -> int:
        return self._count if self._indices is None else len(self._indices)

    @overload
    def __getitem__(self, position: int) -> Entry: ...
    @overload
    def __getitem__(self, position: slice) -> list[Entry]: ...
    def __getitem__(self, position: int | slice) -> Entry | list[Entry]:
        if isinstance(position, slice):
            return [self[p] for p in range(*position.indices(len(self)))]
        if position < 0:
            position += len(self)
        if not 0 <= position < len(self):
            raise IndexError(position)
        return self.source[self.index_at(position)]

    def __iter__(self) -> Iterator[Entry]:
        for position in range(len(self)):
            yield self[position]

    def index_at(self, position: int) -> int:
        """The timeline's index of the row shown at ``position``."""
        return position if self._indices is None else self._indices[position]

    def add(self, index: int) -> None:
        """Show the timeline's row ``index`` too, after the others."""
        if self._indices is None:
            if index == self._count:
                self._count += 1
                return
            self._indices = array("q", range(self._count))
        self._indices.append(index)

    def position_of(self, index: int) -> int | None:
        """Where the timeline's row ``index`` is shown (``None``: it is not)."""
        if self._indices is None:
            return index if 0 <= index < self._count else None
        found = bisect_left(self._indices, index)
        return found if found < len(self._indices) and self._indices[found] == index else None


def elapsed_text(seconds: float | None) -> str:
    """``+1.234s`` (``-`` for an event without a time)."""
    if seconds is None:
        return "-"
    if abs(seconds) >= 1000:
        return f"+{seconds:.0f}s"
    return f"+{seconds:.3f}s"


def marks_text(row: Row) -> str:
    """The lint marks as shown: ``⚠ OW214`` (``✖`` when one is an error), ``""`` without."""
    if not row.marks:
        return ""
    sign = "✖" if row.worst == Severity.ERROR else "⚠" if row.worst == Severity.WARNING else "·"
    return f"{sign} {' '.join(row.marks)}"


def mark_cell(row: Row) -> str:
    """The marks column: ``⚠ OW216``, ``✖ OW214+2`` for three codes, ``""`` without."""
    if not row.marks:
        return ""
    more = f"+{len(row.marks) - 1}" if len(row.marks) > 1 else ""
    return f"{marks_text(row)[:1]} {row.marks[0]}{more}"[:_MARKS]


def row_text(row: Row) -> str:
    """The row as plain text (what tests and the hostile checks read)."""
    parts = [
        f"{row.sequence if row.sequence is not None else '-':>5}",
        f"{elapsed_text(row.elapsed):>9}",
        row.type,
        f"[{row.node}]" if row.node else "",
        row.summary,
        marks_text(row),
    ]
    return " ".join(part for part in parts if part)


def _ended(strip: Strip, width: int) -> Strip:
    """``strip`` in ``width`` cells, its last one ``…`` when it is cut."""
    if strip.cell_length <= width:
        return strip.adjust_cell_length(width)
    cut = strip.crop(0, max(width - 1, 0))
    return Strip([*cut, Segment("…", Style())]).adjust_cell_length(width)


class TimelineView(ScrollView, can_focus=True):
    """Rows of run events, newest at the bottom (see the module docstring)."""

    ALLOW_SELECT = False
    DEFAULT_CSS = """
    TimelineView { height: 1fr; overflow-x: hidden; scrollbar-gutter: stable; }
    TimelineView:focus { background-tint: $foreground 5%; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Up", show=False, tooltip="the previous event"),
        Binding("down,j", "move(1)", "Down", show=False, tooltip="the next event"),
        Binding("pageup", "page(-1)", "Page up", show=False, tooltip="a page up"),
        Binding("pagedown", "page(1)", "Page down", show=False, tooltip="a page down"),
        Binding("home", "first", "First", show=False, tooltip="the first event"),
        Binding("end", "last", "Last", show=False, tooltip="the last event"),
        Binding("enter", "open", "JSON", tooltip="the event as a JSON tree, with its findings"),
        Binding("t", "go_to_item", "To item", tooltip="the transcript item the event made"),
        Binding("f", "toggle_follow", "Pause/follow", tooltip="pause or follow new events"),
    ]

    class Opened(Message):
        """Enter on a row: show its event."""

        def __init__(self, entry: Entry) -> None:
            super().__init__()
            self.entry = entry

    class GoToItem(Message):
        """``t`` on a row: select the transcript item its event made."""

        def __init__(self, entry: Entry) -> None:
            super().__init__()
            self.entry = entry

    class FollowChanged(Message):
        """The view started or stopped following the newest row."""

        def __init__(self, view: TimelineView, following: bool) -> None:
            super().__init__()
            self.view = view
            self.following = following

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.entries: Shown = Shown([])
        """The rows shown (those the filter lets through), in arrival order."""
        self.cursor = 0
        self.following = True
        self._cache: LRUCache[tuple[int, int, bool, int], Strip] = LRUCache(CACHED_ROWS)
        self._styles: dict[str, Style] | None = None
        self._base = Style()

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, _theme: Theme) -> None:
        self._styles = None
        self._cache.clear()
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    # ------------------------------------------------------------------ content

    def set_entries(self, entries: Sequence[Entry]) -> None:
        """Show ``entries`` instead (a new filter, another chat): a `Shown` as it is, any other
        sequence as a copy."""
        self.entries = entries if isinstance(entries, Shown) else Shown(list(entries))
        self._cache.clear()
        self.cursor = min(self.cursor, max(len(self.entries) - 1, 0))
        self._resized()
        if self.following:
            self._to_end()
            # Before its first layout (a panel just shown, a screen just pushed) the view has
            # no height and cannot scroll yet: once laid out, it opens on the newest rows.
            self.call_after_refresh(self._end_if_following)
        self.refresh()

    def _end_if_following(self) -> None:
        if self.following:
            self._to_end()
            self.refresh()

    def on_resize(self) -> None:
        self._resized()  # (a row may take one line or two at the new width)
        self._end_if_following()

    def extend(self, entries: Iterable[Entry]) -> None:
        """Rows that just arrived (a batch, of the timeline the view shows): appended; kept in
        view while following."""
        before = len(self.entries)
        shown = self.entries
        for entry in entries:
            if isinstance(shown.source, list) and entry.index < 0:
                shown.source.append(entry)  # (entries of no timeline: a list of its own)
                shown.add(len(shown.source) - 1)
            else:
                shown.add(entry.index)
        if len(self.entries) == before:
            return
        self._resized()
        if self.following:
            self._to_end()
        self.refresh()

    def redraw(self) -> None:
        """Some rows changed in place (a later piece masked a key in them): drawn again."""
        self._cache.clear()
        self.refresh()

    def plain_lines(self) -> list[str]:
        """Every row shown, as plain text."""
        return [row_text(entry.row) for entry in self.entries]

    @property
    def selected(self) -> Entry | None:
        return self.entries[self.cursor] if 0 <= self.cursor < len(self.entries) else None

    @property
    def lines_per_row(self) -> int:
        """1 where a row fits on one line (`ONE_LINE`), else 2."""
        width = self.scrollable_content_region.width
        return 1 if width <= 0 or width >= ONE_LINE else 2

    def _resized(self) -> None:
        set_virtual_size(self, Size(0, len(self.entries) * self.lines_per_row))

    def _to_end(self) -> None:
        self.cursor = max(len(self.entries) - 1, 0)
        top = max(len(self.entries) - self._height(), 0) * self.lines_per_row
        self.scroll_to(y=top, animate=False, immediate=True)

    def _height(self) -> int:
        """Rows that fit in the view."""
        return max(self.scrollable_content_region.height // self.lines_per_row, 1)

    # ------------------------------------------------------------------ drawing

    def _palette_styles(self) -> dict[str, Style]:
        if self._styles is None:
            palette = theme_palette.of(self.app.current_theme)
            self._styles = {
                "muted": Style.parse(palette.muted),
                "type": Style(bold=True),
                "failed": Style.parse(palette.error) + Style(bold=True),
                "node": Style.parse(palette.accent),
                "error": Style.parse(palette.error) + Style(bold=True),
                "warning": Style.parse(palette.warning) + Style(bold=True),
                "info": Style.parse(palette.muted),
                "selected": Style.parse(palette.selection),
            }
        return self._styles

    def render_lines(self, crop: Region) -> list[Strip]:
        # The widget's own style walks its ancestors: once per frame, not once per line.
        self._base = self.rich_style
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        lines = self.lines_per_row
        index, part = divmod(self.scroll_offset.y + y, lines)
        if index >= len(self.entries) or width <= 0:
            return Strip.blank(width, self._base)
        selected = index == self.cursor and self.has_focus
        key = (self.entries.index_at(index), width, selected, part)
        strip = self._cache.get(key)
        if strip is None:
            row = self.entries[index].row
            strip = self._draw(row, width) if lines == 1 else self._draw_two(row, width, part)
            if selected:
                strip = strip.apply_style(self._palette_styles()["selected"])
            self._cache[key] = strip
        return strip.apply_style(self._base)

    def _draw(self, row: Row, width: int) -> Strip:
        styles = self._palette_styles()
        sequence = str(row.sequence) if row.sequence is not None else "-"
        segments = [
            Segment(f"{sequence:>5} ", styles["muted"]),
            Segment(f"{elapsed_text(row.elapsed):>9} ", styles["muted"]),
        ]
        # A column of its own, the same width on every row, so marks never push the type,
        # node and summary out of line; more codes than one are counted (all in the JSON view).
        level = row.worst.value if row.worst is not None else "info"
        segments.append(Segment(f"{mark_cell(row):<{_MARKS}} ", styles[level]))
        failed = row.type.endswith("failed")
        kind = row.type
        segments.append(Segment(f"{kind:<{_TYPE}} ", styles["failed" if failed else "type"]))
        node: str = row.node or ""
        if len(node) > _NODE:
            node = node[: _NODE - 1] + "…"
        segments.append(Segment(f"{node:<{_NODE}} ", styles["node"]))
        segments.append(Segment(row.summary, styles["muted"]))
        return Strip(segments).crop(0, width).adjust_cell_length(width)

    def _draw_two(self, row: Row, width: int, part: int) -> Strip:
        """Line ``part`` (0 or 1) of a row on two lines: the sequence, time and type; then the
        marks, the node and the summary, each in full but the summary, ended with ``…``."""
        styles = self._palette_styles()
        if part == 0:
            sequence = str(row.sequence) if row.sequence is not None else "-"
            failed = row.type.endswith("failed")
            segments = [
                Segment(f"{sequence:>5} ", styles["muted"]),
                Segment(f"{elapsed_text(row.elapsed):>9} ", styles["muted"]),
                Segment(row.type, styles["failed" if failed else "type"]),
            ]
        else:
            level = row.worst.value if row.worst is not None else "info"
            segments = [Segment(" " * _INDENT)]
            if row.marks:
                segments.append(Segment(f"{mark_cell(row)} ", styles[level]))
            if row.node:
                segments.append(Segment(f"{row.node} ", styles["node"]))
            segments.append(Segment(row.summary, styles["muted"]))
        return _ended(Strip(segments), width)

    # ------------------------------------------------------------------ keys

    def _set_following(self, following: bool) -> None:
        if following != self.following:
            self.following = following
            self.post_message(self.FollowChanged(self, following))

    def _go(self, index: int) -> None:
        old = self.cursor
        self.cursor = max(0, min(index, len(self.entries) - 1))
        lines = self.lines_per_row
        top = self.scroll_offset.y // lines
        if self.cursor < top:
            self.scroll_to(y=self.cursor * lines, animate=False, immediate=True)
        elif self.cursor >= top + self._height():
            first = self.cursor - self._height() + 1
            self.scroll_to(y=first * lines, animate=False, immediate=True)
        self.refresh_lines(old * lines, lines)
        self.refresh_lines(self.cursor * lines, lines)
        self._set_following(self.cursor >= len(self.entries) - 1 and self.following)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def action_move(self, step: int) -> None:
        if step < 0:
            self._set_following(False)
        self._go(self.cursor + step)

    def action_page(self, direction: int) -> None:
        if direction < 0:
            self._set_following(False)
        self._go(self.cursor + direction * max(self._height() - 1, 1))

    def action_first(self) -> None:
        self._set_following(False)
        self._go(0)

    def action_last(self) -> None:
        self._set_following(True)
        self._to_end()
        self.refresh()

    def action_toggle_follow(self) -> None:
        """Pause (stay where the cursor is while rows arrive) or follow the newest again."""
        if self.following:
            self._set_following(False)
        else:
            self.action_last()

    def action_open(self) -> None:
        entry = self.selected
        if entry is not None:
            self.post_message(self.Opened(entry))

    def action_go_to_item(self) -> None:
        entry = self.selected
        if entry is not None:
            self.post_message(self.GoToItem(entry))

    def select_entry(self, entry: Entry) -> None:
        """Put the cursor on ``entry`` (if shown), pausing the follow."""
        position = self.entries.position_of(entry.index) if entry.index >= 0 else None
        if position is None:
            position = next((p for p, shown in enumerate(self.entries) if shown is entry), None)
        if position is not None:
            self._set_following(False)
            self._go(position)
