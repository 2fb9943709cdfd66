"""Store appends in batches: one transaction per batch, complete after a clean close or exit,
consistent after a kill, and a write that fails is told to the conversation and kept for the
next try."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from patience import PATIENCE

from openwop_tui.core import log_flush
from openwop_tui.core.conversation import Conversation
from openwop_tui.store import batch as batch_module
from openwop_tui.store import database
from openwop_tui.store.batch import BATCH_ENTRIES
from openwop_tui.store.database import StoreError
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import SessionLog, Store


def _frame(n: int) -> Entry:
    return Entry("frame", f'{{"type":"output.chunk","n":{n}}}', run="r", label="m", frame_id=str(n))


def _committed(path: Path) -> list[str]:
    """What another process would read now."""
    db = sqlite3.connect(path)
    try:
        return [row[0] for row in db.execute("SELECT kind FROM entries ORDER BY seq")]
    finally:
        db.close()


def test_frames_wait_for_their_batch_and_go_in_one_write(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = Store(path)
    session = store.create(host="h", workflow="w")
    store.append(session, Entry("user", "hi"))  # a user's message commits at once
    for n in range(10):
        store.append(session, _frame(n))
    assert _committed(path) == ["user"] and store.pending == 10
    store.flush()
    assert _committed(path) == ["user"] + ["frame"] * 10 and store.pending == 0
    info = store.info(session)
    assert (info.entries, info.messages, info.title) == (11, 1, "hi")
    store.close()


def test_a_full_batch_and_an_old_one_are_written_without_being_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.db"
    store = Store(path)
    session = store.create(host="h", workflow="w")
    for n in range(BATCH_ENTRIES):
        store.append(session, _frame(n))
    assert len(_committed(path)) == BATCH_ENTRIES and store.pending == 0
    clock = [1000.0]
    monkeypatch.setattr(batch_module.time, "monotonic", lambda: clock[0])
    store.append(session, _frame(-1))
    assert store.pending == 1
    clock[0] += 2 * batch_module.BATCH_SECONDS
    store.append(session, _frame(-2))  # the batch is old enough: this append writes it
    assert store.pending == 0 and len(_committed(path)) == BATCH_ENTRIES + 2
    store.close()


def test_reads_see_every_append_and_a_clean_close_writes_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = Store(path)
    session = store.create(host="h", workflow="w")
    store.append(session, Entry("run", run="r"))
    store.append(session, _frame(0))
    assert [e.kind for e in store.entries(session)] == ["run", "frame"]
    store.append(session, _frame(1))
    store.close()
    assert _committed(path) == ["run", "frame", "frame"]


def _child(path: Path, tail: str) -> subprocess.CompletedProcess[str]:
    code = textwrap.dedent(
        f"""
        import os, signal, sys
        from pathlib import Path
        from openwop_tui.store.records import Entry
        from openwop_tui.store.sessions import Store
        store = Store(Path({str(path)!r}))
        session = store.create(host="h", workflow="w")
        store.append(session, Entry("user", "hello"))
        store.append(session, Entry("run", run="r"))
        for n in range(120):
            store.append(session, Entry("frame", "x" * 50, run="r", frame_id=str(n)))
        print(session, flush=True)
        """
    )
    return subprocess.run(
        [sys.executable, "-c", code + textwrap.dedent(tail)],
        capture_output=True,
        text=True,
        timeout=PATIENCE,
    )


def test_a_killed_process_loses_at_most_the_open_batch(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    done = _child(path, "os.kill(os.getpid(), signal.SIGKILL)\n")
    assert done.returncode == -signal.SIGKILL
    kinds = _committed(path)
    # The user's message was committed at once; the frames after it are a whole batch or
    # nothing, never a damaged file or a gap.
    assert kinds[0] == "user" and set(kinds[1:]) <= {"run", "frame"}
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    seqs = [row[0] for row in db.execute("SELECT seq FROM entries ORDER BY seq")]
    counted = db.execute("SELECT entries FROM sessions").fetchone()[0]
    db.close()
    assert seqs == list(range(len(seqs))) and counted == len(seqs)


def test_a_store_nobody_closed_is_complete_after_a_normal_exit(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    done = _child(path, "")  # the interpreter exits with the batch pending
    assert done.returncode == 0, done.stderr
    assert _committed(path) == ["user", "run"] + ["frame"] * 120


def test_a_failed_write_is_told_to_the_conversation_and_kept_for_the_next_try(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database, "LOCK_WAIT_SECONDS", 0.01)
    path = tmp_path / "s.db"
    store = Store(path)
    keep = SessionLog(store, None, host="h", workflow="w")
    chat = Conversation(logs=[keep])
    chat.notice("info", "before")
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another program holds the write lock
    chat.add_user("hello")  # commits at once: it cannot
    assert chat.log_error is not None and "locked" in chat.log_error
    assert store.pending == 2
    other.execute("ROLLBACK")
    other.close()
    chat.log_error = None
    chat.logbook.flush()
    assert chat.log_error is None
    assert _committed(path) == ["notice", "user"]
    store.close()


def test_a_stream_that_goes_quiet_is_written_shortly_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(tmp_path / "s.db")
    keep = SessionLog(store, None, host="h", workflow="w")
    chat = Conversation(logs=[keep])
    written = asyncio.Event()
    real = keep.flush

    def flush() -> None:
        real()
        written.set()

    monkeypatch.setattr(keep, "flush", flush)

    async def quiet_stream() -> None:
        chat.notice("info", "a frame's worth")  # no further append comes
        assert store.pending == 1
        await asyncio.wait_for(written.wait(), 60)  # a guard, not the synchronisation

    asyncio.run(quiet_stream())
    assert store.pending == 0 and _committed(tmp_path / "s.db") == ["notice"]
    store.close()


def test_without_a_running_loop_nothing_is_scheduled(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    keep = SessionLog(store, None, host="h", workflow="w")
    timer = log_flush.FlushTimer(lambda: [keep], lambda why: None)
    keep.append(_frame(0))
    timer.appended()  # no loop: the batch waits for the next append or the close
    assert store.pending == 1
    store.close()


def test_an_append_to_a_session_deleted_meanwhile_says_so(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = Store(path)
    session = store.create(host="h", workflow="w")
    store.append(session, _frame(0))
    other = Store(path)
    other.delete(session)  # another process removes it while the frame waits
    other.close()
    with pytest.raises(StoreError, match="deleted meanwhile"):
        store.flush()
    with pytest.raises(StoreError, match="no stored session"):
        store.append(session, _frame(1))
    store.close()
