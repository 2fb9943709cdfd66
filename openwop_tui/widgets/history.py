"""A line-cached view of older transcript items.

One Textual widget per message does not scale (design.md §Platform facts: 1,000 ``Markdown``
widgets took 34 s to mount and 689 MB). Items that have scrolled out of the live region are
handed here as Rich renderables: each is rendered to lines once per width and kept as `Strip`s,
and the widget draws only the lines Textual asks for (the visible ones) through the Line API.

Verbose items (lifecycle lines) are kept too, and shown only while `show_verbose` is on, as the
live widgets are; toggling re-lays out from the cache without rendering anything again.

An item may still change after it arrived here (a later fragment of a streamed envelope,
protocol.md §4.3): blocks added with a ``key`` can be `replace`d, which renders that block alone
again.
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
        self._blocks: list[tuple[RenderableType, bool, bool]] = []
        """Each item's renderable, whether it is verbose, and whether a blank line follows."""
        self._show_verbose = False
        self._width = 0
        self._strips: dict[int, list[Strip]] = {}
        """Lines of each block at ``_width``, rendered on first need."""
        self._shown: list[int] = []
        """Indices of the blocks laid out, in order."""
        self._offsets: list[int] = []
        """First line of each laid-out block, for bisecting from a line to its block."""
        self._height = 0
        self._keys: dict[str, int] = {}
        """Block index of each keyed item (the transcript item's id)."""

    @property
    def block_count(self) -> int:
        """How many items the history holds (shown or not)."""
        return len(self._blocks)

    @property
    def show_verbose(self) -> bool:
        """Whether verbose items (lifecycle lines) are shown."""
        return self._show_verbose

    @show_verbose.setter
    def show_verbose(self, value: bool) -> None:
        if value != self._show_verbose:
            self._show_verbose = value
            self._relayout()

    def add(
        self,
        renderable: RenderableType,
        *,
        verbose: bool = False,
        spaced: bool = True,
        key: str | None = None,
    ) -> None:
        """Append an item; only this item is rendered, the rest stay cached.

        ``spaced`` puts a blank line after it, as the live widgets have a bottom margin; ``key``
        names it for `replace`.
        """
        if key is not None:
            self._keys[key] = len(self._blocks)
        self._blocks.append((renderable, verbose, spaced))
        if self._width and (self._show_verbose or not verbose):
            self._lay_out(len(self._blocks) - 1)
        self.refresh(layout=True)

    def holds(self, key: str) -> bool:
        """Whether the item named ``key`` is here."""
        return key in self._keys

    def replace(self, key: str, renderable: RenderableType) -> bool:
        """Draw the item named ``key`` anew from ``renderable``, in its place.

        Only that block is rendered again (its height may change, so the offsets after it are
        recomputed from the cache). ``False`` when no such item is here (the view was cleared).
        """
        index = self._keys.get(key)
        if index is None:
            return False
        _, verbose, spaced = self._blocks[index]
        self._blocks[index] = (renderable, verbose, spaced)
        self._strips.pop(index, None)
        self._relayout()
        return True

    def clear(self) -> None:
        """Forget everything."""
        self._blocks.clear()
        self._keys.clear()
        self._strips.clear()
        self._relayout()

    def _render_block(self, index: int) -> list[Strip]:
        strips = self._strips.get(index)
        if strips is None:
            console = self.app.console
            options = console.options.update_width(self._width)
            renderable, _, spaced = self._blocks[index]
            lines = console.render_lines(renderable, options, pad=True)
            strips = [Strip(line, self._width) for line in lines]
            if spaced:
                strips.append(Strip([Segment(" " * self._width)], self._width))
            self._strips[index] = strips
        return strips

    def _lay_out(self, index: int) -> None:
        self._shown.append(index)
        self._offsets.append(self._height)
        self._height += len(self._render_block(index))

    def _relayout(self) -> None:
        self._shown.clear()
        self._offsets.clear()
        self._height = 0
        if self._width:
            for index, (_, verbose, _) in enumerate(self._blocks):
                if self._show_verbose or not verbose:
                    self._lay_out(index)
        self.refresh(layout=True)

    def _ensure_width(self, width: int) -> None:
        if width != self._width:
            self._width = width
            self._strips.clear()
            self._relayout()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """Total lines at this width (renders what is not cached yet)."""
        if width <= 0:
            return 0
        self._ensure_width(width)
        return self._height

    def render_line(self, y: int) -> Strip:
        """One visible line, straight from the cache."""
        if self.size.width > 0:
            self._ensure_width(self.size.width)
        if not self._shown or y >= self._height or y < 0:
            return Strip.blank(max(self._width, 0))
        position = bisect_right(self._offsets, y) - 1
        return self._render_block(self._shown[position])[y - self._offsets[position]]
