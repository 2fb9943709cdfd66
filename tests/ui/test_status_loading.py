"""A run is "completed" on screen only when its items are settled (issue 15, Build 8): while
envelopes on screen still say "loading…" (their media fetched or decoded) the status line says
"completed, N loading", and plain "completed" once every one is drawn. Before, "run completed"
was shown while five tour images still said "loading…".

Real demo host over loopback; the drawing of envelopes is held back by an event the test
releases (no sleeps), as a slow host's media would hold it. Without `LoadingChanged` the line
says "completed" with the images still loading.
"""

from __future__ import annotations

import asyncio
from typing import Any

from app_support import SIZE, connected, demo_app, send, settle

from openwop_tui.ui.app import ChatApp


def _line(app: ChatApp) -> str:
    return str(app.status.render())


async def test_completed_waits_for_the_items_that_load() -> None:
    app = demo_app()
    release = asyncio.Event()
    drawn = app.lab.rendered

    async def slow(*args: Any, **kwargs: Any) -> Any:
        await release.wait()  # the media are still on their way
        return await drawn(*args, **kwargs)

    app.lab.rendered = slow  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await send(pilot, app, "an image and a file please")
        await settle(
            pilot,
            app,
            lambda: app.transcript.status == "completed" and app.view.pending_renders >= 2,
            what="the run over, its envelopes loading",
            workers=False,
        )
        loading = app.view.pending_renders
        await settle(
            pilot,
            app,
            lambda: f"run completed, {loading} loading" in _line(app),
            what="the line says they load",
            workers=False,
        )
        release.set()
        await settle(pilot, app, lambda: app.view.pending_renders == 0, what="all drawn")
        await settle(
            pilot, app, lambda: "loading" not in _line(app), what="the line says completed"
        )
        assert "run completed" in _line(app)
