"""The player keys in the app, on the demo tour's audio clip: a real `Player` whose output stream
is the stand-in of audio_support, so positions are exact and no sound card is needed.

Space and p pause and resume, ←/→ and [/] seek 5 s (clamped), 0-9 jump; the playback line
under the clip says ▶ or ⏸, where it is, and draws the waveform heard so far; x stops. Every
wait is `app_support.settle`, never a fixed sleep.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from app_support import (
    SIZE,
    builtin_renderers_loaded,  # noqa: F401  (an autouse fixture: importing it applies it here)
    connected,
    draw_everything,
    envelope_views,
    record_notifications,
    select_item,
    settle,
    turn,
)
from audio_support import FakeBackend
from rich.text import Text
from textual.pilot import Pilot

from openwop_tui.config import Config
from openwop_tui.demo_host import DemoHost, media
from openwop_tui.devices.audio import Player
from openwop_tui.renderers import AudioSupport
from openwop_tui.renderers.base import Code
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.transcript.blocks import Block

RATE = 16_000  # the demo clip's sample rate
CLIP = media.AUDIO_DURATION_SECONDS


def app_with(support: AudioSupport, **config: Any) -> tuple[ChatApp, FakeBackend]:
    app = ChatApp(
        Config(**config), demo_host=DemoHost(pace=0, deterministic=True), audio_support=support
    )
    backend = FakeBackend()
    app.playback.player = Player(backend=backend)
    return app, backend


async def tour_clip(pilot: Pilot[Any], app: ChatApp) -> Block:
    """Run the tour, select its playable audio clip (the other one is missing on the host)."""
    await connected(pilot, app)
    await turn(pilot, app, "show me everything")
    await draw_everything(pilot, app)
    (clip,) = [
        view
        for view in envelope_views(app)
        if view.item.envelope.display == "audio" and view.rendered and view.rendered.data
    ]
    await select_item(pilot, app, clip)
    return clip


def line_of(clip: Block) -> Text:
    assert isinstance(clip.playback, Text), clip.playback
    return clip.playback


async def test_the_player_keys_on_the_tour_clip() -> None:
    app, backend = app_with(AudioSupport(True))
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        clip = await tour_clip(pilot, app)
        player = app.playback.player
        assert player is not None
        await pilot.press("p")
        await settle(pilot, app, lambda: clip.playback is not None, what="the playback line")
        assert seen[-1] == ("information", f"playing {CLIP:.1f} s")
        stream = backend.streams[-1]
        assert stream.started and player.key == clip.item_id
        first, keys = line_of(clip).plain.split("\n")
        assert first.startswith("▶ playing 0:00.0 / 0:05.1  ")
        assert "space pause" in keys and "←/→ 5 s" in keys and "x stop" in keys
        wave = first.removeprefix("▶ playing 0:00.0 / 0:05.1  ")
        assert wave and set(wave) <= set("▁▂▃▄▅▆▇█")
        assert wave in app.view.text_of(clip.item_id)  # drawn under the clip

        stream.pull(RATE)  # one second heard
        app.playback.show()
        line = line_of(clip)
        assert line.plain.startswith("▶ playing 0:01.0 / 0:05.1")
        start = len("▶ playing 0:01.0 / 0:05.1  ")
        accent = app.view.palette.accent
        heard = [span for span in line.spans if span.start >= start and span.style == accent]
        assert [(span.start, span.end) for span in heard] == [(start, start + 13)]  # 64/5.09

        async def press(key: str, position: float, state: str) -> None:
            await pilot.press(key)
            await settle(
                pilot,
                app,
                lambda: player.state == state and player.position == pytest.approx(position),
                what=f"{key}: {state} at {position}",
            )

        await press("space", 1.0, "paused")
        assert line_of(clip).plain.startswith("⏸ paused 0:01.0 / 0:05.1")
        assert "space resume" in line_of(clip).plain
        stream.pull(RATE)  # paused: silence, the position stays
        assert player.position == 1.0
        total = player.duration
        assert total == pytest.approx(CLIP, abs=0.01)
        await press("right", total, "paused")  # 1 + 5 s is past the end: clamped
        await press("left", total - 5, "paused")
        await press("left_square_bracket", 0.0, "paused")  # clamped at the start
        await press("right_square_bracket", 5.0, "paused")
        await press("5", total / 2, "paused")
        assert line_of(clip).plain.startswith("⏸ paused 0:02.5 / 0:05.1")
        await press("p", total / 2, "playing")
        await press("0", 0.0, "playing")
        await pilot.press("x")
        await settle(pilot, app, lambda: clip.playback is None, what="the line hidden")
        assert player.state == "stopped" and stream.aborted
        assert app.playback.timer is None
        await pilot.press("right")
        await settle(pilot, app, lambda: seen[-1][0] == "error", what="a refusal")
        assert seen[-1] == ("error", "this clip is not playing: press p to play it")
        assert app.is_running and app._exception is None


async def test_the_end_of_the_clip_hides_the_line_and_p_plays_it_again() -> None:
    app, backend = app_with(AudioSupport(True))
    async with app.run_test(size=SIZE) as pilot:
        clip = await tour_clip(pilot, app)
        await pilot.press("p")
        await settle(pilot, app, lambda: clip.playback is not None, what="the playback line")
        backend.streams[-1].pull(int(RATE * CLIP) + RATE)  # past the end
        await settle(pilot, app, lambda: clip.playback is None, what="the line hidden")
        player = app.playback.player
        assert player is not None and player.state == "ended"
        await pilot.press("space")
        await settle(pilot, app, lambda: len(backend.streams) == 2, what="played again")
        assert player.state == "playing" and player.position == 0.0


async def test_playing_a_second_clip_stops_the_first_and_moves_the_line() -> None:
    app, backend = app_with(AudioSupport(True))
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "audio please")
        await turn(pilot, app, "audio please")
        first, second = envelope_views(app)
        await select_item(pilot, app, first)
        await pilot.press("p")
        await settle(pilot, app, lambda: first.playback is not None, what="first playing")
        await select_item(pilot, app, second)
        await pilot.press("p")
        await settle(pilot, app, lambda: second.playback is not None, what="second playing")
        assert first.playback is None
        one, two = backend.streams
        assert one.aborted and not two.aborted
        assert app.playback.player is not None and app.playback.player.key == second.item_id
        await pilot.press("space")  # pauses the second; the first stays stopped
        await settle(pilot, app, lambda: "⏸" in line_of(second).plain, what="paused")


async def test_without_a_device_the_clip_says_why_and_offers_save(tmp_path: Path) -> None:
    reason = "no audio output device (Error querying device -1)"
    app, backend = app_with(AudioSupport(False, reason), download_dir=tmp_path)
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        clip = await tour_clip(pilot, app)
        rendered = clip.rendered
        assert rendered is not None and rendered.degradation is not None
        record = rendered.degradation
        assert (record.code, record.cause, record.instead) == (
            Code.NO_AUDIO,
            "no audio device",
            "save offered",
        )
        assert record.reference is not None and record.reference.startswith("http://127.0.0.1")
        text = app.view.text_of(clip.item_id)
        for fact in (f"cannot play here: {reason}", "0:05.1", "audio/ogg", "16 kHz mono"):
            assert fact in text
        for key in ("p", "space", "right"):
            await pilot.press(key)
            await settle(pilot, app, lambda: bool(seen), what="a warning")
            assert seen.pop() == ("warning", f"cannot play here: {reason} — s saves it")
        await pilot.press("s")
        await settle(pilot, app, lambda: bool(seen), what="saved")
        assert seen[-1][1].startswith("saved to ")
        assert list(tmp_path.glob("*.ogg")) and backend.streams == []


async def test_a_device_that_refuses_the_clip_is_a_message_not_a_crash() -> None:
    class Refusing(FakeBackend):
        def OutputStream(self, **kwargs: Any) -> Any:
            raise RuntimeError("Device unavailable [PaErrorCode -9985]")

    app, _ = app_with(AudioSupport(True))
    app.playback.player = Player(backend=Refusing())
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "audio please")
        (clip,) = envelope_views(app)
        await select_item(pilot, app, clip)
        await pilot.press("p")
        await settle(pilot, app, lambda: bool(seen), what="the refusal")
        assert seen == [("error", "cannot play: Device unavailable [PaErrorCode -9985]")]
        assert clip.playback is None and app.playback.timer is None
        assert app.is_running and app._exception is None
