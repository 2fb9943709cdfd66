"""The transcript's screen lines as composed, kept for the frames that paint them again.

A screen line is a block's line with the view's gutter before it and the widget's style over
it, cut to the width. Composing it cost more than drawing it from a block's cached lines: a
Page Up painted forty of them at about 0.1 ms each, a third of its frame. So the view keeps
each composed line (`ComposedLines`), keyed by block and line within it and checked against
what it was composed from (the block's lines, and the frame's width, style and palette:
`Frame.key`); the prefetch composes the page above and the page below before they are needed.
The line's place for text selection (Textual's ``apply_offsets``) is put on as it is painted:
a block drawn above it moves it down (its estimate corrected), and Textual keeps a strip's
offset copies, so painting it at the same place again costs nothing.

A heading line with buttons is kept too, with what they follow beside the frame (a user
turn's whether it is the last message). Never kept: the selected item's lines (its gutter and
colours follow focus), and every line while a search highlights matches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.style import Style
from textual.geometry import Region
from textual.strip import Strip

if TYPE_CHECKING:
    from openwop_tui.ui.widgets.blocks import Block

__all__ = ["KEPT_LINES", "ComposedLines", "Frame"]

#: Composed lines kept: the screen, the page above and the page below, a few times over (the
#: view composes ahead at most half as many, so what it composes stays until painted).
KEPT_LINES = 2048


@dataclass(frozen=True, slots=True)
class Frame:
    """What every line of one frame is composed with (worked out once a frame, not a line)."""

    width: int
    """The widget's scrollable width (the line is cut or padded to it)."""
    height: int
    top: int
    """The transcript line at the top of the viewport."""
    base: Style
    """The widget's own style, under every line."""
    region: Region
    """The widget's content region on screen (where sixel images are painted)."""
    active: bool
    """Whether the widget's screen is the one shown."""
    key: tuple[object, ...]
    """What a kept line must have been composed with to be painted again."""


_Kept = tuple["Block", list[Strip], object, Strip]


class ComposedLines:
    """Screen lines composed once and painted again while nothing they show changed (the
    `KEPT_LINES` composed last)."""

    def __init__(self) -> None:
        # (A dict in the order kept, not Textual's LRUCache: its ``set`` leaves the value of a
        # key it holds, and a line composed again at the same place must replace the old one.)
        self._kept: dict[tuple[int, int], _Kept] = {}

    def get(self, block: Block, lines: list[Strip], row: int, key: object) -> Strip | None:
        """The line kept for ``row`` of ``block`` (drawn as ``lines``) in frames of ``key``."""
        kept = self._kept.get((id(block), row))
        if kept is None:
            return None
        was_block, was_lines, was_key, strip = kept
        if was_block is not block or was_lines is not lines or was_key != key:
            return None
        return strip

    def keep(self, block: Block, lines: list[Strip], row: int, key: object, strip: Strip) -> None:
        kept = self._kept
        where = (id(block), row)
        kept.pop(where, None)
        kept[where] = (block, lines, key, strip)
        if len(kept) > KEPT_LINES:
            del kept[next(iter(kept))]

    def clear(self) -> None:
        self._kept.clear()
