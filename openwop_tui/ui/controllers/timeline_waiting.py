"""The events that arrived and wait for their inspection, a few bytes each once they are in the
session store.

The timeline inspects events off the ingest's path, a few milliseconds a frame
(`openwop_tui.ui.controllers.timeline`): a fast host's flood (10,000 events a second) is
inspected after it, so its events wait, and four floods in a row kept 600,000 of them waiting,
each an `Entry` with its frame's text: about 850 bytes an event, most of what the app grew by
(issue 26). So an event that waits keeps its entry only while it is one of the `RECENT` that
arrived last (the items it makes link to it, its envelope's badge waits for it); older, an event
that is in the store waits as its place in the log (`Waiting.spill`), and is read back from the
store in blocks when its turn comes (`Waiting.take`).

An event that is in no store, whose badge waits for it, or that arrived while a reopened
session's events are read (it is folded again after them) keeps its entry until inspected.
"""

from __future__ import annotations

from array import array
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from openwop_tui.protocol.events import RunEvent
from openwop_tui.ui.widgets.timeline_view import Entry, Place

__all__ = ["READ_AHEAD", "RECENT", "Waiting"]

#: Entries kept whole at the end of the queue (about a frame of a fast host's events).
RECENT = 512
#: Log positions read back at once for the events waiting as their places (decoded together:
#: about a millisecond, within a frame's share of the inspection).
READ_AHEAD = 64


@dataclass(eq=False)
class _Places:
    """Consecutive waiting events kept as their places in the log."""

    ordinal: int
    """The first one's (`Entry.ordinal`); the others' follow it."""
    place: Place | None
    where: array[int] = field(default_factory=lambda: array("q"))
    part: array[int] = field(default_factory=lambda: array("L"))
    items: list[tuple[str, ...]] = field(default_factory=list)
    """The items each made (the same tuple, mostly: a run of one reply's chunks)."""
    taken: int = 0

    def __len__(self) -> int:
        return len(self.where) - self.taken

    def made(self, offset: int) -> Entry:
        """The entry of the event at ``offset``, made again (not inspected yet)."""
        from openwop_tui.ui.controllers.timeline_kept import UNREAD

        return Entry(
            UNREAD,
            _Unread(),
            self.items[offset],
            where=self.where[offset],
            part=self.part[offset],
            ordinal=self.ordinal + offset,
            place=self.place,
        )


class Waiting:
    """The events waiting for their inspection, oldest first (see the module docstring)."""

    def __init__(self) -> None:
        self._older: deque[tuple[Entry, float] | _Places] = deque()
        """The events that waited longest: entries kept whole, and runs of places."""
        self._recent: deque[tuple[Entry, float]] = deque()
        """The `RECENT` that arrived last (more until `spill`), after them."""
        self._count = 0
        self._held: set[int] = set()
        """Entries that may not be spilled (by id): a badge waits for them."""
        self._read: dict[tuple[int, int], tuple[RunEvent, float | None]] = {}

    def __len__(self) -> int:
        return self._count

    def __bool__(self) -> bool:
        return self._count > 0

    def __iter__(self) -> Iterator[tuple[Entry, float]]:
        """The entries waiting, in order (those spilled made again: their events are given
        only by `take`)."""
        for item in list(self._older):
            if isinstance(item, _Places):
                for offset in range(item.taken, len(item.where)):
                    yield item.made(offset), 0.0
            else:
                yield item
        yield from list(self._recent)

    def append(self, entry: Entry, at: float) -> None:
        """``entry`` arrived (at ``at``), after the others."""
        self._recent.append((entry, at))
        self._count += 1

    def hold(self, entry: Entry) -> None:
        """Keep ``entry`` whole until it is inspected (its envelope's badge waits for it)."""
        self._held.add(id(entry))

    def spill(self, spillable: Callable[[Entry], bool]) -> None:
        """Keep all but the `RECENT` entries that arrived last as their places in the log,
        those ``spillable`` lets be (in the store, not to be folded again later)."""
        recent, older = self._recent, self._older
        while len(recent) > RECENT:
            item = recent.popleft()
            entry = item[0]
            if id(entry) in self._held or not spillable(entry):
                older.append(item)
                continue
            places = older[-1] if older else None
            if not (
                isinstance(places, _Places)
                and places.ordinal + len(places.where) == entry.ordinal
                and places.place is entry.place
            ):
                places = _Places(entry.ordinal, entry.place)
                older.append(places)
            places.where.append(entry.where)
            places.part.append(entry.part)
            items = places.items
            # (Each chunk's entry has a tuple of its own: the run keeps one for all.)
            items.append(items[-1] if items and items[-1] == entry.items else entry.items)

    def first(self) -> tuple[int, int] | None:
        """(the oldest waiting event's log position, the last position of the run of places
        it begins) when it waits as its place and is not read back yet; else ``None``."""
        item = self._older[0] if self._older else None
        if not isinstance(item, _Places):
            return None
        where = item.where[item.taken]
        if (where, item.part[item.taken]) in self._read:
            return None
        return where, item.where[-1]

    def read(self, events: list[tuple[int, int, RunEvent, float | None]]) -> None:
        """Events read back for the places waiting (`first` onwards), in place of any read
        before (all taken, or of places that were not spilled)."""
        self._read = {(where, part): (event, at) for where, part, event, at in events}

    def give_up(self) -> None:
        """Forget the oldest waiting place: the store holds no event there."""
        item = self._older[0]
        assert isinstance(item, _Places)
        item.taken += 1
        self._count -= 1
        if not len(item):
            self._older.popleft()

    def take(self) -> tuple[Entry, RunEvent | None, float] | None:
        """The oldest waiting event: its entry, its event when it was read back for its place
        (``None``: the entry holds it), and when it arrived; ``None`` when none waits, or the
        oldest waits as its place and is not read back yet (its entry is not written yet)."""
        source = self._older if self._older else self._recent
        if not source:
            return None
        item = source[0]
        if not isinstance(item, _Places):
            source.popleft()
            self._count -= 1
            self._held.discard(id(item[0]))
            return item[0], None, item[1]
        found = self._read.pop((item.where[item.taken], item.part[item.taken]), None)
        if found is None:
            return None
        entry = item.made(item.taken)
        item.taken += 1
        self._count -= 1
        if not len(item):
            self._older.popleft()
        event, at = found
        return entry, event, at if at is not None else 0.0


class _Unread:
    """The event of a waiting entry made again: given with it by `Waiting.take`."""

    __slots__ = ()

    def event(self) -> RunEvent:
        raise LookupError("read back with its entry (Waiting.take)")


def in_store(entry: Entry) -> bool:
    """Whether a waiting ``entry``'s event is in the store (it may wait as its place)."""
    return entry.where >= 0
