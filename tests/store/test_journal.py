"""A full disk loses no entry: what the store cannot write waits once, in order, and a journal
file keeps it across a quit until the next open writes it in.

The full disk is SIMULATED here: the store's lowest write calls (`batch.write_sessions` and
`batch.write_rows`, as `openwop_tui.store.writer` and `openwop_tui.store.journal` call them)
raise SQLite's own "database or disk is full" error while ``full`` is on.
`tests/ui/test_full_disk_quit.py` fills a real filesystem (a tmpfs) where the machine allows
mounting one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from full_disk import FullDisk, fill, simulate, tmpfs

from openwop_tui.core.conversation import Conversation
from openwop_tui.store import journal
from openwop_tui.store.database import Unwritten
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import SessionLog, Store

KEY = "sk-journal-0123456789abcdef"


@pytest.fixture
def full(monkeypatch: pytest.MonkeyPatch) -> FullDisk:
    """While ``full.on``, every write of the store fails as SQLite fails on a full disk."""
    return simulate(monkeypatch)


def _users(store: Store) -> list[str]:
    return [e.data for s in store.sessions() for e in store.entries(s.id) if e.kind == "user"]


def test_entries_a_full_disk_refuses_wait_once_and_in_order(tmp_path: Path, full: FullDisk) -> None:
    # Before: the store kept a refused entry in its batch AND the conversation offered it
    # again at the next append: "two" was stored three times.
    store = Store(tmp_path / "s.db")
    chat = Conversation(logs=[SessionLog(store)], store=store)
    chat.add_user("one")
    full.on = True
    chat.add_user("two")
    chat.add_user("three")
    assert chat.log_error is not None and "full" in chat.log_error
    assert chat.logbook.unwritten == 2
    full.on = False
    chat.add_user("four")
    assert _users(store) == ["one", "two", "three", "four"]
    assert chat.log_error is None and chat.logbook.unwritten == 0
    store.close()


def test_a_chat_begun_on_a_full_disk_gets_its_session_once_the_disk_takes_it(
    tmp_path: Path, full: FullDisk
) -> None:
    store = Store(tmp_path / "s.db")
    full.on = True
    log = SessionLog(store, host="http://h", workflow="w")
    with pytest.raises(Unwritten):
        log.append(Entry("user", "first words"))
    assert log.session_id is not None and store.pending == 1
    full.on = False
    store.flush()
    [info] = store.sessions()
    assert (info.id, info.title, info.messages) == (log.session_id, "first words", 1)
    store.close()


def test_a_journal_keeps_what_waits_masked_and_the_next_open_writes_it_in(
    tmp_path: Path, full: FullDisk
) -> None:
    path = tmp_path / "s.db"
    store = Store(path, secrets=[KEY])
    chat = Conversation(logs=[SessionLog(store)], store=store)
    chat.add_user("kept before")
    full.on = True
    chat.add_user(f"my key is {KEY}")
    chat.add_user("x" * 20_000)  # long: kept compressed, as the database would
    target = store.new_journal()[0]
    assert target.parent == tmp_path / "journal"
    assert store.keep_in_journal(target) == 2
    assert store.pending == 0
    store.close()  # nothing waits: closing writes nothing, loses nothing
    written = target.read_bytes()
    assert KEY.encode() not in written and json.loads(written)["journal"] == journal.FORMAT
    assert oct(target.stat().st_mode & 0o777) == "0o600"
    full.on = False
    again = Store(path, secrets=[KEY])
    assert [(r.entries, r.messages) for r in again.restored] == [(2, 2)]
    assert _users(again) == ["kept before", "my key is [api key]", "x" * 20_000]
    assert not target.exists() and list(target.parent.iterdir()) == []
    again.close()
    assert Store(path).restored == []  # written in once, not at every open


def test_a_journal_that_cannot_be_written_leaves_nothing_and_the_entries_wait(
    tmp_path: Path, full: FullDisk
) -> None:
    store = Store(tmp_path / "s.db")
    chat = Conversation(logs=[SessionLog(store)], store=store)
    full.on = True
    chat.add_user("waits")
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the journal folder would be")
    with pytest.raises(OSError):
        store.keep_in_journal(blocked / "unstored-1.json")
    assert store.pending == 1
    full.on = False
    store.flush()
    assert _users(store) == ["waits"]
    store.close()


def test_a_journal_the_disk_still_refuses_stays_for_the_next_start(
    tmp_path: Path, full: FullDisk
) -> None:
    path = tmp_path / "s.db"
    store = Store(path)
    chat = Conversation(logs=[SessionLog(store)], store=store)
    full.on = True
    chat.add_user("patient")
    target = store.new_journal()[0]
    store.keep_in_journal(target)
    store.close()
    still_full = Store(path)  # the disk is still full: the journal stays, whole
    assert still_full.restored == [] and target.exists()
    [problem] = still_full.journal_problems
    assert "database or disk is full" in problem and "left there for the next start" in problem
    still_full.close()
    full.on = False
    freed = Store(path)
    assert [r.entries for r in freed.restored] == [1] and _users(freed) == ["patient"]
    assert not target.exists()
    freed.close()


def test_a_journal_names_its_store_and_another_store_leaves_it(
    tmp_path: Path, full: FullDisk
) -> None:
    store = Store(tmp_path / "a.db")
    chat = Conversation(logs=[SessionLog(store)], store=store)
    full.on = True
    chat.add_user("for a")
    target = store.new_journal()[0]
    store.keep_in_journal(target)
    store.close()
    full.on = False
    other = Store(tmp_path / "b.db")  # the same folder, another database
    assert other.restored == [] and _users(other) == [] and target.exists()
    other.close()
    mine = Store(tmp_path / "a.db")
    assert _users(mine) == ["for a"]
    mine.close()


def test_the_spare_folder_is_read_too(tmp_path: Path, full: FullDisk) -> None:
    # The data folder took no file: the journal went to the state folder instead.
    path = tmp_path / "s.db"
    store = Store(path)
    chat = Conversation(logs=[SessionLog(store)], store=store)
    full.on = True
    chat.add_user("spared")
    first, spare = store.new_journal()
    assert spare.parent != first.parent
    store.keep_in_journal(spare)
    store.close()
    full.on = False
    again = Store(path)
    assert _users(again) == ["spared"] and not spare.exists()
    again.close()


def test_on_a_really_full_disk_the_journal_goes_where_there_is_room(tmp_path: Path) -> None:
    # Not simulated: the database is on a 2 MB tmpfs filled to its last byte (root only).
    with tmpfs(tmp_path / "data") as data:
        path = data / "s.db"
        store = Store(path)
        chat = Conversation(logs=[SessionLog(store)], store=store)
        chat.add_user("before")
        filler = fill(data)
        chat.add_user("while full")
        assert store.pending and store.failing and "full" in store.failing
        waiting = store.pending
        first, _ = store.new_journal()
        assert not first.is_relative_to(data)  # the data folder has no room: the spare first
        assert store.keep_in_journal(first) == waiting
        store.close()
        filler.unlink()
        again = Store(path)
        assert _users(again) == ["before", "while full"] and not first.exists()
        again.close()


def test_entries_the_store_refused_and_the_user_gave_up_are_not_offered_again(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "s.db")
    session_id = store.create(host="h", workflow="w")
    chat = Conversation(logs=[SessionLog(store, session_id)], store=store)
    store.delete(session_id)  # (from another window): the store refuses its entries outright
    chat.add_user("refused")
    assert chat.logbook.unkept_store_entries() == 1
    assert chat.logbook.forget_unkept() == 1
    chat.logbook.flush()  # not offered again: nothing waits, nothing for a journal
    assert (
        chat.logbook.unkept_store_entries() == 0
        and chat.logbook.unwritten == 0
        and store.pending == 0
    )
    store.close()


def test_a_damaged_journal_is_said_and_left_for_the_next_start(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    folder = tmp_path / "journal"
    folder.mkdir()
    damaged = folder / "unstored-20260101-000000-1-abcdef.json"
    damaged.write_text('{"journal": 1, "store": "cut short')
    store = Store(path)
    [problem] = store.journal_problems
    assert str(damaged) in problem and "damaged" in problem and "left there" in problem
    assert store.restored == [] and damaged.exists()
    store.close()
