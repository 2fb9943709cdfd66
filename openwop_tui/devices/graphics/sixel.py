"""Sixel: an image as a DEC device control string of six-pixel-tall bands.

The picture is quantised by Pillow to at most 256 colours (median cut, Floyd-Steinberg
dithering); the palette is declared in RGB percentages (``#n;2;r;g;b``). Then for each band of
six rows and each colour used in it: select the colour (``#n``), one character per column whose
six bits say which of the band's rows have that colour (``?`` + bits), runs of four or more as
``!count`` + character, ``$`` back to the band's start for the next colour, ``-`` to the next
band. The raster attributes (``"1;1;width;height``) say the pixels are square and the size.
``P2 = 1`` leaves pixels no colour covers untouched (there are none: every pixel has a colour).

The bits of one colour in one band are computed with `bytes.translate` (one table per colour
and row) and big-integer ORs: no per-pixel Python loop, and no numpy.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import ControlType, Segment
from rich.style import Style

if TYPE_CHECKING:
    # Pillow is imported when a picture is drawn, not with this module: the app's first
    # frame does not wait for it (tests/ui/test_first_frame.py).
    from PIL import Image

__all__ = ["MAX_COLOURS", "SixelGraphic", "encode", "quantise"]

MAX_COLOURS = 256
_BAND = 6
_RUN = re.compile(rb"(.)\1{3,}")
_TO_CHARACTERS = bytes(range(63, 127)) + bytes(192)
"""Sixel value 0-63 → the character ``?`` + value."""


@cache
def _row_table(colour: int, row: int) -> bytes:
    """Translates a palette index to ``1 << row`` when it is ``colour``, else to 0."""
    table = bytearray(256)
    table[colour] = 1 << row
    return bytes(table)


def quantise(image: Image.Image) -> Image.Image:
    """``image`` (RGB) as a palette image of at most `MAX_COLOURS` colours: what is drawn."""
    from PIL import Image  # (when a picture is drawn: see TYPE_CHECKING)

    return image.convert("RGB").quantize(
        MAX_COLOURS, Image.Quantize.MEDIANCUT, dither=Image.Dither.FLOYDSTEINBERG
    )


def _percent(value: int) -> int:
    return (value * 100 + 127) // 255


def _run_length(line: bytes) -> bytes:
    return _RUN.sub(lambda match: b"!%d%c" % (len(match.group(0)), match.group(1)[0]), line)


def encode(image: Image.Image) -> str:
    """The sixel string drawing ``image`` (RGB, or a palette image as it is)."""
    indexed = image if image.mode == "P" else quantise(image)
    width, height = indexed.size
    palette = indexed.getpalette() or []
    pixels = indexed.tobytes()
    used = sorted(set(pixels))
    parts = [f'\x1bP0;1;0q"1;1;{width};{height}'.encode("ascii")]
    for colour in used:
        red, green, blue = palette[colour * 3 : colour * 3 + 3]
        parts.append(b"#%d;2;%d;%d;%d" % (colour, _percent(red), _percent(green), _percent(blue)))
    for top in range(0, height, _BAND):
        rows = [pixels[y * width : (y + 1) * width] for y in range(top, min(top + _BAND, height))]
        band: list[bytes] = []
        for colour in sorted(set().union(*map(set, rows))):
            bits = 0
            for row, line in enumerate(rows):
                bits |= int.from_bytes(line.translate(_row_table(colour, row)), "big")
            characters = bits.to_bytes(width, "big").translate(_TO_CHARACTERS).rstrip(b"?")
            band.append(b"#%d%s" % (colour, _run_length(characters)))
        parts.append(b"$".join(band))
        if top + _BAND < height:
            parts.append(b"-")
    parts.append(b"\x1b\\")
    return b"".join(parts).decode("ascii")


class SixelGraphic:
    """A Rich renderable: a sixel image, written where the cursor is, then the line after it.

    It takes ``cells`` (columns, rows) on the screen; to Rich it is a control segment (no cells)
    and a line break: the terminal moves the cursor below the image itself.

    A view that places sixel itself (the app's transcript, which caches lines and scrolls) calls
    `place`: from then on the renderable is ``cells`` of blank text, each row marked (in its
    style's ``meta``, under `ROW_KEY`) with this graphic's key and the row, and `row_data`
    gives the sixel for one row of cells, to write over that row each time it is painted.
    """

    ROW_KEY = "openwop-sixel"

    def __init__(self, image: Image.Image, cells: tuple[int, int], cell_height: int = 20) -> None:
        self.cells = cells
        self.cell_height = max(1, cell_height)
        self.indexed = quantise(image) if image.mode != "P" else image
        self.placed = False
        self._data: str | None = None
        # Encoded here, in the renderer's decoder thread, not when the app first paints a row
        # (a row of a full-width image costs about 10 ms).
        self._rows = {row: self._encode_row(row) for row in range(cells[1])}

    @property
    def data(self) -> str:
        """The whole image as one sixel string (what a printed transcript writes)."""
        if self._data is None:
            self._data = encode(self.indexed)
        return self._data

    @property
    def key(self) -> int:
        return id(self)

    def place(self) -> None:
        """Draw blank, marked cells from now on (the view writes the sixel over them)."""
        self.placed = True

    def row_data(self, row: int) -> str:
        """The sixel drawing row ``row`` of cells (one cell tall; empty past the image)."""
        return self._rows.get(row, "")

    def _encode_row(self, row: int) -> str:
        width, height = self.indexed.size
        top = row * self.cell_height
        bottom = min(height, top + self.cell_height)
        return encode(self.indexed.crop((0, top, width, bottom))) if top < bottom else ""

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(self.cells[0], self.cells[0])

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.placed:
            for row in range(self.cells[1]):
                yield Segment(" " * self.cells[0], Style(meta={self.ROW_KEY: (self.key, row)}))
                yield Segment.line()
            return
        yield Segment(self.data, None, [(ControlType.BELL,)])
        yield Segment.line()
