"""Work handed to Textual's workers, made only when the worker starts.

``app.run_worker(self.lab.draw(item, width), exclusive=True)`` makes the coroutine at once. A
newer request in the same group cancels the worker before it starts (a burst of redraws, a
resize), and so does the app closing: the coroutine is then dropped unawaited, which Python
reports as a RuntimeWarning ("coroutine … was never awaited"). `Deferred` is awaitable like the
coroutine, but makes it only when the worker awaits it, so a worker cancelled before it starts
leaves nothing behind.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from typing import Any

__all__ = ["Deferred"]


class Deferred(Awaitable[None]):
    """``make`` (``lambda: self.lab.draw(item, width)``), called when first awaited, and let go
    then: Textual's worker keeps its work after it is done (and asyncio's timer handles keep
    the worker, through the context they were made in, until their time passes), so a closed
    tab's chat would live on in the lambda's closure."""

    def __init__(self, make: Callable[[], Awaitable[None]]) -> None:
        self._make: Callable[[], Awaitable[None]] | None = make

    def __await__(self) -> Generator[Any, None, None]:
        make, self._make = self._make, None
        if make is None:
            raise RuntimeError("a Deferred is awaited once")
        return make().__await__()
