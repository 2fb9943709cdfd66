"""A long session opened newest first (issue 13, part 3): its newest runs folded on their own
give the same items as the whole session's fold ends with; the whole fold can be read a step at
a time and gives what reading it at once gives; the store finds where the newest runs begin.

Each test fails without its part: `newest_runs` starting anywhere but at a ``run`` entry (ids
and usage would not carry), restoring a kept run only onto the state it was made in (the tail
would be folded from events, with other ids), `reopening` not yielding, or `same_items`
comparing by identity.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from session_support import chat_turns

from openwop_tui.core import opening
from openwop_tui.core.opening import newest_runs
from openwop_tui.core.reopen import reopening, same_items
from openwop_tui.demo_host import DemoHost
from openwop_tui.store.sessions import Store

TURNS = 15


async def _chat(store: Store, url: str, key: str) -> str:
    return await chat_turns(store, url, key, (f"code please ({n})" for n in range(TURNS)))


@pytest.fixture(scope="module")
def long_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A stored session of `TURNS` chat turns against the demo host, each run's fold kept."""
    path = tmp_path_factory.mktemp("newest") / "sessions.db"
    with DemoHost(pace=0) as demo, Store(path) as store:
        session_id = asyncio.run(_chat(store, demo.url, demo.api_key))
    yield path, session_id


def test_the_store_finds_where_the_newest_runs_begin(long_session: tuple[Path, str]) -> None:
    path, session_id = long_session
    with Store(path) as store:
        runs = [entry.seq for entry in store.entries(session_id) if entry.kind == "run"]
        assert len(runs) == TURNS
        assert store.run_start(session_id, 1) == runs[-1]
        assert store.run_start(session_id, 4) == runs[-4]
        assert store.run_start(session_id, TURNS - 1) == runs[1]
        # No older run to leave for later: the session is read whole.
        assert store.run_start(session_id, TURNS) is None
        assert store.run_start(session_id, TURNS + 5) is None


def test_the_newest_runs_alone_are_what_the_whole_session_ends_with(
    long_session: tuple[Path, str],
) -> None:
    path, session_id = long_session
    with Store(path) as store:
        whole = opening.stored(store, session_id)
        found = newest_runs(store, session_id, 4)
        assert found is not None
        newest = found.conversation
        items, tail = whole.transcript.items, newest.transcript.items
        # Four runs and everything after the first of them: three user turns (the first
        # run's comes before its ``run`` entry), four replies, their notices.
        assert 7 <= len(tail) < len(items) // 2
        assert [item.id for item in tail] == [item.id for item in items[-len(tail) :]]
        assert same_items(tail, items[-len(tail) :])
        assert not same_items(tail, items[-len(tail) - 1 : -1])
        assert newest.hosts.items() <= whole.hosts.items()
        assert newest.transcript.usage_session == whole.transcript.usage_session
        # The history the runs before them left is kept: it is the whole session's.
        assert found.whole_history and newest.history == whole.history
        assert newest_runs(store, session_id, TURNS) is None


def test_newest_runs_neither_keeps_nor_logs_anything(long_session: tuple[Path, str]) -> None:
    path, session_id = long_session
    db = sqlite3.connect(path)
    before = db.execute("SELECT count(*), max(seq) FROM entries").fetchone()
    with Store(path) as store:
        store_rows = db.execute("SELECT session, start, before FROM folds").fetchall()
        db.execute("DELETE FROM folds WHERE start >= ?", (store.run_start(session_id, 3),))
        db.commit()
        newest = newest_runs(store, session_id, 3)
        assert newest is not None and newest.conversation.logs == []
    # Folded on a state that is not the session's, its runs' folds would be wrong to keep.
    assert db.execute("SELECT count(*) FROM folds").fetchone()[0] == len(store_rows) - 3
    assert db.execute("SELECT count(*), max(seq) FROM entries").fetchone() == before
    with Store(path) as store:
        opening.stored(store, session_id)  # the whole fold keeps them again
    assert db.execute("SELECT count(*) FROM folds").fetchone()[0] == len(store_rows)


def test_a_tail_folded_from_its_events_is_told_apart(tmp_path: Path) -> None:
    # Without a kept fold to carry the ids from, the newest runs folded alone number their
    # items from the start: the app must see they are not the session's, and draw it whole.
    path = tmp_path / "s.db"
    with DemoHost(pace=0) as demo, Store(path) as store:
        session_id = asyncio.run(_chat(store, demo.url, demo.api_key))
    sqlite3.connect(path, isolation_level=None).execute("DELETE FROM folds")
    with Store(path) as store:
        newest = newest_runs(store, session_id, 3)
        whole = opening.stored(store, session_id)
    assert newest is not None
    tail = newest.conversation.transcript.items
    assert not same_items(tail, whole.transcript.items[-len(tail) :])


def test_reading_a_step_at_a_time_gives_what_reading_at_once_gives(
    long_session: tuple[Path, str],
) -> None:
    path, session_id = long_session
    with Store(path) as store:
        whole = opening.stored(store, session_id)
        stepped, steps = opening.opening(store, session_id)
        assert stepped.transcript.items == []  # nothing read until the steps run
        count = sum(1 for _ in steps)  # (a short session: perhaps a single step)
        assert same_items(stepped.transcript.items, whole.transcript.items)
        assert stepped.history == whole.history
        # Smaller steps, more of them, the same result; the collector resumes after.
        small, _ = opening.opening(store, session_id)
        assert small.keeper is not None
        fine = sum(1 for _ in reopening(small, store, session_id, small.keeper, step=4))
        # (Each turn is two parts at least: its message and its kept run.)
        assert fine > count and fine >= 2 * TURNS // 4
        assert same_items(small.transcript.items, whole.transcript.items)


def test_a_reading_stopped_early_lets_the_collector_run_again(
    long_session: tuple[Path, str],
) -> None:
    import gc

    path, session_id = long_session
    assert gc.isenabled()
    with Store(path) as store:
        chat, steps = opening.opening(store, session_id)
        assert chat.keeper is not None
        steps = reopening(chat, store, session_id, chat.keeper, step=2)
        next(steps)
        assert not gc.isenabled()
        steps.close()
    assert gc.isenabled()
