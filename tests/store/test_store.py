"""The sessions database: appends survive a killed process, secrets never reach the file,
and every database failure is one sentence."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from openwop_tui.store import database, writer
from openwop_tui.store import sessions as store_module
from openwop_tui.store.database import StoreError, default_path
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store

KEY = "sk-store-test-9f8e7d6c5b"


def test_the_database_lives_in_the_user_data_folder(tmp_path: Path) -> None:
    # conftest points XDG_DATA_HOME at a temporary folder: nothing touches the user's own.
    assert default_path().name == "sessions.db"
    assert "xdg-data" in str(default_path())


def test_a_killed_process_loses_nothing_of_an_ended_run(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    first = Store(path)
    session = first.create(host="http://127.0.0.1:1", workflow="demo.chat")
    first.append(session, Entry("user", "hello"))
    first.append(session, Entry("run", run="run_1", meta={"workflow": "demo.chat"}))
    first.append(
        session,
        Entry("frame", '{"type":"run.started"}', run="run_1", label="updates", frame_id="0"),
    )
    first.append(session, Entry("end", run="run_1"))
    # `first` is never closed (the process was killed): a fresh connection sees every entry
    # up to the run's end, which commits its batch (tests/store/test_store_batch.py kills one).
    second = Store(path)
    kinds = [entry.kind for entry in second.entries(session)]
    assert kinds == ["user", "run", "frame", "end"]
    frame = list(second.entries(session))[2]
    assert (frame.label, frame.frame_id, frame.data) == ("updates", "0", '{"type":"run.started"}')
    assert second.info(session).messages == 1 and second.info(session).title == "hello"
    first.close()
    second.close()


def test_raw_text_is_kept_byte_for_byte(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as db:
        session = db.create(host="h", workflow="w")
        raw = '{"text": "\\u001b[31m red \x1b[0m \ud800 tab\t"}'  # escapes, a control, a surrogate
        db.append(session, Entry("frame", raw, label="ev\x1bnt"))
        [entry] = db.entries(session)
        assert entry.data == raw and entry.label == "ev\x1bnt"


def test_the_key_and_url_credentials_never_reach_the_file(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with Store(path, secrets=[KEY]) as db:
        session = db.create(host="https://bob:hunter2@host.example/", workflow="w")
        db.append(session, Entry("frame", f'{{"echo": "Bearer {KEY}"}}', label=KEY))
        db.append(session, Entry("user", f"my key is {KEY}"))
        db.append(
            session, Entry("notice", f"error at https://bob:hunter2@host/ {KEY}", label="error")
        )
        assert db.info(session).host == "https://host.example/"
    data = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert KEY.encode() not in data
    assert b"hunter2" not in data


def test_list_rename_delete_latest(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as db:
        assert db.latest() is None and db.sessions() == []
        one = db.create(host="h", workflow="w")
        two = db.create(host="h", workflow="w")
        db.append(one, Entry("user", "first " * 40))
        assert db.latest() is not None and db.latest().id == one  # type: ignore[union-attr]
        assert len(db.info(one).title) <= writer.TITLE_CHARS
        db.rename(one, "renamed")
        assert db.info(one).title == "renamed"
        db.delete(one)
        assert [info.id for info in db.sessions()] == [two]
        with pytest.raises(StoreError, match="no stored session"):
            db.info(one)
        with pytest.raises(StoreError, match="no stored session"):
            db.append(one, Entry("user", "x"))


def test_a_newer_schema_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    Store(path).close()
    with sqlite3.connect(path) as raw:
        raw.execute(f"PRAGMA user_version={database.SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer openwop-tui") as raised:
        Store(path)
    assert "\n" not in str(raised.value)


def test_a_corrupt_file_is_one_sentence(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    path.write_bytes(b"this is not a database at all, just bytes " * 200)
    with pytest.raises(StoreError, match="damaged") as raised:
        Store(path)
    assert "\n" not in str(raised.value)


def test_a_database_of_something_else_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with sqlite3.connect(path) as raw:
        raw.execute("CREATE TABLE other (x)")
    with pytest.raises(StoreError, match="something else"):
        Store(path)


def test_a_locked_database_is_one_sentence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.db"
    db = Store(path)
    session = db.create(host="h", workflow="w")
    monkeypatch.setattr(database, "LOCK_WAIT_SECONDS", 0.0)
    other = Store(path)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another program holds the write lock
    try:
        with pytest.raises(StoreError, match="locked"):
            other.append(session, Entry("user", "x"))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    other.close()
    db.close()


def test_assets_are_kept_under_a_total_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "ASSET_BYTES", 25)
    with Store(tmp_path / "s.db") as db:
        db.put_asset("u1", b"a" * 10, "image/png")
        db.put_asset("u2", b"b" * 10)
        assert db.asset("u1") == (b"a" * 10, "image/png")
        db.put_asset("u3", b"c" * 10)  # 30 > 25: the least recently used goes
        assert db.asset("u1") is None
        assert db.asset("u2") is not None and db.asset("u3") is not None


def test_a_reopen_reads_the_entries_between_kept_runs_as_the_log_has_them(
    tmp_path: Path,
) -> None:
    # 1,200 runs with kept folds and a message or two between them (the short ranges are
    # read by number, many at once, past one query's worth), then a run without one (read
    # by itself, streamed) and a last message.
    from openwop_tui.store.folds import FoldRow

    with Store(tmp_path / "s.db") as db:
        session = db.create(host="h", workflow="w")
        rows = []
        for n in range(1_200):
            db.append(session, Entry("user", f"question {n}"))
            if n % 7 == 0:
                db.append(session, Entry("notice", f"note {n}", label="info"))
            start = db.append(session, Entry("run", run=f"run_{n}"))
            db.append(session, Entry("frame", '{"type":"run.started"}', run=f"run_{n}"))
            stop = db.append(session, Entry("end", run=f"run_{n}"))
            rows.append(FoldRow(start, stop, "v1", "before", b"kept"))
        for kind in ("user", "run", "frame", "frame", "end", "user"):
            db.append(session, Entry(kind, "x" if kind != "run" else "", run="last"))
        db.keep_folds(session, rows)
        read = list(db.outline(session, "v1"))
        kept = {(row.start, row.stop) for row in rows}
        expected: list[object] = []
        entries = list(db.entries(session))
        for entry in entries:
            run = next(((a, b) for a, b in kept if a <= entry.seq <= b), None)
            if run is None:
                expected.append(("entry", entry.seq, entry.kind, entry.data))
            elif entry.seq == run[0]:
                expected.append(("row", run[0]))
        got = [
            ("row", item.start)
            if isinstance(item, FoldRow)
            else ("entry", item.seq, item.kind, item.data)
            for item in read
        ]
        assert got == expected
