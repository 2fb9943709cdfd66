"""Searching every stored session: the results a person reads, counted by occurrence.

`search` asks the store's index (`openwop_tui.store.search`) for the messages and replies that
may hold the query and counts its occurrences in each the way the transcript's find does
(`occurrences`: the query as typed, case folded, anywhere in a word), so "17 in 5 sessions"
here is what stepping through those sessions finds. Each `Result` is one message or reply with
its session's title and date, a line of context around its first occurrence (`Context`, the
occurrences in it marked) and where it is among that session's matches (`Result.nth`): what
opening the session at the match needs.

It reads through a connection of its own, opened to read only (`reader`), so a search can run
in a thread while the app writes through the store's.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from openwop_tui.store import search as index
from openwop_tui.store.database import LOCK_WAIT_SECONDS, StoreError, store_error
from openwop_tui.store.reading import Lenient
from openwop_tui.text.sanitize import HostText, clean

__all__ = ["Context", "Found", "Result", "occurrences", "search"]

#: Rows read from the index at most for one search (the count says when it stopped there).
ROWS = 2_000
#: Characters of context shown before the first occurrence, and in all.
BEFORE, WIDTH = 30, 160


@dataclass(frozen=True, slots=True)
class Context:
    """A line around a match: its text and the spans, in it, of every occurrence."""

    text: str
    spans: tuple[tuple[int, int], ...]
    cut_before: bool
    """Text before it was left out (shown as an ellipsis)."""
    cut_after: bool


@dataclass(frozen=True, slots=True)
class Result:
    """One message or reply holding the query."""

    session: str
    title: HostText
    updated: float
    """When its session was last written (seconds since the epoch)."""
    archived: bool
    role: str
    """``user`` or ``assistant``."""
    item: str
    occurrences: int
    nth: int
    """Its place among its session's matching messages (0: the first): the session's first
    occurrences before it are those of the messages before it."""
    before: int
    """Occurrences in its session before it (opening it steps to the one after these)."""
    context: Context


@dataclass(frozen=True, slots=True)
class Found:
    """What a search found."""

    query: str
    results: tuple[Result, ...]
    occurrences: int
    sessions: int
    capped: bool
    """The index gave `ROWS` rows: there may be more."""
    note: str | None = None
    """Why it was slower (no FTS5 here), or ``None``."""


def _pattern(query: str) -> re.Pattern[str]:
    return re.compile(re.escape(query), re.IGNORECASE)


def occurrences(text: str, query: str) -> list[tuple[int, int]]:
    """Every occurrence of ``query`` in ``text`` as (start, end), as the transcript's find
    counts them (case folded, not overlapping)."""
    if not query:
        return []
    return [match.span() for match in _pattern(query).finditer(text)]


def _context(text: str, spans: list[tuple[int, int]]) -> Context:
    """The line shown around the first occurrence (newlines as spaces, so it is one line)."""
    flat = " ".join(text.split("\n"))
    start = max(0, spans[0][0] - BEFORE)
    # Start at a word where there is one near, not in the middle of it.
    space = flat.rfind(" ", start - 12, spans[0][0])
    if start > 0 and space >= 0 and space >= start - 12:
        start = space + 1
    end = min(len(flat), start + WIDTH)
    shown = tuple((a - start, min(b, end) - start) for a, b in spans if a >= start and a < end)
    return Context(flat[start:end], shown, start > 0, end < len(flat))


def reader(path: Path) -> sqlite3.Connection:
    """A connection to the store at ``path`` that only reads. Raises `StoreError`."""
    try:
        db = sqlite3.connect(
            f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=LOCK_WAIT_SECONDS
        )
    except sqlite3.Error as error:
        raise store_error(error, path) from None
    db.text_factory = Lenient()
    return db


def search(path: Path, query: str) -> Found:
    """Search every session of the store at ``path`` for ``query``. Raises `StoreError`."""
    query = query.strip("\n")
    if not query.strip():
        return Found(query, (), 0, 0, False)
    try:
        with closing(reader(path)) as db:
            if not index.has_table(db):
                raise StoreError(
                    f"the session store {path} has no search index yet: start openwop-tui "
                    "once where it can write the store"
                )
            hits = index.find(db, query, limit=ROWS)
            note = None if index.has_fts(db) else index.NO_FTS
    except sqlite3.Error as error:
        raise store_error(error, path) from None
    results = list(_results(hits, query))
    return Found(
        query,
        tuple(results),
        sum(result.occurrences for result in results),
        len({result.session for result in results}),
        len(hits) >= ROWS,
        note,
    )


def _results(hits: list[index.Hit], query: str) -> Iterator[Result]:
    """The hits that hold ``query`` as results, each knowing its place in its session."""
    nth: dict[str, int] = {}
    before: dict[str, int] = {}
    for hit in hits:
        # A boundary: the store is a file anyone may have written.
        text = clean(hit.text)
        spans = occurrences(text, query)
        if not spans:
            continue  # (the index's folding of case is not quite the find's)
        number = nth.get(hit.session, 0)
        earlier = before.get(hit.session, 0)
        nth[hit.session] = number + 1
        before[hit.session] = earlier + len(spans)
        yield Result(
            hit.session,
            clean(hit.title),
            hit.updated,
            hit.archived,
            hit.role,
            hit.item,
            len(spans),
            number,
            earlier,
            _context(text, spans),
        )
