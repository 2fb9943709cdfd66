"""Audio playback in the chat app: a stub player behind the play and stop keys and the playback
line (and clearing the transcript mid-playback), then real playback through a null ALSA device
in a fresh interpreter, when PortAudio is installed.

Every wait is `app_support.settle`, never a fixed sleep.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from ctypes.util import find_library
from pathlib import Path
from typing import Any

import pytest
from app_support import (
    SIZE,
    Notes,
    builtin_renderers_loaded,  # noqa: F401  (an autouse fixture: importing it applies it here)
    connected,
    envelope_views,
    record_notifications,
    select_item,
    settle,
    turn,
)
from audio_support import StubPlayer
from paths import TESTS
from patience import PATIENCE
from textual.pilot import Pilot

from openwop_tui.config import Config
from openwop_tui.demo_host import DemoHost, media
from openwop_tui.renderers import AudioSupport
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.transcript.blocks import Block


async def playing_app(pilot: Pilot[Any], app: ChatApp, seen: Notes) -> Block:
    """Ask for audio, select its envelope, press p; return its block once playback started."""
    await connected(pilot, app)
    await turn(pilot, app, "audio please")
    (view,) = envelope_views(app)
    assert view.rendered is not None
    assert [a.name for a in view.rendered.actions] == ["play", "stop", "save"]
    await select_item(pilot, app, view)
    await pilot.press("p")
    await settle(pilot, app, lambda: bool(seen), what="a notification")
    return view


def app_with_stub_player() -> tuple[ChatApp, StubPlayer]:
    app = ChatApp(
        Config(),
        demo_host=DemoHost(pace=0, deterministic=True),
        audio_support=AudioSupport(True),
    )
    player = StubPlayer()
    app.playback.player = player  # type: ignore[assignment]  # the app reuses a player it has
    return app, player


async def test_play_shows_the_position_and_x_stops() -> None:
    app, player = app_with_stub_player()
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        view = await playing_app(pilot, app, seen)
        assert seen == [("information", "playing 5.0 s")]
        assert player.played == [media.audio_ogg()]
        assert view.playback is not None and "▶ playing" in view.playback
        assert "▶ playing" in app.view.text_of(view.item_id)  # drawn under the clip
        await pilot.press("x")
        await settle(pilot, app, lambda: view.playback is None, what="playback hidden")
        assert "▶ playing" not in app.view.text_of(view.item_id)
        assert not player.playing
        assert app.is_running and app._exception is None


async def test_clearing_during_playback_does_not_crash() -> None:
    app, player = app_with_stub_player()
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await playing_app(pilot, app, seen)
        await pilot.press("ctrl+l")
        await settle(pilot, app, lambda: app.view.block_count == 0, what="the view cleared")
        # The stub never stops playing, so the playback timer only ends because a tick found
        # its view gone: that tick is the one that used to crash.
        await settle(
            pilot, app, lambda: app.playback.timer is None, what="the playback timer stopped"
        )
        assert player.playing
        assert app.is_running and app._exception is None


needs_portaudio = pytest.mark.skipif(
    find_library("portaudio") is None,
    reason="libportaudio2 is not installed (Debian package libportaudio2)",
)

#: Runs in a fresh interpreter: PortAudio reads the ALSA configuration once, when sounddevice is
#: first imported, so the null device must be configured before anything in the process loads it.
AUDIO_SCRIPT = """
import asyncio, json, time

from openwop_tui.ui.app import ChatApp
from openwop_tui.config import Config
from openwop_tui.demo_host import DemoHost
from render_helpers import registered
from openwop_tui.core.fold import EnvelopeItem
from openwop_tui.ui.widgets.prompt import PromptInput


async def main():
    registered()  # see builtin_renderers_loaded
    app = ChatApp(Config(), demo_host=DemoHost(pace=0, deterministic=True), audio_support=None)
    seen = []
    original = app.notify

    def notify(message, **kwargs):
        seen.append([kwargs.get("severity", "information"), str(message)])
        original(message, **kwargs)

    app.notify = notify
    async with app.run_test(size=(120, 50)) as pilot:
        async def settle(condition):
            # Patience, not a count of rounds (a loaded machine needs many); after the first
            # rounds it yields the CPU so the demo host's thread can answer.
            deadline, rounds = time.monotonic() + 300, 0
            while not condition() and time.monotonic() < deadline:
                rounds += 1
                await pilot.pause(None if rounds < 50 else 0.01)
                await asyncio.wait_for(app.workers.wait_for_complete(), 300)
            return condition()

        ok = await settle(lambda: app.session is not None and app.session.discovery is not None)
        app.query_one(PromptInput).value = "audio please"
        await pilot.press("enter")
        views = lambda: [
            b for b in app.view.blocks() if isinstance(b.item, EnvelopeItem) and b.rendered
        ]
        ok = ok and await settle(
            lambda: app.transcript.status == "completed" and views()
            and all(v.rendered for v in views())
        )
        view = views()[0]
        app.view.focus()
        app.view.select(app.view.blocks().index(view))
        await pilot.pause()
        # The app follows playback with an interval timer; note when each one is stopped, so
        # the app is not shut down while one still runs (see test_clearing_during_playback...).
        timers = []
        set_interval = app.set_interval

        def tracked(*args, **kwargs):
            timer = set_interval(*args, **kwargs)
            record = {"stopped": False}
            stop = timer.stop

            def stopped():
                record["stopped"] = True
                stop()

            timer.stop = stopped
            timers.append(record)
            return timer

        app.set_interval = tracked
        await pilot.press("p")
        ok = ok and await settle(lambda: bool(seen))
        player = app.playback.player
        finished = player.wait(30) if player is not None else False
        # No timer at all when the clip ended before the app looked (the null device is fast).
        ok = ok and await settle(
            lambda: app.playback.timer is None and all(t["stopped"] for t in timers)
        )
        result = {
            "ok": ok,
            "support": [app.lab.audio_support.available, app.lab.audio_support.reason],
            "degraded": view.rendered.degraded,
            "actions": [a.name for a in view.rendered.actions],
            "seen": seen,
            "finished": finished,
            "playback_line": view.playback is not None,
        }
    print(json.dumps(result))


asyncio.run(main())
"""


@needs_portaudio
def test_play_audio_through_a_null_alsa_device(tmp_path: Path) -> None:
    conf = tmp_path / "asound.conf"
    conf.write_text("pcm.!default { type null }\n")
    env = {**os.environ, "ALSA_CONFIG_PATH": str(conf)}
    env.pop("OPENWOP_TUI_AUDIO", None)
    # The script imports the tests' own helpers; it runs from tmp_path, so name their folder.
    tests_dir = str(TESTS)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [tests_dir, env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(AUDIO_SCRIPT)],
        env=env,
        capture_output=True,
        text=True,
        timeout=PATIENCE,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["ok"], result
    assert result["support"] == [True, None]
    assert result["degraded"] is None
    assert result["actions"][:2] == ["play", "stop"]
    (severity, message), *_ = result["seen"]
    assert severity == "information"
    assert message.startswith("playing ") and message.endswith(" s"), message
    assert float(message.removeprefix("playing ").removesuffix(" s")) > 0
    assert result["finished"] is True
    assert result["playback_line"] is False  # hidden again once the clip ended
