"""The transcript's screen lines as painted, kept for the frames that paint them again.

A screen line is a block's line with the view's gutter before it, the widget's style over it,
cut to the width, and marked with its place for text selection (Textual's ``apply_offsets``,
one style per segment). Composing it cost more than drawing it from a block's cached lines:
a Page Up painted forty of them at about 0.1 ms each, a third of its frame. So the view keeps
each composed line (`ComposedLines`), keyed by where it is painted (block, line within it, line
in the transcript) and checked against what it was composed from (the block's lines, and the
frame's width, style and palette: `Frame.key`); the prefetch composes the page above and the
page below before they are needed.

Lines whose look depends on more than that are never kept: the selected item's (its gutter
and colours follow focus), a heading line with buttons (they follow the item's actions), and
every line while a search highlights matches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.style import Style
from textual.cache import LRUCache
from textual.geometry import Region
from textual.strip import Strip

if TYPE_CHECKING:
    from openwop_tui.ui.widgets.blocks import Block

__all__ = ["ComposedLines", "Frame"]

#: Composed lines kept: the screen, the page above and the page below, a few times over.
KEPT_LINES = 1024


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


class ComposedLines:
    """Screen lines composed once and painted again while nothing they show changed."""

    def __init__(self) -> None:
        self._kept: LRUCache[tuple[int, int, int], tuple[Block, list[Strip], object, Strip]] = (
            LRUCache(KEPT_LINES)
        )

    def get(
        self, block: Block, lines: list[Strip], row: int, virtual_y: int, key: object
    ) -> Strip | None:
        """The line kept for ``row`` of ``block`` (drawn as ``lines``) at ``virtual_y``."""
        kept = self._kept.get((id(block), row, virtual_y))
        if kept is None:
            return None
        was_block, was_lines, was_key, strip = kept
        if was_block is not block or was_lines is not lines or was_key != key:
            return None
        return strip

    def keep(
        self,
        block: Block,
        lines: list[Strip],
        row: int,
        virtual_y: int,
        key: object,
        strip: Strip,
    ) -> None:
        self._kept.set((id(block), row, virtual_y), (block, lines, key, strip))

    def clear(self) -> None:
        self._kept.clear()
