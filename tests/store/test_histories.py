"""Each run's effect on the chat history is kept beside the log, so a long session can take its
next message before it is read (issue 23, item 7; `openwop_tui.store.histories`).

The rows are checked against the truth they stand for: the history the log folds to as each
run begins, for a session with replaced exchanges and a run the process never saw end. Each
test fails without its part: rows not kept live, not laid in order, a missing row not noticed,
the key kept unmasked, the reading not writing the rows an older version left out, a run the
log's end leaves open kept before it could be caught up.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path

import pytest

from openwop_tui.core import opening
from openwop_tui.core.conversation import Conversation
from openwop_tui.core.session import Session
from openwop_tui.demo_host import DemoHost
from openwop_tui.protocol.client import HostClient
from openwop_tui.store.histories import HistoryRow
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store


async def _session(store: Store, url: str, key: str, texts: list[str]) -> str:
    """A session of ``texts``, the second exchange replaced twice (edited, regenerated)."""
    async with HostClient(url, key) as client:
        chat = opening.stored(store, None, session=Session(client, workflow_id="demo.chat"))
        await chat.connect()
        for number, text in enumerate(texts):
            async for _ in chat.send(text):
                pass
            if number == 1:
                for again in (f"{text}, edited", f"{text}, edited"):
                    assert chat.replace_last_exchange() is not None
                    async for _ in chat.send(again):
                        pass
        session_id = chat.logs[0].session_id  # type: ignore[attr-defined]
    assert isinstance(session_id, str)
    return session_id


@pytest.fixture
def session(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "sessions.db"
    with DemoHost(pace=0, deterministic=True) as demo, Store(path) as store:
        texts = [f"turn {number}" for number in range(6)]
        session_id = asyncio.run(_session(store, demo.url, demo.api_key, texts))
    return path, session_id


def _run_starts(store: Store, session_id: str) -> list[int]:
    return [entry.seq for entry in store.entries(session_id) if entry.kind == "run"]


def _folded_before(store: Store, session_id: str, seq: int) -> list[dict[str, str]]:
    """The chat history the log before ``seq`` folds to (the truth the rows stand for)."""
    return Conversation.from_log(store.entries(session_id, 0, seq)).history


def test_the_history_before_every_run_is_what_the_log_folds_to(
    session: tuple[Path, str],
) -> None:
    path, session_id = session
    with Store(path) as store:
        starts = _run_starts(store, session_id)
        assert len(starts) == 8  # six turns, one exchange sent twice more
        assert store.history_starts(session_id) == set(starts)
        for seq in starts:
            assert store.history_before(session_id, seq) == _folded_before(store, session_id, seq)
        # (The replaced exchanges left it: the last run began after five whole turns.)
        last = store.history_before(session_id, starts[-1])
        assert last is not None
        users = [m["content"] for m in last if m["role"] == "user"]
        assert users == ["turn 0", "turn 1, edited", "turn 2", "turn 3", "turn 4"]


def test_a_run_without_its_row_makes_the_history_unknown(session: tuple[Path, str]) -> None:
    path, session_id = session
    with Store(path) as store:
        starts = _run_starts(store, session_id)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("DELETE FROM histories WHERE start = ?", (starts[3],))
    db.close()
    with Store(path) as store:
        assert store.history_before(session_id, starts[2]) is not None  # (before it: known)
        assert store.history_before(session_id, starts[3]) is None
        assert store.history_before(session_id, starts[-1]) is None
        assert store.history_before(session_id, starts[3] + 1) is None  # (not a run)


def test_a_row_that_does_not_follow_the_ones_before_is_not_believed(
    session: tuple[Path, str],
) -> None:
    path, session_id = session
    with Store(path) as store:
        starts = _run_starts(store, session_id)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("UPDATE histories SET before = 999 WHERE start = ?", (starts[4],))
    db.execute("UPDATE histories SET messages = '{\"not\": 1}' WHERE start = ?", (starts[1],))
    db.close()
    with Store(path) as store:
        assert store.history_before(session_id, starts[1]) is not None
        assert store.history_before(session_id, starts[2]) is None  # (its messages are not)
        assert store.history_before(session_id, starts[-1]) is None


def test_the_reading_keeps_the_rows_an_older_version_did_not(session: tuple[Path, str]) -> None:
    path, session_id = session
    db = sqlite3.connect(path, isolation_level=None)
    rows = "SELECT start, before, messages FROM histories ORDER BY start"
    kept = db.execute(rows).fetchall()
    db.execute("DELETE FROM histories")
    with Store(path) as store:
        opening.stored(store, session_id)  # restored from kept folds: rows from them
    assert db.execute(rows).fetchall() == kept
    db.execute("DELETE FROM histories")
    db.execute("DELETE FROM folds")
    with Store(path) as store:
        opening.stored(store, session_id)  # folded from the events: rows from them
    assert db.execute(rows).fetchall() == kept
    db.close()


def test_a_run_the_process_never_saw_end(tmp_path: Path) -> None:
    # Killed mid-run: its log has no ``end``. Settled by the next run, what it added is known;
    # left open at the log's end, the host may still complete it: not kept until it is.
    path = tmp_path / "sessions.db"
    with Store(path) as store:
        session_id = store.create(host="h", workflow="w")
        for run, text in (("r1", "first"), ("r2", "second")):
            store.append(session_id, Entry("user", text))
            store.append(session_id, Entry("run", run=run, meta={"workflow": "w"}))
        starts = _run_starts(store, session_id)
        opening.stored(store, session_id)
        assert store.history_starts(session_id) == {starts[0]}
        # (As the open one began is not known: its row would say what was cut before it.)
        assert store.history_before(session_id, starts[1]) is None
    db = sqlite3.connect(path)
    rows = db.execute("SELECT start, before, messages FROM histories").fetchall()
    db.close()
    assert rows == [(starts[0], 0, json.dumps([["user", "first"]]))]


def test_the_key_is_kept_masked(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    with DemoHost(pace=0, deterministic=True) as demo:
        with Store(path, secrets=[demo.api_key]) as store:
            session_id = asyncio.run(
                _session(store, demo.url, demo.api_key, [f"my key is {demo.api_key}", "then"])
            )
            starts = _run_starts(store, session_id)
            history = store.history_before(session_id, starts[-1])
        db = sqlite3.connect(path)
        texts = [json.loads(text) for (text,) in db.execute("SELECT messages FROM histories")]
        db.close()
        assert texts and demo.api_key not in json.dumps(texts)
        assert history is not None and demo.api_key not in json.dumps(history)
        assert "my key is" in history[0]["content"]


def test_a_reopening_writes_no_row_the_session_has(
    session: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run restored from its kept fold is read back, not lived: its row, kept already, is not
    written again (it was, once a run, in a transaction each: 3,000 for 3,000 turns, most of a
    reopening's time: issue 26's ``reopen`` figure)."""
    path, session_id = session
    with Store(path) as store:
        opening.stored(store, session_id)  # (every run's fold and row kept)
    written: list[int] = []
    keep = Store.keep_histories

    def noted(self: Store, sid: str, rows: Iterable[HistoryRow], *, replace: bool = False) -> None:
        kept = list(rows)
        written.extend(row.start for row in kept)
        keep(self, sid, kept, replace=replace)

    monkeypatch.setattr(Store, "keep_histories", noted)
    with Store(path) as store:
        chat = opening.stored(store, session_id)
    assert chat.transcript.items
    assert written == []


def test_the_runs_are_found_by_their_index(session: tuple[Path, str]) -> None:
    # Without the index, the history before a run read every entry of the session to find its
    # runs (0.1 s at 3,000 turns, before the newest turns of a reopened session were drawn).
    path, session_id = session
    db = sqlite3.connect(path)
    try:
        plan = db.execute(
            "EXPLAIN QUERY PLAN SELECT seq FROM entries "
            "WHERE session = ? AND kind = 'run' AND seq <= ? ORDER BY seq",
            (session_id, 10**9),
        ).fetchall()
        assert any("entries_runs" in str(step) for step in plan), plan
        # A file made before the index (an older openwop-tui's) has it once opened.
        db.execute("DROP INDEX entries_runs")
        db.commit()
    finally:
        db.close()
    with Store(path) as store:
        starts = _run_starts(store, session_id)
        last = store.history_before(session_id, starts[-1])
        assert last == _folded_before(store, session_id, starts[-1])
    db = sqlite3.connect(path)
    try:
        found = db.execute("SELECT sql FROM sqlite_master WHERE name = 'entries_runs'").fetchone()
        assert found is not None and "kind = 'run'" in found[0]
    finally:
        db.close()
