"""SVG snapshots of the inspector in the app (issue 16): the timeline screen, a lint finding
(an event's findings above its JSON tree) and the statistics screen, at 80x24 and 120x40.

The fixtures are `tests/ui/test_app_snapshots.py`'s (the fixed port, the pinned durations, the
deterministic demo host); update with ``--snapshot-update`` and look at every SVG first.
"""

from __future__ import annotations

from typing import Any

import pytest
from app_support import settle
from test_app_snapshots import (  # noqa: F401  (autouse fixtures apply here once imported)
    Snap,
    ask,
    fixed_durations,
    free_port,
    snapshot_app,
)
from textual.pilot import Pilot

from openwop_tui.ui.screens.event import EventScreen
from openwop_tui.ui.screens.stats import StatsScreen
from openwop_tui.ui.screens.timeline import TimelineScreen

pytestmark = pytest.mark.xdist_group("snapshots")
SIZES = [(80, 24), (120, 40)]


async def _timeline(pilot: Pilot[Any], text: str, filter_text: str = "") -> TimelineScreen:
    app = await ask(pilot, text)
    app.timeline.open_screen(filter_text)
    await settle(pilot, app, lambda: isinstance(app.screen, TimelineScreen), what="timeline")
    screen = app.screen
    assert isinstance(screen, TimelineScreen)
    await settle(pilot, app, lambda: bool(screen.panel.view.entries), what="rows")
    await pilot.pause()
    return screen


@pytest.mark.parametrize("size", SIZES)
def test_timeline_screen(snap_compare: Snap, size: tuple[int, int]) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _timeline(pilot, "code please")

    assert snap_compare(snapshot_app(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_lint_finding(snap_compare: Snap, size: tuple[int, int]) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        screen = await _timeline(pilot, "show me everything", "has:warnings")
        view = screen.panel.view
        view.focus()  # from the filter line to the rows, as Enter there does
        view.action_first()
        view.action_open()
        app = pilot.app
        await settle(pilot, app, lambda: isinstance(app.screen, EventScreen), what="event")  # type: ignore[arg-type]
        await pilot.pause()

    assert snap_compare(snapshot_app(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_statistics_screen(snap_compare: Snap, size: tuple[int, int]) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = await ask(pilot, "code please")
        await pilot.press("f8")
        await settle(pilot, app, lambda: isinstance(app.screen, StatsScreen), what="stats")
        await pilot.pause()

    assert snap_compare(snapshot_app(), terminal_size=size, run_before=run_before)
