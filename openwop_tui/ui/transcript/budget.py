"""How many drawn lines the transcript keeps: those of the blocks seen last, a few screens' worth.

A block's drawn lines (`Block.cache`: Rich segments and styles, a kilobyte or more a line) were
kept for every block ever drawn, so a long live session grew with everything it had shown
(issue 26: two thirds of the growth of 300 turns). `DrawnLines` keeps them for the blocks used
last only, counted in lines (`KEPT_DRAWN_LINES`): past it, the block used longest ago forgets
its lines (`Block.drop_lines`) and is drawn again from its item when it is next seen, at the
height it had (a dropped block keeps its height, so the scroll bar does not move).

The blocks used last are not dropped (`KEPT_BLOCKS`), so the blocks of one screen are not
dropped while it paints them; but a block taller than the budget itself (a flood's reply:
about 14,000 lines, 11 MB drawn) stays drawn only while it is one of the two tall ones used
last (`KEPT_TALL`): a screen shows no more than two of them at once (each is taller than it),
and a session of floods kept every reply's lines drawn while it was among the last sixteen
blocks (issue 26: 44 MB over four floods).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openwop_tui.ui.transcript.blocks import Block

__all__ = ["KEPT_BLOCKS", "KEPT_DRAWN_LINES", "KEPT_TALL", "DrawnLines"]

#: Drawn lines kept, over every block: the screen and the pages drawn ahead around it, several
#: times over (a line with its Strip caches is about 5 KB: 1,024 of them are a few MB).
KEPT_DRAWN_LINES = 1024
#: Blocks used last that keep their lines past the budget (a screen's worth of items)...
KEPT_BLOCKS = 16
#: ...of which the tall ones (each more lines than the budget) used last that keep theirs.
KEPT_TALL = 2


class DrawnLines:
    """The blocks that hold drawn lines, used longest ago first, and how many they hold."""

    def __init__(self, budget: int = KEPT_DRAWN_LINES, blocks: int = KEPT_BLOCKS) -> None:
        """``budget``: lines kept over every block; ``blocks``: the blocks used last, kept
        whatever their lines."""
        self.budget = budget
        self.blocks = blocks
        # By id: a block is compared by identity (`Block` is ``eq=False``); a dict keeps the
        # order of use (a block used again is moved to the end).
        self._held: dict[int, tuple[Block, int]] = {}
        self._last: Block | None = None
        self.lines = 0
        """Lines held by the blocks kept (as counted when each was last drawn)."""

    def __len__(self) -> int:
        return len(self._held)

    def drawn(self, block: Block, count: int) -> None:
        """``block`` was drawn and holds ``count`` lines now: it is the one used last, and
        the blocks used longest ago forget theirs while the budget is passed."""
        held = self._held
        previous = held.pop(id(block), None)
        if previous is not None:
            self.lines -= previous[1]
        held[id(block)] = (block, count)
        self.lines += count
        self._last = block
        while self.lines > self.budget:
            victim = self._droppable()
            if victim is None:
                break
            dropped, lines = held.pop(victim)
            self.lines -= lines
            dropped.drop_lines()

    def _droppable(self) -> int | None:
        """The block used longest ago that may forget its lines (by id): one not among the
        `KEPT_BLOCKS` used last, or a tall one (more lines than the budget) not among the
        `KEPT_TALL` tall ones used last; ``None`` when every block held is kept."""
        held = self._held
        kept_from = len(held) - self.blocks
        tall = [key for key, (_, lines) in held.items() if lines > self.budget]
        kept_tall = set(tall[-KEPT_TALL:])
        for place, (key, (_, lines)) in enumerate(held.items()):
            if place < kept_from or (lines > self.budget and key not in kept_tall):
                return key
        return None

    def used(self, block: Block) -> None:
        """``block``'s kept lines were read (painted): it is the one used last."""
        if block is self._last:
            return  # (a block's lines are read once a screen line: the same block, mostly)
        entry = self._held.pop(id(block), None)
        if entry is not None:
            self._held[id(block)] = entry
            self._last = block

    def forget(self, block: Block) -> None:
        """``block`` left the column (or forgot its lines itself): no longer counted."""
        entry = self._held.pop(id(block), None)
        if entry is not None:
            self.lines -= entry[1]
        if self._last is block:
            self._last = None

    def clear(self) -> None:
        self._held.clear()
        self._last = None
        self.lines = 0
