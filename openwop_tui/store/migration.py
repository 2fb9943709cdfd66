"""Bringing a store written before chunks (`openwop_tui.store.chunks`) up to them as it opens.

A file of schema 1 or 2 whose long entries are kept whole (schema 2 compressed, 1 plain) is
converted once, when an openwop-tui that writes chunks opens it for writing: in one
transaction, after a copy of the file as it was is written beside it
(``sessions.db.schema2-backup``, `backup_path`), every entry of `chunks.CHUNK_FROM` bytes or
more is kept as chunks instead, and the file is marked `chunks.CHUNKED_SCHEMA`. An older
openwop-tui then refuses it, saying to upgrade (it cannot read chunks), and the copy is the
file it can still open.

A conversion that fails (a full disk, a damaged file) is rolled back: the file is as it was
and opens as it was (this version reads entries kept whole too), the copy is removed, and the
next open tries again. A file with no long entry is not converted (nothing to gain), so it
stays readable by older versions until it holds its first chunked entry.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from openwop_tui.store import chunks
from openwop_tui.store.entry_bytes import DEFLATED, Unread, compressed, inflate
from openwop_tui.store.sqlite_facts import has, user_version

log = logging.getLogger("openwop_tui.store.sessions")

#: Rows read at a time while converting (the long ones: a batch is at most a few MB in memory).
_ROWS_AT_ONCE = 64

#: The rows a conversion looks at: long plain text, or compressed (which may be long).
_CANDIDATES = (
    "FROM entries WHERE typeof(data) = 'blob' AND (length(data) >= ? OR substr(data, 1, 2) = ?)"
)


def backup_path(path: Path, version: int) -> Path:
    """Where the copy of the store at ``path`` (of schema ``version``) is written before it is
    converted: beside it, named for its schema."""
    return path.with_name(f"{path.name}.schema{version}-backup")


#: The row of the last entry a file was looked through up to, without finding a long one.
_CHECKED = "CREATE TABLE IF NOT EXISTS conversion_checked (upto INTEGER NOT NULL)"


def _chunked(db: sqlite3.Connection) -> bool:
    """Whether the file is of `chunks.CHUNKED_SCHEMA`: nothing in it waits to be converted."""
    return user_version(db) >= chunks.CHUNKED_SCHEMA


def _checked_upto(db: sqlite3.Connection) -> int:
    if not has(db, "table", "conversion_checked"):
        return 0
    row = db.execute("SELECT max(upto) FROM conversion_checked").fetchone()
    return int(row[0] or 0)


def _long(data: object) -> bool:
    """Whether a stored entry's bytes are long enough to be kept as chunks."""
    if not isinstance(data, bytes):
        return False
    raw = inflate(data) if compressed(data) else data
    return not isinstance(raw, Unread) and len(raw) >= chunks.CHUNK_FROM


def needed(db: sqlite3.Connection) -> bool:
    """Whether the file is of a schema before chunks and holds an entry worth converting
    (looked for after the row it was last looked through up to)."""
    if _chunked(db):
        return False
    return any(_long(data) for _, data in _candidates(db, _checked_upto(db)))


def _candidates(db: sqlite3.Connection, after: int) -> Iterator[tuple[int, bytes]]:
    """The rows that may be long (`_CANDIDATES`) after row ``after``, in order, read
    `_ROWS_AT_ONCE` at a time (each batch read whole before it is given: the caller may
    rewrite the rows given)."""
    while True:
        rows = db.execute(
            f"SELECT rowid, data {_CANDIDATES} AND rowid > ? ORDER BY rowid LIMIT ?",
            (chunks.CHUNK_FROM, DEFLATED, after, _ROWS_AT_ONCE),
        ).fetchall()
        if not rows:
            return
        yield from rows
        after = rows[-1][0]


def checked_all(db: sqlite3.Connection) -> bool:
    """Whether nothing in the file waits to be looked through: it is of `chunks.CHUNKED_SCHEMA`,
    or it was looked through up to its last entry."""
    try:
        if _chunked(db):
            return True
        last = db.execute("SELECT coalesce(max(rowid), 0) FROM entries").fetchone()[0]
        return _checked_upto(db) >= int(last)
    except sqlite3.Error as error:  # (then nothing is marked: looked through next time)
        log.info("could not tell how far %s was looked through: %s", db, error)
        return False


def mark_written(db: sqlite3.Connection) -> None:
    """This version wrote entries to a file that was looked through up to its last one when it
    opened (`checked_all`), and is closing it: none of its entries needs converting (it keeps a
    long entry as chunks, and a file holding chunks is of `chunks.CHUNKED_SCHEMA`), so the file
    is marked looked through past them. The next open looked through them all again, every
    compressed entry inflated to find none long: 0.2 s for a 3,000-turn session, at every start
    after a long one (issue 26).

    An entry an older openwop-tui (one before chunks) wrote into the same file while this one
    had it open is marked too, and so kept as it was written: whole, read as it is, only not
    deduplicated."""
    try:
        chunked = _chunked(db)
    except sqlite3.Error as error:  # (best effort, as `_mark_checked`: looked through next time)
        log.info("could not read the schema of %s: %s", db, error)
        return
    if not chunked:
        _mark_checked(db)


def _mark_checked(db: sqlite3.Connection) -> None:
    """Note that the file holds no long entry up to its last one (best effort: a store opened
    read-only, or busy, is looked through again next time)."""
    try:
        with db:
            db.execute(_CHECKED)
            db.execute("DELETE FROM conversion_checked")
            db.execute("INSERT INTO conversion_checked SELECT coalesce(max(rowid), 0) FROM entries")
    except sqlite3.Error as error:
        log.info("could not note how far %s was looked through: %s", db, error)


def _backup(path: Path, target: Path) -> None:
    """Copy the database at ``path`` to ``target`` as it was last committed (SQLite's backup:
    the WAL included), written under a temporary name first so a copy is always whole."""
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    source = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        copy = sqlite3.connect(partial)
        try:
            source.backup(copy)
        finally:
            copy.close()
    finally:
        source.close()
    if os.name == "posix":
        partial.chmod(0o600)  # (sessions hold conversations)
    partial.replace(target)


def _convert_rows(db: sqlite3.Connection) -> int:
    """Keep every long entry as chunks (in the caller's transaction); how many were."""
    converted = 0
    for rowid, data in _candidates(db, -1):
        raw = inflate(data) if compressed(data) else data
        if isinstance(raw, Unread) or len(raw) < chunks.CHUNK_FROM:
            continue  # (a damaged row stays as it is: reading it says so)
        db.execute("UPDATE entries SET data = ? WHERE rowid = ?", (chunks.put(db, raw), rowid))
        converted += 1
    return converted


def convert(db: sqlite3.Connection, path: Path) -> str | None:
    """Convert the store at ``path`` (its connection ``db``, outside a transaction) when
    `needed`: the copy first, then every long entry, in one ``BEGIN IMMEDIATE`` transaction.
    A sentence saying what was done and where the copy is (also logged), or ``None`` when
    there was nothing to do. Raises `sqlite3.Error` or `OSError` with the file as it was."""
    if _chunked(db):
        return None
    if not needed(db):
        _mark_checked(db)  # (the next open looks only at what comes after)
        return None
    db.execute("BEGIN IMMEDIATE")
    try:
        # Under the write lock: another process may have converted it meanwhile.
        version = user_version(db)
        if not needed(db):
            db.execute("ROLLBACK")
            return None
        target = backup_path(path, version)
        _backup(path, target)
        try:
            count = _convert_rows(db)
            db.execute(f"PRAGMA user_version={chunks.CHUNKED_SCHEMA}")
            db.execute("COMMIT")
        except BaseException:
            target.unlink(missing_ok=True)  # (the file is as it was: the copy is not needed)
            raise
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    said = (
        f"the session store {path} was converted to keep repeated text once ({count:,} long "
        f"entries); a copy of it as it was (for an older openwop-tui) is {target}"
    )
    log.warning("%s", said)
    return said
