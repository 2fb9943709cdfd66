"""The timeline keeps each event as columns and its place in the session store, not as an
`Entry` (issue 26: about 600 bytes an event was most of a flood's memory). What that must not
change: a row made again from the columns is the row it was, drawn the same; its event read
back from the store is the event that arrived; a key cut across chunks stays masked in both;
and the entries kept made are a window, not one per event.

`Rows.let_go` lets go of the entries made lately, so what follows is made from the columns
alone (as a row scrolled back to long after is); each test fails when that loses something.
"""

from __future__ import annotations

import gc
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from app_support import NO_AUDIO, SIZE, connected, demo_app, run_over, send, settle, turn
from key_split import KEY, KeySplitHost, key_piece
from test_timeline_keys import PIECES, check_rows, streamed

from openwop_tui.config import Config
from openwop_tui.core.updates import EventArrived
from openwop_tui.demo_host import workflows
from openwop_tui.inspect.timeline import Row
from openwop_tui.protocol.events import normalize
from openwop_tui.protocol.hostdata import MASK
from openwop_tui.text.sanitize import HostText, one_line
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.controllers import timeline, timeline_rows, timeline_waiting
from openwop_tui.ui.controllers.timeline_rows import NotKept, Rows
from openwop_tui.ui.widgets.timeline_view import Entry


def _documents(entries: Any) -> list[Any]:
    return [entry.event.raw for entry in entries]


async def test_a_row_made_again_is_drawn_and_opened_as_it_was() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await pilot.press("f2")
        await turn(pilot, app, "code please")
        panel = app.chat.parts.events
        kept = app.timeline.kept
        app.timeline.inspector  # noqa: B018 (every event inspected)
        await settle(pilot, app, lambda: len(panel.view.entries) == len(kept.entries))
        rows = [entry.row for entry in kept.entries]
        drawn = panel.view.plain_lines()
        documents = _documents(kept.entries)
        items = [entry.items for entry in kept.entries]
        assert any(items)  # (the reply's chunks link to the reply)

        kept.entries.let_go()
        assert all(isinstance(e.kept, timeline_rows.StoredEvent) for e in kept.entries)
        assert [entry.row for entry in kept.entries] == rows
        assert panel.view.plain_lines() == drawn
        assert _documents(kept.entries) == documents  # (read back from the store)
        assert [entry.items for entry in kept.entries] == items


async def test_a_key_cut_across_chunks_stays_masked_once_its_rows_are_made_again() -> None:
    with KeySplitHost() as host:
        config = Config(host=host.url, api_key=KEY, audio=False, images="none")
        app = ChatApp(config, audio_support=NO_AUDIO)
        async with app.run_test(size=SIZE) as pilot:
            await connected(pilot, app)
            await pilot.press("f2")
            panel = app.chat.parts.events
            await settle(pilot, app, lambda: panel.display, what="the timeline shown")
            await pilot.press(*"go", "enter")
            await streamed(pilot, app, panel.view)
            app.timeline.kept.entries.let_go()
            check_rows(panel.view)
            pieces = [e for e in panel.view.entries if e.row.type in PIECES]
            chunks = []
            for entry in pieces:
                document = entry.event.raw
                assert key_piece(json.dumps(document, ensure_ascii=False)) is None, document
                payload = document["payload"]
                chunks.append(payload.get("chunk", payload.get("delta", "")))
            joined = "".join(chunks)
            assert key_piece(joined) is None, joined
            assert MASK in joined


async def test_the_entries_kept_made_are_a_window_not_one_an_event(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(timeline_rows, "WINDOW", 64)
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await pilot.press("f2")
        events = [
            EventArrived(normalize({"type": "log.appended", "runId": "r", "sequence": n}))
            for n in range(3000)
        ]
        await app.feed.show(events)
        app.timeline.inspector  # noqa: B018 (every event inspected)
        view = app.chat.parts.events.view
        await settle(pilot, app, lambda: len(view.entries) == 3000, what="every row shown")
        del events
        gc.unfreeze()  # (the app freezes what a run made out of the collector: counted too)
        gc.collect()
        place = app.timeline.kept.entries.place  # (this chat's: not another test's)
        made = sum(isinstance(o, Entry) and o.place is place for o in gc.get_objects())
        assert made <= 64 + 64, made  # (the window, and the rows on screen)
        assert [e.row.sequence for e in view.entries[:3]] == [0, 1, 2]


def log_entry(sequence: int) -> Entry:
    """A timeline row of a ``log.appended`` event, made outside any timeline."""
    row = Row(sequence, None, one_line(HostText("log.appended")), None, one_line(HostText("")))
    event = normalize({"type": "log.appended", "runId": "r", "sequence": sequence})
    return Entry(row, event)


def test_without_a_store_the_newest_events_are_kept_and_an_older_one_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(timeline_rows, "HELD_EVENTS", 10)
    rows = Rows(reader=None)
    for sequence in range(30):
        rows.append(log_entry(sequence))
    rows.let_go()
    assert [rows[i].row.sequence for i in range(30)] == list(range(30))  # every row stays
    assert rows[29].event.sequence == 29
    assert rows[20].event.sequence == 20
    with pytest.raises(NotKept, match="no session store"):
        rows[19].event  # noqa: B018


@asynccontextmanager
async def _flooded(monkeypatch: pytest.MonkeyPatch, recent: int) -> AsyncIterator[ChatApp]:
    """The app after a flood of 2,000 events inspected one a frame (so they wait), the last
    ``recent`` of the waiting ones kept as entries, the run never seen as paused."""
    monkeypatch.setattr(timeline_waiting, "RECENT", recent)
    monkeypatch.setattr(timeline, "INSPECT_SECONDS", 0.0)
    monkeypatch.setattr(timeline, "IDLE_AFTER_SECONDS", 3600.0)
    monkeypatch.setattr(workflows, "FLOOD_RATE", 2_000)
    monkeypatch.setattr(workflows, "FLOOD_SECONDS", 1.0)
    app = demo_app(workflow="bench.flood")
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await send(pilot, app, "flood")
        await settle(pilot, app, lambda: run_over(app), what="the flood ended")
        yield app


async def _waited(monkeypatch: pytest.MonkeyPatch, recent: int) -> tuple[int, int, list[Any]]:
    """A flood of 2,000 events that wait for their inspection (one a frame), the last
    ``recent`` of them as entries: (how many waited, the entries alive then, the rows and
    events after)."""
    async with _flooded(monkeypatch, recent) as app:
        kept = app.timeline.kept
        waited = len(kept.queued)
        gc.unfreeze()  # (the app freezes what a run made out of the collector: counted too)
        gc.collect()
        # (Of this chat; the entries of the rows inspected so far, in the window, not counted.)
        place = kept.entries.place
        ours = [o for o in gc.get_objects() if isinstance(o, Entry) and o.place is place]
        alive = len(ours) - len(kept.entries)
        del ours
        app.timeline.inspector  # noqa: B018 (every event inspected now, read back as needed)
        assert not kept.queued
        # (What a run's time changes left out: its length, its events' ids and times.)
        chunks = [e for e in kept.entries if e.row.type == "output.chunk"]
        shown = [
            (e.row.sequence, e.row.type, e.row.node, e.row.marks, e.items) for e in kept.entries
        ]
        shown += [(e.row.sequence, e.row.summary) for e in chunks]
        documents = [e.event.raw["payload"] for e in chunks]
    return waited, alive, [shown, documents]


async def test_events_waiting_for_inspection_wait_as_their_places_and_lose_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    waited, alive, spilled = await _waited(monkeypatch, 4)
    assert waited > 1_000  # (the flood's events mostly waited)
    assert alive <= 4 + 16, alive  # (the recent ones, the last one's links)
    _, kept_alive, whole = await _waited(monkeypatch, 100_000)
    assert kept_alive > 1_000  # (the same, not spilled: an entry each)
    assert len(spilled[0]) == len(whole[0])
    assert spilled[0] == whole[0]
    assert spilled[1] == whole[1]


async def test_while_events_come_no_frame_reads_waiting_events_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Reading a block of waiting events back from the store in a flood's frames kept its keys
    # waiting (the key echo's median, 24-29 -> 34-36 ms): they are read once the run pauses.
    in_frames: list[bool] = []
    read = timeline.TimelineController._read_waiting

    def counted(
        self: timeline.TimelineController, kept: Any, first: tuple[int, int], *, at_once: bool
    ) -> bool:
        if not at_once:  # (a frame's batch; what must be whole now reads at once)
            in_frames.append(True)
        return read(self, kept, first, at_once=at_once)

    monkeypatch.setattr(timeline.TimelineController, "_read_waiting", counted)
    async with _flooded(monkeypatch, 4) as app:
        kept = app.timeline.kept
        assert kept.queued.first() is not None  # (events wait as their places)
        assert not in_frames
        monkeypatch.setattr(timeline, "IDLE_AFTER_SECONDS", 0.0)  # (the run paused)
        app.timeline.flush()
        assert in_frames
