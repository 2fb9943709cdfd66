"""`openwop_tui.ui.heap`: what the app freezes out of the collector's passes is alive, and the
garbage cycles a run leaves (every drawn line is one: a Textual ``Strip`` caches itself) are
freed, not frozen for good (issue 26: two thirds of a long chat's growth)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from openwop_tui.ui import heap


class Cycle:
    """An object that refers to itself: only the collector frees it."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def paused() -> Iterator[None]:
    """No automatic collection: only `heap` decides what is collected."""
    heap.let_go()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        heap.let_go()


def test_a_runs_garbage_cycles_are_freed_when_it_settles(paused: None) -> None:
    heap.settle(collect=False)  # (the first screen)
    made = Cycle()
    gone = weakref.ref(made)
    del made
    heap.settle()
    assert gone() is None
    assert gc.get_freeze_count() > 0  # what is alive is frozen all the same


def test_what_died_after_it_was_frozen_is_freed_by_the_walk_due_once_the_heap_grew(
    paused: None,
) -> None:
    made = Cycle()
    gone = weakref.ref(made)
    heap.settle(collect=False)  # frozen alive (a drawn line in a block's cache)
    del made  # dropped since (the block's lines forgotten)
    heap.settle()
    assert gone() is not None and not heap.walk_due()  # a run's settle walks what it made
    grown = heap.size() * heap.REWALK_GROWTH
    kept = [[] for _ in range(int(grown) + 100)]  # what later runs leave, alive (a block each)
    heap.settle()
    assert gone() is not None  # grown by a quarter: not walked as the run ends (keys wait)...
    assert heap.walk_due()  # ...but due, for a quiet moment
    heap.walk()
    assert gone() is None and not heap.walk_due()
    assert gc.get_freeze_count() >= len(kept)


def test_a_heap_that_doubled_is_walked_as_the_run_ends(paused: None) -> None:
    made = Cycle()
    gone = weakref.ref(made)
    heap.settle(collect=False)
    del made
    kept = [[] for _ in range(int(heap.size() * heap.REWALK_NOW_GROWTH) + 100)]
    heap.settle()  # (no quiet moment came: typed into without a pause)
    assert gone() is None and not heap.walk_due()
    assert gc.get_freeze_count() >= len(kept)


def test_the_heap_is_measured_without_counting_the_frozen_objects_one_by_one(
    paused: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every settle and every run's end reads the heap's size: counting the frozen objects
    (`gc.get_freeze_count` walks them) cost 5-12 ms a read in a long session (issue 26)."""

    def walked() -> int:
        raise AssertionError("the frozen objects were counted one by one")

    monkeypatch.setattr(gc, "get_freeze_count", walked)
    heap.settle(collect=False)
    heap.settle()
    assert not heap.walk_due()
    heap.walk()
    assert heap.size() > 0


def test_an_allocator_that_counts_no_blocks_has_the_frozen_objects_counted(
    paused: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under ``PYTHONMALLOC=malloc`` the interpreter counts no blocks: the heap's growth is
    still seen, or what died frozen would never be walked."""
    monkeypatch.setattr(heap.sys, "getallocatedblocks", lambda: 0)
    heap.settle(collect=False)
    kept = [[] for _ in range(int(gc.get_freeze_count() * heap.REWALK_GROWTH) + 100)]
    heap.settle()
    assert heap.walk_due()
    assert kept
