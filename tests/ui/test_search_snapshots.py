"""Snapshots of the search in every theme (issue 15, Build 2): the query drawn in the bar as
typed, the count ("1 of N") and the current match, readable. Reuses the app and the fixtures of
`tests/ui/test_app_snapshots.py` (the fixed `SNAPSHOT_PORT`, the one xdist group) by import.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_app_snapshots import (  # noqa: F401  (fixed_durations, free_port: autouse fixtures)
    SIZE,
    Snap,
    ask,
    fixed_durations,
    free_port,
    snapshot_app,
)
from textual.pilot import Pilot

from openwop_tui.themes import THEMES

pytestmark = pytest.mark.xdist_group("snapshots")


async def _searched(pilot: Pilot[Any]) -> None:
    await ask(pilot, "code please")
    await pilot.press("ctrl+f")
    await pilot.press(*"code")
    await pilot.press("enter")  # the first match is the current one
    await pilot.pause()


@pytest.mark.parametrize("theme", [theme.name for theme in THEMES])
def test_search_in_theme(snap_compare: Snap, theme: str) -> None:
    assert snap_compare(snapshot_app(theme), terminal_size=SIZE, run_before=_searched)
