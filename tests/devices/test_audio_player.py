"""`openwop_tui.devices.audio`: probing for a sound card and playing through a real (null) ALSA
device.

PortAudio enumerates devices once, when sounddevice is first imported, so every test that needs
a particular ALSA configuration runs in a fresh interpreter with ``ALSA_CONFIG_PATH`` pointing at
a file written here: ``pcm.!default { type null }`` is a device that accepts and discards sound;
the ``file`` plugin also records it, so a test can check that the samples really went out. Neither
is paced to real time, so minutes of sound "play" in a fraction of a second.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import wave
from ctypes.util import find_library
from pathlib import Path
from typing import Any

import pytest
from patience import PATIENCE
from render_helpers import wav

from openwop_tui.devices.audio import PlaybackError, Player, probe
from openwop_tui.renderers import AudioSupport

needs_portaudio = pytest.mark.skipif(
    find_library("portaudio") is None,
    reason="libportaudio2 is not installed (Debian package libportaudio2)",
)

NULL_DEVICE = "pcm.!default { type null }\n"
# A default PCM on a sound card that does not exist: what a machine without one looks like. (A
# configuration with no default PCM at all makes PortAudio abort the process when it initialises.)
NO_DEVICE = "pcm.!default { type hw; card 7 }\n"


def run_with_alsa(tmp_path: Path, config: str, body: str) -> dict[str, Any]:
    """Run ``body`` in a fresh interpreter under the ALSA ``config``; return what it prints."""
    conf = tmp_path / "asound.conf"
    conf.write_text(config)
    env = {**os.environ, "ALSA_CONFIG_PATH": str(conf)}
    env.pop("OPENWOP_TUI_AUDIO", None)
    code = "import json, sys\nfrom openwop_tui.devices.audio import PlaybackError, Player, probe\n"
    code += textwrap.dedent(body)
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=PATIENCE
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_probe_honours_the_off_switch_without_loading_portaudio() -> None:
    assert probe({"OPENWOP_TUI_AUDIO": "off"}) == AudioSupport(
        False, "audio disabled by OPENWOP_TUI_AUDIO=off"
    )
    code = (
        "import os, sys; os.environ['OPENWOP_TUI_AUDIO'] = 'off'; "
        "import openwop_tui.devices.audio as a; "
        "print(a.probe().reason); "
        "print(any(m in sys.modules for m in ('sounddevice', 'soundfile', 'numpy')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split("\n")[:2] == ["audio disabled by OPENWOP_TUI_AUDIO=off", "False"]


def test_probe_reports_a_missing_portaudio(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # What sounddevice does when libportaudio2 is absent, without uninstalling it.
    (tmp_path / "sounddevice.py").write_text("raise OSError('PortAudio library not found')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "sounddevice", raising=False)
    assert probe({}) == AudioSupport(False, "PortAudio library not found")
    with pytest.raises(PlaybackError, match="cannot play: PortAudio library not found"):
        Player().play(wav(0.1))


def test_undecodable_bytes_raise_a_clear_error() -> None:
    with pytest.raises(PlaybackError, match=r"^cannot decode audio: Format not recognised\.$"):
        Player().play(b"definitely not audio")


def test_sounds_longer_than_the_limit_are_refused() -> None:
    with pytest.raises(PlaybackError, match=r"too long to play here \(over 0\.1 s\)"):
        Player(max_seconds=0.1).play(wav(0.5))


def test_a_fresh_player_is_idle() -> None:
    player = Player()
    assert not player.is_playing and player.position == 0.0 and player.wait(0)
    player.stop()  # no-op


@needs_portaudio
def test_probe_without_an_output_device(tmp_path: Path) -> None:
    sound = tmp_path / "sound.wav"
    sound.write_bytes(wav(0.1))
    result = run_with_alsa(
        tmp_path,
        NO_DEVICE,
        f"""
        support = probe()
        try:
            Player().play(open({str(sound)!r}, "rb").read())
        except PlaybackError as error:
            message = str(error)
        print(json.dumps({{"available": support.available, "reason": support.reason,
                          "error": message}}))
        """,
    )
    assert result == {
        "available": False,
        "reason": "no audio output device (Error querying device -1)",
        "error": "cannot play: Error querying device -1",
    }


@needs_portaudio
def test_play_and_wait_through_the_null_device(tmp_path: Path) -> None:
    sound = tmp_path / "sound.wav"
    sound.write_bytes(wav(0.5, rate=8000))
    result = run_with_alsa(
        tmp_path,
        NULL_DEVICE,
        f"""
        support = probe()
        player = Player()
        seconds = player.play(open({str(sound)!r}, "rb").read())
        started = player.is_playing or player.position > 0
        finished = player.wait(timeout=30)
        print(json.dumps({{
            "available": support.available, "reason": support.reason, "seconds": seconds,
            "started": started, "finished": finished, "playing": player.is_playing,
            "position": player.position,
        }}))
        """,
    )
    assert result == {
        "available": True,
        "reason": None,
        "seconds": 0.5,
        "started": True,
        "finished": True,
        "playing": False,
        "position": 0.5,
    }


@needs_portaudio
def test_stop_cuts_a_long_sound_and_the_player_plays_again(tmp_path: Path) -> None:
    long_sound = tmp_path / "long.wav"
    long_sound.write_bytes(wav(600, rate=8000))  # ~1.5 s to drain even through the null device
    short_sound = tmp_path / "short.wav"
    short_sound.write_bytes(wav(0.25, rate=8000))
    result = run_with_alsa(
        tmp_path,
        NULL_DEVICE,
        f"""
        player = Player()
        seconds = player.play(open({str(long_sound)!r}, "rb").read())
        player.stop()
        stopped = {{"seconds": seconds, "playing": player.is_playing,
                   "position": player.position, "ended": player.wait(0)}}
        again = player.play(open({str(short_sound)!r}, "rb").read())
        player.wait(30)
        player.stop()
        print(json.dumps({{**stopped, "again": again, "position_again": player.position}}))
        """,
    )
    assert result["seconds"] == 600.0
    assert result["playing"] is False and result["ended"] is True
    assert 0.0 <= result["position"] < 600.0
    assert result["again"] == 0.25 and result["position_again"] == 0.25


@needs_portaudio
def test_pause_seek_and_resume_on_the_null_device(tmp_path: Path) -> None:
    long_sound = tmp_path / "long.wav"
    long_sound.write_bytes(wav(600, rate=8000))
    result = run_with_alsa(
        tmp_path,
        NULL_DEVICE,
        f"""
        player = Player()
        player.play(open({str(long_sound)!r}, "rb").read(), key="clip")
        paused = player.pause()
        state = player.state
        at = player.seek(599.75)
        past = player.seek_by(60)
        at = player.seek(599.75)
        resumed = player.resume()
        finished = player.wait(timeout=30)  # 0.25 s left: the whole clip would take longer
        print(json.dumps({{"paused": paused, "state": state, "at": at, "past": past,
                          "resumed": resumed, "finished": finished, "end": player.state,
                          "position": player.position, "key": player.key}}))
        """,
    )
    assert result == {
        "paused": True,
        "state": "paused",
        "at": 599.75,
        "past": 600.0,
        "resumed": True,
        "finished": True,
        "end": "ended",
        "position": 600.0,
        "key": "clip",
    }


@needs_portaudio
def test_the_samples_reach_the_device(tmp_path: Path) -> None:
    sound = wav(0.5, rate=8000)
    (tmp_path / "sound.wav").write_bytes(sound)
    recorded = tmp_path / "recorded.wav"
    config = (
        f'pcm.!default {{ type file; slave.pcm "null"; file "{recorded}"; format "wav" }}\n'
        "pcm.null { type null }\n"
    )
    run_with_alsa(
        tmp_path,
        config,
        f"""
        player = Player()
        player.play(open({str(tmp_path / "sound.wav")!r}, "rb").read())
        player.wait(30)
        player.stop()  # closing the stream makes the file plugin finish the WAV
        print(json.dumps({{}}))
        """,
    )
    with wave.open(str(tmp_path / "sound.wav"), "rb") as sent:
        frames = sent.readframes(sent.getnframes())
    with wave.open(str(recorded), "rb") as got:
        assert (got.getnchannels(), got.getsampwidth(), got.getframerate()) == (1, 2, 8000)
        played = got.readframes(got.getnframes())
    # The device may pad with silence before and after; the sound itself must be there whole.
    assert frames in played
