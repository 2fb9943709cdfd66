"""Textual's `Strip` without the cycles it makes through its own caches.

A `Strip` remembers the results of `crop_extend` and `divide` in small caches of its own, and
when a result is the strip itself (a line already as wide as the
screen asks: most lines, most frames) it remembers itself: a reference cycle. A strip in a
cycle is not freed when its line is dropped, only by the collector's pass over the whole
heap, which the app makes rare on purpose (`openwop_tui.ui.heap`: it froze the heap so keys
do not wait for those passes). Every line drawn and dropped was left for that pass: 300 short
turns grew the app by 130 MiB (a bare RichLog, whose strips are the same, by 12).

`install` wraps the two methods so that a result that is the strip itself is not kept:
the caller gets the same object, and the strip is freed as soon as nothing uses it. Nothing
is lost: finding that a strip is already the size asked is the cheap first test of each.
Installed once, before the app draws (`openwop_tui.ui.leaks`); checked against the Textual
the app depends on (`tests/ui/test_strip_cycles.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from rich.style import Style
from textual.strip import Strip

__all__ = ["install"]

_INSTALLED = "_openwop_no_self_cycles"


def install() -> None:
    """Wrap `Strip`'s self-caching methods (once: a second call changes nothing).
    (`adjust_cell_length` returns itself before its cache is looked at: it needs nothing.)"""
    if getattr(Strip, _INSTALLED, False):
        return
    crop_extend = Strip.crop_extend
    divide = Strip.divide

    def crop_extend_freed(self: Strip, start: int, end: int, style: Style | None) -> Strip:
        strip = crop_extend(self, start, end, style)
        if strip is self:
            self._crop_extend_cache.clear()
        return strip

    def divide_freed(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
        strips = divide(self, cuts)
        if any(strip is self for strip in strips):
            self._divide_cache.clear()
        return strips

    _wrap("crop_extend", crop_extend, crop_extend_freed)
    _wrap("divide", divide, divide_freed)
    setattr(Strip, _INSTALLED, True)


def _wrap(name: str, original: Callable[..., Any], wrapper: Callable[..., Any]) -> None:
    wrapper.__name__ = original.__name__
    wrapper.__qualname__ = original.__qualname__
    wrapper.__doc__ = original.__doc__
    setattr(Strip, name, wrapper)
