"""A fast host's events reach the view in frame-sized batches, and a long streaming reply is
redrawn less often as it costs more (issue 13): counts, not timings.

The app runs on the embedded demo host's ``bench.flood`` workflow, unpaced, so its thousands of
chunk events arrive as fast as the app reads them.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from app_support import builtin_renderers_loaded, connected, demo_app, run_over, send, settle

from openwop_tui.core.fold import AssistantTurn, Change
from openwop_tui.demo_host import workflows
from openwop_tui.ui.transcript import streaming
from openwop_tui.ui.transcript.view import TranscriptView

__all__ = ["builtin_renderers_loaded"]

EVENTS = 3_000


@pytest.fixture
def small_flood(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workflows, "FLOOD_RATE", EVENTS)
    monkeypatch.setattr(workflows, "FLOOD_SECONDS", 1.0)


async def test_a_floods_changes_reach_the_view_a_frame_at_a_time(small_flood: None) -> None:
    app = demo_app(workflow="bench.flood")
    batches: list[int] = []
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(TranscriptView)
        original = view.apply

        async def counted(changes: list[Change]) -> None:
            batches.append(len(changes))
            await original(changes)

        view.apply = counted  # type: ignore[method-assign]
        await connected(pilot, app)
        await send(pilot, app, "flood")
        await settle(pilot, app, lambda: run_over(app), what="the flood ended")
        reply = next(i for i in app.transcript.items if isinstance(i, AssistantTurn))
        assert reply.text.endswith("flood over")
        assert reply.text.count("w") == EVENTS  # every chunk, in the fold and so on screen
    chunks = sum(batches)
    assert chunks >= EVENTS
    # One batch a frame, not one a chunk: before, the view was given each chunk on its own.
    assert len(batches) < EVENTS / 10, (len(batches), chunks)


async def test_a_costly_streamed_redraw_spaces_out_the_next(
    small_flood: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    delays: list[float] = []
    app = demo_app(workflow="bench.flood")
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(TranscriptView)
        original = view.set_timer

        def timer(delay: float, callback: Any, *args: Any, **kwargs: Any) -> Any:
            if callback == view.redraws.flush:
                delays.append(delay)
            return original(delay, callback, *args, **kwargs)

        view.set_timer = timer  # type: ignore[method-assign]
        # Every streamed redraw timed as costing a second: the next waits six.
        view.redraws.clock = itertools.count(step=1.0).__next__
        await connected(pilot, app)
        await send(pilot, app, "flood")
        await settle(
            pilot, app, lambda: len(delays) >= 2, what="two streamed redraws", workers=False
        )
    assert delays[0] == streaming.STREAM_REDRAW_SECONDS
    assert all(d == streaming.STREAM_REDRAW_SHARE * 1.0 for d in delays[1:])
