"""Pixels in the app's transcript: kitty commands sent once through the driver, sixel rows
painted over marked blank cells as lines are painted."""

from __future__ import annotations

from graphics_decode import decode_kitty, decode_sixel
from PIL import Image, ImageChops
from rich.console import Console, Group

from openwop_tui.devices.graphics import KittyGraphic, SixelGraphic
from openwop_tui.renderers.base import Rendered
from openwop_tui.ui.transcript.blocks import render_lines
from openwop_tui.ui.transcript.pixels import KittySender, SixelPainter


def stripes(width: int = 40, height: int = 60) -> Image.Image:
    image = Image.new("RGB", (width, height))
    image.putdata(
        [
            (0, 0, 255) if (y // 20) % 2 else (255, 0, 0)
            for y in range(height)
            for _x in range(width)
        ]
    )
    return image


class Driver:
    def __init__(self) -> None:
        self.written: list[str] = []

    def write(self, data: str) -> None:
        self.written.append(data)


class FakeApp:
    def __init__(self) -> None:
        self._driver = Driver()


def test_kitty_commands_go_through_the_driver_once_and_the_old_image_is_freed() -> None:
    app = FakeApp()
    sender = KittySender()
    first = KittyGraphic(stripes(), (4, 3))
    sender.send(app, "item", Rendered(title="t", body=Group(first)))  # type: ignore[arg-type]
    sent = decode_kitty("".join(app._driver.written))
    assert set(sent) == {first.image_id}
    lines = render_lines(Console(width=20), Group(first), 20)
    assert all("\x1b" not in segment.text for line in lines for segment in line)  # only cells
    second = KittyGraphic(stripes(), (2, 2))  # the same item drawn again (a resize)
    sender.send(app, "item", Rendered(title="t", body=second))  # type: ignore[arg-type]
    assert f"a=d,d=I,i={first.image_id}" in app._driver.written[-1]


def test_sixel_rows_are_painted_where_their_marked_cells_are() -> None:
    image = stripes(40, 60)
    graphic = SixelGraphic(image, (4, 3), cell_height=20)
    painter = SixelPainter()
    painter.take("item", Rendered(title="t", body=Group(graphic)))
    lines = render_lines(Console(width=20), Group(graphic), 20)
    assert len(lines) == 3 and all(line.text.strip() == "" for line in lines)  # blank cells
    painted = painter.paint(lines[1], 7, 11)
    tail = list(painted)[-1].text
    assert tail.startswith("\x1b7\x1b[12;8H") and tail.endswith("\x1b8")
    (row,) = decode_sixel(tail)
    assert row.size == (40, 20)
    expected = graphic.indexed.crop((0, 20, 40, 40)).convert("RGB")
    assert max(high for _low, high in ImageChops.difference(row, expected).getextrema()) <= 2
    assert row.getpixel((3, 3)) == (0, 0, 255)  # the second row of cells is blue
    assert painted.cell_length == lines[1].cell_length


def test_a_sixel_image_drawn_again_forgets_the_old_one() -> None:
    painter = SixelPainter()
    old = SixelGraphic(stripes(), (4, 3))
    painter.take("item", Rendered(title="t", body=old))
    old_line = render_lines(Console(width=20), old, 20)[0]
    painter.take("item", Rendered(title="t", body=SixelGraphic(stripes(), (4, 3))))
    assert painter.paint(old_line, 0, 0) is old_line
