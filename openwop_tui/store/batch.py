"""Appends gathered into one transaction: what keeps `Store.append` at the host's rate.

A commit per frame costs more than the frame (WAL: a write of the log and its index each time;
0.14-0.19 s for 1,180 appends against 0.02 s in one transaction), so appends wait in a `Batch`
and go in one ``BEGIN IMMEDIATE`` … ``COMMIT`` when it is due: `BATCH_SECONDS` after it opened,
or at `BATCH_ENTRIES` rows, or when the store is asked for anything, flushed or closed.

Crash-consistent by construction: a batch is one transaction, so a killed process loses at
most the batch still open (never half of one, never a damaged file), and a clean close writes
it. The rows are kept in memory as the database will hold them (redacted, encoded), so writing
them is only SQL. A batch that cannot be written stays pending for the next try (the caller is
told why each time), up to `MAX_PENDING` rows: past that the oldest are given up, and the
failure says how many. A session can wait in the batch too (`NewSession`): created with its
first rows, so a chat begun on a full disk has a session for its turns once the disk takes them
(or once a journal brings them back, `openwop_tui.store.journal`).
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from typing import Any

from openwop_tui.base.records import quick_init
from openwop_tui.store import chunks

#: A batch is written at the latest this long after its first row (a stream's tail, too).
BATCH_SECONDS = 0.05
#: A batch is written when it holds this many rows, however fast they come.
BATCH_ENTRIES = 500
#: Rows kept for another try while the database refuses them; past it the oldest are lost.
MAX_PENDING = 100_000


@quick_init
@dataclass(frozen=True, slots=True)
class Row:
    """One entry waiting to be written, as the ``entries`` table holds it (its ``seq`` is given
    when it is written: the next of its session, read inside the writing transaction)."""

    session: str
    at: float
    kind: str
    run: str | None
    label: str | None
    frame_id: str | None
    data: bytes
    meta: str | None
    title: str
    """The session's title if it has none yet (a user message's first line; else "")."""


@dataclass(frozen=True, slots=True)
class NewSession:
    """A session to create with the batch it waits in (its texts already masked)."""

    id: str
    title: str
    host: str
    workflow: str
    created: float


class Batch:
    """The rows appended since the last write, oldest first, and the sessions they need."""

    __slots__ = ("dropped", "opened", "rows", "sessions")

    def __init__(self) -> None:
        self.rows: list[Row] = []
        self.sessions: list[NewSession] = []
        """Sessions created since the last write (written before the rows)."""
        self.opened = 0.0
        """`time.monotonic` when the first pending row came."""
        self.dropped = 0
        """Rows given up because the database kept refusing them (`MAX_PENDING`)."""

    def __len__(self) -> int:
        return len(self.rows)

    def add(self, row: Row) -> None:
        """Queue ``row`` (opening the batch's clock if it is the first)."""
        if not self.rows:
            self.opened = time.monotonic()
        self.rows.append(row)

    def due(self) -> bool:
        """Whether the batch should be written now (old enough, or big enough)."""
        if not self.rows:
            return False
        return len(self.rows) >= BATCH_ENTRIES or time.monotonic() - self.opened >= BATCH_SECONDS

    def take(self) -> tuple[list[NewSession], list[Row]]:
        """Every pending session and row, leaving the batch empty."""
        sessions, self.sessions = self.sessions, []
        rows, self.rows = self.rows, []
        return sessions, rows

    def give_back(self, sessions: list[NewSession], rows: list[Row]) -> None:
        """What a write failed on goes back in front, for the next try (rows bounded)."""
        self.sessions = sessions + self.sessions
        merged = rows + self.rows
        if len(merged) > MAX_PENDING:
            self.dropped += len(merged) - MAX_PENDING
            merged = merged[-MAX_PENDING:]
        self.rows = merged
        self.opened = time.monotonic()


def write_sessions(db: sqlite3.Connection, sessions: list[NewSession]) -> None:
    """Create ``sessions`` (inside the caller's transaction); one already there is left as it
    is (a journal read twice, `openwop_tui.store.journal`)."""
    db.executemany(
        "INSERT OR IGNORE INTO sessions (id, title, host, workflow, created, updated) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [(s.id, s.title, s.host, s.workflow, s.created, s.created) for s in sessions],
    )


def write_rows(db: sqlite3.Connection, rows: list[Row], *, dedup: bool = True) -> set[str]:
    """Insert ``rows`` (inside the caller's transaction), each session's after its last
    entry, and bring the sessions' counts up to date; the sessions that no longer exist
    (their rows are skipped: deleted while their entries waited). A long row's text is kept
    as shared chunks (`openwop_tui.store.chunks`) unless ``dedup`` is off (a benchmark's
    baseline)."""
    missing: set[str] = set()
    heads: dict[str, list[Any]] = {}
    values: list[tuple[Any, ...]] = []
    for row in rows:
        head = heads.get(row.session)
        if head is None:
            if row.session in missing:
                continue
            found = db.execute(
                "SELECT entries, title FROM sessions WHERE id = ?", (row.session,)
            ).fetchone()
            if found is None:
                missing.add(row.session)
                continue
            # [next seq, title, messages, runs, updated, first seq]
            head = heads[row.session] = [found[0], found[1], 0, 0, row.at, found[0]]
        values.append(
            (
                row.session,
                head[0],
                row.at,
                row.kind,
                row.run,
                row.label,
                row.frame_id,
                chunks.stored(db, row.data) if dedup else row.data,
                row.meta,
            )
        )
        head[0] += 1
        head[1] = head[1] or row.title
        head[2] += row.kind == "user"
        head[3] += row.kind == "run"
        head[4] = row.at
    # One statement for the batch (a statement a row cost 7 µs of a flood's 50 µs an event).
    db.executemany(
        "INSERT INTO entries (session, seq, at, kind, run, label, frame_id, data, meta) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        values,
    )
    for session_id, (seq, title, messages, runs, updated, first) in heads.items():
        db.execute(
            "UPDATE sessions SET entries = entries + ?, messages = messages + ?, "
            "runs = runs + ?, updated = ?, title = ? WHERE id = ?",
            (seq - first, messages, runs, updated, title, session_id),
        )
    return missing
