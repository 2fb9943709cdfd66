"""How many drawn lines the transcript keeps: those of the blocks seen last, a few screens' worth.

A block's drawn lines (`Block.cache`: Rich segments and styles, a kilobyte or more a line) were
kept for every block ever drawn, so a long live session grew with everything it had shown
(issue 26: two thirds of the growth of 300 turns). `DrawnLines` keeps them for the blocks used
last only, counted in lines (`KEPT_DRAWN_LINES`): past it, the block used longest ago forgets
its lines (`Block.drop_lines`) and is drawn again from its item when it is next seen, at the
height it had (a dropped block keeps its height, so the scroll bar does not move).

The blocks used last are never dropped, however many lines they hold (`KEPT_BLOCKS`): one
reply taller than the budget stays drawn while it is on screen, and the blocks of one screen
are not dropped while it paints them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openwop_tui.ui.transcript.blocks import Block

__all__ = ["KEPT_BLOCKS", "KEPT_DRAWN_LINES", "DrawnLines"]

#: Drawn lines kept, over every block: the screen and the pages drawn ahead around it, several
#: times over (a line with its Strip caches is about 5 KB: 1,024 of them are a few MB).
KEPT_DRAWN_LINES = 1024
#: Blocks used last that keep their lines whatever they hold (a screen's worth of items).
KEPT_BLOCKS = 16


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
        while self.lines > self.budget and len(held) > self.blocks:
            oldest, lines = held.pop(next(iter(held)))
            self.lines -= lines
            oldest.drop_lines()

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
