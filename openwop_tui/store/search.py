"""The search index over every stored session: the text a person would look for, found fast.

What is indexed is what the transcript shows as words: each user message and each reply of the
assistant, as the fold made them (`openwop_tui.core.indexing` makes the rows: the store cannot
fold), never raw event frames, JSON or base64. One row per item (``search_rows``: the session,
the item's id and place in the transcript, whose it is, its text); a full-text table over it
(``search_text``, SQLite FTS5 with the trigram tokenizer) kept in step by triggers, so a row
written, changed or deleted (its session deleted: the rows cascade) changes the index in the
same transaction.

Trigram makes the index find what the transcript's find finds: any piece of text of three
characters or more, case-insensitively, inside words too (``ather`` finds ``weather``). A
shorter query, or a SQLite built without FTS5 (`fts5_available`), is read by a plain ``LIKE``
scan of the rows instead: slower on a large store, never a failure. Either way what a row is
said to hold is counted again by the caller's own matcher, so the two cannot disagree.

A user's words are never FTS syntax: the query is one quoted string (`phrase`), its ``"``
doubled, so ``NEAR``, ``AND``, ``*``, ``-`` or a stray quote are text to find.

The tables are added to an older store as it opens (`create`): additive, without a schema
version change, so an older openwop-tui still opens the file (it ignores them; its deletes
cascade to them). Each session notes the entry count its index is complete through
(``sessions.indexed``); a session whose log grew past it (written before the index, by an
older version, or a run the app was killed in) is indexed again from its fold
(`openwop_tui.core.indexing.build`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from openwop_tui.store.sqlite_facts import has

#: The index rows: one per user message or reply.
ROWS_TABLE = """
CREATE TABLE IF NOT EXISTS search_rows (
    id INTEGER PRIMARY KEY,
    session TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    item TEXT NOT NULL,
    place INTEGER NOT NULL,
    role TEXT NOT NULL,
    text TEXT NOT NULL,
    UNIQUE (session, item)
)
"""
_ROWS_INDEX = "CREATE INDEX IF NOT EXISTS search_rows_by_place ON search_rows(session, place)"

#: The full-text index over the rows' text (external content: the text is kept once).
_FTS_TABLE = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS search_text USING fts5("
    "text, content='search_rows', content_rowid='id', tokenize='trigram')"
)
#: What keeps the full-text index in step with the rows, in the writing transaction. (An
#: ``INSERT OR REPLACE`` would not fire the delete trigger: rows are changed by upsert.)
_TRIGGERS = (
    "CREATE TRIGGER IF NOT EXISTS search_rows_added AFTER INSERT ON search_rows BEGIN "
    "INSERT INTO search_text(rowid, text) VALUES (new.id, new.text); END",
    "CREATE TRIGGER IF NOT EXISTS search_rows_removed AFTER DELETE ON search_rows BEGIN "
    "INSERT INTO search_text(search_text, rowid, text) VALUES ('delete', old.id, old.text); END",
    "CREATE TRIGGER IF NOT EXISTS search_rows_changed AFTER UPDATE ON search_rows BEGIN "
    "INSERT INTO search_text(search_text, rowid, text) VALUES ('delete', old.id, old.text); "
    "INSERT INTO search_text(rowid, text) VALUES (new.id, new.text); END",
)
#: Columns added to ``sessions`` (an older file gets them with their defaults).
_COLUMNS = {
    "archived": "ALTER TABLE sessions ADD COLUMN archived INTEGER NOT NULL DEFAULT 0",
    "indexed": "ALTER TABLE sessions ADD COLUMN indexed INTEGER NOT NULL DEFAULT 0",
}
#: The trigram tokenizer matches nothing shorter (such a query is scanned with ``LIKE``).
TRIGRAM = 3

#: What is said when the index is a scan (this SQLite has no FTS5).
NO_FTS = (
    "this SQLite has no full-text search (FTS5): every stored message is read for each "
    "search, which is slower on a large store"
)


@dataclass(frozen=True, slots=True)
class IndexRow:
    """One item's searchable text, as `openwop_tui.core.indexing` makes it."""

    item: str
    """The item's id in the transcript."""
    place: int
    """Its place among the transcript's items (orders the rows of a session)."""
    role: str
    """``user`` or ``assistant``."""
    text: str


@dataclass(frozen=True, slots=True)
class Hit:
    """A row the index says holds the query (the caller counts the occurrences), with what a
    result shows of its session. Texts as stored: a reader cleans them (a file anyone may
    have written)."""

    session: str
    item: str
    place: int
    role: str
    text: str
    title: str
    updated: float
    archived: bool


def fts5_available(db: sqlite3.Connection) -> bool:
    """Whether this SQLite has FTS5 with the trigram tokenizer (3.34 and later)."""
    try:
        db.execute("CREATE VIRTUAL TABLE temp.fts5_probe USING fts5(x, tokenize='trigram')")
        db.execute("DROP TABLE temp.fts5_probe")
    except sqlite3.Error:
        return False
    return True


def has_table(db: sqlite3.Connection) -> bool:
    """Whether the file has the index rows yet."""
    return has(db, "table", "search_rows")


def has_fts(db: sqlite3.Connection) -> bool:
    """Whether the file has the full-text index over the rows."""
    return has(db, "table", "search_text")


def session_columns(db: sqlite3.Connection) -> set[str]:
    """The columns ``sessions`` has (a read-only older file may lack ``archived``)."""
    return {row[1] for row in db.execute("PRAGMA table_info(sessions)")}


def create(db: sqlite3.Connection, *, fts: bool) -> None:
    """In the caller's transaction: the columns, the rows, and (``fts``) the full-text index
    with its triggers, built over rows already there. Every session is left to be indexed
    (``indexed`` 0: `openwop_tui.core.indexing.build`)."""
    have = session_columns(db)
    for name, statement in _COLUMNS.items():
        if name not in have:
            db.execute(statement)
    db.execute(ROWS_TABLE)
    db.execute(_ROWS_INDEX)
    if fts and not has_fts(db):
        db.execute(_FTS_TABLE)
        for trigger in _TRIGGERS:
            db.execute(trigger)
        db.execute("INSERT INTO search_text(search_text) VALUES ('rebuild')")


def write(db: sqlite3.Connection, session_id: str, rows: Iterable[IndexRow]) -> None:
    """In the caller's transaction: keep ``rows`` for ``session_id``, each replacing the row of
    the same item (a reply indexed again as it grew)."""
    db.executemany(
        "INSERT INTO search_rows (session, item, place, role, text) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (session, item) DO UPDATE SET place = excluded.place, "
        "role = excluded.role, text = excluded.text",
        [(session_id, row.item, row.place, row.role, row.text) for row in rows],
    )


def remove(db: sqlite3.Connection, session_id: str) -> None:
    """In the caller's transaction: the session's rows go (and with them its index)."""
    db.execute("DELETE FROM search_rows WHERE session = ?", (session_id,))


def phrase(query: str) -> str:
    """``query`` as one FTS5 string: whatever it holds is text, never syntax."""
    return '"' + query.replace('"', '""') + '"'


def _like(query: str) -> str:
    """``query`` as a ``LIKE`` pattern finding it anywhere (``%``, ``_`` and ``\\`` escaped)."""
    escaped = query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def find(db: sqlite3.Connection, query: str, *, limit: int) -> list[Hit]:
    """The rows that may hold ``query``, the most recently updated session's first, each
    session's in transcript order; at most ``limit``. Raises `sqlite3.Error`."""
    select = (
        "SELECT r.session, r.item, r.place, r.role, r.text, s.title, s.updated, s.archived "
        "FROM search_rows AS r JOIN sessions AS s ON s.id = r.session "
    )
    order = " ORDER BY s.updated DESC, s.rowid DESC, r.place LIMIT ?"
    if len(query) >= TRIGRAM and has_fts(db):
        cursor = db.execute(
            select
            + "WHERE r.id IN (SELECT rowid FROM search_text WHERE search_text MATCH ?)"
            + order,
            (phrase(query), limit),
        )
    else:
        like = select + "WHERE r.text LIKE ? ESCAPE '\\'" + order
        cursor = db.execute(like, (_like(query), limit))
    return [
        Hit(session, item, place, role, text, title, updated, bool(archived))
        for session, item, place, role, text, title, updated, archived in cursor
    ]
