"""The transcript's drawn lines are bounded over a session of floods (issue 26): a block taller
than the budget keeps its lines only while it is one of the two used last, so four floods'
replies (about 14,000 lines, 11 MB drawn, each) are not all kept because they are among the
sixteen blocks used last; the small blocks of a screen still are."""

from __future__ import annotations

from typing import Any, cast

from openwop_tui.ui.transcript.budget import KEPT_BLOCKS, DrawnLines


class _Block:
    """A block as the budget sees it: it can forget its lines."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.dropped = False

    def drop_lines(self) -> None:
        self.dropped = True


def _drawn(budget: DrawnLines, block: _Block, lines: int) -> None:
    block.dropped = False
    budget.drawn(cast(Any, block), lines)


def test_only_the_two_tall_blocks_used_last_keep_their_lines() -> None:
    budget = DrawnLines(budget=1024)
    replies = []
    for n in range(4):  # a message, then its flood's tall reply
        _drawn(budget, _Block(f"message {n}"), 2)
        replies.append(_Block(f"reply {n}"))
        _drawn(budget, replies[-1], 14_000)
    assert [reply.dropped for reply in replies] == [True, True, False, False]
    assert budget.lines == 2 * 14_000 + 4 * 2
    assert len(budget) <= KEPT_BLOCKS


def test_the_small_blocks_of_a_screen_keep_their_lines_beside_a_tall_one() -> None:
    budget = DrawnLines(budget=1024)
    small = [_Block(f"notice {n}") for n in range(8)]
    tall = _Block("reply")
    _drawn(budget, tall, 14_000)
    for block in small:
        _drawn(budget, block, 3)
    assert not tall.dropped  # (one of the two tall ones used last)
    assert not any(block.dropped for block in small)
