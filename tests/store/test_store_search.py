"""The search index over every stored session (issue 27): kept up to date as a chat is
written (the user's message as its run begins, the reply as it ends), gone with a deleted
session, built for a store written before it, safe against queries that look like FTS syntax,
and a plain scan where SQLite has no FTS5.

The sessions are written as the app writes them: turns sent to the embedded demo host
(`session_support.chat_turns`), so the reply indexed is the fold's text, not the frames'.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from session_support import chat_turns

from openwop_tui.core import indexing
from openwop_tui.core.searching import occurrences, search
from openwop_tui.demo_host import DemoHost
from openwop_tui.store import search as index
from openwop_tui.store.records import Entry
from openwop_tui.store.search import IndexRow
from openwop_tui.store.sessions import Store


def _chat(host: DemoHost, path: Path, texts: list[str]) -> str:
    with Store(path) as store:
        return asyncio.run(chat_turns(store, host.url, host.api_key, texts))


def test_what_a_chat_writes_is_found_at_once(host: DemoHost, tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    session = _chat(host, path, ["the pelican flies", "and the pelican lands"])
    found = search(path, "pelican")
    # Each message once, and the demo host's reply echoes each ("You said: …").
    assert found.sessions == 1 and found.occurrences == 4
    roles = [(r.role, r.occurrences) for r in found.results]
    assert roles == [("user", 1), ("assistant", 1), ("user", 1), ("assistant", 1)]
    assert [r.nth for r in found.results] == [0, 1, 2, 3]
    assert [r.before for r in found.results] == [0, 1, 2, 3]
    # The reply is indexed as the fold shows it: its words, not the frames' JSON.
    assert search(path, "Hello from the demo host").occurrences == 2
    assert search(path, "message.chunk").occurrences == 0
    assert search(path, '"type"').occurrences == 0
    with Store(path) as store:
        assert store.unindexed() == []  # complete through its log: nothing to build again
        assert session in {info.id for info in store.sessions()}


def test_a_deleted_session_leaves_the_index(host: DemoHost, tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    gone = _chat(host, path, ["albatross one"])
    _chat(host, path, ["albatross two"])
    assert search(path, "albatross").sessions == 2
    with Store(path) as store:
        store.delete(gone)
    found = search(path, "albatross")
    assert found.sessions == 1 and {r.session for r in found.results} != {gone}
    with sqlite3.connect(path) as db:
        assert (
            db.execute("SELECT count(*) FROM search_rows WHERE session = ?", (gone,)).fetchone()[0]
            == 0
        )
        # The full-text index itself has no row of it left (not only the rows table).
        left = db.execute(
            "SELECT count(*) FROM search_text WHERE search_text MATCH ?", ('"albatross one"',)
        ).fetchone()[0]
        assert left == 0


def _older_store(path: Path, host: DemoHost) -> str:
    """A store as an openwop-tui before the index wrote it: the tables and columns gone."""
    session = _chat(host, path, ["a cormorant dives", "the cormorant again"])
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE search_text")
        db.execute("DROP TABLE search_rows")
        db.execute("ALTER TABLE sessions DROP COLUMN archived")
        db.execute("ALTER TABLE sessions DROP COLUMN indexed")
    return session


def test_an_older_store_gets_the_index_and_is_indexed_from_its_folds(
    host: DemoHost, tmp_path: Path
) -> None:
    path = tmp_path / "sessions.db"
    session = _older_store(path, host)
    with Store(path) as store:
        assert store.search_added is not None and "1 stored session is" in store.search_added
        assert store.unindexed() == [session]
        assert search(path, "cormorant").occurrences == 0  # not built yet
        assert list(indexing.pending(store)) == [session]
        assert store.unindexed() == []
        assert store.sessions()[0].archived is False
    assert search(path, "cormorant").occurrences == 4
    with Store(path) as store:
        assert store.search_added is None  # added once


def test_a_session_skipped_while_open_is_left_for_later(host: DemoHost, tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    session = _older_store(path, host)
    with Store(path) as store:
        assert list(indexing.pending(store, skip=lambda: {session})) == []
        assert store.unindexed() == [session]


def test_a_build_gives_way_between_its_steps_and_can_be_stopped(
    host: DemoHost, tmp_path: Path
) -> None:
    # The app's index thread waits there while keys are typed: a whole session's build in one
    # go held the interpreter, and the first keys after opening another session echoed in
    # 33 ms instead of 13 (issue 26).
    path = tmp_path / "sessions.db"
    session = _chat(host, path, [f"a cormorant dives ({number})" for number in range(40)])
    steps: list[None] = []
    with Store(path) as store:
        assert indexing.build(store, session, between=lambda: steps.append(None)) > 0
    assert steps and search(path, "dives").occurrences >= 40

    class Stop(Exception):
        pass

    def stop() -> None:
        raise Stop

    other = _chat(host, path, [f"a heron waits ({number})" for number in range(40)])
    with Store(path) as store, pytest.raises(Stop):  # (the app closing: its thread stops there)
        indexing.build(store, other, between=stop)


HOSTILE = ['"', '""', "*", "pel*", "NEAR(a b)", "a AND b", "-pelican", "a OR", "(", "^p", "x:y"]


@pytest.mark.parametrize("query", HOSTILE)
def test_queries_that_look_like_fts_syntax_are_text(tmp_path: Path, query: str) -> None:
    path = tmp_path / "sessions.db"
    text = f"before {query} after, and pelican"
    with Store(path) as store:
        session = store.create(host="h", workflow="w")
        store.append(session, Entry("user", text))
        store.index(session, [IndexRow("user-1", 0, "user", text)], through=1)
    found = search(path, query)  # never raises
    assert found.occurrences == len(occurrences(text, query)) >= 1
    assert found.results[0].context.text.startswith("before")


def test_short_queries_and_a_sqlite_without_fts5_are_scanned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index, "fts5_available", lambda db: False)
    path = tmp_path / "sessions.db"
    with Store(path) as store:
        assert store.search_note == index.NO_FTS
        session = store.create(host="h", workflow="w")
        rows = [
            IndexRow("user-1", 0, "user", "100% of a_b ok"),
            IndexRow("r-2", 1, "assistant", "ok"),
        ]
        store.index(session, rows, through=1)
    with sqlite3.connect(path) as db:
        assert not index.has_fts(db)
    found = search(path, "ok")
    assert found.occurrences == 2 and found.note == index.NO_FTS
    assert search(path, "0%").occurrences == 1  # LIKE's own wildcards are text
    assert search(path, "a_b").occurrences == 1
    assert search(path, "a%b").occurrences == 0


def test_the_context_marks_each_occurrence(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    text = "word " * 20 + "the Heron and the heron\nand more " + "tail " * 60
    with Store(path) as store:
        session = store.create(host="h", workflow="w")
        store.index(session, [IndexRow("a-1", 0, "assistant", text)], through=None)
    (result,) = search(path, "heron").results
    context = result.context
    assert result.occurrences == 2 and context.cut_before and context.cut_after
    assert [context.text[a:b] for a, b in context.spans] == ["Heron", "heron"]
    assert "\n" not in context.text


def test_the_key_is_masked_in_the_index(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    key = "sk-search-secret-0123456789"
    with Store(path, secrets=[key]) as store:
        session = store.create(host="h", workflow="w")
        store.index(session, [IndexRow("user-1", 0, "user", f"my key is {key} ok")], through=None)
        store.reindex(session, [IndexRow("user-1", 0, "user", f"again {key}")], through=1)
    assert search(path, key).occurrences == 0
    assert search(path, "again").occurrences == 1
    for file in tmp_path.iterdir():
        assert key.encode() not in file.read_bytes(), file
