"""A long top-level list drawn as pieces of one item each, so a list that is still streaming
costs its last item at each redraw, not all of its items.

A reply's open markdown block is parsed and drawn again at every streamed redraw
(`openwop_tui.draw.markdown`). For a list that was every item: markdown-it parsing them all and
Rich laying each one out, half a millisecond an item on a 2-core machine (a 100-item list 50 ms a
redraw, 800 items 440 ms), the event loop held throughout.

An item of a top-level list is finished once the next item has begun on a whole line: what
follows cannot reach back into it (a line that is not indented under it ends it, and a lazy
line can only continue the item it follows). So once a list has two items, every item but the
last is *settled*: its tokens are kept as a one-item list (`listed`) and drawn once, and the
reply's text is parsed again only from the last item's first line. Rich draws a list item by
item, with no blank line between them, so the items drawn apart read as the list drawn whole.
Two things in Rich's drawing belong to the whole list, and a piece carries them in its list
token's ``meta`` (`NUMBERS`, read by `NumberedList`): an ordered item's number (its place in the
list, not the number written before it) and the width the numbers are padded to (from the
list's last number, so a list growing past 9, 99, … items has its settled pieces made again).
The one thing markdown-it decides for a whole list that Rich does not draw is whether it is
loose (blank lines between items): Rich draws loose and tight lists alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from markdown_it.token import Token
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import ListElement, Markdown

__all__ = [
    "CONTINUES",
    "LIST_OPENS",
    "NUMBERS",
    "NumberedList",
    "OpenList",
    "continues",
    "items",
    "listed",
]

#: The token types that open a list.
LIST_OPENS = frozenset({"bullet_list_open", "ordered_list_open"})
#: The key of a piece's list token's ``meta`` that holds ``(first number, last number)``: the
#: number of its first item, and the number Rich pads the whole list's numbers to the width of.
NUMBERS = "numbers"
#: The key of a piece's list token's ``meta`` that says it goes on a list drawn above it: Rich
#: draws a blank line before a list, and the items below the first are drawn without one.
CONTINUES = "continues"


class NumberedList(ListElement):
    """Rich's ordered list, numbered from its token's ``meta[NUMBERS]`` when a piece of a longer
    list carries it (else as Rich numbers it)."""

    numbers: tuple[int, int] | None = None

    @classmethod
    def create(cls, markdown: Markdown, token: Token) -> ListElement:
        element = super().create(markdown, token)
        assert isinstance(element, NumberedList)
        element.numbers = token.meta.get(NUMBERS) if token.meta else None
        return element

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.numbers is None:
            yield from super().__rich_console__(console, options)
            return
        first, last = self.numbers
        for index, item in enumerate(self.items):
            yield from item.render_number(console, options, first + index, last)


def items(tokens: list[Token]) -> list[tuple[int, int]]:
    """Where each item of a top-level list's tokens begins and ends: ``(index of its
    list_item_open, index after its list_item_close)``."""
    found = []
    start = 0
    for index, token in enumerate(tokens):
        if token.level != 1:
            continue
        if token.type == "list_item_open":
            start = index
        elif token.type == "list_item_close":
            found.append((start, index + 1))
    return found


def listed(
    tokens: list[Token], inner: list[Token], numbers: tuple[int, int] | None, *, goes_on: bool
) -> list[Token]:
    """``inner`` (whole items of the top-level list ``tokens``) as a list of their own.

    Args:
        tokens: The list's tokens (its list token is copied, and its closing one).
        inner: The items the piece holds (their tokens shared, not copied).
        numbers: Its numbers (`NUMBERS`: an ordered list's; ``None`` for bullets).
        goes_on: Whether it goes on the list drawn above it (`CONTINUES`).
    """
    opening, closing = tokens[0].copy(), tokens[-1].copy()
    opening.meta = marks(numbers, goes_on=goes_on)
    return [opening, *inner, closing]


def marks(numbers: tuple[int, int] | None, *, goes_on: bool) -> dict[str, object]:
    """A piece's list token's ``meta``: its numbers, and whether it goes on a list above it."""
    meta: dict[str, object] = {CONTINUES: True} if goes_on else {}
    if numbers is not None:
        meta[NUMBERS] = numbers
    return meta


def continues(tokens: list[Token]) -> bool:
    """Whether a block's tokens are a piece going on the list drawn above it."""
    return bool(tokens) and tokens[0].type in LIST_OPENS and CONTINUES in tokens[0].meta


@dataclass
class OpenList:
    """A top-level list still streaming, part of it settled: what its pieces need to be drawn
    as the whole list would be."""

    kind: str
    """Its list token's type (bullets or numbers)."""
    start: int
    """The number of its first item (an ordered list's; 1 for bullets)."""
    first: int
    """Where its first piece is among the reply's finished blocks (the rest follow it)."""
    settled: int = 0
    """How many of its items are settled pieces."""
    last: int = 0
    """The last number its settled pieces are padded to the width of."""

    @classmethod
    def of(cls, opening: Token, first: int) -> OpenList:
        """The list whose list token is ``opening``, its first piece to be at ``first``."""
        start = int(opening.attrs.get("start", 1)) if opening.type == "ordered_list_open" else 1
        return cls(opening.type, start, first)

    def continued_by(self, opening: Token) -> bool:
        """Whether a part that begins the text after the settled items, opened by ``opening``,
        is this list going on."""
        return opening.type == self.kind and opening.level == 0

    def numbers(self, index: int, count: int) -> tuple[int, int] | None:
        """What the piece beginning with item ``index`` (from 0) is numbered with, the list
        holding ``count`` items in all; ``None`` for bullets."""
        if self.kind != "ordered_list_open":
            return None
        return self.start + index, self.start + count

    def widened(self, count: int) -> bool:
        """Whether the list, now ``count`` items, pads its numbers to another width than its
        settled pieces were drawn with (they are to be made again)."""
        if self.kind != "ordered_list_open":
            return False
        return len(str(self.start + count)) != len(str(self.last))
