"""The app remembers the host it talked to, its URL only (issue 27 part 6): ``runs`` and
``attach`` without ``--host`` look there next (tests/cli/test_last_host.py). The embedded demo
host, gone when the app quits, is not remembered."""

from __future__ import annotations

from app_support import NO_AUDIO, SIZE, connected, demo_app, settle

from openwop_tui.config import Config
from openwop_tui.demo_host import DemoHost
from openwop_tui.store import state
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.options import AppOptions


async def test_the_host_the_app_reached_is_remembered_without_its_key(host: DemoHost) -> None:
    app = ChatApp(
        Config(host=host.url, api_key=host.api_key, images="halfblock"),
        AppOptions(),
        audio_support=NO_AUDIO,
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, lambda: state.remembered_host() is not None, what="remembered")
    assert state.remembered_host() == host.url
    assert host.api_key not in state.state_path().read_text()


async def test_the_embedded_demo_host_is_not_remembered() -> None:
    app = demo_app(images="halfblock")
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await app.workers.wait_for_complete()  # (what the connection does after it, done)
    assert state.remembered_host() is None
