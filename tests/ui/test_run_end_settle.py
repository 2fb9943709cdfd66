"""A run's end is on screen before the heap is settled (issue 26): a settle that finds the heap
doubled walks all of it (121 ms after a 600-line code answer in a fresh app), and the reply's
last lines and the status saying the run ended waited behind it. Every wait is
`app_support.settle`, never a fixed sleep."""

from __future__ import annotations

from typing import Any

from app_support import (
    SIZE,
    builtin_renderers_loaded,  # noqa: F401  (an autouse fixture: importing it applies it here)
    connected,
    demo_app,
    run_over,
    settle,
)
from textual.screen import Screen

from openwop_tui.ui import heap


async def test_the_run_end_is_painted_before_the_heap_is_settled(monkeypatch: Any) -> None:
    app = demo_app()
    seen: list[tuple[str, str | None]] = []  # ("paint" or "settle", the run's status then)
    paint, settle_heap = Screen._compositor_refresh, heap.settle

    def painted(screen: Screen[Any]) -> None:
        seen.append(("paint", app.status.run_status))
        paint(screen)

    def settled(*, collect: bool = True) -> None:
        seen.append(("settle", app.status.run_status))
        settle_heap(collect=collect)

    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        monkeypatch.setattr(Screen, "_compositor_refresh", painted)
        monkeypatch.setattr(heap, "settle", settled)
        await pilot.press(*"code please", "enter")
        await settle(pilot, app, lambda: run_over(app), what="the run ended")
        await settle(pilot, app, lambda: any(e[0] == "settle" for e in seen), what="a settle")
        first = seen.index(next(event for event in seen if event[0] == "settle"))
        assert ("paint", "completed") in seen[:first]  # the end shown, then settled
