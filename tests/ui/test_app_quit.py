"""Ctrl+Q: quits at once without a run; with a run in flight asks whether to cancel it on the
host, leave it running, or stay. Pilot tests against a demo host the test owns, so the run's
status on the host can be read after the app is gone. Every wait is `app_support.settle`.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from app_support import (
    NO_AUDIO,
    SIZE,
    builtin_renderers_loaded,  # noqa: F401  (an autouse fixture: importing it applies it here)
    connected,
    send,
    settle,
)
from textual.widgets import Static

from openwop_tui.config import Config
from openwop_tui.demo_host import DemoHost
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.screens.quit import QuitScreen


@pytest.fixture
def host() -> Iterator[DemoHost]:
    # Paced: the "slow" reply streams for many seconds, so the run is in flight while asked.
    with DemoHost(pace=1, deterministic=True) as running:
        yield running


def app_for(host: DemoHost) -> ChatApp:
    return ChatApp(Config(host=host.url, api_key=host.api_key), audio_support=NO_AUDIO)


def status_on_host(host: DemoHost, run_id: str) -> str:
    headers = {"Authorization": f"Bearer {host.api_key}"}
    status: str = httpx.get(f"{host.url}/v1/runs/{run_id}", headers=headers).json()["status"]
    return status


async def start_slow_run(pilot: object, app: ChatApp) -> str:
    await connected(pilot, app)  # type: ignore[arg-type]
    await send(pilot, app, "something slow")  # type: ignore[arg-type]
    await settle(
        pilot,  # type: ignore[arg-type]
        app,
        lambda: app.session is not None and app.session.current_run is not None,
        what="the run started",
        workers=False,
    )
    assert app.session is not None and app.session.current_run is not None
    return app.session.current_run.run_id


async def test_ctrl_q_without_a_run_quits_at_once(host: DemoHost) -> None:
    app = app_for(host)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not isinstance(app.screen, QuitScreen)
    assert app.return_code == 0


async def test_ctrl_q_with_a_run_asks_and_stay_keeps_it(host: DemoHost) -> None:
    app = app_for(host)
    async with app.run_test(size=SIZE) as pilot:
        run_id = await start_slow_run(pilot, app)
        await pilot.press("ctrl+q")
        await settle(pilot, app, lambda: isinstance(app.screen, QuitScreen), workers=False)
        question = app.screen.query_one("#question", Static)
        assert run_id in str(question.render())
        await pilot.press("escape")
        await settle(pilot, app, lambda: not isinstance(app.screen, QuitScreen), workers=False)
        assert app.is_running
        assert app.session is not None and app.session.current_run is not None
        assert status_on_host(host, run_id) == "running"
        await app.action_cancel_run()  # tidy up: the test's host stops the run anyway


async def test_ctrl_q_then_cancel_cancels_the_run_on_the_host(host: DemoHost) -> None:
    app = app_for(host)
    async with app.run_test(size=SIZE) as pilot:
        run_id = await start_slow_run(pilot, app)
        await pilot.press("ctrl+q")
        await settle(pilot, app, lambda: isinstance(app.screen, QuitScreen), workers=False)
        await pilot.press("c")
        await settle(pilot, app, lambda: status_on_host(host, run_id) != "running", workers=False)
    assert status_on_host(host, run_id) == "cancelled"


async def test_ctrl_q_then_leave_quits_and_the_run_goes_on(host: DemoHost) -> None:
    app = app_for(host)
    async with app.run_test(size=SIZE) as pilot:
        run_id = await start_slow_run(pilot, app)
        await pilot.press("ctrl+q")
        await settle(pilot, app, lambda: isinstance(app.screen, QuitScreen), workers=False)
        await pilot.press("l")
        await pilot.pause()
    assert not app.is_running
    assert status_on_host(host, run_id) == "running"
