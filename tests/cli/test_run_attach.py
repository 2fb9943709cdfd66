"""``run WORKFLOW --message TEXT --attach PATH`` on the embedded demo host (issue 25, part 6):
the message goes with its parts, the NDJSON says which (type, name, size or url, inline or
not, never the bytes) and carries the host's answer about them; a picture over the host's
inline cap goes by its upload route (the host's log says so), one under it inline, and the
text-only workflow is warned about on stderr. Each fails without its part."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from media_parts import noise_png, tone, two_colour_png

from openwop_tui.__main__ import main

pytestmark = pytest.mark.usefixtures("cli_isolated")


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[Any], str]:
    code = main(["--demo-pace", "0", "run", *args, "--json"])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def _answer(lines: list[dict[str, Any]]) -> str:
    """The reply's text, from its streamed chunks."""
    return "".join(
        str(line["payload"].get("chunk") or "")
        for line in lines
        if line["kind"] == "event" and line["type"] == "output.chunk"
    )


def test_the_parts_sent_and_the_answer_about_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    picture = tmp_path / "picture.png"
    picture.write_bytes(two_colour_png((64, 32)))
    notes = tmp_path / "notes.md"
    notes.write_text("# Plan\n\nwords here\n\n## Next steps\n", encoding="utf-8")
    clip = tmp_path / "voice.wav"
    clip.write_bytes(tone(3.0, 16_000, "WAV"))
    caplog.set_level(logging.INFO, logger="openwop_tui.demo_host")
    attach = ["--attach", str(picture), "--attach", str(notes), "--attach", str(clip)]
    code, lines, _err = _run(["demo.chat", "--message", "what is this?", *attach], capsys)
    assert code == 0
    (user,) = [line for line in lines if line["kind"] == "user"]
    assert user["text"] == "what is this?"
    assert [(p["type"], p["name"], p["inline"]) for p in user["parts"]] == [
        ("image", "picture.png", True),
        ("file", "notes.md", True),
        ("audio", "voice.wav", True),
    ]
    assert user["parts"][0]["bytes"] == picture.stat().st_size
    assert all("dataBase64" not in p for p in user["parts"])
    answer = _answer(lines)
    assert "64\u00d732" in answer or "64x32" in answer, answer[:600]
    assert "red" in answer.lower() and "blue" in answer.lower()
    assert "Next steps" in answer and "3.0" in answer
    logged = [r.getMessage() for r in caplog.records if "part" in r.getMessage()]
    assert any("name='picture.png'" in m and "via=inline" in m for m in logged), logged


@pytest.mark.parametrize(
    ("side", "how", "least", "most"),
    [
        (820, "upload", 1_900_000, 2_200_000),  # about 2 MB: over the inline cap
        (185, "inline", 95_000, 110_000),  # about 100 KB: under it
    ],
)
def test_a_big_picture_goes_by_upload_and_a_small_one_inline(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    side: int,
    how: str,
    least: int,
    most: int,
) -> None:
    picture = tmp_path / "photo.png"
    picture.write_bytes(noise_png((side, side)))
    assert least < picture.stat().st_size < most
    caplog.set_level(logging.INFO, logger="openwop_tui.demo_host")
    args = ["demo.chat", "--message", "and this?", "--attach", str(picture)]
    code, lines, _err = _run(args, capsys)
    assert code == 0
    (user,) = [line for line in lines if line["kind"] == "user"]
    (part,) = user["parts"]
    logged = [r.getMessage() for r in caplog.records]
    # The host's log says how the part came.
    assert any("name='photo.png'" in m and f"via={how}" in m for m in logged), logged
    if how == "upload":
        assert part["inline"] is False and part["url"].startswith("http://127.0.0.1:")
        assert any(m.startswith("media upload: name='photo.png'") for m in logged), logged
    else:
        assert part["inline"] is True and part["bytes"] == picture.stat().st_size
        assert not any(m.startswith("media upload:") for m in logged), logged
    assert str(side) in _answer(lines)


def test_a_picture_for_the_text_only_workflow_is_warned_about(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    picture = tmp_path / "picture.png"
    picture.write_bytes(two_colour_png())
    code, lines, err = _run(["demo.text", "--message", "see it?", "--attach", str(picture)], capsys)
    assert code == 0
    assert "warning: picture.png: this host does not say its model reads pictures" in err
    assert "picture.png" in _answer(lines)
