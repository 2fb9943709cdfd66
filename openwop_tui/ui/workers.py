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
    """``make`` (``lambda: self.lab.draw(item, width)``), called when first awaited."""

    def __init__(self, make: Callable[[], Awaitable[None]]) -> None:
        self._make = make

    def __await__(self) -> Generator[Any, None, None]:
        return self._make().__await__()
