"""A new terminal size laid out at once, the sizes that follow it within a frame coalesced.

Textual holds every size change back for 1/120 s (a timer), so that a window dragged through
many sizes is laid out once for the last of them. The first size of a burst waits that long
too: on a 60 Hz screen, more than half a frame before anything is drawn for it (measured from
outside, it was a third of a resize at 5,000 messages). `ResizeAtOnce` sends the first size
of a burst to the screen at once and lets Textual's timer run on as the burst's window: sizes
that come before it fires are coalesced, as before, and the last of them laid out when it does.

Textual calls every class's ``_on_resize`` in turn (it walks the class's MRO for handlers), so
after this one has sent a size, Textual's own handler runs again and keeps the same size as
pending: laid out a second time when the timer fires (9-10 ms at 5,000 messages, and a paint,
for a size the screen already had). `ResizeAtOnce._check_resize` drops a pending size that is
the one last sent, whichever path (the timer, or Textual's idle check) asks.
"""

from __future__ import annotations

from textual import events
from textual.app import App
from textual.geometry import Size

__all__ = ["ResizeAtOnce"]


class ResizeAtOnce(App[None]):
    """An app whose first size change of a burst is laid out without Textual's wait."""

    _sent_size: Size | None = None
    """The size last sent to the screens (`_check_resize`)."""

    async def _on_resize(self, event: events.Resize) -> None:
        # Textual's handler (it records the size, and starts its timer unless one runs): a
        # size that comes while no timer runs is the first of a burst.
        first = self._resize_timer is None and self._size is not None
        await super()._on_resize(event)
        timer = self._resize_timer
        if not first or timer is None:
            return  # (the same size again, or a burst's later size: left to the timer)
        # `_check_resize` sends the size to the screen now; it would stop the timer too, which
        # is kept running as the window in which the sizes that follow are coalesced.
        self._resize_timer = None
        self._check_resize()
        self._resize_timer = timer

    def _check_resize(self) -> None:
        event = self._resize_event
        if event is not None and event.size == self._sent_size:
            self._resize_event = None  # (sent already: see the module's docstring)
        super()._check_resize()
        if event is not None and self._resize_event is None:
            self._sent_size = event.size  # (Textual sent it; it keeps it when no screen is up)
