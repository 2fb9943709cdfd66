"""A long session opens newest first (issue 13, part 3), at start-up and from the sessions
screen: its newest runs are on screen before the rest is read; then every item is, each block
bound to the conversation's own item; what is said or sent while the rest is read is said and
sent at once, through the newest runs' conversation, and lands after the whole session.

Each test fails without its part: the app reading the whole session before its first frame
(the first drawing would hold every item), the older blocks not put before the newest, or the
newest blocks left holding the items folded apart (an update to the conversation's item would
not reach the screen), a notice folded into the conversation being read, or a message sent
without the whole session's history.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from app_support import NO_AUDIO, SIZE, connected, demo_app, items_of, run_over, settle
from session_support import chat_turns

from openwop_tui.config import Config
from openwop_tui.core.items import AssistantTurn, Notice, UserTurn
from openwop_tui.demo_host import DemoHost
from openwop_tui.store.sessions import Store
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.controllers import reopening
from openwop_tui.ui.controllers.reopening import NEWEST_RUNS, Reopening
from openwop_tui.ui.options import AppOptions

TURNS = 3 * NEWEST_RUNS
DEAD_HOST = Config(host="http://127.0.0.1:9", audio=False, images="none")


async def _long_session(turns: int = TURNS) -> str:
    """A stored session of ``turns`` chat turns (each run's fold kept), in the test's store."""
    with DemoHost(pace=0, deterministic=True) as demo, Store() as store:
        texts = (f"hello ({number})" for number in range(turns))
        return await chat_turns(store, demo.url, demo.api_key, texts)


Read = Callable[..., Awaitable[None]]


def _watch_reading(
    monkeypatch: pytest.MonkeyPatch, meanwhile: Callable[[], Awaitable[None]] | None = None
) -> dict[str, Any]:
    """What the view held when the rest began to be read (and do ``meanwhile`` then)."""
    seen: dict[str, Any] = {}
    read: Read = Reopening._read

    async def watched(self: Reopening, *args: Any) -> None:
        view = self.chat.parts.view
        seen["ids"] = [block.item.id for block in view.blocks()]
        seen["read"] = len(self.chat.conversation.transcript.items)
        if meanwhile is not None:
            await meanwhile()
        await read(self, *args)

    monkeypatch.setattr(Reopening, "_read", watched)
    return seen


def _bound(app: ChatApp) -> None:
    """Every item of the conversation is on screen, in order, each block holding it."""
    items = app.transcript.items
    blocks = app.view.blocks()
    assert len(blocks) == len(items)
    assert all(block.item is item for block, item in zip(blocks, items, strict=True))


async def test_a_long_session_is_drawn_newest_first_then_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session_id = await _long_session()
    seen = _watch_reading(monkeypatch)
    app = ChatApp(DEAD_HOST, AppOptions(session_id=session_id), audio_support=NO_AUDIO)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, lambda: app.chat.reading is None, what="the session read")
        ids = [item.id for item in app.transcript.items]
        # First the newest runs alone: the chat held them only, before the rest was read.
        shown = seen["ids"]
        assert seen["read"] == len(shown)
        assert 0 < len(shown) < len(ids) // 2
        start = ids.index(shown[0])
        # The session's last items (the dead host's notice came after them).
        assert shown == ids[start : start + len(shown)]
        assert all(isinstance(i, Notice) for i in app.transcript.items[start + len(shown) :])
        texts = [turn.text for turn in items_of(app, UserTurn)]
        assert texts == [f"hello ({number})" for number in range(TURNS)]
        _bound(app)
        assert app.view.search("hello (0)") >= 1  # the oldest turn is found too
        # The newest reply is the conversation's own: a change to it reaches the screen.
        reply = items_of(app, AssistantTurn)[-1]
        assert app.view.block_for(reply.id).item is reply  # type: ignore[union-attr]


async def test_a_tail_that_differs_is_drawn_again_with_the_whole_session(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session_id = await _long_session()
    # No kept folds: the newest runs folded alone number their items from the start.
    sqlite3.connect(Store().path, isolation_level=None).execute("DELETE FROM folds")
    seen = _watch_reading(monkeypatch)
    app = ChatApp(DEAD_HOST, AppOptions(session_id=session_id), audio_support=NO_AUDIO)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, lambda: app.chat.reading is None, what="the session read")
        assert seen["ids"] and not set(seen["ids"]) <= {i.id for i in app.transcript.items[:5]}
        _bound(app)
        assert len(items_of(app, UserTurn)) == TURNS


async def test_what_is_said_while_the_rest_is_read_is_said_after_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session_id = await _long_session()
    app = ChatApp(
        Config(host="http://127.0.0.1:9", audio=False, images="none", theme="no-such-theme"),
        AppOptions(session_id=session_id),
        audio_support=NO_AUDIO,
    )

    async def meanwhile() -> None:
        await app.chat.notice("info", "said while reading")
        # Said at once, after the newest runs (the chat holds them only).
        last = app.chat.conversation.transcript.items[-1]
        assert isinstance(last, Notice) and str(last.text) == "said while reading"
        assert app.view.blocks()[-1].item is last
        # A search made now sees the newest runs only: made again once the rest is in.
        assert app.view.search("hello (0)") == 0

    _watch_reading(monkeypatch, meanwhile)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, lambda: app.chat.reading is None, what="the session read")
        items = app.transcript.items
        texts = {i: str(item.text) for i, item in enumerate(items) if isinstance(item, Notice)}
        theme = [i for i, text in texts.items() if "no-such-theme" in text]
        while_reading = [i for i, text in texts.items() if text == "said while reading"]
        last_turn = max(i for i, item in enumerate(items) if isinstance(item, UserTurn))
        # Said after the whole session, not among it (the start-up warning too).
        assert theme and while_reading
        assert min(theme + while_reading) > last_turn
        _bound(app)
        assert app.view.search_query == "hello (0)" and app.view.match_position[1] >= 1
        said = app.chat.parts.search.count_text
        assert said.endswith(("match", "matches")) and said != "no match", said


async def test_a_message_sent_while_the_rest_is_read_goes_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session_id = await _long_session()
    app = demo_app()

    async def meanwhile() -> None:
        await app.runs.submitted("sent while reading")  # connected: it goes at once
        assert not app.chat.parts.queued and app.runs.busy
        assert app.chat.reading is not None

    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        _watch_reading(monkeypatch, meanwhile)
        await app.sessions.open(session_id)
        await settle(
            pilot,
            app,
            # (Not busy: its run ended; the status before it was created is the last one's.)
            lambda: (
                len(items_of(app, UserTurn)) == TURNS + 1 and not app.runs.busy and run_over(app)
            ),
            what="the queued message sent and answered",
        )
        turns = [turn.text for turn in items_of(app, UserTurn)]
        assert turns == [*(f"hello ({n})" for n in range(TURNS)), "sent while reading"]
        # With the whole session as its history.
        history = [m["content"] for m in app.conversation.history if m["role"] == "user"]
        assert history == turns
        _bound(app)


async def test_a_long_session_opened_from_the_sessions_screen_comes_newest_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session_id = await _long_session()
    seen = _watch_reading(monkeypatch)
    app = ChatApp(DEAD_HOST, audio_support=NO_AUDIO)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.sessions.open(session_id)
        await settle(pilot, app, lambda: app.chat.reading is None, what="the session read")
        assert 0 < len(seen["ids"]) < len(app.transcript.items) // 2
        assert app.sessions.kept_session_id() == session_id
        _bound(app)


async def test_another_session_opened_while_one_is_read_replaces_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = await _long_session()
    second = await _long_session(3)
    opened: list[str] = []
    app = demo_app(session_id=first)

    async def meanwhile() -> None:
        opened.append(second)
        await app.sessions.open(second)

    _watch_reading(monkeypatch, meanwhile)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, lambda: bool(opened) and app.chat.reading is None)
        await asyncio.wait_for(app.workers.wait_for_complete(), 60)
        await pilot.pause()
        assert app.sessions.kept_session_id() == second
        assert [t.text for t in items_of(app, UserTurn)] == [f"hello ({n})" for n in range(3)]
        _bound(app)
        await connected(pilot, app)  # the host is still reached (it waited for the reading)


def test_the_newest_runs_shown_are_a_screenful() -> None:
    # (A screen of 50 lines shows a dozen short turns; the rest is read straight after.)
    assert 8 <= reopening.NEWEST_RUNS <= 32


async def test_a_new_chat_while_a_session_is_read_still_reaches_the_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session_id = await _long_session()
    app = demo_app(session_id=session_id)

    async def meanwhile() -> None:
        await app.tabs.new_tab()  # (in a tab of its own: the session is read on in its own)

    _watch_reading(monkeypatch, meanwhile)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)  # the new chat's tab reaches the host
        assert app.chat.reading is None  # notices are said, messages sent
        assert items_of(app, UserTurn) == []
        await app.chat.notice("info", "a notice now")
        assert any(getattr(i, "text", "") == "a notice now" for i in app.transcript.items)
