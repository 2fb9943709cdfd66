"""The transcript's search: every occurrence of the query, which one is current, and how a
drawn line shows them.

`Matches` belongs to the transcript view, which asks it to find (over every block's text,
drawn or not), to step, to mark a line, and to follow its blocks when they move (added above,
dropped). It holds places as (block number, occurrence within the block), so "3 of 17" counts
occurrences, not items. No widget: blocks' texts and lines in, places and strips out.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from openwop_tui.ui.transcript.finder import Finder

__all__ = ["Matches"]


class Matches:
    """What the search looks for, where it was found, and the match stepped to."""

    def __init__(self) -> None:
        self.finder = Finder()
        """The query and its toggles (an empty query: no search)."""
        self._places: list[tuple[int, int]] = []
        """(block, occurrence within it) of every match, in order."""
        self._current = -1

    def __bool__(self) -> bool:
        return bool(self.finder)

    def find(self, finder: Finder, texts: Iterable[str]) -> int:
        """Look for ``finder`` in ``texts`` (each block's, in order); how many times it
        occurs."""
        self.finder = finder
        self._places = []
        self._current = -1
        if finder:
            for index, text in enumerate(texts):
                self._places.extend((index, k) for k in range(finder.count(text)))
        return len(self._places)

    def clear(self) -> None:
        """No search."""
        self.find(Finder(), ())

    @property
    def position(self) -> tuple[int, int]:
        """(the current match, 1-based, or 0 before the first step; the match count)."""
        return self._current + 1, len(self._places)

    def step(self, direction: int) -> tuple[int, int] | None:
        """Make the next (1) or previous (-1) match current: its (block, occurrence);
        ``None`` when nothing was found."""
        if not self._places:
            return None
        if self._current < 0:
            self._current = 0 if direction > 0 else len(self._places) - 1
        else:
            self._current = (self._current + direction) % len(self._places)
        return self._places[self._current]

    def go(self, place: tuple[int, int]) -> tuple[int, int] | None:
        """Make the match at ``place`` (block, occurrence within it) current: ``place``, or
        ``None`` (nothing current) when nothing was found there."""
        try:
            self._current = self._places.index(place)
        except ValueError:
            return None
        return place

    def row_of(self, lines: list[Strip], occurrence: int) -> int:
        """The line of ``lines`` holding occurrence ``occurrence`` of the block (a line with
        two holds two of them)."""
        seen = 0
        for number, line in enumerate(lines):
            seen += self.finder.count(line.text)
            if seen > occurrence:
                return number
        return max(0, len(lines) - 1) if seen else 0

    def moved(self, count: int) -> None:
        """``count`` blocks were put before all others: every place moves down."""
        self._places = [(index + count, occurrence) for index, occurrence in self._places]

    def dropped_from(self, first: int) -> None:
        """Blocks from ``first`` on were taken off: their matches go, and the current one."""
        self._places = [place for place in self._places if place[0] < first]
        self._current = -1

    def mark(self, line: Strip, index: int, lines: list[Strip], row: int, match: Style) -> Strip:
        """A drawn line with every occurrence of the query in the match style; the current
        match stands out, in it swapped and underlined.

        Args:
            line: The line to mark.
            index: The index of the block the line is of (to find the current match on it).
            lines: The block's lines, drawn (the occurrences before ``row`` are counted in them).
            row: The line within the block.
            match: The style laid over each occurrence (the palette's ``match``).
        """
        spans = self.finder.cells(line.text)
        if not spans:
            return line
        current = self._current_on(index, lines, row)
        here = match + Style(reverse=True, underline=True, bold=True)
        pieces: list[Strip] = []
        cut = 0
        for number, (start, end) in enumerate(spans):
            pieces.append(line.crop(cut, start))
            pieces.append(_over(line.crop(start, end), here if number == current else match))
            cut = end
        pieces.append(line.crop(cut, line.cell_length))
        return Strip.join(pieces)

    def _current_on(self, index: int, lines: list[Strip], row: int) -> int | None:
        """Which occurrence on line ``row`` of block ``index`` is the current match, if any."""
        if not 0 <= self._current < len(self._places):
            return None
        block, occurrence = self._places[self._current]
        if block != index:
            return None
        before = sum(self.finder.count(line.text) for line in lines[:row])
        on_line = occurrence - before
        return on_line if 0 <= on_line < self.finder.count(lines[row].text) else None


def _over(strip: Strip, style: Style) -> Strip:
    """``strip`` with ``style`` laid over its own styles. `Strip.apply_style` lays it under, so
    a coloured header kept its colour over the match's: yellow on yellow in high contrast."""
    return Strip(
        [Segment(text, (own or Style()) + style, control) for text, own, control in strip],
        strip.cell_length,
    )
