"""Every row of one chat's timeline, kept as columns of a few tens of bytes an event.

A timeline shows every event of a chat, and a fast host sends 10,000 a second: an `Entry`
object for each (its `Row`, the frame's text to open the event again, the links to items)
was about 600 bytes an event, 350 MB over a flood of 600,000 chunks (issue 26). So a chat's
timeline keeps, per event, what its rows are drawn and filtered from (the sequence, the time,
the type, node and run as numbers into tables of the distinct values, the worst finding, the
summary's text in one shared buffer, the items it made as a number) and where the event is in
the session's log (its position, and which event of the frame when a frame held several).
The event itself is read back from the session store when it is opened (`Reader`); an
`Entry` is made only for a row a view draws or a caller asks for, the last `WINDOW` of them
kept made.

Kept whole, as they are: the entries of events a key cut across pieces touches (their row and
event show the piece masked, `openwop_tui.inspect.split_keys`), until the piece shows as the
host sent it; and, for events that are in no store (a chat without one, a store that could
not take them), the event as its frame's text, the newest `HELD_EVENTS` of them: an older one
opened says it is no longer kept (`NotKept`), its row stays.

Pure Python over `array`: no Textual; the view reads it as a sequence of entries.
"""

from __future__ import annotations

import math
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from typing import cast, overload

from openwop_tui.inspect.findings import Severity
from openwop_tui.inspect.timeline import Row
from openwop_tui.protocol.events import KeptEvent, RunEvent
from openwop_tui.text.sanitize import HostLine, HostText
from openwop_tui.ui.widgets.timeline_view import Entry, Place

__all__ = ["HELD_EVENTS", "WINDOW", "NotKept", "Reader", "Rows", "StoredEvent"]

#: Entries kept made (the rows a view draws, a few screens of them at a time, and what a
#: caller asked for last): made again from the columns when asked for after.
WINDOW = 2048
#: Events kept in memory for a chat whose events are in no store (the newest: an older one's
#: row stays, its event is no longer kept).
HELD_EVENTS = 50_000

#: A sequence that is none (``array('q')`` holds ints only).
_NO_SEQUENCE = -(2**63)
_WORST = {None: 0, Severity.INFO: 1, Severity.WARNING: 2, Severity.ERROR: 3}
_WORST_OF: tuple[Severity | None, ...] = (None, Severity.INFO, Severity.WARNING, Severity.ERROR)

Reader = Callable[[int, int, tuple[str | None, int | None]], RunEvent]
"""Reads an event back from the session store: (its entry's log position, which event of the
entry, its (run, sequence) to check it by). Raises `NotKept` when it cannot."""


class NotKept(Exception):
    """An event whose row is kept but whose event cannot be given: ``str()`` says why, to the
    user."""


class StoredEvent:
    """An event of the timeline kept as its place in the session's log, read back when asked
    for (Enter on its row, its copy)."""

    __slots__ = ("key", "part", "reader", "where")

    def __init__(
        self, reader: Reader, where: int, part: int, key: tuple[str | None, int | None]
    ) -> None:
        """The event of a log entry.

        Args:
            reader: What reads it back.
            where: The entry's log position.
            part: Which event of the entry it is.
            key: Its row's (run, sequence), which the event read back must have.
        """
        self.reader, self.where, self.part, self.key = reader, where, part, key

    def event(self) -> RunEvent:
        """The event, read back (raises `NotKept`)."""
        return self.reader(self.where, self.part, self.key)


class _Lost:
    """The event of a row kept without a store, after newer ones took its place."""

    __slots__ = ()

    def event(self) -> RunEvent:
        raise NotKept(
            "this event is no longer kept: the chat has no session store, and only its newest "
            f"{HELD_EVENTS:,} events are kept in memory"
        )


_LOST = _Lost()


class _Table:
    """Distinct values, each a number (0 stands for ``None``)."""

    __slots__ = ("_number", "values")

    def __init__(self) -> None:
        self.values: list[object] = [None]
        self._number: dict[object, int] = {}

    def number(self, value: object) -> int:
        if value is None:
            return 0
        found = self._number.get(value)
        if found is None:
            found = self._number[value] = len(self.values)
            self.values.append(value)
        return found


class Rows(Sequence[Entry]):
    """The rows of one chat's timeline, in order (see the module docstring); a sequence of
    `Entry`, each made when asked for."""

    def __init__(self, reader: Reader | None = None, place: Place | None = None) -> None:
        """``reader``: reads an event back from the store (``None``: nothing is in one);
        ``place``: what the entries made here count their index from (shared with the entries
        that arrive before they are kept here, so putting stored rows before them moves them
        all)."""
        self.reader = reader
        self.place = place if place is not None else Place()
        self._sequence = array("q")
        self._elapsed = array("d")
        self._type = array("L")
        self._node = array("L")
        self._run = array("L")
        self._items = array("L")
        self._worst = bytearray()
        self._summary = bytearray()
        self._ends = array("Q")
        self._where = array("q")
        self._part: dict[int, int] = {}
        self._marks: dict[int, tuple[str, ...]] = {}
        self._summaries: dict[int, str] = {}
        """Summaries that changed since their row was kept (a piece shown otherwise)."""
        self._texts = _Table()
        """The types, nodes and runs (host lines and text, cleaned)."""
        self._tuples = _Table()
        """The items' tuples (a reply's chunks all made the one reply)."""
        self._held: OrderedDict[int, RunEvent | KeptEvent] = OrderedDict()
        self._whole: dict[int, Entry] = {}
        self._made: OrderedDict[int, Entry] = OrderedDict()

    # ------------------------------------------------------------------ sequence

    def __len__(self) -> int:
        return len(self._type)

    @overload
    def __getitem__(self, index: int) -> Entry: ...
    @overload
    def __getitem__(self, index: slice) -> list[Entry]: ...
    def __getitem__(self, index: int | slice) -> Entry | list[Entry]:
        if isinstance(index, slice):
            return [self.entry(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self.entry(index)

    def __iter__(self) -> Iterator[Entry]:
        for index in range(len(self)):
            yield self.entry(index)

    @property
    def base(self) -> int:
        """What the entries made here count their index from (`Place`): the rows put before
        them since (`put_before`)."""
        return self.place.base

    def entry(self, index: int) -> Entry:
        """The entry at ``index``: kept whole, made lately, or made now from the columns."""
        whole = self._whole.get(index)
        if whole is not None:
            return whole
        made = self._made.get(index)
        if made is not None:
            self._made.move_to_end(index)
            return made
        entry = Entry(
            self.row(index),
            self._event_of(index),
            cast(tuple[str, ...], self._tuples.values[self._items[index]] or ()),
            ordinal=index - self.base,
            place=self.place,
        )
        self._made[index] = entry
        if len(self._made) > WINDOW:
            self._made.popitem(last=False)
        return entry

    def row(self, index: int) -> Row:
        """The row at ``index``, made from the columns (or the whole entry's)."""
        whole = self._whole.get(index)
        if whole is not None:
            return whole.row
        values = self._texts.values
        sequence = self._sequence[index]
        elapsed = self._elapsed[index]
        summary = self._summaries.get(index)
        return Row(
            sequence=None if sequence == _NO_SEQUENCE else sequence,
            elapsed=None if math.isnan(elapsed) else elapsed,
            type=cast(HostLine, values[self._type[index]]),
            node=cast(HostLine | None, values[self._node[index]]),
            summary=cast(HostLine, summary if summary is not None else self._summary_at(index)),
            marks=self._marks.get(index, ()),
            worst=_WORST_OF[self._worst[index]],
            run_id=cast(HostText | None, values[self._run[index]]),
        )

    def key(self, index: int) -> tuple[str | None, int | None]:
        """The (run, sequence) of the row at ``index``."""
        sequence = self._sequence[index]
        run = cast(str | None, self._texts.values[self._run[index]])
        return run, None if sequence == _NO_SEQUENCE else sequence

    def where(self, index: int) -> int:
        """The log position of the event at ``index`` (-1: in no store)."""
        return self._where[index]

    def _event_of(self, index: int) -> RunEvent | KeptEvent | StoredEvent | _Lost:
        where = self._where[index]
        if where >= 0 and self.reader is not None:
            return StoredEvent(self.reader, where, self._part.get(index, 0), self.key(index))
        return self._held.get(index, _LOST)

    def let_go(self) -> None:
        """Let go of the entries made lately (the next ones asked for are made from the
        columns, their events read back): what a long idle timeline need not hold."""
        self._made.clear()

    # ------------------------------------------------------------------ changes

    def append(self, entry: Entry) -> None:
        """Keep ``entry`` (inspected: its row is final but for a piece a later one changes) as
        the next row; it is this table's from now on (`index`)."""
        index = len(self)
        row = entry.row
        self._sequence.append(_NO_SEQUENCE if row.sequence is None else row.sequence)
        self._elapsed.append(math.nan if row.elapsed is None else row.elapsed)
        self._type.append(self._texts.number(row.type))
        self._node.append(self._texts.number(row.node))
        self._run.append(self._texts.number(row.run_id))
        self._items.append(self._tuples.number(entry.items or None))
        self._worst.append(_WORST[row.worst])
        self._summary += row.summary.encode("utf-8", "surrogatepass")
        self._ends.append(len(self._summary))
        if row.marks:
            self._marks[index] = row.marks
        stored = entry.where >= 0 and self.reader is not None
        self._where.append(entry.where if stored else -1)
        if entry.part:
            self._part[index] = entry.part
        if not stored and not isinstance(entry.kept, _Lost | StoredEvent):
            self._held[index] = cast(RunEvent | KeptEvent, entry.kept)
            if len(self._held) > HELD_EVENTS:
                self._held.popitem(last=False)
        entry.ordinal, entry.place = index - self.base, self.place
        if entry.piece is not None and not entry.piece.plain:
            self._whole[index] = entry
        else:
            # (It keeps what it holds while it is made here: the window lets it go.)
            self._made[index] = entry
            if len(self._made) > WINDOW:
                self._made.popitem(last=False)

    def changed(self, entry: Entry) -> None:
        """``entry``'s row or items changed (a later piece masked a key in it, its lint was
        folded again, it made an item): the columns follow; a piece that now shows as the
        host sent it no longer needs the entry kept whole."""
        index = entry.index
        if not 0 <= index < len(self):
            return  # (not kept here yet: `append` reads it as it is then)
        row = entry.row
        self._items[index] = self._tuples.number(entry.items or None)
        self._worst[index] = _WORST[row.worst]
        self._elapsed[index] = math.nan if row.elapsed is None else row.elapsed
        if row.marks:
            self._marks[index] = row.marks
        else:
            self._marks.pop(index, None)
        if entry.piece is not None and not entry.piece.plain:
            self._whole[index] = entry
            return
        self._whole.pop(index, None)
        if row.summary != self._summary_at(index):
            self._summaries[index] = row.summary  # (a piece's end shown once decided)
        else:
            self._summaries.pop(index, None)
        made = self._made.get(index)
        if made is not None and made is not entry:
            made.row, made.items = row, entry.items

    def _summary_at(self, index: int) -> str:
        start = self._ends[index - 1] if index else 0
        return self._summary[start : self._ends[index]].decode("utf-8", "surrogatepass")

    def put_before(self, older: Rows, chosen: Sequence[int] | None = None) -> int:
        """Put the rows of ``older`` (those at the indices ``chosen``, in order; ``None``:
        all) before these: the stored events, read after the live ones arrived. Every index
        here moves by the count put, returned (the entries made here move with it: their
        `Place`)."""
        if chosen is None:
            mine = older
        else:
            mine = Rows(self.reader, Place())
            for i in chosen:
                mine._copy_row(older, i)
        count = len(mine)
        for name in ("_sequence", "_elapsed", "_where"):
            setattr(self, name, getattr(mine, name) + getattr(self, name))
        # (Their numbers are of their own tables: numbered again in these.)
        for name, table, theirs in (
            ("_type", self._texts, mine._texts),
            ("_node", self._texts, mine._texts),
            ("_run", self._texts, mine._texts),
            ("_items", self._tuples, mine._tuples),
        ):
            renumber = [table.number(value) for value in theirs.values]
            column = array("L", (renumber[n] for n in getattr(mine, name)))
            setattr(self, name, column + getattr(self, name))
        self._worst = mine._worst + self._worst
        shift = len(mine._summary)
        self._ends = mine._ends + array("Q", (end + shift for end in self._ends))
        self._summary = mine._summary + self._summary
        for name in ("_part", "_marks", "_summaries", "_held", "_whole", "_made"):
            before: dict[int, object] = getattr(mine, name)
            moved = {i + count: v for i, v in getattr(self, name).items()}
            merged = type(getattr(self, name))(before)
            merged.update(moved)
            setattr(self, name, merged)
        for index, entry in mine._whole.items():
            entry.ordinal, entry.place = index - self.base - count, self.place
        self._made.clear()  # (made from the older table: made again here when asked for)
        self.place.base += count
        return count

    def _copy_row(self, other: Rows, index: int) -> None:
        """Append row ``index`` of ``other``, with its event's place and what is kept whole."""
        mine = len(self)
        values = other._texts.values
        self._sequence.append(other._sequence[index])
        self._elapsed.append(other._elapsed[index])
        self._type.append(self._texts.number(values[other._type[index]]))
        self._node.append(self._texts.number(values[other._node[index]]))
        self._run.append(self._texts.number(values[other._run[index]]))
        self._items.append(self._tuples.number(other._tuples.values[other._items[index]]))
        self._worst.append(other._worst[index])
        self._summary += other._summary_at(index).encode("utf-8", "surrogatepass")
        summary = other._summaries.get(index)
        if summary is not None:
            self._summaries[mine] = summary
        self._ends.append(len(self._summary))
        self._where.append(other._where[index])
        for name in ("_part", "_marks", "_held", "_whole"):
            value = getattr(other, name).get(index)
            if value is not None:
                getattr(self, name)[mine] = value

    def matching(
        self, passes: Callable[[Row], bool], among: Sequence[int] | None = None
    ) -> array[int]:
        """The indices of the rows ``passes`` lets through, in order, each row made from the
        columns in turn (``among``: only these)."""
        found: array[int] = array("q")
        for index in range(len(self)) if among is None else among:
            if passes(self.row(index)):
                found.append(index)
        return found
