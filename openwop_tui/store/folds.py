"""The fold's result kept per run, so reopening a long session reads items, not events.

A session's log is the truth (`openwop_tui.store.sessions`); folding all of it again on every
open cost 15.6 s at 3,000 turns. So each completed run's folded items are kept beside the log,
one row per run (``folds``): the log positions it covers (its ``run`` entry to its ``end``
entry), the fold version that made it, a fingerprint of the fold's state before the run, and
the serialised result. What the row holds is the conversation's business
(`openwop_tui.core.reopen`); this module only stores rows and reads the log around them.

A row is a cache: deleting it (or a new fold version, which ignores it) only makes the next
open fold that run's events again. The table is created when missing, without a schema
version change, so an older openwop-tui still opens the file (and its deletes cascade).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from openwop_tui.store.sqlite_facts import has

FOLDS_TABLE = """
CREATE TABLE IF NOT EXISTS folds (
    session TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    start INTEGER NOT NULL,
    stop INTEGER NOT NULL,
    version TEXT NOT NULL,
    before TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (session, start)
)
"""


@dataclass(frozen=True, slots=True)
class FoldRow:
    """One run's folded result: it stands for the log entries ``start`` … ``stop``."""

    start: int
    """The ``seq`` of the run's ``run`` entry."""
    stop: int
    """The ``seq`` of its ``end`` entry."""
    version: str
    """The fold version that made it (`openwop_tui.core.reopen.fold_version`)."""
    before: str
    """A fingerprint of the fold's state when the run began: the row holds only if the
    state it is restored onto is the same."""
    data: bytes


def has_table(db: sqlite3.Connection) -> bool:
    """Whether the file has the ``folds`` table yet."""
    return has(db, "table", "folds")


def read(db: sqlite3.Connection, session_id: str, version: str, *, since: int = 0) -> list[FoldRow]:
    """The session's rows made by fold ``version`` that start at ``since`` or later, in log order,
    none overlapping.

    Args:
        db: The sessions database.
        session_id: The session whose rows are read.
        version: The fold version the rows must have been made by; others are ignored.
        since: The first log position wanted.
    """
    rows = db.execute(
        "SELECT start, stop, version, before, data FROM folds "
        "WHERE session = ? AND version = ? AND start >= ? ORDER BY start",
        (session_id, version, since),
    )
    kept: list[FoldRow] = []
    last = -1
    for start, stop, made_by, before, data in rows:
        if start <= last or stop < start:
            continue  # overlapping or inverted: not something this module wrote
        kept.append(FoldRow(start, stop, made_by, before, bytes(data)))
        last = stop
    return kept


def write(db: sqlite3.Connection, session_id: str, rows: Iterable[FoldRow]) -> None:
    """Keep ``rows`` (inside the caller's transaction), replacing any at the same start."""
    db.executemany(
        "INSERT OR REPLACE INTO folds (session, start, stop, version, before, data) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [(session_id, r.start, r.stop, r.version, r.before, r.data) for r in rows],
    )


def gaps(
    rows: list[FoldRow], since: int = 0, until: int | None = None
) -> list[tuple[int, int | None]]:
    """The log ranges ``[lo, hi)`` from ``since`` on that no row stands for (``hi``
    ``None``: to the end; the last one ends at ``until`` when given): one before each row
    (empty when rows touch) and one after the last."""
    ranges: list[tuple[int, int | None]] = []
    lo = since
    for row in rows:
        ranges.append((lo, row.start))
        lo = row.stop + 1
    ranges.append((lo, until))
    return ranges
