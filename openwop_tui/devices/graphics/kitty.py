"""The kitty graphics protocol, drawn as Unicode placeholders.

An image is sent once (``a=t``: PNG bytes, ``f=100``, base64 in chunks of at most 4096 bytes,
``m=1`` on all but the last, ``q=2`` so the terminal sends no replies a program would read as
typed keys) under an image id, then given a virtual placement of so many cells (``a=p,U=1``).
What shows it are text cells: U+10EEEE followed by a diacritic numbering its row and one
numbering its column, in a foreground colour that is the image id (24 bits: red, green, blue;
or, where only 256 colours are written, a colour index, with the id's high byte as a third
diacritic).
So an image is ordinary styled text: it scrolls with a line-based view, survives being cut into
lines, goes through a pipe and through tmux (whose passthrough carries the commands that send
the bytes), and is drawn again by the terminal wherever those cells are.

The diacritics are kitty's table (``rowcolumn-diacritics.txt``): 297 of them, so at most 297
rows and columns.
"""

from __future__ import annotations

import base64
import itertools
import random
from collections.abc import Iterator
from io import BytesIO
from typing import TYPE_CHECKING

from rich._palettes import EIGHT_BIT_PALETTE
from rich.color import Color, ColorSystem
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import ControlType, Segment
from rich.style import Style

from openwop_tui.devices.graphics.tmux import passthrough

if TYPE_CHECKING:
    # Pillow is imported when a picture is drawn, not with this module: the app's first
    # frame does not wait for it (tests/ui/test_first_frame.py).
    from PIL import Image

__all__ = [
    "CHUNK",
    "DIACRITICS",
    "PLACEHOLDER",
    "KittyGraphic",
    "delete",
    "encode",
    "placeholder_rows",
]

PLACEHOLDER = "\U0010eeee"
CHUNK = 4096
"""The most base64 bytes in one command (the protocol's limit)."""

# fmt: off
DIACRITICS: tuple[int, ...] = (
    0x00305, 0x0030D, 0x0030E, 0x00310, 0x00312, 0x0033D, 0x0033E, 0x0033F, 0x00346, 0x0034A,
    0x0034B, 0x0034C, 0x00350, 0x00351, 0x00352, 0x00357, 0x0035B, 0x00363, 0x00364, 0x00365,
    0x00366, 0x00367, 0x00368, 0x00369, 0x0036A, 0x0036B, 0x0036C, 0x0036D, 0x0036E, 0x0036F,
    0x00483, 0x00484, 0x00485, 0x00486, 0x00487, 0x00592, 0x00593, 0x00594, 0x00595, 0x00597,
    0x00598, 0x00599, 0x0059C, 0x0059D, 0x0059E, 0x0059F, 0x005A0, 0x005A1, 0x005A8, 0x005A9,
    0x005AB, 0x005AC, 0x005AF, 0x005C4, 0x00610, 0x00611, 0x00612, 0x00613, 0x00614, 0x00615,
    0x00616, 0x00617, 0x00657, 0x00658, 0x00659, 0x0065A, 0x0065B, 0x0065D, 0x0065E, 0x006D6,
    0x006D7, 0x006D8, 0x006D9, 0x006DA, 0x006DB, 0x006DC, 0x006DF, 0x006E0, 0x006E1, 0x006E2,
    0x006E4, 0x006E7, 0x006E8, 0x006EB, 0x006EC, 0x00730, 0x00732, 0x00733, 0x00735, 0x00736,
    0x0073A, 0x0073D, 0x0073F, 0x00740, 0x00741, 0x00743, 0x00745, 0x00747, 0x00749, 0x0074A,
    0x007EB, 0x007EC, 0x007ED, 0x007EE, 0x007EF, 0x007F0, 0x007F1, 0x007F3, 0x00816, 0x00817,
    0x00818, 0x00819, 0x0081B, 0x0081C, 0x0081D, 0x0081E, 0x0081F, 0x00820, 0x00821, 0x00822,
    0x00823, 0x00825, 0x00826, 0x00827, 0x00829, 0x0082A, 0x0082B, 0x0082C, 0x0082D, 0x00951,
    0x00953, 0x00954, 0x00F82, 0x00F83, 0x00F86, 0x00F87, 0x0135D, 0x0135E, 0x0135F, 0x017DD,
    0x0193A, 0x01A17, 0x01A75, 0x01A76, 0x01A77, 0x01A78, 0x01A79, 0x01A7A, 0x01A7B, 0x01A7C,
    0x01B6B, 0x01B6D, 0x01B6E, 0x01B6F, 0x01B70, 0x01B71, 0x01B72, 0x01B73, 0x01CD0, 0x01CD1,
    0x01CD2, 0x01CDA, 0x01CDB, 0x01CE0, 0x01DC0, 0x01DC1, 0x01DC3, 0x01DC4, 0x01DC5, 0x01DC6,
    0x01DC7, 0x01DC8, 0x01DC9, 0x01DCB, 0x01DCC, 0x01DD1, 0x01DD2, 0x01DD3, 0x01DD4, 0x01DD5,
    0x01DD6, 0x01DD7, 0x01DD8, 0x01DD9, 0x01DDA, 0x01DDB, 0x01DDC, 0x01DDD, 0x01DDE, 0x01DDF,
    0x01DE0, 0x01DE1, 0x01DE2, 0x01DE3, 0x01DE4, 0x01DE5, 0x01DE6, 0x01DFE, 0x020D0, 0x020D1,
    0x020D4, 0x020D5, 0x020D6, 0x020D7, 0x020DB, 0x020DC, 0x020E1, 0x020E7, 0x020E9, 0x020F0,
    0x02CEF, 0x02CF0, 0x02CF1, 0x02DE0, 0x02DE1, 0x02DE2, 0x02DE3, 0x02DE4, 0x02DE5, 0x02DE6,
    0x02DE7, 0x02DE8, 0x02DE9, 0x02DEA, 0x02DEB, 0x02DEC, 0x02DED, 0x02DEE, 0x02DEF, 0x02DF0,
    0x02DF1, 0x02DF2, 0x02DF3, 0x02DF4, 0x02DF5, 0x02DF6, 0x02DF7, 0x02DF8, 0x02DF9, 0x02DFA,
    0x02DFB, 0x02DFC, 0x02DFD, 0x02DFE, 0x02DFF, 0x0A66F, 0x0A67C, 0x0A67D, 0x0A6F0, 0x0A6F1,
    0x0A8E0, 0x0A8E1, 0x0A8E2, 0x0A8E3, 0x0A8E4, 0x0A8E5, 0x0A8E6, 0x0A8E7, 0x0A8E8, 0x0A8E9,
    0x0A8EA, 0x0A8EB, 0x0A8EC, 0x0A8ED, 0x0A8EE, 0x0A8EF, 0x0A8F0, 0x0A8F1, 0x0AAB0, 0x0AAB2,
    0x0AAB3, 0x0AAB7, 0x0AAB8, 0x0AABE, 0x0AABF, 0x0AAC1, 0x0FE20, 0x0FE21, 0x0FE22, 0x0FE23,
    0x0FE24, 0x0FE25, 0x0FE26, 0x10A0F, 0x10A38, 0x1D185, 0x1D186, 0x1D187, 0x1D188, 0x1D189,
    0x1D1AA, 0x1D1AB, 0x1D1AC, 0x1D1AD, 0x1D242, 0x1D243, 0x1D244,
)
# fmt: on

MAX_CELLS = len(DIACRITICS)

# Ids start at a random point so two programs in one terminal rarely pick the same; never 0
# (which means "none").
_ids = itertools.count(random.randint(1 << 16, 1 << 22))

#: 256-colour indices whose palette colour Rich (and so Textual) turns back into that index when
#: it writes 256 colours: in such a terminal an image id is one of these plus a third diacritic.
EIGHT_BIT_IDS: tuple[int, ...] = tuple(
    number
    for number in range(16, 256)
    if Color.from_rgb(*EIGHT_BIT_PALETTE[number]).downgrade(ColorSystem.EIGHT_BIT).number == number
)


def next_id(truecolor: bool = True) -> int:
    """A fresh image id. With true colour, 24 bits (the colour is the id); with 256 colours,
    ``msb << 24 | index``: the colour index is the low byte, the third diacritic the high one."""
    count = next(_ids)
    if truecolor:
        return count % ((1 << 24) - 1) + 1
    index = EIGHT_BIT_IDS[count % len(EIGHT_BIT_IDS)]
    return (count // len(EIGHT_BIT_IDS) % 256) << 24 | index


def _command(keys: str, payload: str = "") -> str:
    return f"\x1b_G{keys};{payload}\x1b\\" if payload else f"\x1b_G{keys}\x1b\\"


def encode(image: Image.Image, image_id: int, cells: tuple[int, int]) -> list[str]:
    """The commands that send ``image`` (as PNG) under ``image_id`` and place it virtually over
    ``cells`` (columns, rows): the transmission in chunks, then the placement."""
    buffer = BytesIO()
    image.save(buffer, "PNG", compress_level=3)
    data = base64.standard_b64encode(buffer.getvalue()).decode("ascii")
    chunks = [data[start : start + CHUNK] for start in range(0, len(data), CHUNK)] or [""]
    commands = []
    for index, chunk in enumerate(chunks):
        more = 1 if index < len(chunks) - 1 else 0
        if index == 0:
            commands.append(_command(f"a=t,f=100,t=d,i={image_id},q=2,m={more}", chunk))
        else:
            commands.append(_command(f"m={more},q=2", chunk))
    columns, rows = cells
    commands.append(_command(f"a=p,U=1,i={image_id},c={columns},r={rows},q=2"))
    return commands


def delete(image_id: int) -> str:
    """The command that frees ``image_id`` and its placements in the terminal."""
    return _command(f"a=d,d=I,i={image_id},q=2")


def placeholder_rows(cells: tuple[int, int], image_id: int = 0) -> list[str]:
    """The placeholder text of each row; the id's high byte (when set) as a third diacritic,
    its low bytes go in the colour."""
    columns, rows = min(cells[0], MAX_CELLS), min(cells[1], MAX_CELLS)
    high = image_id >> 24 & 255
    third = chr(DIACRITICS[high]) if high else ""
    return [
        "".join(
            PLACEHOLDER + chr(DIACRITICS[row]) + chr(DIACRITICS[column]) + third
            for column in range(columns)
        )
        for row in range(rows)
    ]


def id_style(image_id: int, truecolor: bool = True) -> Style:
    """The foreground colour naming ``image_id`` to the terminal: its low 24 bits as red, green
    and blue, or (256 colours) the palette colour of its low byte, which is written as that
    index."""
    if truecolor:
        red, green, blue = image_id >> 16 & 255, image_id >> 8 & 255, image_id & 255
    else:
        red, green, blue = EIGHT_BIT_PALETTE[image_id & 255]
    return Style(color=Color.from_rgb(red, green, blue))


class KittyGraphic:
    """A Rich renderable: an image in kitty placeholders.

    Printed by Rich, the commands that send the image come first (as control segments: they
    take no cells), then the placeholder rows. A view that sends the commands itself (the app,
    through Textual's driver, once) calls `take_commands`, after which only the rows are drawn.
    """

    def __init__(
        self,
        image: Image.Image,
        cells: tuple[int, int],
        *,
        tmux: bool = False,
        truecolor: bool = True,
    ) -> None:
        """Encode ``image`` for sending, and the placeholder rows that show it.

        Args:
            image: The image to draw.
            cells: ``(columns, rows)`` it covers, each at most `MAX_CELLS`.
            tmux: True inside tmux: the commands are wrapped for its passthrough.
            truecolor: True names the image with a 24-bit colour; False with a 256-colour palette
                index (`next_id`).
        """
        self.cells = (min(cells[0], MAX_CELLS), min(cells[1], MAX_CELLS))
        self.image_id = next_id(truecolor)
        self.tmux = tmux
        self.truecolor = truecolor
        self._commands: list[str] | None = encode(image, self.image_id, self.cells)
        self._rows = placeholder_rows(self.cells, self.image_id)

    def take_commands(self) -> list[str]:
        """The commands to send (wrapped for tmux when inside it), once: later calls, and the
        renderable from now on, give none."""
        commands, self._commands = self._commands or [], None
        return [passthrough(command) for command in commands] if self.tmux else commands

    def delete_command(self) -> str:
        """The command freeing this image in the terminal (wrapped for tmux when inside it)."""
        command = delete(self.image_id)
        return passthrough(command) if self.tmux else command

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(self.cells[0], self.cells[0])

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from self._segments()

    def _segments(self) -> Iterator[Segment]:
        commands = self.take_commands()
        if commands:
            yield Segment("".join(commands), None, [(ControlType.BELL,)])
        style = id_style(self.image_id, self.truecolor)
        for row in self._rows:
            yield Segment(row, style)
            yield Segment.line()
