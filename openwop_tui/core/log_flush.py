"""When a conversation's logs write what they hold: the tail of a stream that went quiet.

A stored session commits its appends in batches (`openwop_tui.store.batch`): a batch is
written when the next append finds it old enough. A stream that pauses (a question waits for
its answer, a slow model thinks) brings no next append, so its last frames would wait for the
run's end. `FlushTimer` writes them `BATCH_SECONDS` later from the event loop the conversation
runs on; without a running loop (a synchronous caller) nothing is scheduled and the batch goes
at the next append, the run's end or the close.

A write that fails is handed to ``on_error`` (the conversation's ``log_error``): it never goes
unseen, and never stops the chat. ``on_written`` is told after each write, so the conversation
can say when what failed was written after all.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

from openwop_tui.store.batch import BATCH_SECONDS
from openwop_tui.store.database import StoreError


def pending(sink: Any) -> int:
    """How many appends ``sink`` holds uncommitted (0 for a log that writes at once)."""
    count = getattr(sink, "pending", 0)
    return count if isinstance(count, int) else 0


def flush_all(sinks: Iterable[Any], on_error: Callable[[str], None]) -> None:
    """Write what every log holds; each failure to ``on_error``."""
    for sink in sinks:
        flush = getattr(sink, "flush", None)
        if flush is None or not pending(sink):
            continue
        try:
            flush()
        except (StoreError, OSError) as error:
            on_error(str(error))


class FlushTimer:
    """At most one write scheduled at a time, `BATCH_SECONDS` after appends were left pending."""

    __slots__ = ("_handle", "_on_error", "_on_written", "_sinks")

    def __init__(
        self,
        sinks: Callable[[], Iterable[Any]],
        on_error: Callable[[str], None],
        on_written: Callable[[], None] = lambda: None,
    ) -> None:
        self._sinks, self._on_error, self._on_written = sinks, on_error, on_written
        self._handle: asyncio.TimerHandle | None = None

    def appended(self) -> None:
        """Something was appended: schedule a write if a log now holds entries."""
        if self._handle is not None:
            return
        if not any(pending(sink) for sink in self._sinks()):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # a synchronous caller: the next append or the close writes
            return
        self._handle = loop.call_later(BATCH_SECONDS, self.flush)

    def flush(self) -> None:
        """Write what is pending now (the timer's callback, and a caller's explicit flush)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        flush_all(self._sinks(), self._on_error)
        self._on_written()
