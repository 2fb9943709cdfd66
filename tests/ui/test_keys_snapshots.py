"""Snapshots of the keys as a user sees them (issue 27): F1 at 80x24 and 120x40 in every
theme, the footer where the focus is (the idle input, a live run, editing, a dialog), and the
events panel beside the transcript at 120x40 and 80x24 (every column shown, the status line
not covered). Reuses the app and the fixtures of `tests/ui/test_app_snapshots.py` by import.
"""

from __future__ import annotations

from typing import Any

import pytest
from app_support import settle
from test_app_snapshots import (  # noqa: F401  (fixed_durations, free_port: autouse fixtures)
    OTHER_THEMES,
    Snap,
    app_of,
    ask,
    fixed_durations,
    free_port,
    ready,
    snapshot_app,
    waiting_on_form,
)
from textual.pilot import Pilot

from openwop_tui.ui.screens.capabilities import CapabilitiesScreen
from openwop_tui.ui.screens.help import HelpScreen
from openwop_tui.ui.widgets.prompt import PromptInput

pytestmark = pytest.mark.xdist_group("snapshots")

THEMES = [None, *OTHER_THEMES]
SIZES = [(80, 24), (120, 40)]


async def _help(pilot: Pilot[Any]) -> None:
    app = await ready(pilot)
    await pilot.press("f1")
    await settle(pilot, app, lambda: isinstance(app.screen, HelpScreen), what="help")
    await pilot.pause()


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_f1_help(snap_compare: Snap, theme: str | None, size: tuple[int, int]) -> None:
    """From the input: its keys first ("Here"), then every key, a dialog footer at the bottom."""
    assert snap_compare(snapshot_app(theme), terminal_size=size, run_before=_help)


async def _editing(pilot: Pilot[Any]) -> None:
    app = await ask(pilot, "hello")
    app.resend.edit()
    await settle(pilot, app, lambda: app.resend.editing, what="editing")
    app.clear_notifications()
    app.query_one(PromptInput).cursor_blink = False
    await pilot.pause()


async def _lab(pilot: Pilot[Any]) -> None:
    app = await ready(pilot)
    await pilot.press("f4")
    await settle(pilot, app, lambda: isinstance(app.screen, CapabilitiesScreen), what="lab")
    await pilot.pause()


async def _in_transcript(pilot: Pilot[Any]) -> None:
    app = await ask(pilot, "code please")
    await pilot.press("shift+tab")
    await settle(pilot, app, lambda: app.view.has_focus, what="the transcript")
    await pilot.pause()


async def _live_run(pilot: Pilot[Any]) -> None:
    """A run waiting on its question, the focus back in the input: Esc cancels the run."""
    await waiting_on_form(("escape",))(pilot)
    app = app_of(pilot)
    app.query_one(PromptInput).cursor_blink = False
    await settle(pilot, app, lambda: app.runs.busy, what="the run live", workers=False)
    await pilot.pause()


@pytest.mark.parametrize(
    ("name", "run_before", "workflow"),
    [
        ("idle", ready, None),
        ("live-run", _live_run, "demo.clarify"),
        ("editing", _editing, None),
        ("dialog", _lab, None),
        ("transcript", _in_transcript, None),
    ],
)
def test_footer(snap_compare: Snap, name: str, run_before: Any, workflow: str | None) -> None:
    """The footer names what works where the focus is: no Esc when idle, "Cancel run" while a
    run is live, "Keep exchange" while editing, the dialog's own keys over a dialog."""
    app = snapshot_app(workflow=workflow)
    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)


async def _events_panel(pilot: Pilot[Any]) -> None:
    app = await ask(pilot, "code please")
    await pilot.press("f2")
    await settle(pilot, app, lambda: app.chat.parts.events.display, what="the panel")
    for _ in range(3):
        await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_events_panel(snap_compare: Snap, size: tuple[int, int]) -> None:
    """Beside the transcript each event on two lines where narrow: the node and the summary
    shown, not cut; the status line above it, not under it."""
    assert snap_compare(snapshot_app(), terminal_size=size, run_before=_events_panel)
