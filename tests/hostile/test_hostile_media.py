"""Hostile and broken media through ``render`` under every profile (issue 8): images, audio,
text files for previews and cards, each printed with ``--images kitty|sixel|halfblock|none`` x
``--colors 16|none``.

For each: the command exits 0 and reaches ``run completed``, prints nothing a terminal would
execute beyond the printer's own styling and graphics, and tells the user specifically what it
could and could not do. Costs are bounded by the renderers' caps (checked where they are
counted: ``test_hostile_fixes``); nothing here is timed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hostile_media import (
    PROFILES,
    card_envelope,
    forget_rendered_colours,
    hostile_audio,
    hostile_cards,
    hostile_files,
    hostile_images,
    media_envelope,
    stream,
    terminal_leak,
    visible,
)

from openwop_tui import __main__ as cli


def _cases() -> dict[str, dict[str, Any]]:
    cases: dict[str, dict[str, Any]] = {}
    for name, (data, mime) in hostile_images().items():
        cases[f"image-{name}"] = media_envelope("image", data, mime, "picture.png")
    for name, (data, mime) in hostile_audio().items():
        cases[f"audio-{name}"] = media_envelope("audio", data, mime, "clip.wav")
    for name, (data, mime, file_name) in hostile_files().items():
        cases[f"file-{name}"] = media_envelope("file", data, mime, file_name)
    for name, payload in hostile_cards().items():
        cases[f"card-{name}"] = card_envelope(payload)
    return cases


CASES = _cases()

#: What the user must read for each case (under half-blocks and 16 colours).
SAID: dict[str, tuple[str, ...]] = {
    "image-truncated-png": ("cannot decode image/png: image file is truncated",),
    "image-gif-10000-frames": ("first of 10,000 frames", "animated → first frame"),
    "image-png-huge-declared": ("not decoded (decompression-bomb guard)",),
    "image-png-wide-declared": ("not decoded (decompression-bomb guard)",),
    "image-animated-webp": ("first of 3 frames",),
    "image-cmyk-jpeg": ("16x16 px", "half-blocks"),
    "image-png-16-bit": ("8x8 px", "half-blocks"),
    "image-palette-transparency": ("8x8 px", "half-blocks"),
    "image-not-an-image": ("not a PNG, JPEG, GIF or WebP image",),
    "image-empty": ("not shown",),
    "audio-truncated-wav": ("8 kHz mono",),
    "audio-header-only-wav": ("cannot decode audio/wav",),
    "audio-zero-frames": ("0:00.0", "8 kHz mono"),
    "audio-one-frame": ("8 kHz mono",),
    "audio-64-channels": ("64 channels",),
    "audio-rate-1hz": ("1 Hz mono", "0:05.0"),
    "audio-rate-10mhz": ("10 MHz mono",),
    "audio-8-bit": ("Unsigned 8 bit PCM",),
    "audio-not-audio": ("cannot decode audio/wav",),
    "file-huge-single-line": ("long lines cut", "first 32.8 KB of 200.0 KB"),
    "file-cr-only": ("first 40 of 5,000 lines",),
    "file-utf16-bom": ("h\u00e9llo", "first 40 of 100 lines"),
    "file-escapes": ("\u241b]52;c;",),
    "file-csv-10000-columns": ("the first row alone is longer than", "at least"),
    "file-csv-unclosed-quote": ("a quote is never closed",),
    "file-json-deep": ("nested too deeply to lay out",),
    "file-json-escapes": ("\u241b]52;c;",),
    "file-markdown-escapes": ("\u241b]52;c;",),
    "file-name-escapes": ("\u241b]52;c;",),
    "card-deep-nesting": ("{…} 1 key", "the inspector (i) shows the whole JSON"),
    "card-deep-lists": ("nested too deeply",),
    "card-too-deep-to-decode": ("nested too deeply",),
    "card-100k-keys": ("and 99,960 more keys",),
    "card-heterogeneous-array": ("more item",),
    "card-table-of-wide-objects": ("and 40 more rows, 92 more columns not shown",),
}


@pytest.fixture(autouse=True, scope="module")
def _forget_colours() -> Iterator[None]:
    yield
    forget_rendered_colours()  # this module printed in 16 colours: see its docstring


def test_every_case_says_something_specific() -> None:
    assert set(SAID) == set(CASES)


@pytest.fixture(autouse=True)
def _plain_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("OPENWOP_TUI_AUDIO", "off")
    monkeypatch.delenv("TMUX", raising=False)


def printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, images: str, colors: str
) -> str:
    path = tmp_path / "stream.sse"
    path.write_text(stream([], [CASES[name]]), encoding="utf-8", errors="surrogatepass")
    argv = ["render", str(path), "--images", images, "--colors", colors, "--width", "100"]
    code = cli.main([*argv, "--audio", "off"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Traceback" not in err and terminal_leak(err) is None, err
    assert "run completed" in out
    return out


@pytest.mark.parametrize(("images", "colors"), PROFILES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_media_print_cleanly_under_every_profile(
    name: str, images: str, colors: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = printed(tmp_path, capsys, name, images, colors)
    assert terminal_leak(out) is None, terminal_leak(out)


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_media_say_what_they_are(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = visible(printed(tmp_path, capsys, name, "halfblock", "16"))
    for said in SAID[name]:
        assert said in out, (said, out[-1500:])


@pytest.mark.parametrize("name", ["image-cmyk-jpeg", "image-png-16-bit", "image-animated-webp"])
@pytest.mark.parametrize("images", ["kitty", "sixel"])
def test_odd_image_modes_draw_real_pixels(
    name: str, images: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Kitty names an image by a colour: it needs 256 colours or more (in 16 it says so).
    out = printed(tmp_path, capsys, name, images, "256" if images == "kitty" else "16")
    assert ("\x1b_G" if images == "kitty" else "\x1bP") in out
