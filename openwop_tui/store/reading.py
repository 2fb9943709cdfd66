"""Reading a session's entries back from SQLite, damaged rows included.

The connection decodes text through `Lenient` (its ``text_factory``), so a stored value that
is not UTF-8 is read with U+FFFD instead of failing the read, and a compressed entry that
cannot be inflated is `Unread`; either way the entry is followed by a notice saying so
(`read`). `entries` reads a range of a log, `small_gaps` many short ranges in a few queries.
Queries raise `sqlite3.Error`: `openwop_tui.store.sessions.Store` turns it into a sentence.
"""

from __future__ import annotations

import json
import sqlite3
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from typing import Any

from openwop_tui.store import chunks
from openwop_tui.store.entry_bytes import Unread, compressed, inflate
from openwop_tui.store.records import Entry
from openwop_tui.text.sanitize import clean_label

#: What a query reads of an entry, in the order `read` takes it.
ENTRY_COLUMNS = "kind, data, run, label, frame_id, meta, at, seq"
#: Entries one query reads by number (under SQLite's limit of 999 parameters in old builds).
_SEQS_PER_QUERY = 900


def _decode(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogatepass")
    return str(value)


class Lenient:
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

    def blob(self, value: Any, db: sqlite3.Connection | None = None) -> str | Unread:
        """A BLOB column (``data``) read the same way, a compressed one inflated first, within
        the bound of `openwop_tui.store.entry_bytes.inflate`, a chunked one joined from the
        chunks of ``db`` (`openwop_tui.store.chunks.read`): one that inflates past it or
        cannot be read whole is `Unread`."""
        if not isinstance(value, bytes):
            return _decode(value)
        if chunks.chunked(value):
            if db is None:
                return Unread("it is kept as chunks, and no store was given to read them")
            joined = chunks.read(db, value)
            if isinstance(joined, Unread):
                return joined
            value = joined
        elif compressed(value):
            inflated = inflate(value)
            if isinstance(inflated, Unread):
                return inflated
            value = inflated
        return self(value)


def entries(
    db: sqlite3.Connection, text: Lenient, session_id: str, start: int, stop: int | None
) -> Iterator[Entry]:
    """The entries of ``session_id`` from ``seq`` ``start`` up to, not including, ``stop``
    (``None``: to the end), in order, as `read` gives them.

    Args:
        db: The store's connection.
        text: The connection's ``text_factory`` (it counts the damaged texts).
        session_id: The session whose log is read.
        start: The first position read.
        stop: The position the range ends before; ``None`` reads to the end.
    """
    cursor = db.execute(
        f"SELECT {ENTRY_COLUMNS} FROM entries "
        "WHERE session = ? AND seq >= ? AND seq < ? ORDER BY seq",
        (session_id, start, stop if stop is not None else 2**62),
    )
    yield from read(text, cursor, db)


def read(
    text: Lenient, rows: Iterable[tuple[Any, ...]], db: sqlite3.Connection | None = None
) -> Iterator[Entry]:
    """Entries of rows of `ENTRY_COLUMNS`, each damaged text followed by its notice: a
    text that is not UTF-8 read with U+FFFD, one that could not be read at all (`Unread`)
    read as empty, its notice saying why and carrying its position (``meta["unread"]``).
    ``db`` holds the chunks of chunked rows (`openwop_tui.store.chunks`)."""
    # The TEXT columns are decoded as the row is fetched: count from before the fetch.
    damaged = text.damaged
    for kind, data, run, label, frame_id, meta, at, seq in rows:
        value = text.blob(data, db)
        unread = value if isinstance(value, Unread) else None
        yield Entry(
            kind,
            "" if isinstance(value, Unread) else value,
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
        elif text.damaged != damaged:
            yield Entry("notice", _damaged(seq, kind), label="warning", at=at)
        damaged = text.damaged


def small_gaps(
    db: sqlite3.Connection, text: Lenient, session_id: str, gaps: list[tuple[int, int]]
) -> dict[tuple[int, int], list[Entry]]:
    """The entries of many short log ranges, read by a few queries (a reopen's ranges
    between kept runs are a message or two each: one query apiece was 3,000 queries, a
    third of the reopen at 3,000 turns).

    Args:
        db: The store's connection.
        text: The connection's ``text_factory`` (it counts the damaged texts).
        session_id: The session whose log is read.
        gaps: The ranges, ``(start, stop)`` each, in order.
    """
    found: dict[tuple[int, int], list[Entry]] = {gap: [] for gap in gaps}
    starts = [lo for lo, _ in gaps]
    # By their numbers: SQLite looks each up in the index (ranges joined by OR it may
    # read by scanning every entry of the session).
    wanted = [seq for lo, hi in gaps for seq in range(lo, hi)]
    for first in range(0, len(wanted), _SEQS_PER_QUERY):
        chunk = wanted[first : first + _SEQS_PER_QUERY]
        cursor = db.execute(
            f"SELECT {ENTRY_COLUMNS} FROM entries WHERE session = ? "
            f"AND seq IN ({', '.join('?' * len(chunk))}) ORDER BY seq",
            (session_id, *chunk),
        )
        gap = gaps[bisect_right(starts, chunk[0]) - 1]
        for entry in read(text, cursor, db):
            if entry.seq >= 0:  # (a damaged text's notice has none: it follows its entry)
                gap = gaps[bisect_right(starts, entry.seq) - 1]
            found[gap].append(entry)
    return found


def _place(seq: Any) -> str:
    """An entry's position in its session as people count (the first is 1)."""
    return str(seq + 1) if isinstance(seq, int) else "?"


def _damaged(seq: Any, kind: str) -> str:
    return (
        f"stored entry {_place(seq)} ({kind}) is not valid UTF-8: it is shown with \ufffd in place "
        "of the bytes that could not be read; the rest of the session is intact"
    )


def _unread(seq: Any, kind: str, run: str | None, unread: Unread) -> str:
    """The line that stands for a stored entry that could not be read.

    Args:
        seq: The entry's place in its session's log (as stored: it may not be a number).
        kind: The entry's kind (``frame``, ``user``…).
        run: The run it belongs to, as stored (host text); None: no run.
        unread: Why it was not read.
    """
    # The run id is the host's, from a file anyone may have written: cleaned, on one line.
    of_run = f" of run {clean_label(run)[:200]}" if run and kind != "user" else ""
    return (
        f"stored entry {_place(seq)} ({kind}{of_run}) was not read: {unread.why}; the rest of "
        "the session is intact"
    )


def _meta(text: Any) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
