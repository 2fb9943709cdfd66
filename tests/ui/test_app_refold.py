"""A long session whose kept folds are missing opens without waiting for its refold (issue
23, item 7): the host is reached while its older turns are read in a thread, the status line
and the prompt say so (never that a run is in progress), and the whole session ends up folded
as a whole fold gives it.

The reading is held between two steps at its seam (`Reopening.between_steps`, the thread's
pause between steps) until the test lets it go, so "while it is read" is a state the test
holds, not a race it hopes to win. Each test fails without its part: connecting after the
reading (never connected while held), the host's key joining the secrets mid-reading (the
kept folds no longer hold at the next open), the reading's words missing or a run said.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from app_support import (
    NO_AUDIO,
    SIZE,
    connected,
    demo_app,
    items_of,
    record_notifications,
    settle,
)
from cut_support import event_count, run_frames, start_run
from gates import Gate
from session_support import chat_turns
from textual.pilot import Pilot

from openwop_tui.config import Config
from openwop_tui.core.items import Notice, UserTurn
from openwop_tui.core.opening import stored
from openwop_tui.core.reopen import FoldKeeper, same_items
from openwop_tui.core.session import Session
from openwop_tui.demo_host import DemoHost
from openwop_tui.protocol.stream_items import Arrival
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store
from openwop_tui.ui import warming
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.controllers.reopening import NEWEST_RUNS, Reopening
from openwop_tui.ui.key_watch import READING_SWITCH_SECONDS, SWITCH_SECONDS, keys_handed_on
from openwop_tui.ui.options import AppOptions
from openwop_tui.ui.widgets.prompt import BUSY_PLACEHOLDER, PromptInput
from openwop_tui.ui.widgets.status import StatusLine

TURNS = 3 * NEWEST_RUNS


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    held = Gate()
    monkeypatch.setattr(Reopening, "between_steps", staticmethod(held))
    try:
        yield held
    finally:
        held.release()  # (a failed test must not leave the thread waiting)


async def _unfolded_session(turns: int = TURNS) -> str:
    """A stored session of ``turns`` chat turns without any kept fold (as after an upgrade)."""
    with DemoHost(pace=0, deterministic=True) as demo, Store() as store:
        texts = (f"hello ({number})" for number in range(turns))
        session_id = await chat_turns(store, demo.url, demo.api_key, texts)
    _forget_folds()
    return session_id


def _forget_folds(table: str = "folds") -> None:
    """Delete what the store keeps beside its logs in ``table`` (the kept folds by default)."""
    db = sqlite3.connect(Store().path, isolation_level=None)
    try:
        db.execute(f"DELETE FROM {table}")
    finally:
        db.close()


def _status(app: ChatApp) -> str:
    return app.query_one(StatusLine).render().plain


async def _reached(pilot: Pilot[Any], app: ChatApp, gate: Gate) -> None:
    await settle(pilot, app, gate.reached.is_set, what="the reading held", workers=False)


async def test_the_host_is_reached_while_the_older_turns_are_read(gate: Gate) -> None:
    session_id = await _unfolded_session()
    app = demo_app(session_id=session_id)
    async with app.run_test(size=SIZE) as pilot:
        with gate:
            await _reached(pilot, app, gate)
            await settle(
                pilot,
                app,
                lambda: app.session is not None and app.session.discovery is not None,
                what="connected while the reading is held",
                workers=False,
            )
            assert app.chat.reading is not None
            await settle(pilot, app, lambda: "● connected" in _status(app), workers=False)
            gate.release()
            await settle(pilot, app, lambda: app.chat.reading is None, what="the session read")
            texts = [turn.text for turn in items_of(app, UserTurn)]
            assert texts == [f"hello ({number})" for number in range(TURNS)]


async def test_the_reading_is_said_and_no_run_is_and_the_warming_waits(gate: Gate) -> None:
    session_id = await _unfolded_session()
    app = demo_app(session_id=session_id)
    async with app.run_test(size=SIZE) as pilot:
        with gate:
            await _reached(pilot, app, gate)
            await connected(pilot, app)
            older = f"reading {TURNS - NEWEST_RUNS} older turns"
            await settle(pilot, app, lambda: older in _status(app), workers=False)
            status = _status(app)
            assert "run idle" in status and "running" not in status, status
            placeholder = str(app.query_one(PromptInput).placeholder)
            assert placeholder.startswith(older.capitalize()), placeholder
            assert placeholder != BUSY_PLACEHOLDER and "in progress" not in placeholder
            # The warming threads (lexers, the lint's schemas) wait: they held the interpreter
            # while the reading thread read, and the oldest of 3,000 turns came 1 s later.
            assert warming.held()
            gate.release()
            await settle(pilot, app, lambda: app.chat.reading is None, what="the session read")
            assert not warming.held()
            await pilot.pause()
            assert "older turns" not in _status(app)
            assert "older turns" not in str(app.query_one(PromptInput).placeholder)


async def test_the_reading_thread_and_the_loop_swap_the_interpreter_at_cpythons_pace(
    gate: Gate,
) -> None:
    # At the app's short interval the two swapped it ten times as often, and the reading of a
    # long session took a fifth longer (`openwop_tui.ui.key_watch.reading_beside`).
    session_id = await _unfolded_session()
    app = demo_app(session_id=session_id)
    with keys_handed_on():
        async with app.run_test(size=SIZE) as pilot:
            with gate:
                await _reached(pilot, app, gate)
                assert sys.getswitchinterval() == READING_SWITCH_SECONDS
                gate.release()
                await settle(pilot, app, lambda: app.chat.reading is None, what="the session read")
                assert sys.getswitchinterval() == SWITCH_SECONDS


async def test_the_whole_session_is_what_a_whole_fold_gives(gate: Gate) -> None:
    session_id = await _unfolded_session()
    with Store() as store:
        whole = stored(store, session_id, limits=Config().limits).transcript.items
    _forget_folds()
    app = demo_app(session_id=session_id)
    async with app.run_test(size=SIZE) as pilot:
        with gate:
            await _reached(pilot, app, gate)
            await connected(pilot, app)  # (its key joins the secrets: not those of the reading)
            gate.release()
            await settle(pilot, app, lambda: app.chat.reading is None, what="the session read")
            items = app.transcript.items
            assert same_items(whole, items[: len(whole)])
            assert all(isinstance(item, Notice) for item in items[len(whole) :])
            blocks = app.view.blocks()
            assert [block.item for block in blocks] == list(items)


async def test_the_folds_kept_by_the_reading_hold_at_the_next_open(gate: Gate) -> None:
    session_id = await _unfolded_session()
    app = demo_app(session_id=session_id)
    async with app.run_test(size=SIZE) as pilot:
        with gate:
            await _reached(pilot, app, gate)
            await connected(pilot, app)  # the demo host's key is new: the next open lacks it
            gate.release()
            await settle(pilot, app, lambda: app.chat.reading is None, what="the session read")
    # The next open, with the same configuration, restores every run from its kept fold.
    restored: list[bool] = []
    kept = FoldKeeper.restore

    def counted(self: FoldKeeper, chat: object, row: object) -> bool:
        restored.append(kept(self, chat, row))  # type: ignore[arg-type]
        return restored[-1]

    with Store() as store, pytest.MonkeyPatch.context() as patch:
        patch.setattr(FoldKeeper, "restore", counted)
        stored(store, session_id, limits=Config().limits)
    assert len(restored) == TURNS and all(restored)


def _sent_inputs(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every run's inputs as the app sends them to the host."""
    sent: list[dict[str, Any]] = []
    start = Session.start

    def recording(self: Session, inputs: dict[str, Any], **how: Any) -> Any:
        sent.append(inputs)
        return start(self, inputs, **how)

    monkeypatch.setattr(Session, "start", recording)
    return sent


def _answered(app: ChatApp, turns: int) -> bool:
    return (
        len(items_of(app, UserTurn)) == turns
        and app.session is not None
        and app.session.current_run is None
        and not app.runs.busy
    )


async def test_a_message_sent_while_the_older_turns_are_read_goes_at_once(
    gate: Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    session_id = await _unfolded_session()
    sent = _sent_inputs(monkeypatch)
    app = demo_app(session_id=session_id)
    async with app.run_test(size=SIZE) as pilot:
        with gate:
            await _reached(pilot, app, gate)
            await connected(pilot, app)
            placeholder = str(app.query_one(PromptInput).placeholder)
            assert "Enter sends" in placeholder, placeholder
            shown = len(items_of(app, UserTurn))  # (the newest runs': the chat holds them)
            assert 0 < shown < TURNS
            await app.runs.submitted("sent while reading")
            # Answered while the reading is still held: the message did not wait for it.
            await settle(
                pilot,
                app,
                lambda: _answered(app, shown + 1),
                what="the message answered while the rest is read",
                workers=False,
            )
            assert app.chat.reading is not None and gate.held
            # The host was sent the whole session's history, not the newest runs' only.
            users = [m["content"] for m in sent[-1]["messages"] if m["role"] == "user"]
            assert users == [f"hello ({number})" for number in range(TURNS)] + [
                "sent while reading"
            ]
            gate.release()
            await settle(pilot, app, lambda: app.chat.reading is None, what="the session read")
            turns = [turn.text for turn in items_of(app, UserTurn)]
            assert turns == [f"hello ({number})" for number in range(TURNS)] + [
                "sent while reading"
            ]
            history = [m["content"] for m in app.conversation.history if m["role"] == "user"]
            assert history == turns
            blocks = app.view.blocks()
            assert [block.item for block in blocks] == list(app.transcript.items)
    # Kept once, in order; and the next open folds nothing again, the new run included.
    with Store() as store:
        texts = [e.data for e in store.entries(session_id) if e.kind == "user"]
        assert texts == turns
        restored: list[bool] = []
        keep = FoldKeeper.restore

        def counted(self: FoldKeeper, chat: Any, row: Any) -> bool:
            restored.append(keep(self, chat, row))
            return restored[-1]

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(FoldKeeper, "restore", counted)
            again = stored(store, session_id, limits=Config().limits)
        assert len(restored) == TURNS + 1 and all(restored)
        assert [m["content"] for m in again.history if m["role"] == "user"] == turns


async def test_a_message_waits_for_the_reading_when_the_history_is_not_kept(
    gate: Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    session_id = await _unfolded_session()
    _forget_folds("histories")  # (a session an older version wrote)
    sent = _sent_inputs(monkeypatch)
    app = demo_app(session_id=session_id)
    async with app.run_test(size=SIZE) as pilot:
        with gate:
            await _reached(pilot, app, gate)
            await connected(pilot, app)
            placeholder = str(app.query_one(PromptInput).placeholder)
            assert "Enter queues" in placeholder, placeholder
            await app.runs.submitted("sent while reading")
            await app.runs.send_queued()  # (what discovery does once the host answers)
            assert len(app.chat.parts.queued) == 1 and not app.runs.busy and not sent
            gate.release()
            await settle(
                pilot,
                app,
                lambda: _answered(app, TURNS + 1),
                what="the queued message sent and answered",
            )
            turns = [turn.text for turn in items_of(app, UserTurn)]
            assert turns[-1] == "sent while reading"
            users = [m["content"] for m in sent[-1]["messages"] if m["role"] == "user"]
            assert users == turns  # with the whole session as its history
    # The reading kept each run's history: the next open sends at once.
    with Store() as store:
        since = store.run_start(session_id, NEWEST_RUNS)
        assert since is not None
        history = store.history_before(session_id, since)
        whole = stored(store, session_id, limits=Config().limits).history
        assert history is not None and history == whole[: len(history)]


async def test_a_run_cut_off_in_it_is_caught_up_once_it_is_read(
    gate: Gate, host: DemoHost, client: httpx.Client
) -> None:
    with Store() as store:
        texts = (f"hello ({number})" for number in range(TURNS))
        session_id = await chat_turns(store, host.url, host.api_key, texts)
        # The app was killed in the middle of the last run: its log stops after 32 frames.
        run_id = start_run(client, "the last one")
        frames = run_frames(client, run_id)
        store.append(session_id, Entry("user", "the last one"))
        store.append(session_id, Entry("run", run=run_id, meta={"workflow": "demo.chat"}))
        for frame in frames[:32]:
            store.append(session_id, Entry.of_arrival(Arrival(frame=frame), run_id))
    _forget_folds()
    config = Config(host=host.url, api_key=host.api_key, audio=False, images="none")
    app = ChatApp(config, AppOptions(session_id=session_id), audio_support=NO_AUDIO)
    async with app.run_test(size=SIZE) as pilot:
        with gate:
            await _reached(pilot, app, gate)
            await connected(pilot, app)
            assert not app.runs.busy  # nothing caught up into a session half read
            gate.release()
            said = f"caught up {event_count(frames) - 32} events from the host"
            await settle(
                pilot,
                app,
                lambda: any(said in str(n.text) for n in items_of(app, Notice)),
                what=said,
            )
            assert [t.text for t in items_of(app, UserTurn)][-2:] == [
                f"hello ({TURNS - 1})",
                "the last one",
            ]


async def test_the_session_being_read_is_not_changed_by_a_resend_or_an_attach(
    gate: Gate,
) -> None:
    session_id = await _unfolded_session()
    app = demo_app(session_id=session_id)
    async with app.run_test(size=SIZE) as pilot:
        with gate:
            await _reached(pilot, app, gate)
            await connected(pilot, app)  # (connected: both would go on now)
            seen = record_notifications(app)
            await app.resend.regenerate()
            app.runs.ask_for_run()
            await pilot.pause()
            said = [text for _, text in seen]
            assert len(said) == 2 and all("still being read" in text for text in said), said
            assert not app.runs.busy and len(app.screen_stack) == 1
            gate.release()
            await settle(pilot, app, lambda: app.chat.reading is None, what="the session read")
            await app.resend.regenerate()  # once it is in, it goes
            await settle(pilot, app, lambda: not app.runs.busy, what="the regenerated reply")
            assert [t.text for t in items_of(app, UserTurn)][-1] == f"hello ({TURNS - 1})"
            assert len(items_of(app, UserTurn)) == TURNS + 1
