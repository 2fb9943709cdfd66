"""Kitty images in the transcript: their commands go to the terminal once, through Textual.

A kitty image is drawn as placeholder cells (`openwop_tui.devices.graphics.kitty`), which the
transcript's Line-API view caches and scrolls like any text. The commands that send the image
itself are not text: `send` takes them out of a rendered envelope and writes them through
Textual's driver (in order with the frames, from the app's thread) before the cells are first
drawn; the image drawn before for the same item (another width after a resize, another theme)
is freed in the terminal. Under the headless test driver there is nothing to write to.
Sixel is written at a cursor position, which a line cache does not have. `SixelPainter` makes a
rendered sixel image draw blank cells, each row marked with the image and the row; each time
the view paints a marked line it appends (as a control segment, last on the line, after its
cells are written) the sixel of that one row of cells at the line's place on the screen, with
the cursor saved and restored around it. So an image scrolls a cell row at a time, a row that is
painted again is drawn again, and only rows on screen are drawn. Nothing is drawn while another
screen (a dialog) is on top.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeVar

from rich.console import Group
from rich.segment import ControlType, Segment
from textual.app import App
from textual.strip import Strip

from openwop_tui.devices.graphics import KittyGraphic, SixelGraphic
from openwop_tui.renderers.base import Rendered

__all__ = ["KittySender", "SixelPainter", "graphics_in"]

_G = TypeVar("_G", KittyGraphic, SixelGraphic)


def graphics_in(renderable: object, kind: type[_G], depth: int = 0) -> Iterator[_G]:
    """The graphics of ``kind`` inside a renderable: through groups, padding and the wrappers
    that hold one renderable as ``inner`` or ``renderable`` (the registry's guard, the theme)."""
    if isinstance(renderable, kind):
        yield renderable
        return
    if depth > 16:
        return
    if isinstance(renderable, Group):
        for part in renderable.renderables:
            yield from graphics_in(part, kind, depth + 1)
        return
    for name in ("inner", "renderable"):
        inner = getattr(renderable, name, None)
        if inner is not None:
            yield from graphics_in(inner, kind, depth + 1)


class KittySender:
    """Sends each item's kitty images once and frees the ones it replaced."""

    def __init__(self) -> None:
        self._shown: dict[str, list[KittyGraphic]] = {}

    def send(self, app: App[object], item_id: str, rendered: Rendered) -> None:
        """Write ``rendered``'s kitty commands; free what ``item_id`` showed before."""
        graphics = list(graphics_in(rendered.body, KittyGraphic))
        old = self._shown.pop(item_id, [])
        if graphics:
            self._shown[item_id] = graphics
        commands = [graphic.delete_command() for graphic in old if graphic not in graphics]
        for graphic in graphics:
            commands.extend(graphic.take_commands())
        driver = getattr(app, "_driver", None)
        if commands and driver is not None:
            driver.write("".join(commands))


class SixelPainter:
    """Places each item's sixel images and paints their rows over the view's lines."""

    def __init__(self) -> None:
        self._by_item: dict[str, list[SixelGraphic]] = {}
        self._by_key: dict[int, SixelGraphic] = {}

    def take(self, item_id: str, rendered: Rendered) -> None:
        """Place ``rendered``'s sixel images (blank marked cells from now on); forget the
        ones ``item_id`` showed before."""
        for old in self._by_item.pop(item_id, []):
            self._by_key.pop(old.key, None)
        graphics = list(graphics_in(rendered.body, SixelGraphic))
        for graphic in graphics:
            graphic.place()
            self._by_key[graphic.key] = graphic
        if graphics:
            self._by_item[item_id] = graphics

    def paint(self, strip: Strip, screen_x: int, screen_y: int) -> Strip:
        """``strip`` (one painted line at ``screen_x``, ``screen_y``) with the sixel rows of the
        images whose marked cells it holds appended."""
        if not self._by_key:
            return strip
        sequences: list[str] = []
        x = 0
        for segment in strip:
            style = segment.style
            mark = style.meta.get(SixelGraphic.ROW_KEY) if style is not None else None
            if mark is not None and (graphic := self._by_key.get(mark[0])) is not None:
                data = graphic.row_data(mark[1])
                if data:
                    move = f"\x1b[{screen_y + 1};{screen_x + x + 1}H"
                    sequences.append(f"\x1b7{move}{data}\x1b8")
            x += segment.cell_length
        if not sequences:
            return strip
        control = Segment("".join(sequences), None, [(ControlType.BELL,)])
        return Strip([*strip, control], strip.cell_length)
