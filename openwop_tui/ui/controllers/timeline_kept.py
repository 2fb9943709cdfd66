"""What the event timeline keeps of one chat (`Kept`), and how its filter line is read
(`Chosen`): the state `openwop_tui.ui.controllers.timeline.TimelineController` works on.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from openwop_tui.inspect.split_keys import SplitKeyEvents
from openwop_tui.inspect.timeline import Row, RowFilter, with_piece_text
from openwop_tui.protocol.events import RunEvent
from openwop_tui.text.sanitize import HostText, one_line
from openwop_tui.ui.controllers.timeline_rows import Rows
from openwop_tui.ui.controllers.timeline_waiting import Waiting
from openwop_tui.ui.widgets.timeline_view import Entry, Shown

if TYPE_CHECKING:
    # Imported when the first event is inspected, not with the app (see `new_inspector`).
    from openwop_tui.inspect.inspector import Inspector
    from openwop_tui.inspect.lint import LintConfig

ITEM_TOKEN = "item:"
#: The row of an event not inspected yet (never drawn: only inspected entries reach a view).
UNREAD = Row(None, None, one_line(HostText("")), None, one_line(HostText("")))


@dataclass(frozen=True, slots=True)
class Chosen:
    """A filter line read: the `RowFilter`, and the items whose events only are shown."""

    rows: RowFilter
    items: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Chosen:
        items = tuple(t[len(ITEM_TOKEN) :] for t in text.split() if t.startswith(ITEM_TOKEN))
        rest = " ".join(t for t in text.split() if not t.startswith(ITEM_TOKEN))
        return cls(RowFilter.parse(rest), tuple(i for i in items if i))

    @property
    def empty(self) -> bool:
        return self.rows.empty and not self.items


def new_inspector(lint: LintConfig | None = None) -> Inspector:
    """A new inspector (its module imported on first use: see TYPE_CHECKING), keeping no rows
    of its own: the timeline keeps them (`Rows`)."""
    from openwop_tui.inspect.inspector import Inspector

    return Inspector(lint, keep_rows=False)


class Spans:
    """Indices of rows, as ranges: the events of one item (a reply's chunks are consecutive
    rows, so a reply of 150,000 chunks is a range or a few, not 150,000 list slots)."""

    __slots__ = ("_starts", "_stops")

    def __init__(self) -> None:
        self._starts = array("q")
        self._stops = array("q")

    def add(self, index: int) -> None:
        """Count row ``index`` in (the next row, mostly: its range grows)."""
        starts, stops = self._starts, self._stops
        if stops and stops[-1] == index:
            stops[-1] += 1
            return
        if index in self:
            return
        at = bisect_right(starts, index)
        starts.insert(at, index)
        stops.insert(at, index + 1)

    def __contains__(self, index: object) -> bool:
        if not isinstance(index, int):
            return False
        at = bisect_right(self._starts, index) - 1
        return at >= 0 and index < self._stops[at]

    def __iter__(self) -> Iterator[int]:
        for start, stop in zip(self._starts, self._stops, strict=True):
            yield from range(start, stop)

    def __bool__(self) -> bool:
        return bool(self._starts)

    def shift(self, count: int) -> None:
        """Every index moves by ``count`` (rows put before them)."""
        self._starts = array("q", (i + count for i in self._starts))
        self._stops = array("q", (i + count for i in self._stops))


class Only:
    """The rows of some items (an ``item:`` filter): the union of their `Spans`."""

    __slots__ = ("_spans",)

    def __init__(self, spans: list[Spans]) -> None:
        self._spans = spans

    def __contains__(self, index: object) -> bool:
        return any(index in spans for spans in self._spans)

    def indices(self) -> list[int]:
        """Every index, in order, once."""
        return sorted({i for spans in self._spans for i in spans})


@dataclass(eq=False)
class Kept:
    """One chat's timeline."""

    inspector: Inspector = field(default_factory=lambda: new_inspector())
    entries: Rows = field(default_factory=Rows)
    """Every row inspected, in order (columns: an entry is made when asked for)."""
    filter_text: str = ""
    chosen: Chosen = field(default_factory=lambda: Chosen(RowFilter()))
    events_of: dict[str, Spans] = field(default_factory=dict)
    """The events (their rows' indices) that made or changed each item, in order."""
    last: Entry | None = None
    """The entry of the event that arrived last (what the items it makes link to)."""
    last_where: tuple[int, int] = (-1, 0)
    """Where the event that arrived last was logged: (log position, which event of it)."""
    pending: list[Entry] = field(default_factory=list)
    """Rows not yet handed to the panels."""
    told: tuple[object, object] = (None, None)
    """The host client and discovery the lint was last told of (to tell it of a new one)."""
    stored: dict[tuple[str | None, int | None], int] = field(default_factory=dict)
    """The rows read from the store last (their indices), by (run, sequence): an event that
    arrives live after its row was read (the store is written as events come) is that row,
    not a second one."""
    keys: SplitKeyEvents | None = None
    """The chat's streams of pieces, followed for a key cut across them (made for the secrets
    in ``keys_for``: a new key set in the settings starts new ones)."""
    keys_for: tuple[str, ...] = ()
    redraw: bool = False
    """Rows already handed to the panels changed (a later piece masked a key in them)."""
    unread: str | None = None
    """The stored session whose events are not read yet (read the first time the timeline
    is shown: `TimelineController._stored_in`)."""
    reading: bool = False
    """The stored events are being read (`TimelineController._read_stored`)."""
    live: list[tuple[Entry, float]] = field(default_factory=list)
    """The events that arrived before they were read, with their arrival times: folded again
    after them once they are in."""
    queued: Waiting = field(default_factory=Waiting)
    """The entries of events that arrived and are not inspected yet (their rows stand for
    nothing yet: `UNREAD`), oldest first, with their arrival times (`_inspect`); those that
    waited long as their places in the store."""
    badges: list[tuple[Entry, str]] = field(default_factory=list)
    """Envelope items whose events are still queued: their badges follow their inspection."""
    arrived_at: float = 0.0
    """`time.monotonic` when the last event arrived (a run still streaming, or not)."""

    def mask(self, event: RunEvent, entry: Entry, secrets: tuple[str, ...]) -> None:
        """Follow ``event`` through the chat's streams of pieces: a key cut across chunks is
        masked in its row and its event (`Entry.piece`), and in the earlier rows it completes.

        Here, where every event becomes a row, so no view of the timeline (the panels, the
        item's events, the event's JSON, its copy) can show a piece: they all read rows. Most
        pieces cost one substring test (`PieceChain` skips what cannot touch a key).

        Args:
            event: The event just folded.
            entry: Its timeline row.
            secrets: The values masked; new ones start the streams afresh.
        """
        if self.keys is None or self.keys_for is not secrets:
            self.keys, self.keys_for = SplitKeyEvents(secrets), secrets
        piece, changed = self.keys.add(event, entry)
        if piece is not None:
            entry.piece = piece
            entry.row = with_piece_text(entry.row, piece.text)
        for earlier in changed:
            if isinstance(earlier, Entry) and earlier.piece is not None:
                earlier.row = with_piece_text(earlier.row, earlier.piece.text)
                self.entries.changed(earlier)
                # Usually the last event, not drawn yet: the batch will draw it as it is now.
                self.redraw = self.redraw or not any(e is earlier for e in reversed(self.pending))

    def passes(self, entry: Entry, only: Only | None) -> bool:
        if only is not None and entry.index not in only:
            return False
        return self.chosen.rows.empty or self.chosen.rows.matches(entry.row)

    def only(self) -> Only | None:
        if not self.chosen.items:
            return None
        return Only([self.events_of[i] for i in self.chosen.items if i in self.events_of])

    def shown(self) -> Shown:
        """The rows the filter lets through, as a view shows them (made as they are drawn)."""
        if self.chosen.empty:
            return Shown(self.entries)
        only = self.only()
        rows = self.chosen.rows
        among = only.indices() if only is not None else None
        return Shown(self.entries, self.entries.matching(rows.matches, among))
