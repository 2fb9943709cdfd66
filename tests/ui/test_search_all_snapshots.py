"""Snapshots of search everywhere's results (issue 27) at 80x24 and 120x40 in every theme: the
count of occurrences, each result's session title, date (said against a fixed clock), whose
words, and its context with the occurrences marked; an archived session's result says so.

The sessions are written straight into the store with fixed dates and index rows, so nothing
depends on the day the suite runs. Reuses the app and the fixtures of
`tests/ui/test_app_snapshots.py` (the fixed `SNAPSHOT_PORT`, the one xdist group) by import.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
from app_support import settle
from test_app_snapshots import (  # noqa: F401  (fixed_durations, free_port: autouse fixtures)
    Snap,
    app_of,
    fixed_durations,
    free_port,
    ready,
    snapshot_app,
)
from textual.pilot import Pilot

from openwop_tui.store.records import Entry
from openwop_tui.store.search import IndexRow
from openwop_tui.store.sessions import Store
from openwop_tui.themes import THEMES
from openwop_tui.ui.screens.search_all import SearchAllScreen

pytestmark = pytest.mark.xdist_group("snapshots")

#: The clock the results' dates are said against (2025-06-15 12:00 UTC).
NOW = 1_749_988_800.0
DAY = 86400.0

SESSIONS = [
    (
        "Birdwatching weekend",
        NOW - 3 * DAY,
        False,
        [
            ("user", "Where can I see a kestrel hovering near the coast this weekend?"),
            (
                "assistant",
                "Kestrels hunt over open ground: coastal grassland and dunes are good. Watch "
                "for a kestrel hanging in the wind, tail fanned, before it drops.",
            ),
        ],
    ),
    (
        "Field notes",
        NOW - 9 * DAY,
        False,
        [("user", "Add to the list: kestrel, buzzard, red kite, and a kestrel again at dusk.")],
    ),
    ("Old trip", NOW - 200 * DAY, True, [("assistant", "No kestrel seen; rain all day.")]),
]


def _seed() -> None:
    with Store() as store:
        for title, updated, archived, rows in SESSIONS:
            session = store.create(host="embedded demo host", workflow="demo.chat", title=title)
            for place, (role, text) in enumerate(rows):
                if role == "user":
                    store.append(session, Entry("user", text))
                item = f"{role}-{place + 1}"
                store.index(session, [IndexRow(item, place, role, text)], through=None)
            store.archive(session, archived)
            path = store.path
            with sqlite3.connect(path) as db:
                db.execute(
                    "UPDATE sessions SET updated = ?, created = ?, indexed = entries WHERE id = ?",
                    (updated, updated, session),
                )


async def _searched(pilot: Pilot[Any]) -> None:
    app = await ready(pilot)
    app.search_all.now = lambda: NOW
    await pilot.press("ctrl+shift+f")
    await settle(pilot, app, lambda: isinstance(app.screen, SearchAllScreen), what="opened")
    await pilot.press(*"kestrel")
    screen = app_of(pilot).screen
    assert isinstance(screen, SearchAllScreen)
    await settle(pilot, app, lambda: screen.found is not None and screen.found.query == "kestrel")
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("theme", [theme.name for theme in THEMES])
def test_search_all_results(snap_compare: Snap, theme: str, size: tuple[int, int]) -> None:
    _seed()
    assert snap_compare(snapshot_app(theme), terminal_size=size, run_before=_searched)
