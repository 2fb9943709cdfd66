"""`openwop_tui.devices.audio.Player`'s state machine, driven through a stand-in output stream.

`FakeBackend` (tests/audio_support.py) stands where sounddevice does, so every position is exact
and nothing waits on time.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from audio_support import FakeBackend, FakeStream
from render_helpers import wav

from openwop_tui.devices.audio import PlaybackError, Player

RATE = 8000


def player_with(seconds: float = 2.0) -> tuple[Player, FakeBackend, FakeStream]:
    backend = FakeBackend()
    player = Player(backend=backend)
    assert player.play(wav(seconds, rate=RATE), key="clip") == pytest.approx(seconds)
    return player, backend, backend.streams[-1]


def test_play_feeds_the_decoded_frames_and_ends() -> None:
    player, _, stream = player_with(0.5)
    assert stream.kwargs["samplerate"] == RATE and stream.kwargs["dtype"] == "int16"
    assert player.state == "playing" and player.key == "clip" and player.is_playing
    stream.pull(1000)
    assert player.position == pytest.approx(1000 / RATE)
    stream.pull(4000)  # past the end: the rest of the buffer is silence, then the stream stops
    assert player.state == "ended" and not player.is_playing
    assert player.position == pytest.approx(0.5)
    assert not stream.out[-1][3000:].any()
    assert player.wait(0)


def test_pause_keeps_the_position_and_plays_silence() -> None:
    player, _, stream = player_with()
    stream.pull(800)
    assert player.pause() and player.state == "paused" and player.paused
    assert player.is_playing  # paused is still the current sound
    assert not player.pause()  # already paused
    silence = stream.pull(800)
    assert not silence.any()  # zeros, not the stale buffer
    assert player.position == pytest.approx(0.1)
    assert player.resume() and player.state == "playing"
    assert not player.resume()
    stream.pull(800)
    assert player.position == pytest.approx(0.2)
    assert player.toggle_pause() == "paused"
    assert player.toggle_pause() == "playing"


def test_seek_is_clamped_to_the_clip() -> None:
    player, _, stream = player_with(2.0)
    assert player.seek(1.25) == pytest.approx(1.25)
    assert player.seek_by(5) == pytest.approx(2.0)  # clamped to the duration
    assert player.seek_by(-5) == 0.0  # clamped to the start
    assert player.seek(-3) == 0.0
    assert player.seek(float("nan")) == 0.0
    assert player.seek(float("inf")) == pytest.approx(2.0)
    player.seek(1.0)
    played = stream.pull(80)
    samples = np.frombuffer(wav(2.0, rate=RATE)[44:], dtype="<i2")
    assert (played[:, 0] == samples[8000:8080]).all()  # the frames after the seek point
    player.seek(2.0)
    stream.pull(80)  # seeking to the end ends the clip at the next buffer
    assert player.state == "ended"


def test_seek_while_paused_moves_without_playing() -> None:
    player, _, stream = player_with(2.0)
    player.pause()
    player.seek_by(1.5)
    stream.pull(400)
    assert player.position == pytest.approx(1.5) and player.state == "paused"


def test_one_clip_at_a_time() -> None:
    player, backend, first = player_with(2.0)
    player.play(wav(1.0, rate=RATE), key="other")
    second = backend.streams[-1]
    assert first.aborted and first.closed and not second.aborted
    assert player.key == "other" and player.duration == pytest.approx(1.0)
    assert player.state == "playing" and player.position == 0.0


def test_stop_and_stop_after_the_end() -> None:
    player, _, stream = player_with(0.25)
    stream.pull(4000)
    assert player.state == "ended"
    player.stop()  # the ended stream is closed; the clip is still "ended", not "stopped"
    assert stream.closed and player.state == "ended"
    player.stop()
    assert not player.pause() and not player.resume()
    assert player.seek(0.1) == pytest.approx(0.25)  # an ended clip does not move
    player, _, stream = player_with(2.0)
    stream.pull(100)
    player.stop()
    assert player.state == "stopped" and stream.aborted and stream.closed
    assert not player.is_playing and player.wait(0)


def test_a_refused_stream_is_a_playback_error() -> None:
    class Refusing(FakeBackend):
        def OutputStream(self, **kwargs: Any) -> FakeStream:
            raise ValueError("Invalid number of channels")

    player = Player(backend=Refusing())
    with pytest.raises(PlaybackError, match="cannot play: Invalid number of channels"):
        player.play(wav(0.1))
    assert player.state == "stopped" and not player.is_playing


def test_a_fresh_player_is_idle() -> None:
    player = Player(backend=FakeBackend())
    assert player.state == "idle" and player.key is None
    assert not player.pause() and player.seek(3) == 0.0 and player.toggle_pause() == "idle"
