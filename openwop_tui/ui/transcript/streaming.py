"""Streamed redraws, coalesced: a burst of tokens costs one redraw of its block.

A reply (or reasoning) being streamed is not drawn again at every piece: its block is marked
(`Redraws.schedule`) and drawn once the timer fires, with every block marked meanwhile. The
timer waits `STREAM_REDRAW_SECONDS`, or `STREAM_REDRAW_SHARE` times as long as the last redraw
took when that is longer, so redrawing a reply that has grown long takes at most a seventh of
the event loop's time: keys, and the ingest that makes the reply, keep the rest. While a host
sends pieces faster than anyone reads them (`FLOOD_PIECES_PER_SECOND`), the timer waits at least
`FLOOD_REDRAW_SECONDS`: a frame of a flood's reply (its redraw and the paint of the screen after
it) cost as much of the loop as reading a hundred or two of its events, ten times a second.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.timer import Timer
from textual.widget import Widget

__all__ = [
    "FLOOD_PIECES_PER_SECOND",
    "FLOOD_REDRAW_SECONDS",
    "STREAM_REDRAW_SECONDS",
    "STREAM_REDRAW_SHARE",
    "Redraws",
]

#: Coalescing of streamed redraws: a burst of tokens costs one redraw per this many seconds.
STREAM_REDRAW_SECONDS = 0.04
#: A streamed redraw waits this many times as long as the last one took, so redrawing a reply
#: that has grown long (a fast host's, or a 15 MB one) takes at most a seventh of the event
#: loop's time: keys, and the ingest that makes the reply, keep the rest. (A short reply
#: redraws in a few ms: `STREAM_REDRAW_SECONDS` decides its pace. With a quarter, a flood of
#: 10,000 chunks a second fell 7-10 s behind; with a seventh, 5-6 s.)
STREAM_REDRAW_SHARE = 6.0
#: Streamed pieces a second (between two redraws) past which a host floods: a model read as it
#: writes sends tens to hundreds, a fast local one a thousand or so; the demo host's fast host
#: sends 10,000.
FLOOD_PIECES_PER_SECOND = 2_000
#: How often a flood's streamed blocks are drawn again, at most: four times a second, where
#: words come faster than they can be read. The rest of the loop reads the host: in a 10,000
#: events a second flood (`python -m benchmarks pty_flood_60`) a redraw and its paint cost
#: 12-14 ms, and were done ten times a second.
FLOOD_REDRAW_SECONDS = 0.25


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
        """What the cost and the pace of the pieces are timed with."""
        self._pieces = 0
        """Pieces scheduled since the last redraw."""
        self._last: float | None = None
        """When the last redraw began (``None``: none yet, or the view was emptied)."""
        self.flooding = False
        """Whether pieces came faster than `FLOOD_PIECES_PER_SECOND` between the last two
        redraws (the next waits `FLOOD_REDRAW_SECONDS`)."""

    @property
    def due(self) -> bool:
        """Whether a redraw waits for its timer."""
        return self._timer is not None

    def schedule(self, index: int) -> None:
        """Redraw block ``index`` soon (with every other block marked by then)."""
        self.pending.add(index)
        self._pieces += 1
        if self._timer is None:
            delay = max(STREAM_REDRAW_SECONDS, STREAM_REDRAW_SHARE * self.cost)
            if self.flooding and self._since_last() < FLOOD_REDRAW_SECONDS:
                # (Pieces right after a flood's redraw: it goes on. After a pause, a new reply.)
                delay = max(delay, FLOOD_REDRAW_SECONDS)
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
        if self._last is not None and started > self._last:
            # The pace since the last redraw.
            self.flooding = self._pieces / (started - self._last) > FLOOD_PIECES_PER_SECOND
        self._last, self._pieces = started, 0
        pending, self.pending = self.pending, set()
        self._redraw(pending)
        self.cost = self.clock() - started

    def _since_last(self) -> float:
        """Seconds since the last redraw began (infinite before the first)."""
        return float("inf") if self._last is None else self.clock() - self._last

    def moved(self, count: int) -> None:
        """``count`` blocks were put above every other: each index moves down."""
        self.pending = {index + count for index in self.pending}

    def dropped_from(self, first: int) -> None:
        """Blocks from ``first`` on were taken out or moved up: forget them."""
        self.pending = {index for index in self.pending if index < first}

    def clear(self) -> None:
        """Nothing waits (the view was emptied): the timer is stopped, and the cost and pace of
        the emptied view's last redraws no longer space out the next view's."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.pending.clear()
        self.cost = 0.0
        self._last, self._pieces, self.flooding = None, 0, False
