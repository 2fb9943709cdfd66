"""The logs a conversation appends to, and what waits for one that cannot be written.

A `Conversation` writes everything it learns to its logs (a stored session, a recording) as it
arrives. Losing a log must not lose the chat: an entry a log refuses (a full disk, a store gone
read-only) waits here, in order, and is written before the next one as soon as the log takes
entries again, while `Logbook.error` says why. A stored session commits in batches, so the tail
of a stream that goes quiet is written shortly after by a timer (`FlushTimer`), not at the
run's end. Beside the log, what each run folded to is kept too (`Logbook.keeper`), and a row
that cannot be written is said the same way.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from openwop_tui.core.log_flush import FlushTimer, pending
from openwop_tui.core.reopen import FoldKeeper
from openwop_tui.core.updates import EventLog
from openwop_tui.store.database import StoreError, Unwritten
from openwop_tui.store.folds import FoldRow
from openwop_tui.store.histories import HistoryRow
from openwop_tui.store.records import Entry
from openwop_tui.store.search import IndexRow
from openwop_tui.store.sessions import SessionLog

__all__ = ["Logbook"]

log = logging.getLogger(__name__)


class Logbook:
    """A conversation's logs, written in order, nothing lost when one fails."""

    def __init__(self, logs: Sequence[EventLog] = ()) -> None:
        self.logs: list[EventLog] = list(logs)
        self.error: str | None = None
        """Why a log cannot be written now (``None`` once everything waiting is written):
        the conversation goes on, the app says so."""
        self._unwritten: dict[int, list[Entry]] = {}
        """Entries a log could not take yet, by log (its ``id``), oldest first."""
        self._flusher = FlushTimer(lambda: self.logs, self._failed, self._caught_up)

    def keeper(self, keep: SessionLog, *, folds: bool = True) -> FoldKeeper:
        """A keeper that keeps each run's fold (unless not ``folds``), what it did to the
        chat history and its searchable text beside the stored session ``keep`` as the run
        ends. A row that cannot be
        written goes to `error` (the log has everything; the next open folds again)."""

        def keep_fold(row: FoldRow) -> None:
            if folds:
                try:
                    keep.keep_fold(row)
                except StoreError as error:
                    self.error = str(error)

        def keep_history(row: HistoryRow) -> None:
            try:
                keep.keep_history(row)
            except StoreError as error:
                self.error = str(error)

        def keep_index(rows: list[IndexRow], through: int | None) -> None:
            try:
                keep.index(rows, through=through)
            except StoreError as error:
                self.error = str(error)

        return FoldKeeper(keep, keep_fold, histories=keep_history, index=keep_index)

    def append(self, entry: Entry) -> None:
        """Append ``entry`` to every log. A log that cannot take it keeps nothing from the
        chat: the entry waits here, in order, until it can."""
        for sink in self.logs:
            self._unwritten.setdefault(id(sink), []).append(entry)
            self._offer(sink)
        self._caught_up()
        # A stored session commits in batches: the tail of a stream that goes quiet is
        # written shortly after, not at the run's end.
        self._flusher.appended()

    def _offer(self, sink: EventLog) -> None:
        """Append what waits for ``sink``, oldest first, until it refuses one."""
        waiting = self._unwritten.setdefault(id(sink), [])
        while waiting:
            try:
                sink.append(waiting[0])
            except Unwritten as error:
                # Taken: the log holds it, in order, until it can write it (appending it
                # again would keep it twice).
                self._failed(str(error))
            except (StoreError, OSError) as error:
                # Losing the log must not lose the chat: say why, keep going, try again later.
                self._failed(str(error))
                return
            waiting.pop(0)

    def _caught_up(self) -> None:
        """Clear `error` once nothing waits for a log that failed."""
        if self.error is None or any(self._unwritten.values()):
            return
        if any(_failing(sink) for sink in self.logs):
            return
        self.error = None

    def _failed(self, why: str) -> None:
        self.error = why
        log.warning("event log write failed: %s", why)

    @property
    def unwritten(self) -> int:
        """Entries kept in memory only: waiting for a log that could not take them, or taken
        by one that could not write them yet (a full disk)."""
        held = sum(pending(sink) for sink in self.logs if _failing(sink))
        return held + sum(len(waiting) for waiting in self._unwritten.values())

    def forget_unkept(self) -> int:
        """Give up the entries the session store refused (the user chose to lose them); how
        many. They are not offered to it again, so no journal brings them back."""
        given_up = self.unkept_store_entries()
        for sink in self.logs:
            if isinstance(sink, SessionLog):
                self._unwritten.pop(id(sink), None)
        self._caught_up()
        return given_up

    def unkept_store_entries(self) -> int:
        """Entries for the session store that it never took (they are not in its journal
        either): what quitting now loses for sure."""
        return sum(
            len(self._unwritten.get(id(sink), ()))
            for sink in self.logs
            if isinstance(sink, SessionLog)
        )

    def flush(self) -> None:
        """Write what the logs hold uncommitted now (the app's exit paths, a view that wants
        the store complete); a failure goes to `error`, like every write's. Entries a log
        refused earlier are offered again first."""
        for sink in self.logs:
            if self._unwritten.get(id(sink)):
                self._offer(sink)
        self._flusher.flush()

    def close(self) -> None:
        """Close the logs that hold something open (a recording: flushed and closed); the
        others (the store) are closed by their owner."""
        for keep in self.logs:
            close = getattr(keep, "close", None)
            if close is not None:
                close()

    @property
    def session_log(self) -> SessionLog | None:
        """The stored session these logs keep (``None``: not kept). Asked at every event of
        a stream (a loop, not a generator: 0.1 against 0.5 us)."""
        for log in self.logs:
            if isinstance(log, SessionLog):
                return log
        return None


def _failing(sink: object) -> bool:
    """Whether ``sink`` holds entries it failed to write (a log without ``failing`` never
    holds any)."""
    return bool(getattr(sink, "failing", None))
