"""A fast host is read at its own pace and nothing of it is lost (issue 26, part 1): counts and
orders, never timings.

The app runs on the embedded demo host's ``bench.flood`` workflow, unpaced over loopback, so
its thousands of chunk events arrive as fast as the app reads them. Every event the host sent
must be stored, drawn and in the timeline, each in the host's order; the timeline's lint and
rows are made off the ingest's path (queued as events arrive, inspected by the frame), never
while an event is being taken in.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from app_support import builtin_renderers_loaded, connected, demo_app, run_over, send, settle

from openwop_tui.core.fold import AssistantTurn
from openwop_tui.demo_host import workflows
from openwop_tui.inspect.inspector import Inspector
from openwop_tui.store.sessions import Store
from openwop_tui.ui.controllers import timeline
from openwop_tui.ui.controllers.timeline import TimelineController

__all__ = ["builtin_renderers_loaded"]

EVENTS = 5_000


@pytest.fixture
def flood(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workflows, "FLOOD_RATE", EVENTS)
    monkeypatch.setattr(workflows, "FLOOD_SECONDS", 1.0)


def _expected_reply() -> str:
    return "".join(f"w{n % 100} " for n in range(EVENTS)) + "\n\nflood over"


async def test_every_event_of_a_fast_host_is_stored_drawn_and_in_order(flood: None) -> None:
    app = demo_app(workflow="bench.flood")
    async with app.run_test(size=(100, 30)) as pilot:
        await connected(pilot, app)
        await send(pilot, app, "flood")
        await settle(pilot, app, lambda: run_over(app), what="the flood ended")
        reply = next(i for i in app.transcript.items if isinstance(i, AssistantTurn))
        # Every chunk folded, once each, in the host's order (a chunk lost, doubled or swapped
        # changes the text).
        assert reply.text == _expected_reply()
        session_id = app.sessions.kept_session_id()
        assert session_id is not None
        app.timeline.inspector  # noqa: B018 (what is queued is inspected first)
        rows = [(entry.row.type, entry.row.sequence) for entry in app.timeline.kept.entries]
        entries = [row[1] for row in rows]
    with Store() as store:
        frames = [e for e in store.entries(session_id) if e.kind == "frame"]
    sequences = [int(f.frame_id) for f in frames if f.frame_id is not None]
    chunks = [
        seq
        for seq, kind in zip(sequences, (f.data for f in frames), strict=True)
        if '"output.chunk"' in kind
    ]
    assert len(chunks) == EVENTS + 1  # every chunk stored, "flood over" too
    assert len(sequences) == len(frames)
    assert sequences == sorted(set(sequences))  # each once, in the host's order
    # The host numbers its events from 0, one by one: none is missing between them.
    assert sequences == list(range(sequences[0], sequences[0] + len(sequences)))
    assert [seq for _, seq in rows] == sequences  # every event inspected, in order
    assert entries == sequences  # and a timeline row each, in order
    assert sum(kind == "output.chunk" for kind, _ in rows) == EVENTS + 1


async def test_lint_and_rows_are_made_off_the_ingest_path_in_batches(
    flood: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No event is inspected while the app takes it in (`TimelineController.arrived` only
    queues it), and the inspection comes in batches, a frame's at a time, not one per event."""
    taking_in = False
    during: list[int] = []
    batches = itertools.count()
    batch = 0
    batch_of: list[int] = []
    arrived, feed, flush = TimelineController.arrived, Inspector.feed, TimelineController.flush

    def arriving(self: TimelineController, event: Any, logged: int = -1) -> None:
        nonlocal taking_in
        taking_in = True
        try:
            arrived(self, event, logged)
        finally:
            taking_in = False

    def fed(self: Inspector, event: Any, at: float | None = None) -> Any:
        if taking_in:
            during.append(1)
        batch_of.append(batch)
        return feed(self, event, at)

    def flushed(self: TimelineController) -> None:
        nonlocal batch
        batch = next(batches)
        flush(self)

    # Each batch inspects all that waits (no time budget): how many batches there are is then
    # counted in frames, whatever this machine's speed.
    monkeypatch.setattr(timeline, "INSPECT_SECONDS", 3600.0)
    monkeypatch.setattr(timeline, "IDLE_INSPECT_SECONDS", 3600.0)
    monkeypatch.setattr(TimelineController, "arrived", arriving)
    monkeypatch.setattr(Inspector, "feed", fed)
    monkeypatch.setattr(TimelineController, "flush", flushed)
    app = demo_app(workflow="bench.flood")
    async with app.run_test(size=(100, 30)) as pilot:
        await connected(pilot, app)
        await send(pilot, app, "flood")
        await settle(pilot, app, lambda: run_over(app), what="the flood ended")
        await settle(pilot, app, lambda: not app.timeline.kept.queued, what="all inspected")
    assert not during  # never on the ingest's path
    assert len(batch_of) > EVENTS
    # A batch a frame: the events of a run (thousands) in a few dozen inspections.
    assert len(set(batch_of)) < EVENTS / 10, len(set(batch_of))
