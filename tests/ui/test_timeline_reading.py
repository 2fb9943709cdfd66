"""A reopened session's stored events reach the timeline from a thread, so the next message does
not wait for them (issue 23, item 7).

A 3,000-turn session holds about 234,000 events; folding them into the timeline took 18 s on the
event loop at the first event of the next run, so the message sent after reopening was answered
18 s late and no key echoed meanwhile. The thread is held at its seam
(`TimelineController.between_steps`) until the test lets it go, so "while they are read" is a
state the test holds. Fails without its part: the fold on the loop (never answered while held),
the live rows not put after the stored ones, or kept twice, or not folded again after them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from app_support import SIZE, connected, demo_app, items_of, settle
from gates import Gate
from session_support import chat_turns

from openwop_tui.core.items import UserTurn
from openwop_tui.demo_host import DemoHost
from openwop_tui.inspect.log import observed_entries
from openwop_tui.protocol.events import KeptEvent
from openwop_tui.store.sessions import Store
from openwop_tui.ui.controllers import timeline
from openwop_tui.ui.controllers.timeline import TimelineController
from openwop_tui.ui.controllers.timeline_rows import StoredEvent
from openwop_tui.ui.key_watch import READING_SWITCH_SECONDS, keys_handed_on
from openwop_tui.ui.widgets.timeline_panel import TimelinePanel
from openwop_tui.ui.widgets.timeline_view import Entry

TURNS = 4


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    held = Gate()
    monkeypatch.setattr(TimelineController, "between_steps", staticmethod(held))
    # (A short session's few events are folded at once; this one stands for a long one.)
    monkeypatch.setattr(timeline, "AT_ONCE", 0)
    # The interval the app runs at: CPython's own would not show the reading's.
    with keys_handed_on():
        try:
            yield held
        finally:
            held.release()  # (a failed test must not leave the thread waiting)


async def _session() -> str:
    # (Run ids of its own: the app's deterministic demo host numbers its runs from 1 again.)
    with DemoHost(pace=0) as demo, Store() as store:
        texts = (f"hello ({number})" for number in range(TURNS))
        return await chat_turns(store, demo.url, demo.api_key, texts)


def _stored_events(session_id: str) -> list[tuple[str | None, int | None]]:
    with Store() as store:
        return [
            (o.event.run_id, o.event.sequence)
            for o in observed_entries(store.entries(session_id))
            if o.event is not None
        ]


async def test_the_next_message_does_not_wait_for_the_stored_events(gate: Gate) -> None:
    session_id = await _session()
    stored = _stored_events(session_id)
    app = demo_app(session_id=session_id)
    async with app.run_test(size=SIZE) as pilot:
        with gate:
            await connected(pilot, app)
            await pilot.press("f2")  # the timeline asked for: its stored events are read
            await settle(pilot, app, gate.reached.is_set, what="the reading held", workers=False)
            panel = app.query_one(TimelinePanel)
            assert "reading the session's stored events" in str(panel.border_title)
            # (The thread and the loop swap the interpreter at CPython's pace meanwhile.)
            assert sys.getswitchinterval() == READING_SWITCH_SECONDS
            await app.runs.submitted("sent while they are read")
            await settle(
                pilot,
                app,
                lambda: (
                    len(items_of(app, UserTurn)) == TURNS + 1
                    and app.session is not None
                    and app.session.current_run is None
                    and not app.runs.busy
                ),
                what="the message answered while the stored events are read",
                workers=False,
            )
            assert gate.held
            kept = app.timeline.kept
            # (The rows inspected, then the events still queued for their inspection.)
            arrived = [*kept.entries, *(entry for entry, _ in kept.queued)]
            live = [(e.event.run_id, e.event.sequence) for e in arrived]
            assert live and not set(live) & set(stored)  # only the new run's, so far
            gate.release()
            await settle(pilot, app, lambda: not kept.reading, what="the stored events read")
            rows = [(e.event.run_id, e.event.sequence) for e in kept.entries]
            assert rows == stored + live  # stored first, each once
            assert [e.row for e in panel.view.entries] == [e.row for e in kept.entries]
            assert "reading" not in str(panel.border_title)
            # The live rows were folded again into the inspector that saw the stored ones.
            assert sum(run.events for run in kept.inspector.stats()) == len(rows)


async def test_the_stored_events_are_read_when_the_timeline_is_first_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not when the reopened session is continued: the transcript read the session already,
    and the timeline's reading of every event (18 s of folding at 3,000 turns) waits until it
    is looked at. Fails when the first event of the next run reads them."""
    session_id = await _session()
    stored = _stored_events(session_id)
    reads: list[int] = []
    observed = timeline.stored_events

    def counted(*args: object, **kwargs: object) -> object:
        reads.append(1)
        return observed(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(timeline, "stored_events", counted)
    app = demo_app(session_id=session_id)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await app.runs.submitted("a turn after reopening")
        await settle(
            pilot,
            app,
            lambda: len(items_of(app, UserTurn)) == TURNS + 1 and not app.runs.busy,
            what="the message answered",
        )
        kept = app.timeline.kept
        # (The rows inspected, then the events still queued for their inspection.)
        arrived = [*kept.entries, *(entry for entry, _ in kept.queued)]
        live = [(e.event.run_id, e.event.sequence) for e in arrived]
        assert live and not reads  # the new run's rows, and nothing read for them
        await pilot.press("f2")  # shown: read now (a short session's at once)
        await settle(pilot, app, lambda: bool(reads) and not kept.reading, what="read")
        rows = [(e.event.run_id, e.event.sequence) for e in kept.entries]
        assert rows == stored + live  # stored first, each once
        assert sum(run.events for run in kept.inspector.stats()) == len(rows)
        panel = app.query_one(TimelinePanel)
        assert [e.row for e in panel.view.entries] == [e.row for e in kept.entries]


async def test_a_new_chat_keeps_no_event_to_fold_again() -> None:
    """A new session holds only what arrived in this chat: its timeline has nothing to read,
    so it keeps no event to fold again after the stored ones (it kept every one, decoded,
    until the timeline was first shown: most of a flood's memory, issue 26)."""
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        for n in range(2):
            await app.runs.submitted(f"turn {n}")
            await settle(
                pilot,
                app,
                lambda n=n: len(items_of(app, UserTurn)) == n + 1 and not app.runs.busy,
                what="the message answered",
            )
        kept = app.timeline.kept
        assert kept.entries and not kept.live and kept.unread is None
        # Every event is kept as its place in the session's log (no entry is kept made past
        # the window), and gives its whole event back when opened, read back from the store:
        # the first run's start, with the inputs it echoed.
        kept.entries.let_go()
        assert all(kept.entries.where(i) >= 0 for i in range(len(kept.entries)))
        assert all(isinstance(entry.kept, StoredEvent) for entry in kept.entries)
        first = kept.entries[0].event
        assert first.type == "run.started"
        assert "turn 0" in str(first.payload["inputs"])


async def test_the_events_of_a_reopened_chat_wait_as_their_entries_only() -> None:
    """Until the stored events are read, the live ones wait to be folded again as their
    entries (their events decoded again then), not as the events as they came."""
    session_id = await _session()
    app = demo_app(session_id=session_id)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await app.runs.submitted("a turn after reopening")
        await settle(
            pilot,
            app,
            lambda: len(items_of(app, UserTurn)) == TURNS + 1 and not app.runs.busy,
            what="the message answered",
        )
        kept = app.timeline.kept
        assert kept.live
        assert all(isinstance(part, Entry | float) for waiting in kept.live for part in waiting)
        # Kept as their frames' text: a run's start echoes the whole chat's history.
        assert all(isinstance(entry.kept, KeptEvent) for entry, _ in kept.live)
