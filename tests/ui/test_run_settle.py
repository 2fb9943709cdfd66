"""What a long run makes is settled as it streams (issue 26, part 1): at 10,000 events a
second the collector's full passes walked everything the run had made so far, hundreds of
milliseconds each, with the event loop (and a key's echo) waiting. `RunSettler` freezes what
exists about once a second, after collecting the young generations so the last second's
short-lived cycles are freed, not frozen. A clock the test moves; counts, not timings."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from openwop_tui.ui import heap
from openwop_tui.ui.heap import RUN_SETTLE_SECONDS, RunSettler


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


@pytest.fixture
def unfrozen() -> Iterator[None]:
    heap.let_go()
    try:
        yield
    finally:
        heap.let_go()  # (the test process's objects go back to the collector)


def test_a_run_is_settled_about_once_a_second(unfrozen: None) -> None:
    now = [0.0]
    settler = RunSettler(clock=lambda: now[0])
    kept = [Node() for _ in range(100)]  # what the run made that lives on
    assert not settler.tick()  # not yet
    assert gc.get_freeze_count() == 0
    now[0] = RUN_SETTLE_SECONDS / 2
    assert not settler.tick()
    now[0] = RUN_SETTLE_SECONDS
    assert settler.tick()
    assert gc.get_freeze_count() >= len(kept)  # out of the collector's passes
    frozen = gc.get_freeze_count()
    assert not settler.tick()  # (once a second, not at every frame)
    assert gc.get_freeze_count() == frozen


def test_the_last_seconds_dead_cycles_are_freed_not_frozen(unfrozen: None) -> None:
    now = [0.0]
    settler = RunSettler(clock=lambda: now[0])
    dead = Node()
    gone = weakref.ref(dead)
    del dead  # garbage, but in a cycle: still there until a collection
    assert gone() is not None
    now[0] = RUN_SETTLE_SECONDS
    assert settler.tick()
    assert gone() is None


def test_while_a_settled_run_streams_the_young_passes_wait_for_the_next_settle(
    unfrozen: None,
) -> None:
    # Between two settles CPython passed over the young objects every 700: each object a flood
    # keeps was walked three times, and the next settle frees the young cycles anyway.
    before = gc.get_threshold()
    now = [0.0]
    settler = RunSettler(clock=lambda: now[0])
    assert not settler.tick()
    assert gc.get_threshold() == before  # (a run not settled yet: the collector's own pace)
    now[0] = RUN_SETTLE_SECONDS
    assert settler.tick()
    assert gc.get_threshold() == (heap.YOUNG_WHILE_SETTLING, *before[1:])
    now[0] = 2 * RUN_SETTLE_SECONDS
    assert settler.tick()
    heap.settle()  # the run's end: CPython's thresholds back
    assert gc.get_threshold() == before
    now[0] = 3 * RUN_SETTLE_SECONDS
    assert settler.tick()
    heap.let_go()  # (another chat shown: the same)
    assert gc.get_threshold() == before


def test_a_threshold_set_higher_by_whoever_runs_the_app_is_left_alone(unfrozen: None) -> None:
    before = gc.get_threshold()
    gc.set_threshold(heap.YOUNG_WHILE_SETTLING * 2, *before[1:])
    try:
        now = [0.0]
        settler = RunSettler(clock=lambda: now[0])
        now[0] = RUN_SETTLE_SECONDS
        assert settler.tick()
        assert gc.get_threshold()[0] == heap.YOUNG_WHILE_SETTLING * 2
        heap.settle()
        assert gc.get_threshold()[0] == heap.YOUNG_WHILE_SETTLING * 2
    finally:
        gc.set_threshold(*before)
