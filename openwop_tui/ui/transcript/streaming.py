"""Streamed redraws, coalesced: a burst of tokens costs one redraw of its block.

A reply (or reasoning) being streamed is not drawn again at every piece: its block is marked
(`Redraws.schedule`) and drawn once the timer fires, with every block marked meanwhile. The
timer waits `STREAM_REDRAW_SECONDS`, or `STREAM_REDRAW_SHARE` times as long as the last redraw
took when that is longer, so redrawing a reply that has grown long takes at most a seventh of
the event loop's time: keys, and the ingest that makes the reply, keep the rest.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.timer import Timer
from textual.widget import Widget

__all__ = ["STREAM_REDRAW_SECONDS", "STREAM_REDRAW_SHARE", "Redraws"]

#: Coalescing of streamed redraws: a burst of tokens costs one redraw per this many seconds.
STREAM_REDRAW_SECONDS = 0.04
#: A streamed redraw waits this many times as long as the last one took, so redrawing a reply
#: that has grown long (a fast host's, or a 15 MB one) takes at most a seventh of the event
#: loop's time: keys, and the ingest that makes the reply, keep the rest. (A short reply
#: redraws in a few ms: `STREAM_REDRAW_SECONDS` decides its pace. With a quarter, a flood of
#: 10,000 chunks a second fell 7-10 s behind; with a seventh, 5-6 s.)
STREAM_REDRAW_SHARE = 6.0


class Redraws:
    """The streamed blocks waiting for their redraw, and the timer that draws them."""

    def __init__(self, owner: Widget, redraw: Callable[[set[int]], None]) -> None:
        """``owner``: the widget whose timer it is; ``redraw``: draws the blocks of the
        indices given, now."""
        self._owner = owner
        self._redraw = redraw
        self.pending: set[int] = set()
        """The blocks (by index) that wait for their redraw."""
        self._timer: Timer | None = None
        self.cost = 0.0
        """Seconds the last redraw took (it spaces out the next one)."""
        self.clock: Callable[[], float] = time.perf_counter
        """What the cost is timed with."""

    @property
    def due(self) -> bool:
        """Whether a redraw waits for its timer."""
        return self._timer is not None

    def schedule(self, index: int) -> None:
        """Redraw block ``index`` soon (with every other block marked by then)."""
        self.pending.add(index)
        if self._timer is None:
            delay = max(STREAM_REDRAW_SECONDS, STREAM_REDRAW_SHARE * self.cost)
            self._timer = self._owner.set_timer(delay, self.flush)

    def now(self) -> None:
        """Draw now what waits, if anything does (the run ended: nothing will come to
        coalesce with it)."""
        if self._timer is not None:
            self._timer.stop()
            self.flush()

    def flush(self) -> None:
        """Draw every marked block (the timer's callback)."""
        self._timer = None
        started = self.clock()
        pending, self.pending = self.pending, set()
        self._redraw(pending)
        self.cost = self.clock() - started

    def moved(self, count: int) -> None:
        """``count`` blocks were put above every other: each index moves down."""
        self.pending = {index + count for index in self.pending}

    def dropped_from(self, first: int) -> None:
        """Blocks from ``first`` on were taken out or moved up: forget them."""
        self.pending = {index for index in self.pending if index < first}

    def clear(self) -> None:
        """Nothing waits (the view was emptied): the timer is stopped, and the cost of the
        emptied view's last redraw no longer spaces out the next view's."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.pending.clear()
        self.cost = 0.0
