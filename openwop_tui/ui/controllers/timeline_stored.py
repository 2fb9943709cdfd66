"""A timeline's events read back from the session store: every event of a stored log with its
place in it (`stored_events`), and one event from its place (`store_reader`), which is how the
timeline keeps an event it shows: as its place (`openwop_tui.ui.controllers.timeline_rows`).

An event read back is decoded as the timeline decoded it when it arrived (the same frame, the
same cleaning, the chat's secrets masked); the store masks the key, URL credentials and Bearer
tokens in what it keeps (a key cut across chunks too), so an event read back never shows more
than the one that arrived.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator

from openwop_tui.core.conversation import Conversation
from openwop_tui.inspect.log import Observed, observed
from openwop_tui.protocol.events import RunEvent
from openwop_tui.store.database import StoreError
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store
from openwop_tui.ui.controllers.timeline_rows import NotKept, Reader
from openwop_tui.ui.controllers.timeline_waiting import READ_AHEAD, Waiting

__all__ = ["read_waiting", "store_reader", "stored_events"]

log = logging.getLogger(__name__)


def stored_events(
    entries: Iterable[Entry], secrets: tuple[str, ...]
) -> Iterator[tuple[Observed, int, int]]:
    """Every event of a stored log's ``entries`` (as `openwop_tui.inspect.log.observed_entries`
    gives them, what is no event left out), with its entry's log position and which event of
    that entry it is."""
    for entry in entries:
        arrival = entry.arrival
        if arrival is None:
            continue
        at = entry.at if entry.at else None
        found = observed(arrival, run_id=entry.run or "?", secrets=secrets, at=at)
        for part, seen in enumerate(item for item in found if item.event is not None):
            yield seen, entry.seq, part


def store_reader(store: Callable[[], Store | None], conversation: Conversation) -> Reader:
    """What reads an event of ``conversation`` back from ``store()`` (the chat's store, as it
    is when asked): the event ``part`` of the entry at a log position, checked by its (run,
    sequence); raises `NotKept` with a sentence for the user when it cannot."""

    def read(where: int, part: int, key: tuple[str | None, int | None]) -> RunEvent:
        kept, log = store(), conversation.logbook.session_log
        session_id = log.session_id if log is not None else None
        if kept is None or session_id is None:
            raise NotKept("this event is not in a session store")
        try:
            found = stored_events(kept.entries(session_id, where, where + 1), conversation.secrets)
            events = [seen.event for seen, _, _ in found if seen.event is not None]
        except StoreError as error:
            raise NotKept(f"this event could not be read from the session store: {error}") from None
        chosen = events[part] if part < len(events) else None
        if chosen is None or (chosen.run_id, chosen.sequence) != key:
            # (Logged elsewhere than it was told: found by its run and sequence, if it is there.)
            chosen = next((e for e in events if (e.run_id, e.sequence) == key), None)
        if chosen is None:
            raise NotKept(
                "this event is not where the session store logged it (the store could not "
                "keep it when it arrived)"
            )
        return chosen

    return read


def read_waiting(
    waiting: Waiting,
    place: tuple[Store, str, tuple[int, int]],
    secrets: tuple[str, ...],
    *,
    at_once: bool,
) -> bool:
    """Read back from the store the events `waiting` keeps as their places, a block from the
    oldest; whether the oldest is read. A place the store holds no event at (it could not keep
    it) is given up, and logged.

    Args:
        waiting: The timeline's waiting events.
        place: The store, the session, and (the oldest's log position, the last of its run).
        secrets: The values masked in the events read.
        at_once: Every waiting event is inspected now: the appends still in their batch are
            written first. Else only what is written is read (the batch is not cut short).
    """
    store, session_id, (start, last) = place
    try:
        if at_once:
            store.flush()
        written = store.written(session_id, start, min(last + 1, start + READ_AHEAD))
    except StoreError as error:
        log.warning("the timeline could not read its waiting events back: %s", error)
        return False
    waiting.read(
        [
            (where, part, seen.event, seen.at)
            for seen, where, part in stored_events(written, secrets)
            if seen.event is not None
        ]
    )
    if waiting.first() is None:
        return True
    if written and written[0].seq == start:
        log.warning("no event at log position %s to inspect: left out", start)
        waiting.give_up()
        return True
    return False
