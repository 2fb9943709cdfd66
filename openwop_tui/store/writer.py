"""The writing side of the session store: appends gathered into batches and committed together,
new sessions, a key split between rows masked in each, what waits when a write fails (a full
disk) and the journal it is kept in at quit.

`Writer` is the base of `openwop_tui.store.sessions.Store` (which adds the reads, the kept folds
and histories, renaming and deleting, and the media bytes), built on the connection of
`openwop_tui.store.database.Database`.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import sqlite3
import time
import uuid
import weakref
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Self

from openwop_tui.protocol.hostdata import secrets_of
from openwop_tui.store import chunks, journal, migration, search
from openwop_tui.store.batch import Batch, NewSession, Row, write_rows, write_sessions
from openwop_tui.store.database import (
    Database,
    StoreError,
    Transaction,
    Unwritten,
    journal_folders,
    mark_compressed,
    store_error,
)
from openwop_tui.store.entry_bytes import encode, fits, too_large
from openwop_tui.store.keys import SplitKeyRows
from openwop_tui.store.records import Entry, SessionInfo
from openwop_tui.text.redact import Redactor, display_url
from openwop_tui.text.sanitize import clean, clean_label

#: Longest title kept from a first message.
TITLE_CHARS = 80
#: Entries that close a piece of work: committed as soon as they are appended.
COMMIT_AT_ONCE = frozenset({"user", "end"})

# The store's one logger, whichever of its modules writes the line.
log = logging.getLogger("openwop_tui.store.sessions")


class Writer(Database):
    """Appends committed in batches (`openwop_tui.store.batch`), everything else at once."""

    _marks_written = False
    """Whether what this store writes is marked looked through as it closes
    (`migration.mark_written`): only if everything before it was, and what it writes keeps long
    entries as chunks (set once the store is open; a read-only one never)."""
    _wrote = False
    """Whether a write transaction began since the store was open."""

    def __init__(
        self, path: Path | None = None, *, secrets: Iterable[str | None] = (), dedup: bool = True
    ) -> None:
        """Open (creating if needed) the database at ``path`` (`default_path` by default).

        ``secrets`` (the API key) are masked in everything written. ``dedup`` off keeps long
        entries whole, compressed, as before chunks (`openwop_tui.store.chunks`): only the
        benchmark that measures what chunks save turns it off. Raises `StoreError`.
        """
        self.secrets = secrets_of(*secrets)
        self._dedup = dedup
        self._encode = chunks.encode_for_chunks if dedup else encode
        self._redact = Redactor(self.secrets)
        self._split = SplitKeyRows(self.secrets)
        self._batch = Batch()
        self._next: dict[str, int] = {}
        self._has_archived: bool | None = None
        """The ``seq`` the next append to each session checked so far will have."""
        self.failing: str | None = None
        """Why the last write failed while entries still wait (``None``: they do not)."""
        self.restored: list[journal.Restored] = []
        """Journals of earlier quits written in as this store opened (`take_journals`)."""
        self.journal_problems: list[str] = []
        """A sentence for each journal that could not be written in as this store opened
        (left where it is for the next start)."""
        super().__init__(path)
        if self.read_only is not None:
            return
        # A store nobody closed still writes its batch when it is collected or the
        # interpreter exits (an app exit path that forgot `close`).
        self._finalizer = weakref.finalize(self, _last_write, self._db, self._batch, self.path)
        self.restored = self.take_journals()
        self._marks_written = (
            dedup and not self.conversion_failed and migration.checked_all(self._db)
        )
        self._wrote = False

    # ------------------------------------------------------------------ journals

    @property
    def journal_folders(self) -> tuple[Path, ...]:
        """Where this store's journals go, the first that takes the file (`journal_folders`)."""
        return journal_folders(self.path)

    def _identity(self) -> str:
        return str(self.path.resolve())

    def take_journals(self) -> list[journal.Restored]:
        """Write every journal an earlier quit left for this store into it, each in one
        transaction, and remove it; what was written. A journal that cannot be written in now
        (the disk still full, a damaged file) stays for the next start, and
        ``journal_problems`` says why."""
        done: list[journal.Restored] = []
        if self.read_only is not None:
            return done
        for path in journal.found(self.journal_folders):
            taken: journal.Restored | None = None
            try:
                with self._transaction() as db:
                    taken = journal.take(
                        db,
                        path,
                        self._identity(),
                        lambda held: mark_compressed(db, (row.data for row in held.rows)),
                    )
            except (StoreError, OSError, ValueError, KeyError, TypeError) as error:
                if taken is not None:  # taken, but the transaction did not commit
                    journal.give_back(taken)
                why = str(error) if isinstance(error, StoreError) else _unreadable(error)
                problem = (
                    f"the journal {path} of an earlier quit is not in the store yet ({why}): it "
                    "is left there for the next start"
                )
                log.warning("%s", problem)
                self.journal_problems.append(problem)
                continue
            if taken is None:
                continue  # another store's, or another program took it
            try:
                taken.claimed.unlink()
            except OSError as error:  # written in: it must not be read again
                log.warning("the journal %s was written in but not removed: %s", path, error)
            done.append(taken)
        return done

    def keep_in_journal(self, target: Path) -> int:
        """Write every pending entry (and the sessions they need) to the journal file
        ``target``; how many. They no longer wait here: the next start writes them in. Raises
        `OSError` (then they still wait)."""
        sessions, rows = self._batch.take()
        if not rows and not sessions:
            return 0
        try:
            journal.write(target, journal.Held(self._identity(), sessions, rows))
        except OSError:
            self._batch.give_back(sessions, rows)
            raise
        self.failing = None
        return len(rows)

    def new_journal(self) -> list[Path]:
        """Paths a journal written now would have, in the order they are tried: the folders
        with room for it first (a full data folder takes no journal either)."""
        name = journal.name()
        needed = journal.size_of(self._batch.rows)

        def full(folder: Path) -> bool:
            free = journal.room(folder)
            return free is not None and free < needed

        return [folder / name for folder in sorted(self.journal_folders, key=full)]

    def _transaction(self) -> Transaction:
        self._wrote = True  # (for `close`: something may have been written since the open)
        return super()._transaction()

    def discard_pending(self) -> int:
        """Give up every entry still waiting (the user chose to lose them); how many."""
        sessions, rows = self._batch.take()
        for new in sessions:
            self._next.pop(new.id, None)
        self.failing = None
        return len(rows) + self._take_dropped()

    def _take_dropped(self) -> int:
        dropped, self._batch.dropped = self._batch.dropped, 0
        return dropped

    def close(self) -> None:
        """Write the pending batch and close the connection. Raises `StoreError` (closed all
        the same) when the batch cannot be written."""
        finalizer = getattr(self, "_finalizer", None)  # a read-only store has none
        if finalizer is not None:
            finalizer.detach()
        try:
            self.flush()
            if self._wrote and self._marks_written:
                migration.mark_written(self._db)
        finally:
            self._db.close()

    @property
    def pending(self) -> int:
        """Entries appended but not yet committed."""
        return len(self._batch)

    def last_seq(self, session_id: str) -> int:
        """The log position of the last entry appended to ``session_id`` through this store
        (-1: none)."""
        return self._next.get(session_id, 0) - 1

    def flush(self) -> None:
        """Commit every pending append in one transaction. Raises `Unwritten` saying why it
        could not (the entries stay pending for the next try)."""
        if not self._batch.rows and not self._batch.sessions and not self._batch.dropped:
            return
        sessions, rows = self._batch.take()
        try:
            missing = self._write(sessions, rows) if rows or sessions else set()
        except StoreError as error:
            self._batch.give_back(sessions, rows)
            self.failing = str(error)
            raise Unwritten(str(self._with_losses(error))) from None
        self.failing = None
        if self._batch.dropped:
            raise self._with_losses(StoreError(f"the session store {self.path} lost entries"))
        if missing:
            for session_id in missing:
                self._next.pop(session_id, None)
            names = ", ".join(repr(m) for m in sorted(missing))
            raise StoreError(f"no stored session {names} (deleted meanwhile): entries not kept")

    def _with_losses(self, error: StoreError) -> StoreError:
        dropped = self._take_dropped()
        if not dropped:
            return error
        return StoreError(f"{error} ({dropped:,} entries could not be kept)")

    def _write(self, sessions: list[NewSession], rows: list[Row]) -> set[str]:
        """Create ``sessions`` and insert ``rows`` in one transaction; the sessions that no
        longer exist."""
        with self._transaction() as db:
            mark_compressed(db, (row.data for row in rows))
            write_sessions(db, sessions)
            return write_rows(db, rows, dedup=self._dedup)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def create(self, *, host: str, workflow: str, title: str = "", with_batch: bool = False) -> str:
        """A new, empty session; its id.

        Args:
            host: The host it talks to (stored without credentials).
            workflow: The workflow its messages run.
            title: Its title; empty until the first message names it.
            with_batch: Created with the next batch (its first entries), so a store that
                cannot be written now still takes it (it waits with them, `Unwritten`).
        """
        if self.read_only is not None:
            raise StoreError(self.read_only)
        session_id = uuid.uuid4().hex[:12]
        new = NewSession(
            session_id, self._redact(title), self._redact(display_url(host)), workflow, time.time()
        )
        if with_batch:
            self._batch.sessions.append(new)
        else:
            with self._transaction() as db:
                write_sessions(db, [new])
        self._next[session_id] = 0
        return session_id

    def _rewrite(self, session_id: str, seq: int, text: str) -> None:
        """Entry ``seq`` of ``session_id`` now holds ``text`` (a split key masked across it):
        in the batch while it waits there, else in the database."""
        data = self._encode(text)
        waiting = [i for i, row in enumerate(self._batch.rows) if row.session == session_id]
        # ``_next`` already counts the entry being appended, which is not in the batch yet.
        first_waiting = self._next[session_id] - 1 - len(waiting)
        place = seq - first_waiting
        if 0 <= place < len(waiting):
            index = waiting[place]
            self._batch.rows[index] = dataclasses.replace(self._batch.rows[index], data=data)
            return
        with self._transaction() as db:
            mark_compressed(db, [data])
            where = (session_id, seq)
            old = db.execute("SELECT data FROM entries WHERE session = ? AND seq = ?", where)
            chunks.release(db, [row[0] for row in old.fetchall()])
            db.execute(
                "UPDATE entries SET data = ? WHERE session = ? AND seq = ?",
                (chunks.stored(db, data) if self._dedup else data, *where),
            )

    def append(self, session_id: str, entry: Entry) -> int:
        """Append ``entry``; its place in the session's log (its ``seq``). Committed with its
        batch: at once for a user's message or a run's end, else within `BATCH_SECONDS` of
        appends (or at the next read, `flush` or `close`). An entry over `ENTRY_BYTES` is kept
        as a notice saying so (what is written can always be read back). Raises `StoreError`
        for an unknown session, or when a batch this append completed could not be written
        (the entries stay pending)."""
        if self.read_only is not None:
            raise StoreError(self.read_only)
        if session_id not in self._next:
            self._next[session_id] = self.info(session_id).entries
        entry = _within_cap(entry)
        seq = self._next[session_id]
        self._next[session_id] = seq + 1
        # A key the host split between this row's chunk and earlier ones: masked in each.
        data, earlier = self._split.row(session_id, seq, entry.kind, entry.run, entry.data)
        redact = self._redact
        # (The row is made here, field by field: no stored `Entry` is made on the way, at
        # 10,000 events a second the second frozen record was a visible share of the ingest.)
        meta = redact(json.dumps(dict(entry.meta), default=str)) if entry.meta else None
        for earlier_seq, text in earlier:
            assert isinstance(earlier_seq, int)  # the refs given to `row` are seqs
            self._rewrite(session_id, earlier_seq, redact(text))
        # (A row the key follower found nothing of the keys in is not searched for them again.)
        data = redact.beyond_keys(data) if self._split.plain else redact(data)
        self._batch.add(
            Row(
                session_id,
                entry.at or time.time(),
                entry.kind,
                entry.run,
                redact(entry.label) if entry.label else entry.label,
                redact(entry.frame_id) if entry.frame_id else entry.frame_id,
                self._encode(data),
                meta,
                _title(data) if entry.kind == "user" else "",
            )
        )
        if entry.kind in COMMIT_AT_ONCE or self._batch.due():
            self.flush()
        return seq

    # -------------------------------------------- what an append to a stored session reads

    def info(self, session_id: str) -> SessionInfo:
        """One session's summary; `StoreError` naming the id when there is none."""
        rows = self._select("WHERE id = ?", (session_id,))
        if not rows:
            raise StoreError(f"no stored session {session_id!r}; `openwop-tui sessions` lists them")
        return rows[0]

    def _archivable(self) -> bool:
        """Whether the file has the ``archived`` column (`openwop_tui.store.search`)."""
        if self._has_archived is None:
            self._has_archived = "archived" in search.session_columns(self._db)
        return self._has_archived

    def _select(self, tail: str, args: tuple[Any, ...]) -> list[SessionInfo]:
        self.flush()  # what was appended is what is read
        try:
            # (A file opened read-only may be older than the ``archived`` column.)
            archived = "archived" if self._archivable() else "0"
            cursor = self._db.execute(
                "SELECT id, title, host, workflow, created, updated, messages, runs, entries, "
                f"{archived} FROM sessions {tail}",
                args,
            )
            # A boundary: the database is a file anyone may have written, so the text shown of
            # a session is cleaned as it is read.
            found = []
            for id, title, host, workflow, *counts, archived in cursor:
                created, updated, messages, runs, entries = counts
                found.append(
                    SessionInfo(
                        id,
                        clean(title),
                        clean(host),
                        clean(workflow),
                        created,
                        updated,
                        messages,
                        runs,
                        entries,
                        bool(archived),
                    )
                )
            return found
        except sqlite3.Error as error:
            raise store_error(error, self.path) from None


def _last_write(db: sqlite3.Connection, batch: Batch, path: Path) -> None:
    """The pending batch of a store that was never closed (collected, or at exit)."""
    sessions, rows = batch.take()
    if not rows and not sessions:
        return
    try:
        with Transaction(db, path):
            mark_compressed(db, (row.data for row in rows))
            write_sessions(db, sessions)
            write_rows(db, rows)
    except StoreError as error:
        log.warning("%d session entries were not kept: %s", len(rows), error)


def _unreadable(error: Exception) -> str:
    """Why a journal file could not be read, in words (no traceback, no JSON parser detail)."""
    if isinstance(error, OSError):
        return f"cannot be read: {error.strerror or error}"
    return "it is damaged: not a whole openwop-tui journal"


def _within_cap(entry: Entry) -> Entry:
    """``entry``, or when its text is over `ENTRY_BYTES`, a notice in its place saying so."""
    size = fits(entry.data)
    if size is None:
        return entry
    of_run = f" of run {clean_label(entry.run)[:200]}" if entry.run else ""
    text = f"an entry ({entry.kind}{of_run}) was not kept in the session store: {too_large(size)}"
    log.warning("%s", text)
    return Entry("notice", text, label="warning", meta={"unkept": size}, at=entry.at)


def _title(text: str) -> str:
    line = clean_label(" ".join(text.split()))
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"
