"""The collector's full pass is taken once nobody types, never as a run ends (issue 26: on a
busy machine the keys typed while answers streamed waited behind it, up to 1.2 s).

Without `QuietWalks` deciding by the last input, the pass runs with a key just typed; without
the run's end asking for it, a due pass is never taken and a chat's frozen garbage stays.
"""

from __future__ import annotations

import time

import pytest
from app_support import connected, demo_app, settle, turn
from textual.app import ComposeResult
from textual.widgets import Input

from openwop_tui.ui import heap, quiet_walk
from openwop_tui.ui.quiet_walk import QuietWalks


class Typing(QuietWalks):
    def compose(self) -> ComposeResult:
        yield Input()


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every full pass taken (when); one is always due."""
    taken: list[float] = []
    monkeypatch.setattr(heap, "walk_due", lambda: True)
    monkeypatch.setattr(heap, "walk", lambda: taken.append(time.monotonic()))
    return taken


async def test_a_due_pass_waits_for_a_quiet_moment(walks: list[float]) -> None:
    app = Typing()
    async with app.run_test() as pilot:
        await pilot.press("a")  # just typed
        assert not app.walk_if_quiet() and not walks
        assert app._walk_timer is not None  # looked at again later
        app._last_input -= quiet_walk.QUIET_SECONDS
        assert app.walk_if_quiet() and len(walks) == 1


async def test_no_pass_while_a_run_streams(walks: list[float]) -> None:
    app = Typing()
    async with app.run_test():
        app._last_input = time.monotonic() - 10 * quiet_walk.QUIET_SECONDS
        app.streaming = lambda: True  # type: ignore[method-assign]  # a run streams
        app.walk_when_quiet()
        assert not app.walk_if_quiet() and not walks
        app.streaming = lambda: False  # type: ignore[method-assign]
        assert app.walk_if_quiet() and len(walks) == 1


async def test_a_runs_end_takes_the_due_pass_once_nobody_types(
    walks: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(quiet_walk, "QUIET_SECONDS", 0.05)
    app = demo_app()
    async with app.run_test() as pilot:
        await connected(pilot, app)
        assert not walks  # (due all along: only a run's end asks for it)
        await turn(pilot, app, "hello")
        await settle(pilot, app, lambda: bool(walks), what="the due pass taken")
