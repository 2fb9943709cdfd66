"""What the event timeline keeps of one chat (`Kept`), and how its filter line is read
(`Chosen`): the state `openwop_tui.ui.controllers.timeline.TimelineController` works on.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from openwop_tui.inspect.split_keys import SplitKeyEvents
from openwop_tui.inspect.timeline import Row, RowFilter
from openwop_tui.text.sanitize import HostText, one_line
from openwop_tui.ui.widgets.timeline_view import Entry

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
    """A new inspector (its module imported on first use: see TYPE_CHECKING)."""
    from openwop_tui.inspect.inspector import Inspector

    return Inspector(lint)


@dataclass(eq=False)
class Kept:
    """One chat's timeline."""

    inspector: Inspector = field(default_factory=lambda: new_inspector())
    entries: list[Entry] = field(default_factory=list)
    filter_text: str = ""
    chosen: Chosen = field(default_factory=lambda: Chosen(RowFilter()))
    events_of: dict[str, list[Entry]] = field(default_factory=dict)
    """The events that made or changed each item, in order."""
    last: Entry | None = None
    pending: list[Entry] = field(default_factory=list)
    """Rows not yet handed to the panels."""
    told: tuple[object, object] = (None, None)
    """The host client and discovery the lint was last told of (to tell it of a new one)."""
    stored: dict[tuple[str | None, int | None], Entry] = field(default_factory=dict)
    """The rows read from the store, by (run, sequence): an event that arrives live after its
    row was read (the store is written as events come) is that row, not a second one."""
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
    queued: deque[tuple[Entry, float]] = field(default_factory=deque)
    """The entries of events that arrived and are not inspected yet (their rows stand for
    nothing yet: `UNREAD`), oldest first, with their arrival times (`_inspect`)."""
    badges: list[tuple[Entry, str]] = field(default_factory=list)
    """Envelope items whose events are still queued: their badges follow their inspection."""
    arrived_at: float = 0.0
    """`time.monotonic` when the last event arrived (a run still streaming, or not)."""

    def passes(self, entry: Entry, only: frozenset[Entry] | None) -> bool:
        if only is not None and entry not in only:
            return False
        return self.chosen.rows.empty or self.chosen.rows.matches(entry.row)

    def only(self) -> frozenset[Entry] | None:
        if not self.chosen.items:
            return None
        return frozenset(e for i in self.chosen.items for e in self.events_of.get(i, ()))

    def shown(self) -> list[Entry]:
        if self.chosen.empty:
            return list(self.entries)
        only = self.only()
        return [entry for entry in self.entries if self.passes(entry, only)]
