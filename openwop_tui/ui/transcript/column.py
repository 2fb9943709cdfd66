"""The transcript's blocks in order, and the line each one starts at.

`Column` is the view's model, as Textual keeps `TextArea`'s document apart from its widget: it
knows nothing of scrolling, painting or keys. It holds every block (`Block`) top to bottom, finds
one by its item's id, and keeps the first screen line of each (``tops``) for the width the
heights were worked out at. A block's height changes when it is drawn (an estimate corrected),
so the offsets are kept valid only up to the first block that changed and laid again from there
when next read: a token in the last reply costs one addition, not a pass over the session.

Lifecycle lines (verbose notices) take no room while they are hidden, and are not even
measured then: a reopened session's are most of its blocks.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate, islice

from openwop_tui.ui.transcript.blocks import Block, estimate_height, lay_out
from openwop_tui.ui.transcript.budget import DrawnLines

__all__ = ["Column"]


class Column:
    """Every block of the transcript, with the line each starts at."""

    def __init__(self) -> None:
        self._blocks: list[Block] = []
        self._where: dict[str, int] = {}
        self._tops: list[int] = [0]
        """First line of each block (and the total at the end), valid up to ``_dirty``."""
        self._dirty = 0
        self.width = 0
        """The content width the heights are for (0: never laid out)."""
        self.show_verbose = False
        """Whether lifecycle lines are shown (else they take no room)."""
        self.drawn = DrawnLines()
        """Which blocks keep their drawn lines (those used last: `DrawnLines`)."""

    # ------------------------------------------------------------------ blocks

    def __len__(self) -> int:
        return len(self._blocks)

    def __getitem__(self, index: int) -> Block:
        return self._blocks[index]

    def __iter__(self) -> Iterator[Block]:
        return iter(self._blocks)

    def __reversed__(self) -> Iterator[Block]:
        return reversed(self._blocks)

    def index_of(self, item_id: str) -> int | None:
        """Where the block of item ``item_id`` is (``None``: no block shows it)."""
        return self._where.get(item_id)

    def block_for(self, item_id: str) -> Block | None:
        """The block showing item ``item_id``."""
        index = self._where.get(item_id)
        return None if index is None else self._blocks[index]

    def append(self, block: Block) -> None:
        """Put ``block`` at the end (its offset laid at once while the rest are valid)."""
        self._where[block.item_id] = len(self._blocks)
        self._blocks.append(block)
        block.budget = self.drawn
        if self._dirty == len(self._blocks) - 1:
            # (`height_of`, inlined: a reopened session adds tens of thousands of blocks at once)
            hidden = block.verbose and not self.show_verbose
            self._tops.append(self._tops[-1] + (0 if hidden else block.height))
            self._dirty = len(self._blocks)

    def insert_above(self, blocks: Sequence[Block]) -> None:
        """Put ``blocks`` above every block (the rest of a session opened newest first): every
        index held elsewhere moves down by ``len(blocks)``."""
        self._blocks[:0] = blocks
        for block in blocks:
            block.budget = self.drawn
        self._where = {block.item_id: index for index, block in enumerate(self._blocks)}
        self._tops = [0]
        self._dirty = 0

    def remove(self, indices: Iterable[int]) -> int | None:
        """Take the blocks at ``indices`` out; the first index that moved (``None``: none
        was there)."""
        gone = set(indices)
        if not gone:
            return None
        for index in gone:
            if 0 <= index < len(self._blocks):
                self.drawn.forget(self._blocks[index])
        self._blocks = [block for index, block in enumerate(self._blocks) if index not in gone]
        self._where = {block.item_id: index for index, block in enumerate(self._blocks)}
        first = min(gone)
        self.changed_from(first)
        return first

    def clear(self) -> None:
        """No blocks."""
        self._blocks.clear()
        self.drawn.clear()
        self._where.clear()
        self._tops = [0]
        self._dirty = 0

    # ----------------------------------------------------------------- heights

    def hidden(self, index: int) -> bool:
        """Whether block ``index`` takes no room (a lifecycle line, hidden)."""
        return self._blocks[index].verbose and not self.show_verbose

    def height_of(self, index: int) -> int:
        """The lines block ``index`` takes on screen (0 while hidden)."""
        return 0 if self.hidden(index) else self._blocks[index].height

    def changed_from(self, index: int) -> None:
        """Block ``index`` changed height: the offsets from it on are laid again when read."""
        self._dirty = min(self._dirty, index)

    @property
    def tops(self) -> list[int]:
        """The first line of each block, and the total line count last (read, not changed)."""
        self._fix()
        return self._tops

    @property
    def total(self) -> int:
        """Lines the whole transcript takes."""
        return self.tops[-1]

    def _fix(self) -> None:
        n = len(self._blocks)
        if self._dirty >= n and len(self._tops) == n + 1:
            return
        start = min(self._dirty, n)
        del self._tops[start + 1 :]
        # `height_of` inlined: after a resize this runs over every block (tens of thousands).
        blocks = islice(self._blocks, start, n)
        if self.show_verbose:
            heights = (block.height for block in blocks)
        else:
            heights = (0 if block.verbose else block.height for block in blocks)
        self._tops.extend(accumulate(heights, initial=self._tops[start]))
        del self._tops[start + 1]  # accumulate repeats the initial value
        self._dirty = n

    def block_at(self, y: int) -> int:
        """The block holding line ``y`` (the last one past the end)."""
        tops = self.tops
        # The last block starting at or before y: among blocks of no height (hidden lifecycle
        # lines) starting at the same line, that is the shown one after them.
        index = bisect_right(tops, y, hi=len(self._blocks)) - 1
        return min(max(index, 0), len(self._blocks) - 1)

    def shown_between(self, first: int, bottom: int) -> list[int]:
        """The shown blocks from ``first`` on that start above line ``bottom``."""
        tops = self.tops
        indices = []
        index = first
        while index < len(self._blocks) and tops[index] < bottom:
            if not self.hidden(index):
                indices.append(index)
            index += 1
        return indices

    def shown_at_end(self, height: int) -> list[int]:
        """The shown blocks, last first, that fill the last ``height`` lines."""
        indices = []
        total = 0
        index = len(self._blocks) - 1
        while index >= 0 and total < height:
            if not self.hidden(index):
                indices.append(index)
                total += self._blocks[index].height
            index -= 1
        return indices

    def step(self, index: int, direction: int) -> int | None:
        """The next shown block the cursor stops at (`Block.stop`) after ``index`` going
        ``direction`` (1 down, -1 up)."""
        index += direction
        while 0 <= index < len(self._blocks):
            if self._blocks[index].stop and not self.hidden(index):
                return index
            index += direction
        return None

    def relay(self, width: int) -> None:
        """A new width: re-estimate every height (a block drawn at ``width`` already keeps its
        lines' count) and lay the offsets in the same pass (`blocks.lay_out`)."""
        # (A hidden lifecycle line is given its height when shown: `measure_hidden`.)
        self._tops = lay_out(self._blocks, width, self.show_verbose)
        self.width = width
        self._dirty = len(self._blocks)

    def measure_hidden(self) -> None:
        """Give the lifecycle lines their heights at the current width: while hidden, neither
        `append` nor a resize (`relay`) works them out (they take no room, and are most of a
        reopened session's blocks)."""
        width = self.width
        if width <= 0:
            return  # (never laid out: the first layout estimates every block)
        columns = max(width, 10)
        for block in self._blocks:
            if block.verbose:
                _lay(block, width, columns)
        self._dirty = 0


def _lay(block: Block, width: int, columns: int) -> int:
    """Give ``block`` its height at ``width`` (``columns``: the width estimates use): its lines
    there if it was drawn at it, else an estimate (and it is no longer measured)."""
    cached = block.cache.get(width)
    if cached is not None:
        block.height = len(cached)
    elif block.last_drawn is not None and block.last_drawn[0] == width:
        block.height = block.last_drawn[1]  # drawn at this width, its lines dropped since
        block.measured = True
    else:
        block.height = estimate_height(block, columns)
        block.measured = False
    return block.height
