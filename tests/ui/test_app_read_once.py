"""A stored session is read from the store once per open (issue 24: "a 3,000-turn session is
read from the store once per open"), however it is opened: at start-up or from the sessions
screen, short or newest first, its folds kept or not, its last run cut off and caught up from
the host or left as kept.

Every log position the store hands a reopen (an entry, or each position a kept run's row stands
for) is counted, through `Store.outline` and `Store.entries` on every connection (the reading
thread opens its own). Each test fails without its part: the rest of a long session read to the
log's end (the newest runs come twice), or the cut run's catch-up reading the whole session
again to have it open (every position twice).
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from app_support import NO_AUDIO, SIZE, items_of, settle
from cut_support import event_count, run_frames, start_run, store_session
from session_support import chat_turns

from openwop_tui.config import Config
from openwop_tui.core.items import AssistantTurn, Notice, UserTurn
from openwop_tui.demo_host import DemoHost
from openwop_tui.protocol.sse import SSEFrame
from openwop_tui.protocol.stream_items import Arrival
from openwop_tui.store.folds import FoldRow
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.controllers.reopening import NEWEST_RUNS
from openwop_tui.ui.options import AppOptions

TURNS = 3 * NEWEST_RUNS
KEPT = 32
DEAD_HOST = "http://127.0.0.1:9"  # nothing listens on port 9


@dataclass
class Reads:
    """What the store gave from the moment it is made: how many times each entry (by its log
    position) and each kept run (by its first), and the log positions they cover."""

    counts: Counter[tuple[str, int]] = field(default_factory=Counter)
    covered: set[int] = field(default_factory=set)

    def took(self, part: Entry | FoldRow) -> None:
        if isinstance(part, FoldRow):
            self.counts["row", part.start] += 1
            self.covered.update(range(part.start, part.stop + 1))
        else:
            self.counts["entry", part.seq] += 1
            self.covered.add(part.seq)

    def forget(self) -> None:
        """Count from now (what made the session was read too)."""
        self.counts.clear()
        self.covered.clear()

    def once(self, length: int) -> None:
        """Nothing was read twice, and every position of a log ``length`` entries long was
        read: as an entry, or within a kept run."""
        twice = sorted(read for read, count in self.counts.items() if count > 1)
        assert not twice, f"read more than once: {twice[:6]} ({len(twice)} in all)"
        assert set(range(length)) <= self.covered, "part of the log was never read"


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Reads:
    """What the store gives every reader (the app's connection, the reading thread's) from
    now on."""
    seen = Reads()
    outline, entries = Store.outline, Store.entries

    def counted_outline(self: Store, *args: Any, **kwargs: Any) -> Iterator[Entry | FoldRow]:
        for part in outline(self, *args, **kwargs):
            seen.took(part)
            yield part

    def counted_entries(self: Store, *args: Any, **kwargs: Any) -> Iterator[Entry]:
        for entry in entries(self, *args, **kwargs):
            seen.took(entry)
            yield entry

    monkeypatch.setattr(Store, "outline", counted_outline)
    monkeypatch.setattr(Store, "entries", counted_entries)
    return seen


def _app(host: str, key: str | None = None, session_id: str | None = None) -> ChatApp:
    # (The sessions are made without a key, so their kept folds hold for an app without one:
    # a fold kept under other secrets is folded again, its entries read after its row.)
    config = Config(host=host, api_key=key, audio=False, images="none")
    return ChatApp(config, AppOptions(session_id=session_id), audio_support=NO_AUDIO)


def _notices(app: ChatApp) -> list[str]:
    return [str(n.text) for n in items_of(app, Notice)]


async def _long_session(host: DemoHost) -> str:
    with Store() as store:
        texts = (f"hello ({number})" for number in range(TURNS))
        return await chat_turns(store, host.url, host.api_key, texts)


def _cut_session(host: DemoHost, client: httpx.Client) -> tuple[str, list[SSEFrame]]:
    """A stored session whose app was killed after the first `KEPT` frames of its one run:
    its id, and every frame the host holds of the run."""
    run_id = start_run(client, "hello there")
    frames = run_frames(client, run_id)
    with Store() as store:
        session_id = store_session(
            store, host=host.url, text="hello there", run_id=run_id, frames=frames[:KEPT],
            ended=False,
        )  # fmt: skip
    return session_id, frames


def _length(session_id: str) -> int:
    with Store() as store:
        return store.info(session_id).entries


def _forget_folds() -> None:
    db = sqlite3.connect(Store().path, isolation_level=None)
    try:
        db.execute("DELETE FROM folds")
    finally:
        db.close()


@pytest.mark.parametrize("folds", ["kept", "forgotten"])
async def test_a_long_session_is_read_once(host: DemoHost, reads: Reads, folds: str) -> None:
    session_id = await _long_session(host)
    if folds == "forgotten":
        _forget_folds()  # (as after an upgrade: every run folded from its events)
    length = _length(session_id)
    reads.forget()
    app = _app(DEAD_HOST, session_id=session_id)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, lambda: app.chat.reading is None, what="the session read")
        turns = [turn.text for turn in items_of(app, UserTurn)]
        assert turns == [f"hello ({number})" for number in range(TURNS)]
    reads.once(length)


async def test_a_long_session_opened_from_the_sessions_screen_is_read_once(
    host: DemoHost, reads: Reads
) -> None:
    session_id = await _long_session(host)
    length = _length(session_id)
    reads.forget()
    app = _app(DEAD_HOST)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.sessions.open(session_id)  # (the sessions screen's Enter)
        await settle(pilot, app, lambda: app.chat.reading is None, what="the session read")
        assert len(items_of(app, UserTurn)) == TURNS
    reads.once(length)


async def test_a_cut_run_caught_up_from_the_host_reads_the_session_once(
    host: DemoHost, client: httpx.Client, reads: Reads
) -> None:
    session_id, frames = _cut_session(host, client)
    length = _length(session_id)
    reads.forget()
    app = _app(host.url, host.api_key, session_id)
    async with app.run_test(size=SIZE) as pilot:
        said = f"caught up {event_count(frames) - KEPT} events from the host"
        await settle(pilot, app, lambda: any(said in t for t in _notices(app)), what=said)
        (reply,) = items_of(app, AssistantTurn)
        assert reply.final and app.transcript.status == "completed"
    reads.once(length)


async def test_a_long_session_cut_off_is_read_once_and_caught_up(
    host: DemoHost, client: httpx.Client, reads: Reads
) -> None:
    session_id = await _long_session(host)
    run_id = start_run(client, "the last one")
    frames = run_frames(client, run_id)
    with Store() as store:  # the app was killed in the middle of the last run
        store.append(session_id, Entry("user", "the last one"))
        store.append(session_id, Entry("run", run=run_id, meta={"workflow": "demo.chat"}))
        for frame in frames[:KEPT]:
            store.append(session_id, Entry.of_arrival(Arrival(frame=frame), run_id))
    length = _length(session_id)
    reads.forget()
    app = _app(host.url, host.api_key, session_id)
    async with app.run_test(size=SIZE) as pilot:
        said = f"caught up {event_count(frames) - KEPT} events from the host"
        await settle(pilot, app, lambda: any(said in t for t in _notices(app)), what=said)
        assert [t.text for t in items_of(app, UserTurn)][-2:] == [
            f"hello ({TURNS - 1})",
            "the last one",
        ]
        assert all(reply.final for reply in items_of(app, AssistantTurn))
    reads.once(length)


async def test_a_cut_run_the_host_cannot_give_is_settled_as_kept_reading_once(
    host: DemoHost, client: httpx.Client, reads: Reads
) -> None:
    session_id, _frames = _cut_session(host, client)
    length = _length(session_id)
    reads.forget()
    app = _app(DEAD_HOST, session_id=session_id)
    async with app.run_test(size=SIZE) as pilot:
        await settle(
            pilot,
            app,
            lambda: any("cannot be caught up now" in t for t in _notices(app)),
            what="the notice",
        )
        # Settled on screen as the session was kept: the reply is cut, and no longer open.
        (reply,) = items_of(app, AssistantTurn)
        assert reply.final and reply.text
        assert app.conversation.open_run is None and app.conversation.cut is None
    reads.once(length)
