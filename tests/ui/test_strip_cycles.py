"""A drawn line is freed when it is dropped, not left in a reference cycle for the collector
(`openwop_tui.ui.strip_cycles`): Textual's `Strip` kept itself in its own caches."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator

import pytest
from rich.segment import Segment
from textual.strip import Strip

from openwop_tui.ui import strip_cycles

pytestmark = pytest.mark.quick


@pytest.fixture
def no_collector() -> Iterator[None]:
    """The collector off, and the heap swept first: what `gc.collect` finds after is ours."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _left_in_cycles(use: Callable[[Strip], object]) -> int:
    """How many objects a strip, used by ``use`` then dropped, leaves for the collector."""
    strip = Strip([Segment("hello world")], 11)
    use(strip)
    del strip
    return gc.collect()


USES: list[Callable[[Strip], object]] = [
    lambda s: s.crop_extend(0, 11, None),  # the compositor's every line, as wide as the screen
    lambda s: s.divide([11]),
]


@pytest.mark.parametrize("use", USES, ids=["crop_extend", "divide"])
def test_a_strip_asked_for_itself_is_freed_when_dropped(
    no_collector: None, use: Callable[[Strip], object]
) -> None:
    strip_cycles.install()
    assert _left_in_cycles(use) == 0


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
