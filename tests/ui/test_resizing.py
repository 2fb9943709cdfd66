"""A new terminal size is laid out at once (issue 26 part 6): Textual's 1/120 s wait is kept
only as the window that coalesces the sizes following it. Textual's timer is held here (it
never fires unless the test fires it), so what is laid out without it is what was laid out at
once: no timing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import Static

from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.resizing import ResizeAtOnce


class _HeldTimer:
    """A timer that fires only when the test says so."""

    def __init__(self, callback: Callable[[], object]) -> None:
        self.callback = callback
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True

    def fire(self) -> None:
        if not self.stopped:
            self.stopped = True
            self.callback()


class Counting(Screen[None]):
    """A screen that notes each size it is given to lay out."""

    def __init__(self) -> None:
        super().__init__()
        self.sizes: list[Size] = []

    def compose(self) -> ComposeResult:
        yield Static("x", id="wide")

    def on_resize(self, event: events.Resize) -> None:
        self.sizes.append(event.size)


class Sized(ResizeAtOnce):
    def __init__(self) -> None:
        super().__init__()
        self.timers: list[_HeldTimer] = []
        self.counting = Counting()

    def on_mount(self) -> None:
        self.push_screen(self.counting)

    def set_timer(self, delay: float, callback: Any = None, **kwargs: Any) -> Any:
        timer = _HeldTimer(callback)
        self.timers.append(timer)
        return timer


def _width(app: Sized) -> int:
    return app.screen.query_one("#wide").size.width


async def test_the_first_size_is_laid_out_at_once_and_a_burst_coalesced() -> None:
    app = Sized()
    async with app.run_test(size=(80, 24)) as pilot:
        assert _width(app) == 80
        await pilot.resize_terminal(60, 24)
        await pilot.pause()
        assert _width(app) == 60  # at once: Textual's timer never fired
        # Sizes within the window the timer keeps: coalesced, the last one laid out when it
        # fires.
        await pilot.resize_terminal(70, 24)
        await pilot.resize_terminal(75, 24)
        await pilot.pause()
        assert _width(app) == 60
        window = [timer for timer in app.timers if not timer.stopped]
        assert len(window) == 1
        window[0].fire()
        await pilot.pause()
        assert _width(app) == 75
        # The window closed: the next size is the first of a new burst.
        await pilot.resize_terminal(90, 24)
        await pilot.pause()
        assert _width(app) == 90


async def test_a_size_is_laid_out_once() -> None:
    # Textual calls its own `_on_resize` after the app's (it walks the MRO for handlers), which
    # kept the size just laid out as pending: laid out again when the timer fired (before).
    app = Sized()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.resize_terminal(60, 24)
        await pilot.pause()
        laid_out = list(app.counting.sizes)
        assert laid_out[-1] == Size(60, 24)
        for timer in app.timers:
            timer.fire()
        app._on_idle()  # (Textual's other path to a pending size)
        await pilot.pause()
        assert app.counting.sizes == laid_out
        # A burst that ends on the size it began with: nothing more to lay out.
        await pilot.resize_terminal(90, 24)
        await pilot.pause()
        laid_out = list(app.counting.sizes)
        assert laid_out[-1] == Size(90, 24)
        await pilot.resize_terminal(70, 24)
        await pilot.resize_terminal(90, 24)
        for timer in app.timers:
            timer.fire()
        app._on_idle()
        await pilot.pause()
        assert app.counting.sizes == laid_out
        assert _width(app) == 90


def test_the_app_lays_out_a_new_size_at_once() -> None:
    assert issubclass(ChatApp, ResizeAtOnce)
