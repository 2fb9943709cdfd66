"""A closed widget is not kept alive by what it watched (`openwop_tui.ui.watch_release`).

Textual keeps ``(watcher, callback)`` on the watched object and drops a closed watcher only when
the watched attribute changes again, so without the release every footer composed again (the
keys on offer changed) left its keys reachable from the footer for good: a dozen a turn.
"""

from __future__ import annotations

import gc
import weakref
from typing import ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Footer, Static

from openwop_tui.ui import watch_release

pytestmark = pytest.mark.quick


class _Watcher(Static):
    """A short-lived widget that watches the app's theme, as widgets commonly do."""

    def on_mount(self) -> None:
        self.watch(self.app, "theme", self._theme_changed, init=False)

    def _theme_changed(self, old: str, new: str) -> None:
        self.update(new)


class _FooterApp(App[None]):
    BINDINGS: ClassVar = [("ctrl+o", "noop", "Open")]

    def compose(self) -> ComposeResult:
        yield Static("body")
        yield Footer()

    def action_noop(self) -> None:
        """(Only there to be offered in the footer.)"""


def _freed(refs: list[weakref.ref[object]]) -> bool:
    gc.collect()
    return all(ref() is None for ref in refs)


def _watchers(obj: object, attribute: str) -> list[tuple[object, object]]:
    return list(getattr(obj, "__watchers", {}).get(attribute, []))


async def test_a_removed_widget_that_watched_the_app_is_freed() -> None:
    watch_release.install()
    app = App[None]()
    async with app.run_test() as pilot:
        refs: list[weakref.ref[object]] = []
        for _ in range(4):
            widget = _Watcher()
            await app.screen.mount(widget)
            await pilot.pause()
            assert any(node is widget for node, _ in _watchers(app, "theme"))
            refs.append(weakref.ref(widget))
            await widget.remove()
            del widget
        # What the release controls: the app's list holds no closed watcher. (The last one
        # removed may still be in the screen's layout map until the next frame.)
        assert not [node for node, _ in _watchers(app, "theme") if node._closing]
        assert _freed(refs[:-1])


async def test_a_watcher_still_open_is_still_called() -> None:
    watch_release.install()
    app = App[None]()
    async with app.run_test() as pilot:
        gone, kept = _Watcher(), _Watcher()
        await app.screen.mount(gone, kept)
        await pilot.pause()
        await gone.remove()
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await pilot.pause()
        assert str(kept.render()) == app.theme  # (the release took only the closed one)


async def test_a_footer_composed_again_lets_its_old_keys_go() -> None:
    watch_release.install()
    app = _FooterApp()
    async with app.run_test() as pilot:
        footer = app.query_one(Footer)
        await pilot.pause()
        generations: list[list[weakref.ref[object]]] = []
        for _ in range(5):
            keys = list(footer.children)
            generations.append([weakref.ref(key) for key in keys])
            app.screen.refresh_bindings()  # (the keys on offer changed: the footer composes again)
            await pilot.pause()
            await pilot.pause()
            assert not set(footer.children) & set(keys)
            del keys
        assert all(generations)  # (the footer showed keys to let go of)
        # Each compose binds its keys to the footer's ``compact``; no closed one stays there.
        assert not [node for node, _ in _watchers(footer, "compact") if node._closing]
        # (The last keys replaced may still be in the screen's layout map until its next frame.)
        assert _freed([ref for keys in generations[:-1] for ref in keys])
