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

Entries that cannot be written (a full disk) wait in memory, in order, and are written at the
next try; quitting keeps them in a journal file that the next `Store` opened writes in
(`openwop_tui.store.journal`, `Store.keep_in_journal`).

Fetched media bytes are kept too (`Store.put_asset`, keyed by URL, least recently used dropped
past `ASSET_BYTES`), so an export or a reopened session has its images without the host.

Every database failure is a `StoreError` with one sentence for the user: a corrupt file, a
locked one, a schema written by a newer version.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import sqlite3
import time
import uuid
import weakref
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import platformdirs

from openwop_tui.protocol.hostdata import secrets_of
from openwop_tui.protocol.sse import SSEFrame
from openwop_tui.protocol.stream import Arrival
from openwop_tui.store import folds, histories, journal
from openwop_tui.store.batch import Batch, NewSession, Row, write_rows, write_sessions
from openwop_tui.store.entry_bytes import COMPRESS_FROM as COMPRESS_FROM
from openwop_tui.store.entry_bytes import ENTRY_BYTES as ENTRY_BYTES
from openwop_tui.store.entry_bytes import (
    Unread,
    compressed,
    encode,
    fits,
    inflate,
    too_large,
)
from openwop_tui.store.folds import FoldRow
from openwop_tui.store.histories import HistoryRow
from openwop_tui.store.keys import SplitKeyRows
from openwop_tui.text.redact import Redactor, display_url
from openwop_tui.text.sanitize import HostText, clean, clean_label

#: The schema this code reads and writes (``PRAGMA user_version``). 2: long entries may be
#: kept compressed (`openwop_tui.store.entry_bytes`); a file is marked 2 when its first one
#: is, so a file without one still opens in an openwop-tui that reads 1.
SCHEMA_VERSION = 2
#: The schema a file holding no compressed entry is (and an older openwop-tui reads).
_PLAIN_SCHEMA = 1
#: Total size of stored media bytes; the least recently used go first past it.
ASSET_BYTES = 256_000_000
#: How long a write waits for another process holding the database.
LOCK_WAIT_SECONDS = 5.0
#: Longest title kept from a first message.
TITLE_CHARS = 80
#: Entries that close a piece of work: committed as soon as they are appended.
COMMIT_AT_ONCE = frozenset({"user", "end"})

log = logging.getLogger(__name__)

#: Longest title `Store.rename` takes.
RENAME_CHARS = 200

Kind = Literal["user", "notice", "run", "end", "frame", "document", "snapshot"]

_SCHEMA = """
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL DEFAULT '',
    host TEXT NOT NULL DEFAULT '',
    workflow TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL,
    updated REAL NOT NULL,
    messages INTEGER NOT NULL DEFAULT 0,
    runs INTEGER NOT NULL DEFAULT 0,
    entries INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE entries (
    session TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    at REAL NOT NULL,
    kind TEXT NOT NULL,
    run TEXT,
    label TEXT,
    frame_id TEXT,
    data BLOB,
    meta TEXT,
    PRIMARY KEY (session, seq)
);
CREATE TABLE assets (
    url TEXT PRIMARY KEY,
    content_type TEXT,
    data BLOB NOT NULL,
    size INTEGER NOT NULL,
    used REAL NOT NULL
);
CREATE INDEX sessions_by_update ON sessions(updated);
CREATE INDEX assets_by_use ON assets(used);
"""


class StoreError(Exception):
    """The session store cannot be used; ``str()`` is one sentence for the user."""


class Unwritten(StoreError):
    """The store took the entry but could not write it yet (a full disk): it waits in memory
    with the others (`Store.pending`) for the next try, or a journal at quit."""


def journal_folders(path: Path) -> tuple[Path, ...]:
    """Where journals of the store at ``path`` are written and looked for: the ``journal``
    folder beside it, then the state folder's (``$XDG_STATE_HOME/openwop-tui/journal``) for a
    data folder that takes no file at all."""
    spare = platformdirs.user_state_path("openwop-tui", appauthor=False) / "journal"
    return (path.parent / "journal", spare)


def default_path() -> Path:
    """``sessions.db`` in the user data folder (``$XDG_DATA_HOME/openwop-tui`` on Linux)."""
    return platformdirs.user_data_path("openwop-tui", appauthor=False) / "sessions.db"


#: What a query reads of an entry, in the order `Store._read` takes it.
_ENTRY_COLUMNS = "kind, data, run, label, frame_id, meta, at, seq"
#: The longest range between kept runs read with the others at once (a message and its
#: notices; a run without a kept fold is read by itself, streamed).
_SMALL_GAP = 16
#: Entries one query reads by number (under SQLite's limit of 999 parameters in old builds).
_SEQS_PER_QUERY = 900


@dataclass(frozen=True, slots=True)
class Entry:
    """One row of a session's log.

    ``kind``: ``user`` (``data`` is the message), ``notice`` (``label`` the level, ``data`` the
    text), ``run`` (the host created run ``run``; ``meta`` holds the workflow), ``end`` (the
    stream of ``run`` ended; ``meta`` may hold ``status`` or ``error``), ``frame`` (an SSE frame:
    ``label`` its ``event:``, ``frame_id`` its ``id:``, ``data`` its data text, ``meta`` the
    decoder's ``problem``), ``document`` (an event document from a JSON answer or a poll) or
    ``snapshot`` (the run snapshot a terminal event was synthesized from, as JSON).
    """

    kind: Kind
    data: str = ""
    run: str | None = None
    label: str | None = None
    frame_id: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    at: float = 0.0
    """Seconds since the epoch when it was appended (replay paces by it)."""
    seq: int = -1
    """Its place in the session's log (read from the store, or given by `Store.append`);
    -1 for an entry that is not in a store."""

    @property
    def arrival(self) -> Arrival | None:
        """The `Arrival` a ``frame``, ``document`` or ``snapshot`` entry holds."""
        if self.kind == "frame":
            problem = self.meta.get("problem")
            retry = self.meta.get("retry")
            return Arrival(
                frame=SSEFrame(
                    event=self.label or "message",
                    data=self.data,
                    id=self.frame_id,
                    retry=retry if isinstance(retry, int) else None,
                    problem=problem if isinstance(problem, str) else None,
                )
            )
        if self.kind == "document":
            return Arrival(document=self.data)
        if self.kind == "snapshot":
            try:
                snapshot = json.loads(self.data)
            except ValueError:
                return None
            return Arrival(snapshot=snapshot) if isinstance(snapshot, dict) else None
        return None

    @classmethod
    def of_arrival(cls, arrival: Arrival, run: str | None) -> Entry:
        """The entry that keeps ``arrival`` (of run ``run``)."""
        if arrival.frame is not None:
            frame = arrival.frame
            meta: dict[str, Any] = {}
            if frame.problem is not None:
                meta["problem"] = frame.problem
            if frame.retry is not None:
                meta["retry"] = frame.retry
            return cls(
                "frame", frame.data, run=run, label=frame.event, frame_id=frame.id, meta=meta
            )
        if arrival.document is not None:
            return cls("document", arrival.document, run=run)
        text = json.dumps(arrival.snapshot, default=str)
        return cls("snapshot", text, run=run)


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """A stored session as the list shows it."""

    id: str
    title: HostText
    host: HostText
    workflow: HostText
    created: float
    updated: float
    messages: int
    runs: int
    entries: int

    def as_json(self) -> dict[str, Any]:
        """A JSON-ready dict (``sessions --json``)."""
        return {
            "id": self.id,
            "title": self.title,
            "host": self.host,
            "workflow": self.workflow,
            "created": self.created,
            "updated": self.updated,
            "messages": self.messages,
            "runs": self.runs,
        }


def _mark_compressed(db: sqlite3.Connection, datas: Iterable[bytes]) -> None:
    """In the caller's transaction: a file about to hold its first compressed entry is marked
    with the schema that reads it (an older openwop-tui then says to upgrade, instead of
    showing those entries as damaged)."""
    if not any(compressed(data) for data in datas):
        return
    if int(db.execute("PRAGMA user_version").fetchone()[0]) < SCHEMA_VERSION:
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")


def _decode(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogatepass")
    return str(value)


class _Lenient:
    """Decodes what SQLite hands back, as the connection's ``text_factory``: a stored value
    that is not UTF-8 (a damaged file, another program's write) is read with U+FFFD in place
    of the bad bytes instead of failing the whole read, and counted so the reader can say so."""

    def __init__(self) -> None:
        self.damaged = 0

    def __call__(self, raw: bytes) -> str:
        try:
            return raw.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            self.damaged += 1
            return raw.decode("utf-8", "replace")

    def blob(self, value: Any) -> str | Unread:
        """A BLOB column (``data``) read the same way, a compressed one inflated first, within
        the bound of `openwop_tui.store.entry_bytes.inflate`: one that inflates past it or not
        at all is `Unread`."""
        if not isinstance(value, bytes):
            return _decode(value)
        if compressed(value):
            inflated = inflate(value)
            if isinstance(inflated, Unread):
                return inflated
            value = inflated
        return self(value)


def _unwritable(error: sqlite3.Error) -> bool:
    """Whether ``error`` says the database cannot be written (its folder, file or disk)."""
    text = str(error).lower()
    return any(word in text for word in ("readonly", "read-only", "unable to open", "disk i/o"))


def _failure(error: sqlite3.Error, path: Path) -> StoreError:
    """One sentence for a database error (no traceback, no SQL)."""
    text = str(error).lower()
    if "locked" in text or "busy" in text:
        return StoreError(
            f"the session store {path} is locked by another program; close it and try again"
        )
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return StoreError(
            f"the session store {path} is damaged (not a readable SQLite database); move it "
            "away to start a new one"
        )
    if "readonly" in text or "unable to open" in text or "disk" in text:
        return StoreError(f"the session store {path} cannot be written: {error}")
    return StoreError(f"the session store {path} cannot be used: {error}")


class Store:
    """The sessions database. One connection; appends are committed in batches
    (`openwop_tui.store.batch`), everything else at once."""

    def __init__(self, path: Path | None = None, *, secrets: Iterable[str | None] = ()) -> None:
        """Open (creating if needed) the database at ``path`` (`default_path` by default).

        ``secrets`` (the API key) are masked in everything written. Raises `StoreError`.
        """
        self.path = path or default_path()
        self.secrets = secrets_of(*secrets)
        self._redact = Redactor(self.secrets)
        self._split = SplitKeyRows(self.secrets)
        self._text = _Lenient()
        self._batch = Batch()
        self._next: dict[str, int] = {}
        """The ``seq`` the next append to each session checked so far will have."""
        self.failing: str | None = None
        """Why the last write failed while entries still wait (``None``: they do not)."""
        self.restored: list[journal.Restored] = []
        """Journals of earlier quits written in as this store opened (`take_journals`)."""
        self.journal_problems: list[str] = []
        """A sentence for each journal that could not be written in as this store opened
        (left where it is for the next start)."""
        self.read_only: str | None = None
        """Why nothing can be written (the file, its folder or the disk is read-only), or
        ``None``: listing, reopening and export work either way; a write raises `StoreError`
        with this sentence."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            if not self.path.is_file():
                raise StoreError(
                    f"cannot create the folder for the session store {self.path.parent}: "
                    f"{error.strerror or error}"
                ) from None
        try:
            self._db = self._connect(str(self.path), uri=False)
        except sqlite3.Error as error:
            self._open_read_only(_failure(error, self.path), error)
            return
        try:
            self._setup()
        except (sqlite3.Error, StoreError) as error:
            self._db.close()
            failure = error if isinstance(error, StoreError) else _failure(error, self.path)
            self._open_read_only(failure, error)
            return
        # A store nobody closed still writes its batch when it is collected or the
        # interpreter exits (an app exit path that forgot `close`).
        self._finalizer = weakref.finalize(self, _last_write, self._db, self._batch, self.path)
        self.restored = self.take_journals()

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
                        lambda held: _mark_compressed(db, (row.data for row in held.rows)),
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

    def _connect(self, target: str, *, uri: bool) -> sqlite3.Connection:
        db = sqlite3.connect(
            target,
            timeout=LOCK_WAIT_SECONDS,
            isolation_level=None,
            check_same_thread=False,
            uri=uri,
        )
        db.text_factory = self._text
        return db

    def _open_read_only(self, failure: StoreError, cause: Exception) -> None:
        """The store could not be opened for writing: open an existing one to read, or raise
        ``failure``. ``mode=ro`` reads a WAL database whose folder takes no new files when the
        ``-shm`` file is there; ``immutable=1`` reads it without one."""
        if not isinstance(cause, sqlite3.Error) or not _unwritable(cause):
            raise failure
        if not self.path.is_file():
            raise failure
        for query in ("mode=ro", "immutable=1"):
            try:
                db = self._connect(f"{self.path.resolve().as_uri()}?{query}", uri=True)
            except sqlite3.Error:
                continue
            try:
                version = int(db.execute("PRAGMA user_version").fetchone()[0])
                db.execute("SELECT count(*) FROM sessions").fetchone()
            except sqlite3.Error:
                db.close()
                continue
            if version > SCHEMA_VERSION:
                db.close()
                break
            self._db = db
            self.read_only = (
                f"the session store {self.path} is read-only ({cause}): sessions can be "
                "listed, reopened and exported, but nothing new is kept"
            )
            return
        raise failure

    def _setup(self) -> None:
        db = self._db
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"the session store {self.path} was written by a newer openwop-tui (schema "
                f"{version}; this version reads {SCHEMA_VERSION}): upgrade openwop-tui"
            )
        if version == 0:
            with self._transaction():
                # Again inside the write lock: another process may have just created it.
                if int(db.execute("PRAGMA user_version").fetchone()[0]) == 0:
                    if db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                        raise StoreError(
                            f"{self.path} is an SQLite database of something else, not "
                            "openwop-tui sessions"
                        )
                    for statement in _SCHEMA.split(";"):
                        if statement.strip():
                            db.execute(statement)
                    db.execute(f"PRAGMA user_version={_PLAIN_SCHEMA}")
        if not folds.has_table(db):
            with self._transaction():
                db.execute(folds.FOLDS_TABLE)
        if not histories.has_table(db):
            with self._transaction():
                db.execute(histories.HISTORIES_TABLE)
        if os.name == "posix":
            # Sessions hold conversations: readable by their owner only.
            for suffix in ("", "-wal", "-shm"):
                candidate = Path(f"{self.path}{suffix}")
                if candidate.exists():
                    candidate.chmod(0o600)

    def _transaction(self) -> _Tx:
        if self.read_only is not None:
            raise StoreError(self.read_only)
        return _Tx(self._db, self.path)

    def close(self) -> None:
        """Write the pending batch and close the connection. Raises `StoreError` (closed all
        the same) when the batch cannot be written."""
        finalizer = getattr(self, "_finalizer", None)  # a read-only store has none
        if finalizer is not None:
            finalizer.detach()
        try:
            self.flush()
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
            _mark_compressed(db, (row.data for row in rows))
            write_sessions(db, sessions)
            return write_rows(db, rows)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----------------------------------------------------------------- sessions

    def create(self, *, host: str, workflow: str, title: str = "", with_batch: bool = False) -> str:
        """A new, empty session; its id. ``host`` is stored without credentials.
        ``with_batch``: created with the next batch (its first entries), so a store that
        cannot be written now still takes it (it waits with them, `Unwritten`)."""
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
        data = encode(text)
        waiting = [i for i, row in enumerate(self._batch.rows) if row.session == session_id]
        # ``_next`` already counts the entry being appended, which is not in the batch yet.
        first_waiting = self._next[session_id] - 1 - len(waiting)
        place = seq - first_waiting
        if 0 <= place < len(waiting):
            index = waiting[place]
            self._batch.rows[index] = dataclasses.replace(self._batch.rows[index], data=data)
            return
        with self._transaction() as db:
            _mark_compressed(db, [data])
            db.execute(
                "UPDATE entries SET data = ? WHERE session = ? AND seq = ?",
                (data, session_id, seq),
            )

    def append(self, session_id: str, entry: Entry) -> Entry:
        """Append ``entry``; the entry as stored. Committed with its batch: at once for a
        user's message or a run's end, else within `BATCH_SECONDS` of appends (or at the next
        read, `flush` or `close`). An entry over `ENTRY_BYTES` is kept as a notice saying so
        (what is written can always be read back). Raises `StoreError` for an unknown session,
        or when a batch this append completed could not be written (the entries stay
        pending)."""
        if self.read_only is not None:
            raise StoreError(self.read_only)
        if session_id not in self._next:
            self._next[session_id] = self.info(session_id).entries
        entry = _within_cap(entry)
        seq = self._next[session_id]
        self._next[session_id] = seq + 1
        # A key the host split between this row's chunk and earlier ones: masked in each.
        data, earlier = self._split.row(session_id, seq, entry.kind, entry.run, entry.data)
        stored = Entry(
            entry.kind,
            self._redact(data),
            run=entry.run,
            label=self._redact(entry.label) if entry.label else entry.label,
            frame_id=self._redact(entry.frame_id) if entry.frame_id else entry.frame_id,
            meta=entry.meta,
            at=entry.at or time.time(),
            seq=seq,
        )
        meta = self._redact(json.dumps(dict(stored.meta), default=str)) if stored.meta else None
        for earlier_seq, text in earlier:
            assert isinstance(earlier_seq, int)  # the refs given to `row` are seqs
            self._rewrite(session_id, earlier_seq, self._redact(text))
        title = _title(stored.data) if entry.kind == "user" else ""
        self._batch.add(
            Row(
                session_id,
                stored.at,
                stored.kind,
                stored.run,
                stored.label,
                stored.frame_id,
                encode(stored.data),
                meta,
                title,
            )
        )
        if entry.kind in COMMIT_AT_ONCE or self._batch.due():
            self.flush()
        return stored

    def entries(self, session_id: str, start: int = 0, stop: int | None = None) -> Iterator[Entry]:
        """The session's log, in order (pending appends committed first); from ``seq``
        ``start`` up to, not including, ``stop``. Raises `StoreError` for an unknown id."""
        self.info(session_id)
        yield from self._entries(session_id, start, stop)

    def _entries(self, session_id: str, start: int, stop: int | None) -> Iterator[Entry]:
        try:
            cursor = self._db.execute(
                f"SELECT {_ENTRY_COLUMNS} FROM entries "
                "WHERE session = ? AND seq >= ? AND seq < ? ORDER BY seq",
                (session_id, start, stop if stop is not None else 2**62),
            )
            yield from self._read(cursor)
        except sqlite3.Error as error:
            raise _failure(error, self.path) from None

    def _read(self, rows: Iterable[tuple[Any, ...]]) -> Iterator[Entry]:
        """Entries of rows of `_ENTRY_COLUMNS`, each damaged text followed by its notice: a
        text that is not UTF-8 read with U+FFFD, one that could not be read at all (`Unread`)
        read as empty, its notice saying why and carrying its position (``meta["unread"]``)."""
        # The TEXT columns are decoded as the row is fetched: count from before the fetch.
        damaged = self._text.damaged
        for kind, data, run, label, frame_id, meta, at, seq in rows:
            text = self._text.blob(data)
            unread = text if isinstance(text, Unread) else None
            yield Entry(
                kind,
                "" if isinstance(text, Unread) else text,
                run=run,
                label=label,
                frame_id=frame_id,
                meta=_meta(meta),
                at=at,
                seq=seq,
            )
            if unread is not None:
                notice = _unread(seq, kind, run, unread)
                yield Entry("notice", notice, label="warning", meta={"unread": seq}, at=at)
            elif self._text.damaged != damaged:
                yield Entry("notice", _damaged(seq, kind), label="warning", at=at)
            damaged = self._text.damaged

    def _small_gaps(
        self, session_id: str, gaps: list[tuple[int, int]]
    ) -> dict[tuple[int, int], list[Entry]]:
        """The entries of many short log ranges, read by a few queries (a reopen's ranges
        between kept runs are a message or two each: one query apiece was 3,000 queries, a
        third of the reopen at 3,000 turns)."""
        found: dict[tuple[int, int], list[Entry]] = {gap: [] for gap in gaps}
        starts = [lo for lo, _ in gaps]
        # By their numbers: SQLite looks each up in the index (ranges joined by OR it may
        # read by scanning every entry of the session).
        wanted = [seq for lo, hi in gaps for seq in range(lo, hi)]
        for first in range(0, len(wanted), _SEQS_PER_QUERY):
            chunk = wanted[first : first + _SEQS_PER_QUERY]
            cursor = self._db.execute(
                f"SELECT {_ENTRY_COLUMNS} FROM entries WHERE session = ? "
                f"AND seq IN ({', '.join('?' * len(chunk))}) ORDER BY seq",
                (session_id, *chunk),
            )
            gap = gaps[bisect_right(starts, chunk[0]) - 1]
            for entry in self._read(cursor):
                if entry.seq >= 0:  # (a damaged text's notice has none: it follows its entry)
                    gap = gaps[bisect_right(starts, entry.seq) - 1]
                found[gap].append(entry)
        return found

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
            raise _failure(error, self.path) from None
        return int(found[0][0]) if len(found) == 2 else None

    def message_before(self, session_id: str, run_seq: int) -> str | None:
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
            raise _failure(error, self.path) from None
        if found is None or found[1] != "user":
            return None
        return next(
            (entry.data for entry in self._entries(session_id, found[0], found[0] + 1)), None
        )

    def outline(
        self, session_id: str, version: str, *, since: int = 0, until: int | None = None
    ) -> Iterator[Entry | FoldRow]:
        """The session's log from position ``since`` on (up to, not including, ``until``),
        with each run that has a fold of ``version`` kept (`openwop_tui.store.folds`) given as
        that `FoldRow` instead of its entries: what a reopen reads. Raises `StoreError`."""
        self.info(session_id)
        try:
            rows = folds.read(self._db, session_id, version, since=since)
        except sqlite3.Error as error:
            raise _failure(error, self.path) from None
        if until is not None:
            rows = [row for row in rows if row.stop < until]
        pairs = list(zip(folds.gaps(rows, since, until), [*rows, None], strict=True))
        small = [(lo, hi) for (lo, hi), _ in pairs if hi is not None and 0 < hi - lo <= _SMALL_GAP]
        try:
            read = self._small_gaps(session_id, small)
        except sqlite3.Error as error:
            raise _failure(error, self.path) from None
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
            raise _failure(error, self.path) from None

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
            raise _failure(error, self.path) from None

    def info(self, session_id: str) -> SessionInfo:
        """One session's summary; `StoreError` naming the id when there is none."""
        rows = self._select("WHERE id = ?", (session_id,))
        if not rows:
            raise StoreError(f"no stored session {session_id!r}; `openwop-tui sessions` lists them")
        return rows[0]

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
        """Remove a session and its log."""
        self.info(session_id)
        self._next.pop(session_id, None)
        with self._transaction() as db:
            db.execute("DELETE FROM folds WHERE session = ?", (session_id,))
            db.execute("DELETE FROM entries WHERE session = ?", (session_id,))
            db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    def _select(self, tail: str, args: tuple[Any, ...]) -> list[SessionInfo]:
        self.flush()  # what was appended is what is read
        try:
            cursor = self._db.execute(
                "SELECT id, title, host, workflow, created, updated, messages, runs, entries "
                f"FROM sessions {tail}",
                args,
            )
            # A boundary: the database is a file anyone may have written, so the text shown of
            # a session is cleaned as it is read.
            return [
                SessionInfo(id, clean(title), clean(host), clean(workflow), *rest)
                for id, title, host, workflow, *rest in cursor
            ]
        except sqlite3.Error as error:
            raise _failure(error, self.path) from None

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
            raise _failure(error, self.path) from None
        return (bytes(row[0]), row[1]) if row is not None else None


class _Tx:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (rolled back on error), database errors as `StoreError`."""

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self.db, self.path = db, path

    def __enter__(self) -> sqlite3.Connection:
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise _failure(error, self.path) from None
        return self.db

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, _: object
    ) -> None:
        if kind is None:
            try:
                self.db.execute("COMMIT")
                return
            except sqlite3.Error as failure:
                error = failure
        if self.db.in_transaction:
            self.db.execute("ROLLBACK")
        if isinstance(error, sqlite3.Error):
            raise _failure(error, self.path) from None


def _last_write(db: sqlite3.Connection, batch: Batch, path: Path) -> None:
    """The pending batch of a store that was never closed (collected, or at exit)."""
    sessions, rows = batch.take()
    if not rows and not sessions:
        return
    try:
        with _Tx(db, path):
            _mark_compressed(db, (row.data for row in rows))
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


def _place(seq: Any) -> str:
    """An entry's position in its session as people count (the first is 1)."""
    return str(seq + 1) if isinstance(seq, int) else "?"


def _damaged(seq: Any, kind: str) -> str:
    return (
        f"stored entry {_place(seq)} ({kind}) is not valid UTF-8: it is shown with \ufffd in place "
        "of the bytes that could not be read; the rest of the session is intact"
    )


def _unread(seq: Any, kind: str, run: str | None, unread: Unread) -> str:
    # The run id is the host's, from a file anyone may have written: cleaned, on one line.
    of_run = f" of run {clean_label(run)[:200]}" if run and kind != "user" else ""
    return (
        f"stored entry {_place(seq)} ({kind}{of_run}) was not read: {unread.why}; the rest of "
        "the session is intact"
    )


def _title(text: str) -> str:
    line = clean_label(" ".join(text.split()))
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"


def _meta(text: Any) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


class SessionLog:
    """One stored session as an event log: what a `Conversation` appends to.

    A new session is created at its first entry, so starting the app and quitting without a
    word leaves no empty session behind.
    """

    def __init__(
        self, store: Store, session_id: str | None = None, *, host: str = "", workflow: str = ""
    ) -> None:
        self.store, self.session_id = store, session_id
        self._host, self._workflow = host, workflow

    def append(self, entry: Entry) -> None:
        """Append (creating the session first if it is new: with its first batch); committed
        with its batch (`Store.append`). Raises `StoreError`; `Unwritten` when the entry was
        taken but waits (a full disk)."""
        if self.session_id is None:
            self.session_id = self.store.create(
                host=self._host, workflow=self._workflow, with_batch=True
            )
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
