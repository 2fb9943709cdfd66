"""Textual's background pair cached on the two colours, not on the widget's style cache.

Each widget draws through a `StylesCache` of its own, which keeps the widget's drawn lines.
``StylesCache.get_inner_outer`` (two Rich styles made from two colours) is an instance method
under ``functools.lru_cache(1024)``, so the cache's key holds the `StylesCache` itself: the last
1,024 (style cache, colours) pairs keep their style caches, and with them the drawn lines of
widgets long removed (Textual issue 6665, open in the Textual the app depends on). The app's
footer is composed again at every run's start and end, a dozen keys each time, so a long chat
kept a thousand dead footer keys' caches and lines (issue 26: a tenth of 300 turns' growth, and
the reason it did not level off).

`install` puts in its place a method that calls Textual's own body through one cache keyed on
the two colours only: the answer never depended on the widget, so every widget gets the same
styles as before, and a removed widget's style cache is freed with it. Installed once, before
the app draws (`openwop_tui.ui.leaks`); checked against the Textual the app depends on
(`tests/ui/test_inner_outer.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, partial

from textual._styles_cache import StylesCache
from textual.color import Color
from textual.style import Style

__all__ = ["install"]

_INSTALLED = "_openwop_inner_outer_by_colour"


def install() -> None:
    """Replace ``StylesCache.get_inner_outer`` (once: a second call changes nothing), and let go
    of what Textual's own cache of it holds."""
    if getattr(StylesCache, _INSTALLED, False):
        return
    original = StylesCache.get_inner_outer
    make: Callable[[object, Color, Color], tuple[Style, Style]] | None
    make = getattr(original, "__wrapped__", None)
    if make is not None:  # (else Textual no longer caches it per style cache: nothing to mend)
        # Textual's own body (it never reads its first argument), cached on the colours alone;
        # a static method, so a drawn line calls the cache itself, not a wrapper around it.
        by_colour = lru_cache(1024)(partial(make, None))
        setattr(StylesCache, "get_inner_outer", staticmethod(by_colour))  # noqa: B010
        getattr(original, "cache_clear", lambda: None)()  # (what Textual's cache held, let go)
    setattr(StylesCache, _INSTALLED, True)
