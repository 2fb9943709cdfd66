"""Attach and the workflow picker done right (issue 15, Build 5): ``--attach`` adopts the run's
workflow (it kept ``demo.chat``, so the next message got a 404 on a host without it), and Esc on
the picker, with a configured workflow the host does not have, says how to pick later and sends
nothing to a workflow the host does not have.

Real demo host over loopback. Without the adoption in `RunsController._follow` the session keeps
``demo.chat``; without `RunsController.missing_workflow` the message goes and gets a 404.
"""

from __future__ import annotations

import httpx
from app_support import NO_AUDIO, SIZE, connected, items_of, notices, send, settle

from openwop_tui.config import Config
from openwop_tui.core.fold import UserTurn
from openwop_tui.demo_host import DemoHost
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.options import AppOptions
from openwop_tui.ui.screens.workflows import WorkflowPicker


async def test_attach_adopts_the_runs_workflow() -> None:
    with DemoHost(pace=0, deterministic=True) as host:
        created = httpx.post(
            f"{host.url}/v1/runs",
            json={"workflowId": "demo.tour", "inputs": {}},
            headers={"Authorization": f"Bearer {host.api_key}"},
        ).json()
        config = Config(host=host.url, api_key=host.api_key, audio=False, images="none")
        app = ChatApp(config, AppOptions(attach=created["runId"]), audio_support=NO_AUDIO)
        async with app.run_test(size=SIZE) as pilot:
            await settle(
                pilot,
                app,
                lambda: app.session is not None and app.session.workflow_id == "demo.tour",
                what="the attached run's workflow adopted",
            )
            await settle(pilot, app, lambda: app.transcript.status == "completed", what="end")
            assert app.status.workflow == "demo.tour"


async def test_esc_on_the_picker_says_how_to_pick_later_and_sends_nothing() -> None:
    with DemoHost(pace=0, deterministic=True) as host:
        config = Config(
            host=host.url, api_key=host.api_key, audio=False, images="none", workflow="no.such"
        )
        app = ChatApp(config, audio_support=NO_AUDIO)
        async with app.run_test(size=SIZE) as pilot:
            await connected(pilot, app)
            await settle(pilot, app, lambda: isinstance(app.screen, WorkflowPicker), what="picker")
            await pilot.press("escape")
            await settle(
                pilot,
                app,
                lambda: any("Pick a workflow" in n.text for n in notices(app, "warning")),
                what="the hint",
            )
            await send(pilot, app, "hello")
            await pilot.pause()
            assert not items_of(app, UserTurn)  # not sent to a workflow the host lacks
            assert len(app.chat.parts.queued) == 1
            assert not notices(app, "error")
