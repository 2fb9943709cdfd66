"""The transcript's search state on its own: occurrences counted per block, stepped around,
found on their line, and following their blocks when older ones are put before them (a session
opened newest first) or blocks are dropped (an exchange replaced)."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from openwop_tui.ui.transcript.finder import Finder
from openwop_tui.ui.transcript.matches import Matches


def _lines(*texts: str) -> list[Strip]:
    return [Strip([Segment(text)]) for text in texts]


def test_occurrences_are_counted_and_stepped_around() -> None:
    matches = Matches()
    assert not matches
    assert matches.find(Finder("cat"), ["a cat", "no", "cat and cat"]) == 3
    assert matches and matches.position == (0, 3)
    assert matches.step(1) == (0, 0)
    assert matches.step(1) == (2, 0)
    assert matches.step(1) == (2, 1)
    assert matches.step(1) == (0, 0)  # round again
    assert matches.step(-1) == (2, 1)
    assert matches.position == (3, 3)
    matches.clear()
    assert not matches and matches.step(1) is None and matches.position == (0, 0)


def test_an_occurrence_is_found_on_its_line() -> None:
    matches = Matches()
    matches.find(Finder("cat"), ["cat\nnothing\ncat cat"])
    lines = _lines("cat", "nothing", "cat cat")
    assert [matches.row_of(lines, n) for n in range(3)] == [0, 2, 2]


def test_places_follow_blocks_put_before_or_dropped() -> None:
    matches = Matches()
    matches.find(Finder("x"), ["x", "y", "x"])
    matches.moved(10)  # ten older blocks above
    assert [matches.step(1) for _ in range(2)] == [(10, 0), (12, 0)]
    matches.dropped_from(11)
    assert matches.position == (0, 1)
    assert matches.step(1) == (10, 0)


def test_the_current_match_stands_out_on_its_line() -> None:
    matches = Matches()
    matches.find(Finder("ab"), ["ab ab"])
    matches.step(1)
    line = _lines("ab ab")[0]
    marked = matches.mark(line, 0, [line], 0, Style(bgcolor="yellow"))
    styles = [segment.style for segment in marked if segment.text == "ab"]
    assert len(styles) == 2
    assert styles[0] is not None and styles[0].reverse and styles[0].underline
    assert styles[1] is not None and not styles[1].reverse
