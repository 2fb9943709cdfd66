"""The SQLite file under the session store: where it is, its schema and how an older one is
brought up to date, opening it (read-only when it cannot be written), transactions, and every
database failure as one `StoreError` sentence.

`Database` is the base of `openwop_tui.store.sessions.Store`: it owns the connection; the
writing side (`openwop_tui.store.writer`) and the reads are built on it.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path

import platformdirs

from openwop_tui.store import chunks, folds, histories, migration, search
from openwop_tui.store.entry_bytes import compressed
from openwop_tui.store.reading import Lenient
from openwop_tui.store.sqlite_facts import has, user_version

#: The schema this code reads and writes (``PRAGMA user_version``). 2: long entries may be
#: kept compressed (`openwop_tui.store.entry_bytes`); a file is marked 2 when its first one
#: is, so a file without one still opens in an openwop-tui that reads 1. 3: long entries
#: may be kept as shared chunks (`openwop_tui.store.chunks`), marked when the first one is
#: (or when an older file is converted on open, `openwop_tui.store.migration`). An
#: openwop-tui that reads 2 refuses a file marked 3, to write or to read, saying it was
#: written by a newer version: it never shows a chunked entry's keys as its text.
SCHEMA_VERSION = chunks.CHUNKED_SCHEMA
#: The schema a file holding compressed entries but no chunked one is.
_COMPRESSED_SCHEMA = 2
#: The schema a file holding no compressed entry is (and an older openwop-tui reads).
_PLAIN_SCHEMA = 1

log = logging.getLogger("openwop_tui.store.sessions")
#: How long a write waits for another process holding the database.
LOCK_WAIT_SECONDS = 5.0

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


#: The ``run`` entries of each session by place: where a run begins (`Store.run_start`) and the
#: runs before one (`openwop_tui.store.histories.before`) are found without reading every
#: entry of the session (0.1 s at 3,000 turns, before a reopened session's newest turns were
#: drawn). Partial: one row a run. Added to a file without it at open; an older openwop-tui
#: keeps it up to date without knowing it (SQLite does).
RUNS_INDEX = "CREATE INDEX IF NOT EXISTS entries_runs ON entries(session, seq) WHERE kind = 'run'"


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


def mark_compressed(db: sqlite3.Connection, datas: Iterable[bytes]) -> None:
    """In the caller's transaction: a file about to hold its first compressed entry is marked
    with the schema that reads it (an older openwop-tui then says to upgrade, instead of
    showing those entries as damaged)."""
    if not any(compressed(data) for data in datas):
        return
    if user_version(db) < _COMPRESSED_SCHEMA:
        db.execute(f"PRAGMA user_version={_COMPRESSED_SCHEMA}")


def _unwritable(error: sqlite3.Error) -> bool:
    """Whether ``error`` says the database cannot be written (its folder, file or disk)."""
    text = str(error).lower()
    return any(word in text for word in ("readonly", "read-only", "unable to open", "disk i/o"))


def store_error(error: sqlite3.Error, path: Path) -> StoreError:
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


class Transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (rolled back on error), database errors as `StoreError`."""

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self.db, self.path = db, path

    def __enter__(self) -> sqlite3.Connection:
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise store_error(error, self.path) from None
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
            raise store_error(error, self.path) from None


class Database:
    """The connection to the sessions database, opened read-write or else read-only."""

    def __init__(self, path: Path | None) -> None:
        """Open (creating if needed) the database at ``path`` (`default_path` by default);
        when it cannot be written, an existing one is opened to read (`read_only`). Raises
        `StoreError`."""
        self.path = path or default_path()
        self._text = Lenient()
        self.converted: str | None = None
        """What converting a store of an older schema did as it opened (a sentence naming
        the copy of the file as it was), or why it did not; ``None``: nothing to convert.
        Said to the user by whatever opened the store (the app's first screen, a command's
        stderr), not only logged: the copy is theirs to keep or remove."""
        self.conversion_failed = False
        self.search_added: str | None = None
        """A sentence when this open added the search index to a store that held sessions
        (`openwop_tui.store.search.create`): they are indexed a few at a time after it opens
        (`openwop_tui.core.indexing`), and whatever opened the store says so."""
        self.search_note: str | None = None
        """Why searching is a slower scan here (this SQLite has no FTS5), or ``None``."""
        """Whether `converted` says why a conversion failed (a warning) rather than what was
        done (news)."""
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
            self._open_read_only(store_error(error, self.path), error)
            return
        try:
            self._setup()
        except (sqlite3.Error, StoreError) as error:
            self._db.close()
            failure = error if isinstance(error, StoreError) else store_error(error, self.path)
            self._open_read_only(failure, error)
            return

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
                version = user_version(db)
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
        version = user_version(db)
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"the session store {self.path} was written by a newer openwop-tui (schema "
                f"{version}; this version reads {SCHEMA_VERSION}): upgrade openwop-tui"
            )
        if version == 0:
            with self._transaction():
                # Again inside the write lock: another process may have just created it.
                if user_version(db) == 0:
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
        if not chunks.has_table(db):
            with self._transaction():
                # (An older openwop-tui ignores the table: the schema mark says what it reads.)
                if not chunks.has_table(db):
                    db.execute(chunks.CHUNKS_TABLE)
        if not has(db, "index", "entries_runs"):
            with self._transaction():
                db.execute(RUNS_INDEX)
        self._convert()
        self._add_search()
        if os.name == "posix":
            # Sessions hold conversations: readable by their owner only.
            for suffix in ("", "-wal", "-shm"):
                candidate = Path(f"{self.path}{suffix}")
                if candidate.exists():
                    candidate.chmod(0o600)

    def _convert(self) -> None:
        """Convert a file of an older schema to chunks (`openwop_tui.store.migration`); when
        that fails the file is as it was and opens as it is (its entries read as they are
        kept), and the next open tries again."""
        try:
            self.converted = migration.convert(self._db, self.path)
        except (sqlite3.Error, OSError) as error:
            self.conversion_failed = True
            self.converted = (
                f"the session store {self.path} could not be converted to keep repeated text "
                f"once ({error}); it is as it was, and the next start tries again"
            )
            log.warning("%s", self.converted)

    def _add_search(self) -> None:
        """Add the search index (`openwop_tui.store.search`) to a file without it, in one
        transaction. Additive: no copy of the file is needed, since an older openwop-tui
        still opens it (and ignores the new tables)."""
        db = self._db
        fts = search.fts5_available(db)
        if not fts:
            self.search_note = search.NO_FTS
            log.info("%s", search.NO_FTS)
        if search.has_table(db) and (search.has_fts(db) or not fts):
            return
        with self._transaction():
            held = int(db.execute("SELECT count(*) FROM sessions").fetchone()[0])
            search.create(db, fts=fts)
        if held:
            self.search_added = (
                f"the session store {self.path} now has a search index over every session "
                f"to find any word again; its {held:,} stored session"
                f"{'s are' if held != 1 else ' is'} indexed a few at a time, in the background"
            )
            log.warning("%s", self.search_added)

    def _transaction(self) -> Transaction:
        if self.read_only is not None:
            raise StoreError(self.read_only)
        return Transaction(self._db, self.path)
