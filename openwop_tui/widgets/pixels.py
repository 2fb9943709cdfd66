"""Kitty images in the transcript: their commands go to the terminal once, through Textual.

A kitty image is drawn as placeholder cells (`openwop_tui.graphics.kitty`), which the
transcript's Line-API view caches and scrolls like any text. The commands that send the image
itself are not text: `send` takes them out of a rendered envelope and writes them through
Textual's driver (in order with the frames, from the app's thread) before the cells are first
drawn; the image drawn before for the same item (another width after a resize, another theme)
is freed in the terminal. Under the headless test driver there is nothing to write to.
Sixel is not drawn here: it is written at a cursor position, which a scrolling line cache does
not have; the app asks for kitty or half-blocks (see ``ChatApp``).
"""

from __future__ import annotations

from collections.abc import Iterator

from rich.console import Group
from rich.padding import Padding
from textual.app import App

from openwop_tui.graphics import KittyGraphic
from openwop_tui.renderers.base import Rendered

__all__ = ["KittySender", "kitty_graphics"]


def kitty_graphics(renderable: object) -> Iterator[KittyGraphic]:
    """The kitty images inside a renderable (through groups and padding)."""
    if isinstance(renderable, KittyGraphic):
        yield renderable
    elif isinstance(renderable, Group):
        for part in renderable.renderables:
            yield from kitty_graphics(part)
    elif isinstance(renderable, Padding):
        yield from kitty_graphics(renderable.renderable)


class KittySender:
    """Sends each item's kitty images once and frees the ones it replaced."""

    def __init__(self) -> None:
        self._shown: dict[str, list[KittyGraphic]] = {}

    def send(self, app: App[object], item_id: str, rendered: Rendered) -> None:
        """Write ``rendered``'s kitty commands; free what ``item_id`` showed before."""
        graphics = list(kitty_graphics(rendered.body))
        old = self._shown.pop(item_id, [])
        if graphics:
            self._shown[item_id] = graphics
        commands = [graphic.delete_command() for graphic in old if graphic not in graphics]
        for graphic in graphics:
            commands.extend(graphic.take_commands())
        driver = getattr(app, "_driver", None)
        if commands and driver is not None:
            driver.write("".join(commands))
