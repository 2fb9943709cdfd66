"""A removed widget's style cache (and the lines it drew) is freed (`openwop_tui.ui.inner_outer`).

That the styles are Textual's own is held by the snapshot tests (`tests/ui/__snapshots__`):
every widget's background is drawn through them.

Textual caches ``StylesCache.get_inner_outer`` per style cache, so its cache kept the style
caches, and the drawn lines, of the last thousand widgets drawn, removed or not.
"""

from __future__ import annotations

import gc
import weakref

import pytest
from textual._styles_cache import StylesCache
from textual.app import App
from textual.widgets import Label

from openwop_tui.ui import inner_outer

pytestmark = pytest.mark.quick


async def test_a_removed_widgets_style_cache_is_freed() -> None:
    inner_outer.install()
    app = App[None]()
    async with app.run_test() as pilot:
        caches: list[weakref.ref[StylesCache]] = []
        for n in range(5):
            label = Label(f"card {n}")
            await app.screen.mount(label)
            await pilot.pause()
            label.refresh()
            await pilot.wait_for_scheduled_animations()
            await pilot.pause()
            assert label._styles_cache._cache  # (it drew its line: the cache holds it)
            caches.append(weakref.ref(label._styles_cache))
            await label.remove()
            del label
        gc.collect()
        # (The last one removed may still be in the screen's layout map until its next frame.)
        assert [ref() for ref in caches[:-1]] == [None] * 4
