"""A line-cached view of older transcript items.

One Textual widget per message does not scale (design.md §Platform facts: 1,000 ``Markdown``
widgets took 34 s to mount and 689 MB). Items that have scrolled out of the live region are
handed here as Rich renderables: each is rendered to lines once per width and kept as `Strip`s,
and the widget draws only the lines Textual asks for (the visible ones) through the Line API.
"""

from __future__ import annotations

from bisect import bisect_right

from rich.console import RenderableType
from rich.segment import Segment
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget


class HistoryLog(Widget):
    """Older transcript items, drawn from a per-width line cache."""

    DEFAULT_CSS = """
    HistoryLog {
        height: auto;
        padding: 0 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._blocks: list[RenderableType] = []
        self._width = 0
        self._rendered: list[list[Strip]] = []
        """Lines of each block at ``_width`` (filled lazily, in order)."""
        self._offsets: list[int] = []
        """First line of each rendered block, for bisecting from a line to its block."""
        self._height = 0

    @property
    def block_count(self) -> int:
        """How many items the history holds."""
        return len(self._blocks)

    def add(self, renderable: RenderableType) -> None:
        """Append an item; only this item is rendered, the rest stay cached."""
        self._blocks.append(renderable)
        if self._width:
            self._render_block(len(self._blocks) - 1)
        self.refresh(layout=True)

    def clear(self) -> None:
        """Forget everything."""
        self._blocks.clear()
        self._rendered.clear()
        self._offsets.clear()
        self._height = 0
        self.refresh(layout=True)

    def _render_block(self, index: int) -> None:
        console = self.app.console
        options = console.options.update_width(self._width)
        lines = console.render_lines(self._blocks[index], options, pad=True)
        # A blank line between items, as the live widgets have a margin.
        strips = [Strip(line, self._width) for line in lines]
        strips.append(Strip([Segment(" " * self._width)], self._width))
        self._offsets.append(self._height)
        self._rendered.append(strips)
        self._height += len(strips)

    def _ensure_width(self, width: int) -> None:
        if width == self._width and len(self._rendered) == len(self._blocks):
            return
        if width != self._width:
            self._width = width
            self._rendered.clear()
            self._offsets.clear()
            self._height = 0
        for index in range(len(self._rendered), len(self._blocks)):
            self._render_block(index)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """Total lines at this width (renders what is not cached yet)."""
        if width <= 0:
            return 0
        self._ensure_width(width)
        return self._height

    def render_line(self, y: int) -> Strip:
        """One visible line, straight from the cache."""
        width = self.size.width
        if width > 0:
            self._ensure_width(width)
        if not self._rendered or y >= self._height or y < 0:
            return Strip.blank(max(self._width, 0))
        block = bisect_right(self._offsets, y) - 1
        return self._rendered[block][y - self._offsets[block]]
