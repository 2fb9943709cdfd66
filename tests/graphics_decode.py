"""Decoders for what the kitty and sixel encoders emit, so tests compare pixels, not strings."""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field
from io import BytesIO

from PIL import Image

from openwop_tui.devices.graphics.kitty import DIACRITICS, PLACEHOLDER

_TMUX = re.compile(r"\x1bPtmux;((?:[^\x1b]|\x1b\x1b)*)\x1b\\")
_APC = re.compile(r"\x1b_G([^;\x1b]*)(?:;([^\x1b]*))?\x1b\\")
_SGR_FG = re.compile(r"\x1b\[(?:[0-9;]*;)?38;2;([0-9]+);([0-9]+);([0-9]+)[0-9;]*m")
_SGR_FG_256 = re.compile(r"\x1b\[(?:[0-9;]*;)?38;5;([0-9]+)[0-9;]*m")


@dataclass
class KittyImage:
    image: Image.Image
    placement: tuple[int, int] | None = None
    """(columns, rows) of the virtual placement."""
    cells: list[tuple[int, int]] = field(default_factory=list)
    """(row, column) of every placeholder cell drawn in this image's colour."""


def untmux(text: str) -> str:
    """Unwrap tmux passthrough sequences (their ESCs are doubled)."""
    return _TMUX.sub(lambda match: match.group(1).replace("\x1b\x1b", "\x1b"), text)


def decode_kitty(text: str) -> dict[int, KittyImage]:
    """Every image a stream of kitty commands sends, by id, with its placement and cells."""
    text = untmux(text)
    images: dict[int, KittyImage] = {}
    pending: tuple[int, list[str]] | None = None
    for match in _APC.finditer(text):
        keys = dict(pair.split("=", 1) for pair in match.group(1).split(",") if pair)
        payload = match.group(2) or ""
        assert keys.get("q") == "2", "every command must silence replies"
        assert len(payload) <= 4096
        if pending is None and keys.get("a") == "t":
            assert keys["f"] == "100"
            pending = (int(keys["i"]), [])
        if pending is not None and keys.get("a") in (None, "t"):
            pending[1].append(payload)
            if keys.get("m", "0") == "0":
                image_id, chunks = pending
                data = base64.standard_b64decode("".join(chunks))
                with Image.open(BytesIO(data)) as image:
                    assert image.format == "PNG"
                    images[image_id] = KittyImage(image.convert("RGB"))
                pending = None
        elif keys.get("a") == "p":
            assert keys["U"] == "1"
            images[int(keys["i"])].placement = (int(keys["c"]), int(keys["r"]))
    assert pending is None, "a transmission never finished"
    _placeholders(text, images)
    return images


def _placeholders(text: str, images: dict[int, KittyImage]) -> None:
    index = {chr(code): number for number, code in enumerate(DIACRITICS)}
    for line in text.split("\n"):
        colour = None
        position = 0
        while position < len(line):
            sgr = _SGR_FG.match(line, position)
            if sgr:
                red, green, blue = (int(value) for value in sgr.groups())
                colour = red << 16 | green << 8 | blue
                position = sgr.end()
                continue
            sgr = _SGR_FG_256.match(line, position)
            if sgr:  # 256 colours: the index is the id's low byte
                colour = int(sgr.group(1))
                position = sgr.end()
                continue
            if line.startswith("\x1b[0m", position) or line.startswith("\x1b[m", position):
                colour, position = None, position + 4 - (line[position + 2] == "m")
                continue
            if line[position] == PLACEHOLDER:
                row, column = index[line[position + 1]], index[line[position + 2]]
                position += 3
                image_id = colour
                if position < len(line) and line[position] in index:  # the id's high byte
                    assert colour is not None
                    image_id = index[line[position]] << 24 | colour
                    position += 1
                assert image_id in images, "a placeholder cell names no image sent"
                images[image_id].cells.append((row, column))
                continue
            position += 1


def decode_sixel(text: str) -> list[Image.Image]:
    """Every sixel image in ``text``, drawn on black."""
    return [
        _sixel(match.group(1)) for match in re.finditer(r"\x1bP[0-9;]*q(.*?)\x1b\\", text, re.S)
    ]


def _sixel(body: str) -> Image.Image:
    raster = re.match(r'"1;1;([0-9]+);([0-9]+)', body)
    assert raster, "raster attributes with square pixels come first"
    width, height = int(raster.group(1)), int(raster.group(2))
    image = Image.new("RGB", (width, height))
    put = image.load()
    assert put is not None
    palette: dict[int, tuple[int, int, int]] = {}
    colour, x, band = 0, 0, 0
    position = raster.end()
    command = re.compile(r"#([0-9]+)(?:;2;([0-9]+);([0-9]+);([0-9]+))?|!([0-9]+)(.)|([?-~])|\$|-")
    while position < len(body):
        match = command.match(body, position)
        assert match, f"unexpected sixel data at {position}: {body[position : position + 10]!r}"
        position = match.end()
        token = match.group(0)
        if token.startswith("#"):
            number = int(match.group(1))
            if match.group(2) is not None:
                palette[number] = tuple(
                    round(int(match.group(part)) * 255 / 100) for part in (2, 3, 4)
                )  # type: ignore[assignment]
            else:
                colour = number
            continue
        if token == "$":
            x = 0
            continue
        if token == "-":
            x, band = 0, band + 1
            continue
        count, character = (int(match.group(5)), match.group(6)) if match.group(5) else (1, token)
        bits = ord(character) - 63
        for _ in range(count):
            for row in range(6):
                y = band * 6 + row
                if bits >> row & 1 and y < height:
                    assert x < width, "a sixel past the declared width"
                    put[x, y] = palette[colour]
            x += 1
    return image
