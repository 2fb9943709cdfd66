"""A drawn line is freed when it is dropped, not left in a reference cycle for the collector
(`openwop_tui.ui.strip_cycles`): Textual's `Strip` kept itself in its own caches."""

from __future__ import annotations

import gc
from collections.abc import Callable

import pytest
from rich.segment import Segment
from textual.strip import Strip

from openwop_tui.ui import strip_cycles

pytestmark = pytest.mark.quick


def _holds_itself(strip: Strip, depth: int = 6) -> bool:
    """Whether ``strip`` is among what it refers to, ``depth`` references deep: a cycle
    (its caches hold it). Asked of the strip itself, not of the collector's count, which
    whatever else runs meanwhile (a thread of an earlier test) adds to."""
    seen: set[int] = set()
    frontier = gc.get_referents(strip)
    for _ in range(depth):
        deeper = []
        for referent in frontier:
            if referent is strip:
                return True
            if id(referent) not in seen:
                seen.add(id(referent))
                deeper.extend(gc.get_referents(referent))
        frontier = deeper
    return False


USES: list[Callable[[Strip], object]] = [
    lambda s: s.crop_extend(0, 11, None),  # the compositor's every line, as wide as the screen
    lambda s: s.divide([11]),
]


@pytest.mark.parametrize("use", USES, ids=["crop_extend", "divide"])
def test_a_strip_asked_for_itself_is_freed_when_dropped(use: Callable[[Strip], object]) -> None:
    strip_cycles.install()
    strip = Strip([Segment("hello world")], 11)
    use(strip)
    assert not _holds_itself(strip)


@pytest.mark.parametrize("use", USES, ids=["crop_extend", "divide"])
def test_the_same_results_as_textuals_own(use: Callable[[Strip], object]) -> None:
    strip_cycles.install()
    strip = Strip([Segment("hello world")], 11)
    first, again = use(strip), use(strip)
    assert first == again
    # A result other than the strip itself is still remembered (Textual's cache does its work).
    cropped = strip.crop_extend(0, 5, None)
    assert strip.crop_extend(0, 5, None) is cropped
    assert list(cropped) == [Segment("hello")]


def test_installing_twice_wraps_once() -> None:
    strip_cycles.install()
    method = Strip.crop_extend
    strip_cycles.install()
    assert Strip.crop_extend is method
