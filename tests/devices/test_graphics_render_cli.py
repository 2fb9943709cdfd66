"""``render --images kitty|sixel`` to a pipe: the sequences decode back to the image."""

from __future__ import annotations

import base64
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from graphics_decode import decode_kitty, decode_sixel
from paths import TESTS
from patience import PATIENCE
from PIL import Image, ImageChops, ImageStat

from openwop_tui.devices.graphics.fit import cell_box
from openwop_tui.devices.graphics.sixel import quantise

CAPTURES = TESTS / "data" / "captures"
RED_PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9"
    "awAAAABJRU5ErkJggg=="
)


def source() -> Image.Image:
    image = Image.new("RGB", (120, 90))
    image.putdata([(x * 2, y * 2, 90) for y in range(90) for x in range(120)])
    return image


def recording(tmp_path: Path, image: Image.Image) -> Path:
    """The rich-envelopes capture with its inline red pixel replaced by ``image``."""
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    data = buffer.getvalue()
    text = (CAPTURES / "example-rich-envelopes.sse").read_text(encoding="utf-8")
    assert RED_PIXEL in text
    text = text.replace(RED_PIXEL, base64.b64encode(data).decode()).replace(
        '"bytes":70,', f'"bytes":{len(data)},'
    )
    path = tmp_path / "image.sse"
    path.write_text(text, encoding="utf-8")
    return path


def render(path: Path, images: str) -> str:
    env = {**os.environ, "OPENWOP_TUI_AUDIO": "off", "COLUMNS": "100"}
    env.pop("NO_COLOR", None)
    result = subprocess.run(
        [sys.executable, "-m", "openwop_tui", "render", str(path), "--images", images],
        capture_output=True,
        env=env,
        timeout=PATIENCE,
        check=False,
    )
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout.decode()


def test_render_kitty_to_a_pipe_decodes_back_to_the_image(tmp_path: Path) -> None:
    image = source()
    images = decode_kitty(render(recording(tmp_path, image), "kitty"))
    assert len(images) == 1
    (sent,) = images.values()
    pixels, cells = cell_box(image.size, (96, 24), (10, 20))
    assert sent.placement == cells
    assert sent.image.size == (cells[0] * 10, cells[1] * 20)
    assert sorted(sent.cells) == [(r, c) for r in range(cells[1]) for c in range(cells[0])]
    drawn = sent.image.crop((0, 0, *pixels))
    expected = image.resize(pixels, Image.Resampling.LANCZOS)
    assert max(ImageStat.Stat(ImageChops.difference(drawn, expected)).mean) < 1


def test_render_sixel_to_a_pipe_decodes_back_to_the_image(tmp_path: Path) -> None:
    image = source()
    decoded = decode_sixel(render(recording(tmp_path, image), "sixel"))
    assert len(decoded) == 1
    pixels, _cells = cell_box(image.size, (96, 24), (10, 20))
    assert decoded[0].size == pixels
    expected = quantise(image.resize(pixels, Image.Resampling.LANCZOS)).convert("RGB")
    assert max(ImageStat.Stat(ImageChops.difference(decoded[0], expected)).mean) < 2


@pytest.mark.parametrize(("images", "half_blocks"), [("halfblock", True), ("auto", False)])
def test_render_to_a_pipe_otherwise_draws_no_terminal_graphics(
    tmp_path: Path, images: str, half_blocks: bool
) -> None:
    # auto on a pipe: plain text, so the image is described, not drawn.
    out = render(recording(tmp_path, source()), images)
    assert "\x1b_G" not in out and "\x1bP" not in out
    assert ("▄" in out) is half_blocks
