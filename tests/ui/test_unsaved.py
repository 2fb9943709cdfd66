"""A session the store cannot take (a full disk, a store gone read-only) loses nothing and says
so at once: its entries wait in memory, in order, and are written as soon as the store takes them
again; the app's status line and transcript say it while it lasts, and when it is over."""

from __future__ import annotations

from app_support import NO_AUDIO, SIZE, connected, notices, run_over, send, settle

from openwop_tui.config import Config
from openwop_tui.core.conversation import Conversation
from openwop_tui.demo_host import DemoHost
from openwop_tui.store.database import StoreError
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import SessionLog, Store
from openwop_tui.ui.app import ChatApp


class Flaky:
    """An event log that refuses ``fail`` appends (as a full disk does), then takes them."""

    def __init__(self, fail: int) -> None:
        self.fail = fail
        self.kept: list[Entry] = []

    def append(self, entry: Entry) -> None:
        if self.fail > 0:
            self.fail -= 1
            raise StoreError("database or disk is full")
        self.kept.append(entry)


def test_entries_a_log_refused_wait_and_are_written_in_order_once_it_takes_them() -> None:
    sink = Flaky(fail=3)
    conversation = Conversation(logs=[sink])
    for text in ("one", "two", "three"):
        conversation.add_user(text)
    assert sink.kept == [] and conversation.logbook.unwritten == 3
    assert conversation.log_error == "database or disk is full"
    conversation.add_user("four")
    assert [entry.data for entry in sink.kept] == ["one", "two", "three", "four"]
    assert conversation.logbook.unwritten == 0 and conversation.log_error is None


async def test_a_full_disk_is_on_screen_at_once_and_nothing_kept_is_lost(monkeypatch) -> None:
    real = SessionLog.append
    full = {"on": False}

    def append(self: SessionLog, entry: Entry) -> None:
        if full["on"]:
            raise StoreError("database or disk is full")
        real(self, entry)

    monkeypatch.setattr(SessionLog, "append", append)
    app = ChatApp(Config(), demo_host=DemoHost(pace=0, deterministic=True), audio_support=NO_AUDIO)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await send(pilot, app, "hello")
        await settle(pilot, app, lambda: run_over(app), what="the first turn")
        full["on"] = True
        await send(pilot, app, "second")
        await settle(pilot, app, lambda: run_over(app), what="the second turn")
        assert app.status.unsaved
        assert any("cannot be saved now" in n.text for n in notices(app))
        full["on"] = False
        await send(pilot, app, "third")
        await settle(pilot, app, lambda: run_over(app), what="the third turn")
        assert not app.status.unsaved
        assert any("saved again" in n.text for n in notices(app))
        session_id = app.sessions.kept_session_id()
    assert session_id is not None
    users = [e.data for e in Store().entries(session_id) if e.kind == "user"]
    assert users == ["hello", "second", "third"]
