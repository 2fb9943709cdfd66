"""The ``audio`` renderer: a player line when the machine can play, honest degradation when not."""

from __future__ import annotations

import io
import wave

import numpy as np
import pytest
from render_helpers import NASTY, media, render, shown, wav

from openwop_tui.renderers import Asset, AudioSupport, RenderContext
from openwop_tui.renderers.base import Code

CAN_PLAY = RenderContext(audio=AudioSupport(True))


def burst_then_silence(seconds: float = 2.0, rate: int = 8000) -> bytes:
    """A WAV whose first half is a loud 440 Hz sine and whose second half is silence."""
    frames = int(seconds * rate)
    t = np.arange(frames // 2) / rate
    loud = (np.sin(2 * np.pi * 440 * t) * 30000).astype("<i2")
    samples = np.concatenate([loud, np.zeros(frames - len(loud), dtype="<i2")])
    out = io.BytesIO()
    with wave.open(out, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(rate)
        writer.writeframes(samples.tobytes())
    return out.getvalue()


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
    assert lines[2] == "█" * 64  # a sawtooth is as loud all through
    assert lines[3] == "A sawtooth"


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
    assert result.degradation is not None
    assert result.degradation.code is Code.NO_AUDIO
    assert result.degradation.instead == "save offered"
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


def test_no_audio_record_names_the_cause_and_the_url() -> None:
    data = wav(0.25, 8000)
    env = media("audio", url=URL, mime="audio/wav", bytes=len(data))
    for reason, cause in [
        ("no audio output device (Error querying device -1)", "no audio device"),
        ("PortAudio library not found", "no PortAudio"),
        ("audio is off (--no-audio)", "audio off"),
        ("audio disabled by OPENWOP_TUI_AUDIO=off", "audio off"),
        ("sounddevice is not usable here (boom)", "no audio device"),
    ]:
        context = RenderContext(audio=AudioSupport(False, reason), asset=Asset(URL, data=data))
        record = render(env, context).degradation
        assert record is not None
        assert (record.code, record.reason, record.cause) == (Code.NO_AUDIO, reason, cause)
        assert record.reference == URL
        assert record.badge == f"{cause} → save offered"


def test_inline_audio_without_a_device_offers_no_hash_as_reference() -> None:
    env = media("audio", wav(0.25, 8000), mime="audio/wav")
    record = render(env, RenderContext(audio=AudioSupport(False, "x"))).degradation
    assert record is not None and record.reference is None


def test_voice_note_is_labelled_with_a_compact_waveform() -> None:
    env = media("audio", burst_then_silence(), mime="audio/wav", audioAsVoice=True)
    result = render(env, CAN_PLAY)
    assert "voice note" in result.title
    lines = shown(result).splitlines()
    assert lines[1].startswith("🎤 voice note · 0:02.0 · audio/wav")
    assert lines[2] == "█" * 12 + "▁" * 12  # VOICE_COLUMNS wide
    plain = render(media("audio", burst_then_silence(), mime="audio/wav"), CAN_PLAY)
    assert "voice note" not in shown(plain) and "voice note" not in plain.title
    assert shown(plain).splitlines()[2] == "█" * 32 + "▁" * 32


@pytest.mark.parametrize("flag", ["true", 1, "yes", None])
def test_only_a_true_flag_makes_a_voice_note(flag: object) -> None:
    env = media("audio", wav(0.25, 8000), mime="audio/wav", audioAsVoice=flag)
    assert "voice note" not in render(env, CAN_PLAY).title


def test_voice_note_without_a_device_still_says_voice_note() -> None:
    env = media("audio", wav(0.5, 8000), mime="audio/wav", audioAsVoice=True)
    result = render(env, RenderContext(audio=AudioSupport(False, "PortAudio library not found")))
    text = shown(result, width=120)
    assert "🎤 voice note" in text and "cannot play here" in text
    assert result.degradation is not None and result.degradation.code is Code.NO_AUDIO


def test_a_voice_note_that_cannot_be_fetched_or_decoded_still_says_so() -> None:
    """``[[audio_as_voice]]`` on a clip whose bytes never came (or do not decode)."""
    by_url = media(
        "audio", url="https://cdn.example.com/a.opus", mime="audio/ogg", audioAsVoice=True
    )
    assert "voice note" in render(by_url, CAN_PLAY).title
    broken = media("audio", b"not a sound", mime="audio/ogg", audioAsVoice=True)
    assert "voice note" in render(broken, CAN_PLAY).title


def test_the_waveform_is_narrowed_to_the_width() -> None:
    env = media("audio", burst_then_silence(), mime="audio/wav")
    result = render(env, RenderContext(audio=AudioSupport(True), width=20))
    assert shown(result, width=20).splitlines()[-1] == "█" * 10 + "▁" * 10
