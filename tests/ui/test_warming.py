"""The warming threads give way to typing and to a session being read (`openwop_tui.ui.warming`,
issue 26: keys first).

It holds the interpreter's lock most of the time it runs, so a key typed while it imported or
compiled a lexer waited for its turn: the first keys after a session was reopened echoed in
17-22 ms instead of 11. Each step (one import, one language) now waits until no key has come
for `QUIET` seconds. The clock is a fake one here: what is checked is what the thread waits
for, not how long a machine takes.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import ComposeResult
from textual.widgets import TextArea

from openwop_tui.draw import lexers
from openwop_tui.ui import warming
from openwop_tui.ui.key_watch import KeysCounted
from openwop_tui.ui.widgets.prompt import PromptInput

pytestmark = pytest.mark.quick


class _Clock:
    """``time.monotonic`` and ``time.sleep`` on a clock that moves only when slept on."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        self.then()

    def then(self) -> None:
        """What happens while the caller sleeps (nothing, unless a test says)."""


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> _Clock:
    fake = _Clock()
    monkeypatch.setattr(warming, "time", fake)
    monkeypatch.setattr(warming, "_typed_at", float("-inf"))
    monkeypatch.setattr(warming, "_held", set())
    return fake


def test_without_typing_each_step_goes_on_at_once(clock: _Clock) -> None:
    warming.give_way()
    assert clock.slept == []


def test_a_step_waits_until_the_typing_has_paused(clock: _Clock) -> None:
    warming.typed()
    clock.now += 0.1  # a key 0.1 s ago: the rest of the quiet time is waited for
    warming.give_way()
    assert clock.slept == [pytest.approx(warming.QUIET - 0.1)]
    assert warming._typed_at + warming.QUIET <= clock.now  # (and it went on then)


def test_a_step_waits_while_a_session_is_read(clock: _Clock) -> None:
    reading = object()
    warming.hold(reading)
    warming.hold(reading)  # (held again: still one holder)
    clock.then = lambda: warming.release(reading)  # the reading ends while the step waits
    warming.give_way()
    assert clock.slept == [warming.QUIET] and not warming.held()


def test_the_lexers_are_made_one_step_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    steps: list[str] = []
    made: list[str] = []
    monkeypatch.setattr(lexers, "get_lexer_by_name", lambda name: made.append(name))
    lexers.warm(["python", "sql"], between=lambda: steps.append(f"before {len(made)}"))
    assert steps == ["before 0", "before 1"] and made == ["python", "sql"]


class _PromptApp(KeysCounted):
    def compose(self) -> ComposeResult:
        yield PromptInput(id="prompt")
        yield TextArea(id="other", read_only=True)


async def test_every_key_the_app_takes_tells_the_warming(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The prompt's keys, and the others': Home pressed in a long session's transcript as its
    # older turns came in was painted behind the warming's first steps.
    told: list[Any] = []
    monkeypatch.setattr(warming, "typed", lambda: told.append("key"))
    app = _PromptApp()
    async with app.run_test() as pilot:
        app.query_one(PromptInput).focus()
        await pilot.press("h", "i")
        app.query_one("#other").focus()
        await pilot.press("home", "pageup")
        await pilot.pause()
    assert told == ["key"] * 4


def test_each_warming_thread_begins_once_however_often_a_host_is_reached(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A host is reached by every tab, and again after each reconnection: the warming runs
    once a process."""
    begun: list[str] = []

    class _Thread:
        def __init__(self, *, target: Any, name: str, daemon: bool) -> None:
            self.name = name

        def start(self) -> None:
            begun.append(self.name)

    monkeypatch.setattr(warming, "_begun", set())
    monkeypatch.setattr(warming.threading, "Thread", _Thread)
    for _ in range(3):
        warming.warm_lint()
        warming.warm()
    assert begun == ["openwop-lint-warm", "openwop-draw-warm"]
