"""A reply streamed into the app's own `Block` chunk by chunk, drawn again after each chunk as
the view's streamed redraw draws it: for the tests of what a long block drawn in pieces shows
(`openwop_tui.draw.code_pieces`, `openwop_tui.draw.list_pieces`)."""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from typing import Any

from rich.console import Console
from textual.strip import Strip

from openwop_tui.core.items import AssistantTurn
from openwop_tui.draw.palette import Palette
from openwop_tui.ui.transcript.blocks import Block

#: The console the blocks are drawn with (true colour: every style compared).
CONSOLE = Console(width=120, file=io.StringIO(), color_system="truecolor")
#: The width the blocks are drawn at.
WIDTH = 100


def cells(strips: list[Strip]) -> list[list[Any]]:
    """Drawn lines as their segments (text and style), for comparing two drawings."""
    return [list(strip) for strip in strips]


def streamed(
    text: str, rng: random.Random, most: int, least: int = 1
) -> Iterator[tuple[Block, AssistantTurn, list[Strip]]]:
    """``text`` streamed into a reply's block in chunks of ``least`` to ``most`` characters,
    the block drawn again after each as the view's streamed redraw draws it: the block, its
    item and what it drew."""
    palette = Palette.default()
    item = AssistantTurn("reply", None, "")
    block = Block(item)
    at = 0
    while at < len(text):
        step = rng.randint(least, most)
        item.body.append(text[at : at + step])
        at += step
        block.cache.clear()
        block.measured = False
        block.appended()
        yield block, item, block.lines(CONSOLE, WIDTH, palette)
