"""A store written before chunks is converted as it opens (issue 26): in one transaction,
after a copy of the file as it was is written beside it; a conversion that fails leaves the
file as it was, opening and reading as before.

The old store is written by this code with chunks off (`Store(dedup=False)`: long entries
kept whole, compressed, the file marked schema 2, as the store wrote them before chunks).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from chunk_sessions import echo_session

from openwop_tui.store import chunks, migration
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store


def _old_store(path: Path) -> tuple[str, list[str]]:
    with Store(path, dedup=False) as store:
        return echo_session(store, 40)


def _state(path: Path) -> tuple[int, list[tuple[object, ...]], bool]:
    """The file's schema, its entries' rows as stored, and whether it has any chunk."""
    with sqlite3.connect(path) as db:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        rows = db.execute("SELECT * FROM entries ORDER BY session, seq").fetchall()
        has = chunks.has_table(db) and db.execute("SELECT count(*) FROM chunks").fetchone()[0]
    return version, rows, bool(has)


def _frames(store: Store, session: str) -> list[str]:
    return [entry.data for entry in store.entries(session) if entry.kind == "frame"]


def test_an_old_store_is_converted_with_a_copy_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    session, frames = _old_store(path)
    before = _state(path)
    assert before[0] == 2 and not before[2]
    with Store(path) as store:
        assert store.converted is not None
        backup = migration.backup_path(path, 2)
        assert str(backup) in store.converted
        assert _frames(store, session) == frames  # byte for byte
    version, rows, has = _state(path)
    assert version == chunks.CHUNKED_SCHEMA and has
    assert any(bytes(row[7]).startswith(chunks.CHUNKED) for row in rows)
    # The copy is the file as it was (what an older openwop-tui opens).
    assert _state(backup) == before
    with Store(path) as store:  # converted once
        assert store.converted is None


def test_a_failed_conversion_leaves_the_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "sessions.db"
    session, frames = _old_store(path)
    before = _state(path)
    calls = []

    def failing(db: sqlite3.Connection, raw: bytes) -> bytes:
        calls.append(raw)
        if len(calls) > 3:  # part way through
            raise sqlite3.OperationalError("database or disk is full")
        return real(db, raw)

    real = chunks.put
    monkeypatch.setattr(chunks, "put", failing)
    with Store(path) as store:
        assert store.converted is not None and "could not be converted" in store.converted
        assert store.read_only is None
        assert _frames(store, session) == frames  # it reads as it was
    assert len(calls) > 3
    assert _state(path) == before
    assert not migration.backup_path(path, 2).exists()
    monkeypatch.setattr(chunks, "put", real)
    with Store(path) as store:  # the next open tries again
        assert store.converted is not None and "was converted" in store.converted
        assert _frames(store, session) == frames


def test_a_store_without_long_entries_is_left_for_older_versions(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    with Store(path, dedup=False) as store:
        echo_session(store, 3)  # the history stays short
    before = _state(path)
    with Store(path) as store:
        assert store.converted is None
    assert _state(path) == before
    assert not migration.backup_path(path, before[0]).exists()


def test_a_store_whose_compressed_entries_are_all_short_is_not_converted(tmp_path: Path) -> None:
    """A file this version wrote: compressed entries (8 to 16 KiB), none long enough for
    chunks. Opened again it is not "converted" (no copy, nothing said), and is looked through
    once: the next open starts after the last entry looked at."""
    path = tmp_path / "sessions.db"
    with Store(path) as store:
        session = store.create(host="h", workflow="w")
        for n in range(3):
            store.append(session, Entry("frame", f"{n} " + "x" * 12_000))
    version, _, has = _state(path)
    assert version == 2 and not has  # (compressed, not chunked)
    for _ in range(2):
        with Store(path) as store:
            assert store.converted is None
    assert not migration.backup_path(path, 2).exists()
    with sqlite3.connect(path) as db:
        (upto,) = db.execute("SELECT upto FROM conversion_checked").fetchone()
        assert upto == db.execute("SELECT max(rowid) FROM entries").fetchone()[0]


def test_a_long_entry_written_by_an_older_version_after_a_check_is_still_found(
    tmp_path: Path,
) -> None:
    """Looked through once (nothing long), then an older openwop-tui appends a long entry
    whole: the next open finds it, past the mark, and converts it."""
    path = tmp_path / "sessions.db"
    with Store(path) as store:
        session = store.create(host="h", workflow="w")
        store.append(session, Entry("frame", "x" * 12_000))
    with Store(path) as store:
        assert store.converted is None
    with Store(path, dedup=False) as store:  # as an older version writes: whole, compressed
        store.append(session, Entry("frame", "y" * 40_000))
    with Store(path) as store:
        assert store.converted is not None and "(1 long entries)" in store.converted
        assert [e.data for e in store.entries(session)][-1] == "y" * 40_000


def _looked_through_upto(path: Path) -> tuple[int, int]:
    """(the row the file was looked through up to, its last row)."""
    with sqlite3.connect(path) as db:
        return migration._checked_upto(db), int(
            db.execute("SELECT coalesce(max(rowid), 0) FROM entries").fetchone()[0]
        )


def test_what_this_version_wrote_is_not_looked_through_at_the_next_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long session written by this version (compressed entries, none long: it would have
    kept a long one as chunks) is marked looked through as its store closes, so the next start
    does not inflate every entry to find none long (0.2 s for 3,000 turns)."""
    path = tmp_path / "sessions.db"
    with Store(path) as store:
        session = store.create(host="h", workflow="w")
        for n in range(20):
            store.append(session, Entry("frame", f"{n} " + "x" * 12_000))
    upto, last = _looked_through_upto(path)
    assert upto == last > 0
    looked: list[int] = []
    candidates = migration._candidates

    def counted(db: sqlite3.Connection, after: int) -> Any:
        for row in candidates(db, after):
            looked.append(row[0])
            yield row

    monkeypatch.setattr(migration, "_candidates", counted)
    with Store(path) as store:
        assert store.converted is None
        assert len(list(store.entries(session))) == 20
    assert looked == []


def test_rows_not_looked_through_before_a_write_are_looked_through_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store whose conversion failed as it opened is written to and closed: the older
    version's long entries it holds are not marked looked through with this version's, and
    the next open converts them."""
    path = tmp_path / "sessions.db"
    session, frames = _old_store(path)
    real = chunks.put

    def failing(db: sqlite3.Connection, raw: bytes) -> bytes:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(chunks, "put", failing)
    with Store(path) as store:
        assert store.conversion_failed
        store.append(session, Entry("notice", "written after the failed conversion"))
    upto, last = _looked_through_upto(path)
    assert upto < last
    monkeypatch.setattr(chunks, "put", real)
    with Store(path) as store:
        assert store.converted is not None and "was converted" in store.converted
        assert _frames(store, session) == frames
