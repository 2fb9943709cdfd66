"""The ``audio`` renderer: a player line when the machine can play, honest degradation when not."""

from __future__ import annotations

import pytest
from render_helpers import NASTY, media, shown, wav

from openwop_tui.renderers import Asset, AudioSupport, RenderContext, render

CAN_PLAY = RenderContext(audio=AudioSupport(True))
URL = "https://api.example.com/v1/host/sample/assets/Au9"


def test_player_line_when_audio_is_available() -> None:
    data = wav(3.2, rate=16000)
    env = media(
        "audio", data, mime="audio/wav", rendering={"alt": "A sawtooth", "title": "Summary"}
    )
    result = render(env, CAN_PLAY)
    assert result.degraded is None
    assert result.duration_seconds == pytest.approx(3.2)
    assert [a.name for a in result.actions] == ["play", "stop", "save"]
    assert result.data == data and result.filename == "Summary.wav"
    assert result.title == "audio · Summary · audio/wav · 102.4 KB · 0:03.2"
    lines = shown(result).splitlines()
    assert lines[1] == "▶ 0:03.2 · audio/wav · 102.4 KB · 16 kHz mono"
    assert lines[2] == "A sawtooth"


def test_stereo_and_fractional_rates() -> None:
    result = render(media("audio", wav(0.1, 22050, 2), mime="audio/wav"), CAN_PLAY)
    assert "22.05 kHz stereo" in shown(result)


@pytest.mark.parametrize(
    "reason", ["no audio output device (Error querying device -1)", "PortAudio library not found"]
)
def test_no_audio_device_degrades_but_keeps_everything(reason: str) -> None:
    env = media("audio", wav(1.5), mime="audio/wav", rendering={"alt": "hello"})
    result = render(env, RenderContext(audio=AudioSupport(False, reason)))
    assert result.degraded == reason
    assert [a.name for a in result.actions] == ["save"]
    assert result.duration_seconds == pytest.approx(1.5)
    text = shown(result, width=120)
    assert "▶ 0:01.5" in text  # still a player line, dimmed, with the reason under it
    assert f"cannot play here: {reason}" in text
    for fact in (reason, "0:01.5", "16 kHz mono", "audio/wav", "hello", "WAV", "press s to save"):
        assert fact in text


def test_undecodable_audio() -> None:
    env = media("audio", b"definitely not audio", mime="audio/ogg", durationSeconds=2.0)
    result = render(env, CAN_PLAY)
    assert result.degraded == "cannot decode audio/ogg: Format not recognised."
    assert result.duration_seconds == 2.0
    assert [a.name for a in result.actions] == ["save"]
    assert "0:02.0 (advertised)" in shown(result)


def test_audio_asset_that_failed_shows_the_url() -> None:
    env = media("audio", url=URL, mime="audio/mpeg", bytes=24100, durationSeconds=3.0)
    result = render(
        env, RenderContext(audio=AudioSupport(True), asset=Asset(URL, error="HTTP 404 from host"))
    )
    assert result.degraded == "HTTP 404 from host"
    text = shown(result)
    for fact in (URL, "HTTP 404 from host", "24.1 KB (24,100 bytes)", "0:03.0 (advertised)"):
        assert fact in text


def test_fetched_audio_plays() -> None:
    data = wav(0.25, 8000)
    env = media("audio", url=URL, mime="audio/wav", bytes=len(data))
    result = render(env, RenderContext(audio=AudioSupport(True), asset=Asset(URL, data=data)))
    assert result.degraded is None and result.data == data
    assert "▶ 0:00.2 · audio/wav" in shown(result)  # 0.25 s rounds to the nearest tenth


def test_escapes_in_audio_alt_and_reason() -> None:
    env = media("audio", wav(0.1), mime="audio/wav", rendering={"alt": NASTY, "title": NASTY})
    result = render(env, RenderContext(audio=AudioSupport(False, NASTY)))
    assert "\x1b" not in (result.degraded or "") and "\x1b" not in result.title
    assert shown(result, width=160).count("<U+202E>") >= 3
