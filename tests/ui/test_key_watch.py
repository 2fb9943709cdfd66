"""Keys first: work that keeps the event loop gives it up at once when a key is coming
(`openwop_tui.ui.key_watch`, issue 26).

A key is seen from the moment the terminal's reading thread reads it (counted by the driver,
before Textual hands it to the loop) until the app takes it, then in the queue of the widget it
goes to; the fast host's ingest asks between events and gives the loop its turn. Counts and
turns, never timings: the figure is `pty_flood_60_key_echo_ms`.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from typing import Any

import pytest
from app_support import connected, demo_app
from textual.app import App, ComposeResult
from textual.drivers.linux_driver import LinuxDriver
from textual.events import Key
from textual.widgets import Input

from openwop_tui import __main__ as cli
from openwop_tui.config import Config
from openwop_tui.ui import key_watch
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.failure import GuardedApp
from openwop_tui.ui.key_watch import (
    LOOK_SECONDS,
    READING_SWITCH_SECONDS,
    STALE_SECONDS,
    SWITCH_SECONDS,
    KeysCounted,
    KeyWatch,
    counting_keys,
    keys_handed_on,
    reading_beside,
)
from openwop_tui.ui.options import AppOptions


class _Typing(KeysCounted):
    def compose(self) -> ComposeResult:
        yield Input(id="typed")


def _read_on_the_reading_thread(app: App[Any], key: Key) -> None:
    """What the terminal's reader does with a key it read: its driver's ``process_message``,
    on a thread of its own (the app's driver made a counting one, as the app's own is)."""
    driver = app._driver
    assert driver is not None
    driver.__class__ = counting_keys(type(driver))
    reader = threading.Thread(target=driver.process_message, args=(key,))
    reader.start()
    reader.join()


async def _coming_until_typed(pilot: Any, app: _Typing, key: str) -> str:
    """Read ``key`` as the terminal's reader does: coming until the app takes it, then not;
    what the input holds after."""
    watch = KeyWatch(app)
    assert not watch.key_coming()
    _read_on_the_reading_thread(app, Key(key, key))
    # Not in the app's queue yet (Textual's driver hands it to the loop as a task that posts
    # it): seen from the count, at every ask.
    assert watch.key_coming()
    assert watch.key_coming()
    await pilot.pause()
    assert not watch.key_coming()
    return app.query_one(Input).value


@pytest.mark.quick
async def test_a_key_read_is_coming_until_the_app_takes_it_then_it_is_typed() -> None:
    app = _Typing()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert await _coming_until_typed(pilot, app, "x") == "x"


@pytest.mark.quick
async def test_keys_not_read_by_the_terminal_do_not_hide_the_next_one_read() -> None:
    app = _Typing()
    async with app.run_test() as pilot:
        await pilot.press("a", "b", "c")  # (sent to the app by the pilot: never read)
        assert await _coming_until_typed(pilot, app, "d") == "abcd"


@pytest.mark.quick
async def test_a_key_read_and_never_taken_stops_counting_as_coming() -> None:
    app = _Typing()
    async with app.run_test() as pilot:
        await pilot.pause()
        before = time.perf_counter()
        app.key_sent()  # (read, and never sent on: as an app that stops taking keys)
        after = time.perf_counter()
        watch = KeyWatch(app)
        watch.clock = lambda: before + STALE_SECONDS / 2
        assert watch.key_coming()
        watch.clock = lambda: after + STALE_SECONDS
        assert not watch.key_coming()


@pytest.mark.quick
async def test_a_key_in_a_widgets_queue_is_seen_looking_at_most_every_look_seconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    looks: list[bool] = []
    looked = key_watch.key_on_its_way

    def counted(app: App[Any]) -> bool:
        looks.append(looked(app))
        return looks[-1]

    monkeypatch.setattr(key_watch, "key_on_its_way", counted)
    app = App[None]()  # (no counts of its own: the queues alone)
    async with app.run_test() as pilot:
        await pilot.pause()
        watch = KeyWatch(app)
        now = 100.0
        watch.clock = lambda: now
        assert not watch.key_coming()
        app.post_message(Key("x", "x"))  # (queued at the app: not taken before an await)
        assert not any(watch.key_coming() for _ in range(100))  # (looked at `now` already)
        now += LOOK_SECONDS
        assert watch.key_coming()
        assert looks == [False, True]
        await pilot.pause()
        now += LOOK_SECONDS
        assert not watch.key_coming()


@pytest.mark.quick
def test_the_apps_driver_counts_the_keys_it_reads_and_still_survives_a_lost_terminal() -> None:
    app = ChatApp(Config(host="http://127.0.0.1:9"), AppOptions())
    driver = app.get_driver_class()
    if not issubclass(driver, LinuxDriver):
        pytest.skip("Textual's driver here is not its Linux one")
    assert "KeyCountingDriver" in [cls.__name__ for cls in driver.__mro__]
    assert "HangUpSafeDriver" in [cls.__name__ for cls in driver.__mro__]
    assert isinstance(app, KeysCounted) and isinstance(app, GuardedApp)


async def test_the_ingest_gives_the_loop_its_turn_when_a_key_is_coming_and_only_then() -> None:
    app = demo_app()
    async with app.run_test() as pilot:
        await connected(pilot, app)
        feed = app.tabs.current.feed

        async def turned(*, key: bool) -> bool:
            """Whether the feed's check gave the loop a turn (a callback queued before it
            ran), its slice just begun."""
            ran: list[bool] = []
            if key:
                app.key_sent()
            asyncio.get_running_loop().call_soon(ran.append, True)
            feed._slice_began = feed._keys.clock()
            await feed._turn_if_due()
            return bool(ran)

        assert not await turned(key=False)
        assert await turned(key=True)


def test_the_app_runs_with_threads_handing_the_interpreter_on_often(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[float] = []
    monkeypatch.setattr(ChatApp, "run", lambda self, **_: seen.append(sys.getswitchinterval()))
    before = sys.getswitchinterval()
    assert before > SWITCH_SECONDS  # (CPython's 5 ms: else this shows nothing)
    cli._run_app(Config(host="http://127.0.0.1:9"), AppOptions())
    assert seen == [SWITCH_SECONDS]
    assert sys.getswitchinterval() == before


def test_the_interval_is_put_back_when_the_app_fails() -> None:
    before = sys.getswitchinterval()
    with pytest.raises(RuntimeError), keys_handed_on():
        assert sys.getswitchinterval() == SWITCH_SECONDS
        raise RuntimeError("the app failed")
    assert sys.getswitchinterval() == before


def test_readings_beside_the_loop_have_cpythons_interval_until_the_last_ends() -> None:
    # Two readings (the older turns, the timeline's events) from two tasks may overlap without
    # nesting: the first to end must not put the app's short interval back under the other.
    with keys_handed_on():
        first, second = reading_beside(), reading_beside()
        first.__enter__()
        assert sys.getswitchinterval() == READING_SWITCH_SECONDS
        second.__enter__()
        first.__exit__(None, None, None)
        assert sys.getswitchinterval() == READING_SWITCH_SECONDS
        second.__exit__(None, None, None)
        assert sys.getswitchinterval() == SWITCH_SECONDS
        with pytest.raises(RuntimeError), reading_beside():
            raise RuntimeError("the reading failed")
        assert sys.getswitchinterval() == SWITCH_SECONDS
