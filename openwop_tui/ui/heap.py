"""What lives as long as the chat is kept out of the collector's full passes.

CPython's cyclic collector walks every object it tracks on each full pass, and a full pass comes
about once a second while a reply streams. Nearly all the app's objects live as long as it or
its chat: the modules, styles and widgets it opened with, a reopened session's items and
blocks, every finished run's items, drawn lines and timeline rows. Walked each time, they held
the event loop for 25-45 ms a pass at start-up, and more as the chat grew (a turn 500 messages
in took half as long again as the first). So the app freezes (`gc.freeze`) what exists at the
moments it settles: after its first screen (`openwop_tui.ui.controllers.opening`), while a
reopened session is drawn (`settled_heap`), after each run (`settle`).

Frozen objects are still freed by reference counting; only those in reference cycles wait for
the collector. So when the chat on screen is replaced (a new chat, another session opened, a
run caught up), `let_go` hands everything back to it, and the next settle freezes what is left.

Cycles are common: a Textual ``Strip`` caches its own crops and extensions, often itself (a
crop of the whole line), so every drawn line is a cycle. Frozen, a run's garbage lines were
kept for good: 0.3 MiB a short turn, two thirds of a long chat's growth (issue 26). So a run's
settle first collects the two young generations (`settle` with ``collect``: what was made since
the collector last passed over them, the run's last garbage; the older garbage of the run was
freed by the collector's own passes while it streamed, and a pass over every unfrozen object
held the keys typed as a run ends longer), and what died after it was
frozen (a line dropped from a block's cache, a redrawn reply's old lines) is collected by a
full pass once the frozen heap has grown by `REWALK_GROWTH` since the last one: CPython's own
rule for its oldest generation. A full pass walks every object the app holds (tens to hundreds
of milliseconds on a loaded machine), so it is not taken as a run ends, where the next key
waited behind it (issue 26: keys typed while answers streamed echoed in up to 1.2 s, against
0.4 s without it): it is due (`walk_due`) and taken once nobody has typed for a while and no
run streams (`openwop_tui.ui.quiet_walk`), or at once when the heap has doubled
(`REWALK_NOW_GROWTH`: a session typed into without a pause still gets its garbage back).
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["RunSettler", "let_go", "settle", "settled_heap", "size", "walk", "walk_due"]

#: How often a run that keeps making objects has them frozen (`RunSettler`), in seconds.
RUN_SETTLE_SECONDS = 1.0
#: The youngest generation's threshold (CPython's: 700) while a settled run streams
#: (`RunSettler`): objects made, less those freed, before the collector passes over them.
YOUNG_WHILE_SETTLING = 50_000


#: How much the frozen heap may grow (a fraction of it after the last full pass) before a full
#: pass is due (taken at a quiet moment: `walk_due`).
REWALK_GROWTH = 0.25
#: How much it may grow before a run's settle walks it at once, quiet or not.
REWALK_NOW_GROWTH = 1.0


class _Walked:
    """How large the heap was (`size`) after the last full pass (process-wide, as the
    collector)."""

    size = 0


def size() -> int:
    """How large the heap is: the memory blocks the interpreter holds (a constant-time count:
    `sys.getallocatedblocks` adds up its pools), each object one or a few.

    Not the frozen objects counted one by one (`gc.get_freeze_count` walks them all: 5 ms at
    a 3,000-turn session's 80,000 objects on a 2-core machine, 12 ms at 200,000, more as a
    chat grows), which every settle and every run's end took, and a reopened session four
    times before its newest turn showed (issue 26). The growth it is read for is a fraction of
    the whole: the frozen objects grow with the blocks they hold. Under an allocator that does
    not count its blocks (``PYTHONMALLOC=malloc``: 0), the frozen objects are counted."""
    return sys.getallocatedblocks() or gc.get_freeze_count()


def settle(*, collect: bool = True) -> None:
    """What exists now lives as long as the chat: out of the collector's full passes.

    ``collect``: the garbage cycles made since the last settle are freed first (a run's drawn
    lines, its finished tasks and responses), and the whole heap walked at once if it has grown
    by `REWALK_NOW_GROWTH` (by `REWALK_GROWTH`, a walk is only due: `walk_due`); without,
    everything is frozen as it is (the first screen, a reopened session: made with the
    collector paused, nearly all of it alive, and a pass would delay the first frame)."""
    _release_young()  # (a run's end, or a screen settled: the collector's own pace again)
    if collect:
        gc.collect(1)  # (the young generations only; the frozen objects are never walked)
    gc.freeze()
    if not collect:
        _Walked.size = size()
    elif _grown_past(REWALK_NOW_GROWTH):
        walk()


def _grown_past(growth: float) -> bool:
    return size() > _Walked.size * (1 + growth)


def walk_due() -> bool:
    """Whether the frozen heap has grown by `REWALK_GROWTH` since it was last walked whole:
    what died after it was frozen waits for a full pass (`walk`)."""
    return _grown_past(REWALK_GROWTH)


def walk() -> None:
    """A full pass over the whole heap, frozen objects too: what died after it was frozen (a
    line dropped from a block's cache, a redrawn reply's old lines) is freed, and what lives is
    frozen again."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _Walked.size = size()


class _Young:
    """The collector's thresholds `_hold_young` found (``None``: not held; process-wide, as
    the collector)."""

    held: tuple[int, int, int] | None = None


def _hold_young() -> None:
    """Young passes wait for `YOUNG_WHILE_SETTLING` objects (see `RunSettler`); the
    thresholds found are put back by `_release_young`."""
    if _Young.held is None:
        thresholds = gc.get_threshold()
        if thresholds[0] >= YOUNG_WHILE_SETTLING:
            return  # (set that high, or higher, by whoever runs the app: left as it is)
        _Young.held = thresholds
        gc.set_threshold(YOUNG_WHILE_SETTLING, *thresholds[1:])


def _release_young() -> None:
    """The thresholds `_hold_young` found, back."""
    if _Young.held is not None:
        gc.set_threshold(*_Young.held)
        _Young.held = None


class RunSettler:
    """Settles what a long run makes while it streams, about once every `RUN_SETTLE_SECONDS`.

    A fast host's run makes objects that live as long as the chat (its items, drawn lines,
    timeline entries, the store's batches) at thousands a second. Left in the collector's care
    until the run ends, each full pass walked all of them: at 10,000 events a second the passes
    grew to hundreds of milliseconds, held the event loop (a key's echo waited behind them) and
    took a tenth of its time. Settling them as the run goes keeps each pass to what the last
    second made. The young generations are collected first, so the short-lived cycles of the
    last second are freed rather than frozen.

    Once a run has been settled, the collector's own passes over the young generations wait
    for `YOUNG_WHILE_SETTLING` new objects (`_hold_young`) until the run ends (`settle`): the
    next settle frees the young cycles anyway, and in between CPython's passes (every 700) walked
    each object the run keeps three times, the objects of its store's batches and timeline
    queue (gone within a second) besides. In the app under a 20 s flood of 10,000 events a
    second (three runs each, paired): 2,161-2,275 young passes and 216-230 of the middle
    generation, 1.57-2.11 s of the event loop, before; 116-124 and 42 (the settles', most of
    them), 0.43-0.47 s, after; each settle then walks a second's objects at once, about
    10 ms instead of 3.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._last = clock()

    def tick(self) -> bool:
        """Settle if the last settle is `RUN_SETTLE_SECONDS` old; whether it did."""
        now = self._clock()
        if now - self._last < RUN_SETTLE_SECONDS:
            return False
        self._last = now
        # The young generations freed, the rest frozen: never the whole heap walked here (the
        # run's end decides that, `settle`), or a flood's keys would wait behind full passes.
        gc.collect(1)
        gc.freeze()
        _hold_young()
        return True


def let_go() -> None:
    """The chat on screen was replaced: what was frozen may be garbage now (the old chat's
    cycles), so the collector gets it all back."""
    _release_young()
    gc.unfreeze()
    _Walked.size = 0


@contextmanager
def settled_heap() -> Iterator[None]:
    """Draw a reopened session's items with the collector paused, then `settle`.

    A session of 3,000 turns is hundreds of thousands of objects (items, blocks, the runs'
    folds), and the ones made while adding them would set off collections that cost more than
    the adding."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
        settle(collect=False)
