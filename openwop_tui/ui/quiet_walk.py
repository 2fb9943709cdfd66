"""The collector's full pass taken where no key waits for it: once nobody has typed for a while.

A run's end used to walk the whole heap when it had grown by a quarter (`openwop_tui.ui.heap`).
That pass holds the event loop for as long as it walks every object the chat holds, tens of
milliseconds idle and hundreds on a busy machine, and a run ends exactly when the user is
typing the next message: keys typed while unpaced answers streamed on a loaded machine echoed
in up to 0.7-1.2 s, against 0.3-0.4 s with no pass (issue 26, ``pty_busy``). So a run's end only
notes that a pass is due (`heap.walk_due`), and `QuietWalks` takes it once no key, click or
paste has come for `QUIET_SECONDS` and no run streams; until then it looks again. The garbage it
frees is only memory: waiting a few seconds for it costs nothing a user sees.
"""

from __future__ import annotations

import time

from textual import events
from textual.app import App
from textual.timer import Timer

from openwop_tui.ui import heap

__all__ = ["QUIET_SECONDS", "QuietWalks"]

#: How long nothing must have been typed, clicked or pasted before the full pass is taken.
QUIET_SECONDS = 2.0

#: What the user does: the events after which they may wait for what the app shows.
_INPUT = (
    events.Key,
    events.MouseDown,
    events.MouseUp,
    events.MouseScrollDown,
    events.MouseScrollUp,
    events.Paste,
)


class QuietWalks(App[None]):
    """An app that remembers when the user last did something, and takes a due full pass of
    the collector only after `QUIET_SECONDS` of nothing (`walk_when_quiet`)."""

    _last_input: float = 0.0
    """`time.monotonic` of the last key, click, scroll or paste."""
    _walk_timer: Timer | None = None

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, _INPUT):
            self._last_input = time.monotonic()
        await super().on_event(event)

    def streaming(self) -> bool:
        """Whether a run streams now (in any chat the app has open): no pass while one does.
        The app says; by default none does."""
        return False

    def walk_when_quiet(self) -> None:
        """A run ended: if a full pass is due (`heap.walk_due`), take it once nothing has been
        done for `QUIET_SECONDS` and no run streams (`streaming`)."""
        if self._walk_timer is None and heap.walk_due():
            self._walk_timer = self.set_timer(QUIET_SECONDS, self.walk_if_quiet)

    def walk_if_quiet(self) -> bool:
        """Take the due pass if it is quiet now, else look again when it may be; whether it
        was taken."""
        self._walk_timer = None
        if not heap.walk_due():
            return False  # (a run's settle walked it meanwhile: the heap had doubled)
        quiet_for = time.monotonic() - self._last_input
        if quiet_for < QUIET_SECONDS or self.streaming():
            self._walk_timer = self.set_timer(
                max(QUIET_SECONDS - quiet_for, QUIET_SECONDS / 4), self.walk_if_quiet
            )
            return False
        heap.walk()
        return True
