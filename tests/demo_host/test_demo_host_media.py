"""The demo host's media and pure helpers, plus its foreground CLI entry point."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import soundfile
from patience import PATIENCE
from PIL import Image

from openwop_tui.demo_host import media
from openwop_tui.demo_host.chat import detect, last_user_message
from openwop_tui.demo_host.sse import StreamModeError, frame, parse_modes
from openwop_tui.demo_host.steps import split_words


def test_audio_clip_is_real_speech_of_the_advertised_length() -> None:
    info = soundfile.info(io.BytesIO(media.audio_ogg()))
    assert info.format == "OGG" and info.channels == 1 and info.samplerate == 16000
    assert round(info.duration, 2) == media.AUDIO_DURATION_SECONDS
    samples, _ = soundfile.read(io.BytesIO(media.audio_ogg()))
    assert abs(samples).max() > 0.1  # not silence


def test_pictures_decode() -> None:
    chart = Image.open(io.BytesIO(media.chart_png()))
    assert chart.format == "PNG" and chart.size == (480, 300)
    badge = Image.open(io.BytesIO(media.badge_png()))
    assert badge.format == "PNG" and len(media.badge_png()) < 262144
    with pytest.raises(Image.UnidentifiedImageError):
        Image.open(io.BytesIO(media.undecodable_bytes()))


def test_oversized_png_is_valid_and_exactly_48_mib(tmp_path: Path) -> None:
    path = tmp_path / "big.png"
    with path.open("wb") as out:
        for piece in media.oversized_png_chunks():
            assert len(piece) <= 64 * 1024
            out.write(piece)
    assert path.stat().st_size == media.OVERSIZED_BYTES == 48 * 1024 * 1024
    with Image.open(path) as image:
        image.verify()  # checks every chunk CRC, the 48 MiB padding chunk included
    with Image.open(path) as image:
        assert image.size == (64, 64)


def test_nothing_is_drawn_at_import() -> None:
    code = textwrap.dedent(
        """
        import openwop_tui.demo_host
        from openwop_tui.demo_host import media
        fns = (media.chart_png, media.badge_png, media.audio_ogg, media.report_csv)
        assert all(f.cache_info().currsize == 0 for f in fns)
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=PATIENCE)


def test_split_words_keeps_every_character() -> None:
    text = "## Title\n\n- one **two** three\n  indented `code`  \n"
    pieces = split_words(text)
    assert "".join(pieces) == text and len(pieces) == 3


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("Show me an IMAGE", ["image"]),
        ("pictures and sounds", ["image", "audio"]),
        ("a small call", []),
        ("everything please", ["everything"]),
        ("code, card, file and json", ["code", "card", "file", "json"]),
        ("fail slowly", ["fail", "slow"]),
    ],
)
def test_chat_keywords(text: str, wanted: list[str]) -> None:
    assert detect(text) == wanted


def test_last_user_message() -> None:
    messages = [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "reply"},
        {"role": "user", "content": [{"type": "text", "text": "second"}]},
        {"role": "assistant", "content": "reply"},
    ]
    assert last_user_message({"messages": messages}) == "second"
    assert last_user_message({}) == ""


def test_stream_mode_parsing_and_frames() -> None:
    assert parse_modes([]) == ("updates",)
    assert parse_modes(["debug,updates,debug"]) == ("debug", "updates")
    with pytest.raises(StreamModeError):
        parse_modes(["values"])
    doc = {"type": "output.chunk", "sequence": 7, "payload": {"chunk": "hi\u2028there"}}
    text = frame(doc, ("messages",))
    assert text == 'id: 7\nevent: ai.message.chunk\ndata: {"chunk": "hi\\u2028there"}\n\n'
    assert frame(doc, ("updates",)) is None


def test_serve_forever_prints_and_stops_cleanly_on_ctrl_c() -> None:
    code = "from openwop_tui.demo_host import serve_forever; serve_forever(api_key='k-123')"
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("OpenWOP demo host listening on http://127.0.0.1:")
        assert process.stdout.readline().strip() == "API key: k-123"
        # Wait for the last banner line: the process is then inside its wait, ready for SIGINT.
        while "Ctrl-C" not in process.stdout.readline():
            pass
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=PATIENCE)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0
    assert "Traceback" not in err and "Stopping" in out
