"""Sessions kept in SQLite: the event log a transcript, a reopened chat and an export fold.

A session is an ordered log of `Entry` rows: the user's messages, each run's start and end, every
`Arrival` of its events exactly as the host sent it (an SSE frame's ``event:``, ``id:`` and data
text, never cleaned: cleaning happens when an event is normalised), and the notices about the
stream. Appends are gathered and committed together, one transaction per ~50 ms or 500 entries
(`openwop_tui.store.batch`), and at once for a user's message, a run's end, any read and
`Store.close`: a process that is killed loses at most the batch still open, never a damaged
file (WAL with ``synchronous=NORMAL``: a commit survives the process, not a power cut).

Secrets never reach the file: the API key, URL credentials and Bearer tokens are masked
wherever any text carries them (`Redactor`: the one change ever made to what the host sent), a
key a host split between the chunks of several rows is masked in each of them
(`openwop_tui.store.keys`), and a session's host is its display URL.

A long entry is kept as content-defined chunks, each stored once however many entries share
it (`openwop_tui.store.chunks`): a host that echoes the chat history in every ``run.started``
costs the store the new messages of each turn, not the history again. A store written before
chunks is converted as it opens, after a copy of it is written beside it
(`openwop_tui.store.migration`).

Entries that cannot be written (a full disk) wait in memory, in order, and are written at the
next try; quitting keeps them in a journal file that the next `Store` opened writes in
(`openwop_tui.store.journal`, `Store.keep_in_journal`).

Fetched media bytes are kept too (`Store.put_asset`, keyed by URL, least recently used dropped
past `ASSET_BYTES`), so an export or a reopened session has its images without the host.

Every database failure is a `StoreError` with one sentence for the user: a corrupt file, a
locked one, a schema written by a newer version.

Where it is: `Store` (here) reads, lists, renames and deletes sessions, keeps runs' folds and
histories and media bytes; it is built on `openwop_tui.store.writer.Writer` (appending, the
batch, the journal) on `openwop_tui.store.database.Database` (the file, its schema, opening it,
transactions and `StoreError`). An `Entry` and a `SessionInfo` are `openwop_tui.store.records`;
reading rows back, damaged ones too, is `openwop_tui.store.reading`.
"""

from __future__ import annotations

import dataclasses
import logging
import sqlite3
import time
from collections.abc import Iterable, Iterator

from openwop_tui.store import chunks, folds, histories, reading, search
from openwop_tui.store.database import StoreError, store_error
from openwop_tui.store.folds import FoldRow
from openwop_tui.store.histories import HistoryRow
from openwop_tui.store.records import Entry, SessionInfo
from openwop_tui.store.search import Hit, IndexRow
from openwop_tui.store.writer import Writer
from openwop_tui.text.sanitize import clean_label

#: Total size of stored media bytes; the least recently used go first past it.
ASSET_BYTES = 256_000_000

log = logging.getLogger(__name__)

#: Longest title `Store.rename` takes.
RENAME_CHARS = 200

#: The longest range between kept runs read with the others at once (a message and its
#: notices; a run without a kept fold is read by itself, streamed).
_SMALL_GAP = 16


class Store(Writer):
    """The sessions database. One connection; appends are committed in batches
    (`openwop_tui.store.batch`, `openwop_tui.store.writer`), everything else at once."""

    # ------------------------------------------------------------------ entries

    def entries(self, session_id: str, start: int = 0, stop: int | None = None) -> Iterator[Entry]:
        """The session's log, in order (pending appends committed first); from ``seq``
        ``start`` up to, not including, ``stop``. Raises `StoreError` for an unknown id."""
        self.info(session_id)
        yield from self._entries(session_id, start, stop)

    def written(self, session_id: str, start: int, stop: int) -> list[Entry]:
        """The session's entries from ``start`` up to ``stop`` that are written already, in
        order: unlike `entries`, the appends waiting for their batch are not committed first
        (a reader that keeps up with the appends, the timeline, must not cut every batch
        short). Raises `StoreError`."""
        return list(self._entries(session_id, start, stop))

    def _entries(self, session_id: str, start: int, stop: int | None) -> Iterator[Entry]:
        try:
            yield from reading.entries(self._db, self._text, session_id, start, stop)
        except sqlite3.Error as error:
            raise store_error(error, self.path) from None

    # -------------------------------------------------------------- kept folds

    def _clean(self, data: bytes) -> bool:
        # Read as Latin-1 every byte is a character, and what is masked is ASCII.
        text = data.decode("latin-1")
        return self._redact(text) == text

    def run_start(self, session_id: str, newest: int) -> int | None:
        """The log position of the ``newest``-th newest ``run`` entry (1: the last run's),
        when the log has an older one too; ``None`` when it has no more than ``newest`` runs.
        Where a reopen that shows the newest runs first begins (`outline`'s ``since``).
        Raises `StoreError`."""
        try:
            found = self._db.execute(
                "SELECT seq FROM entries WHERE session = ? AND kind = 'run' "
                "ORDER BY seq DESC LIMIT 2 OFFSET ?",
                (session_id, newest - 1),
            ).fetchall()
        except sqlite3.Error as error:
            raise store_error(error, self.path) from None
        return int(found[0][0]) if len(found) == 2 else None

    def message_before(self, session_id: str, run_seq: int) -> Entry | None:
        """The user's message that started the run whose ``run`` entry is at ``run_seq`` (its
        ``user`` entry, logged before it, notices between), as stored; ``None`` when the run
        was started by none. Raises `StoreError`."""
        try:
            found = self._db.execute(
                "SELECT seq, kind FROM entries WHERE session = ? AND seq < ? "
                "AND kind IN ('user', 'run', 'end') ORDER BY seq DESC LIMIT 1",
                (session_id, run_seq),
            ).fetchone()
        except sqlite3.Error as error:
            raise store_error(error, self.path) from None
        if found is None or found[1] != "user":
            return None
        return next(iter(self._entries(session_id, found[0], found[0] + 1)), None)

    def outline(
        self, session_id: str, version: str, *, since: int = 0, until: int | None = None
    ) -> Iterator[Entry | FoldRow]:
        """The session's log with each run that has a kept fold given as that `FoldRow`
        (`openwop_tui.store.folds`) instead of its entries: what a reopen reads. Raises
        `StoreError`.

        Args:
            session_id: The stored session.
            version: The fold version a kept fold must have been made by to be given.
            since: The log position to read from.
            until: The log position to read up to, not including it; None: the log's end.
        """
        self.info(session_id)
        try:
            rows = folds.read(self._db, session_id, version, since=since)
        except sqlite3.Error as error:
            raise store_error(error, self.path) from None
        if until is not None:
            rows = [row for row in rows if row.stop < until]
        pairs = list(zip(folds.gaps(rows, since, until), [*rows, None], strict=True))
        small = [(lo, hi) for (lo, hi), _ in pairs if hi is not None and 0 < hi - lo <= _SMALL_GAP]
        try:
            read = reading.small_gaps(self._db, self._text, session_id, small)
        except sqlite3.Error as error:
            raise store_error(error, self.path) from None
        for (lo, hi), row in pairs:
            if hi is not None and (lo, hi) in read:
                yield from read.pop((lo, hi))
            elif hi is None or hi > lo:
                yield from self._entries(session_id, lo, hi)  # (streamed: it may be the log)
            if row is not None:
                yield row

    def keep_folds(self, session_id: str, rows: Iterable[FoldRow]) -> None:
        """Keep runs' folded results (one transaction). A row holding anything this store
        masks (the key, URL credentials, a Bearer token) is not kept: the log has it masked, and
        the run is folded from the log again instead. Raises `StoreError`."""
        rows = [row for row in rows if self._clean(row.data)]
        if not rows:
            return
        self.flush()
        with self._transaction() as db:
            folds.write(db, session_id, rows)

    def keep_histories(
        self, session_id: str, rows: Iterable[HistoryRow], *, replace: bool = False
    ) -> None:
        """Keep what runs did to the chat history (one transaction; a run that has a row
        keeps it unless ``replace``), masked as the log is: the history folded from the log
        holds the key masked too. Raises `StoreError`."""
        masked = [
            HistoryRow(
                row.start,
                row.before,
                tuple((role, self._redact(content)) for role, content in row.messages),
            )
            for row in rows
        ]
        if not masked or self.read_only is not None:
            return
        self.flush()
        with self._transaction() as db:
            histories.write(db, session_id, masked, replace=replace)

    def history_starts(self, session_id: str) -> set[int]:
        """The runs (their ``run`` entry's ``seq``) whose effect on the chat history is kept.
        Raises `StoreError`."""
        try:
            if not histories.has_table(self._db):
                return set()  # (a file this version could only open to read)
            return histories.starts(self._db, session_id)
        except sqlite3.Error as error:
            raise store_error(error, self.path) from None

    def history_before(self, session_id: str, since: int) -> list[dict[str, str]] | None:
        """The chat history as the run whose ``run`` entry is at ``since`` began, from the
        kept rows alone (`openwop_tui.store.histories`); ``None`` when they cannot tell.
        Raises `StoreError`."""
        self.flush()
        try:
            if not histories.has_table(self._db):
                return None  # (a file this version could only open to read)
            return histories.before(self._db, session_id, since)
        except sqlite3.Error as error:
            raise store_error(error, self.path) from None

    def sessions(self) -> list[SessionInfo]:
        """Every session, the most recently updated first."""
        return self._select("ORDER BY updated DESC, rowid DESC", ())

    def latest(self) -> SessionInfo | None:
        """The most recently updated session, or ``None`` when there is none."""
        rows = self._select("ORDER BY updated DESC, rowid DESC LIMIT 1", ())
        return rows[0] if rows else None

    def rename(self, session_id: str, title: str) -> None:
        """Give a session a new title: one line (`clean_label`), at most `RENAME_CHARS`."""
        title = clean_label(title).strip()
        if len(title) > RENAME_CHARS:
            raise StoreError(
                f"a session title is at most {RENAME_CHARS:,} characters; this one has "
                f"{len(title):,}: give a shorter one"
            )
        self.info(session_id)
        with self._transaction() as db:
            db.execute(
                "UPDATE sessions SET title = ? WHERE id = ?", (self._redact(title), session_id)
            )

    def delete(self, session_id: str) -> None:
        """Remove a session and its log, and the chunks only its log referred to (in the same
        transaction: a chunk another session shares stays)."""
        self.info(session_id)
        self._next.pop(session_id, None)
        with self._transaction() as db:
            if chunks.has_table(db):
                held = db.execute(
                    "SELECT data FROM entries WHERE session = ? AND substr(data, 1, 2) = ?",
                    (session_id, chunks.CHUNKED),
                ).fetchall()
                chunks.release(db, [row[0] for row in held])
            if search.has_table(db):
                search.remove(db, session_id)  # (its index with it: the triggers)
            db.execute("DELETE FROM folds WHERE session = ?", (session_id,))
            db.execute("DELETE FROM entries WHERE session = ?", (session_id,))
            db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    def archive(self, session_id: str, archived: bool = True) -> None:
        """Put a session away (out of the default list, kept whole) or, not ``archived``,
        back. Raises `StoreError`."""
        self.info(session_id)
        if not self._archivable():
            raise StoreError(
                f"the session store {self.path} is older than archiving and opened read-only: "
                "sessions cannot be archived in it"
            )
        with self._transaction() as db:
            db.execute("UPDATE sessions SET archived = ? WHERE id = ?", (int(archived), session_id))

    # ------------------------------------------------------------------- search

    def index(self, session_id: str, rows: Iterable[IndexRow], *, through: int | None) -> None:
        """Keep items' searchable text (`openwop_tui.store.search`; one transaction), and
        note the session's index complete through log entry ``through`` (not including it)
        when given: a session this store wrote from its start, whose every item so far is
        indexed. The key and credentials are masked, as in the log. Raises `StoreError`."""
        rows = self._masked(rows)
        if self.read_only is not None or not search.has_table(self._db):
            return
        self.flush()
        with self._transaction() as db:
            search.write(db, session_id, rows)
            if through is not None:
                db.execute(
                    "UPDATE sessions SET indexed = max(indexed, ?) WHERE id = ?",
                    (through, session_id),
                )

    def reindex(self, session_id: str, rows: Iterable[IndexRow], *, through: int) -> None:
        """Replace a session's searchable text with ``rows`` (folded from its log up to entry
        ``through``, not including it), in one transaction. Raises `StoreError`."""
        rows = self._masked(rows)
        if self.read_only is not None or not search.has_table(self._db):
            return
        self.flush()
        with self._transaction() as db:
            search.remove(db, session_id)
            search.write(db, session_id, rows)
            db.execute("UPDATE sessions SET indexed = ? WHERE id = ?", (through, session_id))

    def _masked(self, rows: Iterable[IndexRow]) -> list[IndexRow]:
        return [dataclasses.replace(row, text=self._redact(row.text)) for row in rows]

    def unindexed(self) -> list[str]:
        """The sessions whose log grew past their index (written before it, by an older
        version, or a run cut off), the most recently updated first. Raises `StoreError`."""
        self.flush()
        try:
            if not search.has_table(self._db):
                return []
            found = self._db.execute(
                "SELECT id FROM sessions WHERE indexed < entries ORDER BY updated DESC, rowid DESC"
            )
            return [str(row[0]) for row in found]
        except sqlite3.Error as error:
            raise store_error(error, self.path) from None

    def search_rows(self, query: str, *, limit: int) -> list[Hit]:
        """The index rows that may hold ``query`` (`openwop_tui.store.search.find`), at most
        ``limit``. Raises `StoreError` (a store without the index: opened read-only, older)."""
        self.flush()
        try:
            if not search.has_table(self._db):
                raise StoreError(
                    f"the session store {self.path} has no search index yet and is opened "
                    "read-only: open it once where it can be written"
                )
            return search.find(self._db, query, limit=limit)
        except sqlite3.Error as error:
            raise store_error(error, self.path) from None

    # ------------------------------------------------------------------- assets

    def put_asset(self, url: str, data: bytes, content_type: str | None = None) -> None:
        """Keep fetched media bytes for ``url``; the least recently used go past the cap."""
        if len(data) > ASSET_BYTES:
            return
        now = time.time()
        with self._transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO assets (url, content_type, data, size, used) "
                "VALUES (?, ?, ?, ?, ?)",
                (url, content_type, data, len(data), now),
            )
            total = int(db.execute("SELECT coalesce(sum(size), 0) FROM assets").fetchone()[0])
            while total > ASSET_BYTES:
                oldest = db.execute(
                    "SELECT url, size FROM assets WHERE url != ? ORDER BY used LIMIT 1", (url,)
                ).fetchone()
                if oldest is None:
                    break
                db.execute("DELETE FROM assets WHERE url = ?", (oldest[0],))
                total -= int(oldest[1])

    def asset(self, url: str) -> tuple[bytes, str | None] | None:
        """Stored bytes (and content type) for ``url``, or ``None``."""
        try:
            row = self._db.execute(
                "SELECT data, content_type FROM assets WHERE url = ?", (url,)
            ).fetchone()
        except sqlite3.Error as error:
            raise store_error(error, self.path) from None
        return (bytes(row[0]), row[1]) if row is not None else None


class SessionLog:
    """One stored session as an event log: what a `Conversation` appends to.

    A new session is created at its first entry, so starting the app and quitting without a
    word leaves no empty session behind.
    """

    def __init__(
        self, store: Store, session_id: str | None = None, *, host: str = "", workflow: str = ""
    ) -> None:
        """A session's log in ``store``.

        Args:
            store: The store it is kept in.
            session_id: The session; None: a new one, created with its first entry.
            host: The host a new session records (shown without credentials).
            workflow: The workflow a new session records.
        """
        self.store, self.session_id = store, session_id
        self._host, self._workflow = host, workflow
        self.new = session_id is None
        """The session did not exist when this log was made: all it holds was appended here."""

    def append(self, entry: Entry) -> None:
        """Append (creating the session first if it is new: with its first batch); committed
        with its batch (`Store.append`). Raises `StoreError`; `Unwritten` when the entry was
        taken but waits (a full disk)."""
        if self.session_id is None:
            self.session_id = self.store.create(
                host=self._host, workflow=self._workflow, with_batch=True
            )
            self.new = True
        try:
            self.store.append(self.session_id, entry)
        finally:
            # Its place even when its batch could not be written (it stays pending).
            self.last_seq = self.store.last_seq(self.session_id)

    def keep_fold(self, row: FoldRow) -> None:
        """Keep a completed run's fold beside this session's log. Raises `StoreError`."""
        if self.session_id is not None:
            self.store.keep_folds(self.session_id, [row])

    def keep_history(self, row: HistoryRow) -> None:
        """Keep what a run made live did to the chat history. Raises `StoreError`."""
        if self.session_id is not None:
            self.store.keep_histories(self.session_id, [row], replace=True)

    def index(self, rows: list[IndexRow], *, through: int | None) -> None:
        """Keep items' searchable text beside this session's log (`Store.index`); complete up
        to log position ``through`` only for a session this log made (what came before a
        reopened one was indexed by whoever wrote it, or is indexed whole later). Raises
        `StoreError`."""
        if self.session_id is not None:
            self.store.index(self.session_id, rows, through=through if self.new else None)

    last_seq: int = -1
    """The log position of the last entry appended here (-1: none yet)."""

    @property
    def pending(self) -> int:
        """Entries appended but not yet committed."""
        return self.store.pending

    @property
    def failing(self) -> str | None:
        """Why the entries waiting could not be written (``None``: nothing failed)."""
        return self.store.failing

    def flush(self) -> None:
        """Commit what is pending now. Raises `StoreError`."""
        self.store.flush()

    def close(self) -> None:
        """Commit what is pending (the app closes its logs as it exits). Never raises: at exit
        there is nobody left to tell but the log file."""
        try:
            self.store.flush()
        except StoreError as error:
            log.warning("the session's last entries were not kept: %s", error)
