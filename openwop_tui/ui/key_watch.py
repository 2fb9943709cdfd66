"""Keys first: work that keeps the event loop for milliseconds asks whether a key is coming.

A key reaches the prompt in three turns of the event loop: the terminal's reading thread hands
it to the loop (a task, started from that thread, that posts it to the app's queue), the app takes
it and hands it on to the focused widget (that widget's queue), the widget types it. Each
turn first runs everything else that is ready: a fast host's ingest, a frame of its updates, the
timeline's inspection, each of which keeps the loop for a few milliseconds at a time. Measured
in the app on a 10,000-event flood, a key took 12 ms (median) from the reading thread to the
app and 4.5 ms more to the prompt, waiting for such slices to end and for the interpreter
(below).

`KeysCounted`, mixed into the app, counts the keys its driver reads (on the reading thread,
before it sends them: Textual's driver hands a key to the loop as a task that posts it, two
turns before it is in the app's queue) and the keys the app has taken, so a key on its first
turns is seen with no look at asyncio's own queue; after that it waits in a widget's queue
(`openwop_tui.ui.widgets.echo.keys_waiting`).
`KeyWatch` answers from both, and work asks it between its steps and gives the loop its turn at
once when a key is coming, instead of at the end of its slice.

Two threads besides the loop's pass a key on: the terminal's reader (it reads the key and
sends it to the loop) and its writer (it writes the echo the loop drew). Each needs the
interpreter for that, and CPython takes it from a busy thread only once that thread has kept
it for the switch interval, 5 ms by default: while a fast host kept the loop busy, a key waited
that long at the reader, and again at the writer. `keys_handed_on` shortens the interval while
the app runs; `reading_beside` puts CPython's back while a thread of the app reads a stored
session beside the loop (two busy threads swapping the interpreter that often cost both).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from textual import events
from textual.app import App
from textual.driver import Driver
from textual.message import Message

from openwop_tui.ui import warming
from openwop_tui.ui.widgets.echo import key_queued, keys_waiting

__all__ = [
    "LOOK_SECONDS",
    "READING_SWITCH_SECONDS",
    "STALE_SECONDS",
    "SWITCH_SECONDS",
    "KeyWatch",
    "KeysCounted",
    "counting_keys",
    "key_on_its_way",
    "keys_handed_on",
    "reading_beside",
]

#: How often `KeyWatch` looks in the widgets' queues for a key, at most (a look scans three
#: queues: asked after every event of a fast host, looking each time cost a sixth of the rate
#: it was read at). The counts of `KeysCounted` are read at every ask.
LOOK_SECONDS = 0.0005
#: A key read longer ago than this that the app has not taken is no longer taken to be coming
#: (an app that stops taking its keys, as it closes, would else have work give way for ever);
#: a key is taken within a few turns of the loop.
STALE_SECONDS = 0.25
#: The switch interval while the app runs (`keys_handed_on`). Measured from outside the app,
#: a 10,000-event flood's key echo (median, two floods each): 40-50 ms at CPython's 5 ms,
#: 19.5-21.7 ms at 1 ms, 17.6-18.5 ms at 0.5 ms; the flood read at the same rate. A thread only
#: waits this long when another keeps the interpreter: idle, nothing changes. What it costs:
#: two busy threads swap the interpreter ten times as often, so while a thread of the app
#: reads a stored session beside the loop the interval is CPython's again (`reading_beside`).
SWITCH_SECONDS = 0.0005


class KeysCounted(App[Any]):
    """An app that counts the keys its terminal's reading thread reads and the keys the app
    has taken from its queue (see the module's docstring): `key_read` says whether one read is
    still on its way to it. Each key it takes also holds the warming back for a moment
    (`openwop_tui.ui.warming.typed`), whichever widget it goes to."""

    _keys_read = 0
    """Keys the terminal's reading thread has read (written by that thread alone)."""
    _key_read_at = 0.0
    """`time.perf_counter` when it read the last."""
    _keys_taken = 0
    """Keys the app has taken from its queue, never more than were read (written by the event
    loop alone; a key sent to the app by other means, as tests do, is not counted twice)."""

    def get_driver_class(self) -> type[Driver]:
        """The driver of the app's other parts, counting the keys it reads."""
        return counting_keys(super().get_driver_class())

    def key_sent(self) -> None:
        """The reading thread read a key and is sending it to the app (called on that thread)."""
        self._key_read_at = time.perf_counter()
        self._keys_read += 1

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            self._keys_taken = min(self._keys_taken + 1, self._keys_read)
            # Any key, not only the prompt's: Home pressed in a long session's transcript as
            # its older turns came in was painted behind the warming's first steps.
            warming.typed()
        await super().on_event(event)

    def key_read(self, now: float) -> bool:
        """Whether a key read within `STALE_SECONDS` of ``now`` has not reached the app yet."""
        return self._keys_taken < self._keys_read and now - self._key_read_at < STALE_SECONDS


def counting_keys(driver: type[Driver]) -> type[Driver]:
    """``driver`` telling its app (a `KeysCounted`) of each key it reads, before it sends it:
    on the reading thread, two turns of the event loop before the key is in the app's queue."""

    class KeyCountingDriver(driver):  # type: ignore[valid-type, misc]
        def process_message(self, message: Message) -> None:
            app = self._app
            if isinstance(message, events.Key) and isinstance(app, KeysCounted):
                app.key_sent()
            super().process_message(message)

    return KeyCountingDriver


def key_on_its_way(app: App[Any]) -> bool:
    """Whether a key waits in ``app``'s queue, its screen's or its focused widget's: typed,
    and not yet where it goes."""
    try:
        screen = app.screen
    except Exception:  # (no screen yet, or none left: the app's own queue alone)
        return key_queued([app])
    # The screen the app shows is the focused widget's: given, it is not found by a walk up
    # the widget's parents (asked every half millisecond of a flood).
    target = screen.focused
    return key_queued([app, screen]) if target is None else keys_waiting(target, screen)


class KeyWatch:
    """Tells work that keeps the event loop for milliseconds at a time (a fast host's
    ingest, `openwop_tui.ui.controllers.feed`) that a key is coming, so it gives the loop its
    turn now: from `KeysCounted`'s counts at every ask, from the widgets' queues at most every
    `LOOK_SECONDS`."""

    def __init__(self, app: App[Any]) -> None:
        self._app = app
        self._looked = 0.0
        self.clock = time.perf_counter
        """What the looks are timed and spaced by."""

    def key_coming(self) -> bool:
        """Whether a key is on its way (``False`` too while the last look is too recent)."""
        now = self.clock()
        app = self._app
        if isinstance(app, KeysCounted) and app.key_read(now):
            return True
        if now - self._looked < LOOK_SECONDS:
            return False
        self._looked = now
        return key_on_its_way(app)


@contextmanager
def keys_handed_on() -> Iterator[None]:
    """For as long as the app runs: a thread that waits for the interpreter (the terminal's
    reader with a key, its writer with an echo) gets it within `SWITCH_SECONDS` of asking
    (see the module's docstring); the interval it was is put back after."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(min(before, SWITCH_SECONDS))
    try:
        yield
    finally:
        sys.setswitchinterval(before)


#: The switch interval while a thread of the app reads beside the loop (`reading_beside`):
#: CPython's own.
READING_SWITCH_SECONDS = 0.005

_readings = 0
"""Readings beside the loop going on now (`reading_beside`; entered and left on the event
loop's thread alone, so no lock)."""
_interval_before = 0.0
"""The switch interval the first of them found, put back when the last ends."""


@contextmanager
def reading_beside() -> Iterator[None]:
    """While a thread of the app reads a stored session beside the event loop (a long
    session's older turns, the timeline's events): the switch interval is
    `READING_SWITCH_SECONDS` again, put back once the last such reading ends (they may overlap,
    from two tasks).

    Both that thread and the loop keep the interpreter busy, and at `SWITCH_SECONDS` they
    swapped it ten times as often, each swap a cost to both: the reading thread's own CPU,
    measured in the app reopening a 3,000-turn session, was 383-472 ms at 0.5 ms against
    291-329 ms at 5 ms (three rounds each). The keys typed meanwhile echoed as fast
    (`pty_reopen_key_echo_ms`, two rounds each: 9.3 and 11.3 ms, 8.0 and 14.1 before)."""
    global _readings, _interval_before
    if _readings == 0:
        _interval_before = sys.getswitchinterval()
        sys.setswitchinterval(max(_interval_before, READING_SWITCH_SECONDS))
    _readings += 1
    try:
        yield
    finally:
        _readings -= 1
        if _readings == 0:
            sys.setswitchinterval(_interval_before)
