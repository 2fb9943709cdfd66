"""Shared helpers for the `test_app_*` files: `ChatApp` under `App.run_test`, talking to a real
demo host over loopback HTTP.

Nothing there sleeps for a fixed time to let something happen: every wait is `settle`, a loop
of ``pilot.pause()`` (and, where the run may finish, ``app.workers.wait_for_complete()``) that
stops as soon as a condition on the app's state holds and fails with the transcript when it
never does. Its bound is wall-clock patience far above any normal wait (`PATIENCE`), not a
count of rounds: on a machine five times slower, the demo host's thread may need many rounds
of the app's loop to answer, and a count ran out there.

A plain module, not a test file: the tests import it as ``from app_support import ...``
(``tests/`` is on ``sys.path``: ``pythonpath`` in pyproject.toml).
"""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from patience import PATIENCE
from render_helpers import registered
from rich.console import Console
from textual.app import App
from textual.pilot import Pilot

from openwop_tui.config import Config
from openwop_tui.core.fold import EnvelopeItem, Notice, UserTurn
from openwop_tui.demo_host import DemoHost
from openwop_tui.renderers import AudioSupport
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.controllers.runs import RunsController
from openwop_tui.ui.options import AppOptions
from openwop_tui.ui.transcript.blocks import Block

NO_AUDIO = AudioSupport(False, "no audio device (test)")
SIZE = (120, 50)
#: Upper bound for one `wait_for_complete` call: `PATIENCE`, a guard against a hang.
WORKER_WAIT = PATIENCE
#: Rounds of ``pilot.pause()`` before `settle` also yields the CPU between rounds: spinning on
#: the event loop would starve the demo host's thread (one GIL) that the condition waits on.
_EAGER_ROUNDS = 50

Notes = list[tuple[str, str]]


# ----------------------------------------------------------------------------- helpers


def describe(app: App[Any]) -> str:
    """The transcript and status, for failure messages."""
    try:
        lines = [f"status: {app.status.connection} / run {app.status.run_status}"]
    except Exception as error:  # the app is gone: its widgets with it
        lines = [f"status: unavailable ({type(error).__name__})"]
    for item in getattr(getattr(app, "transcript", None), "items", ()):  # (a bare App: none)
        text = getattr(item, "text", "") or getattr(getattr(item, "envelope", None), "kind", "")
        lines.append(f"  {type(item).__name__}: {str(text)[:100]!r}")
    return "\n".join(lines)


async def settle(
    pilot: Pilot[Any],
    app: App[Any],
    condition: Callable[[], bool],
    *,
    what: str = "",
    workers: bool = True,
) -> None:
    """Let the app work until ``condition()`` holds; fail clearly if it never does (within
    `PATIENCE`).

    ``workers=False`` does not wait for the workers (use it while a run is meant to keep going,
    as ``wait_for_complete`` would wait for its end).
    """
    deadline = time.monotonic() + PATIENCE
    rounds = 0
    while not condition():
        if not app.is_running:
            pytest.fail(f"the app stopped while waiting for: {what or condition}\n{describe(app)}")
        if time.monotonic() > deadline:
            pytest.fail(f"never happened: {what or condition}\n{describe(app)}")
        rounds += 1
        await pilot.pause(None if rounds < _EAGER_ROUNDS else 0.01)
        if workers:
            await asyncio.wait_for(app.workers.wait_for_complete(), WORKER_WAIT)


def record_notifications(app: App[Any]) -> Notes:
    """Collect every ``(severity, message)`` the app (or a widget) notifies from now on."""
    seen: Notes = []
    original = app.notify

    def notify(message: str, **kwargs: Any) -> None:
        seen.append((str(kwargs.get("severity", "information")), str(message)))
        original(message, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    return seen


def envelope_views(app: ChatApp) -> list[Block]:
    """The transcript's envelope blocks (drawn or not: the view draws what is visible)."""
    return [block for block in app.view.blocks() if isinstance(block.item, EnvelopeItem)]


def all_rendered(app: ChatApp) -> bool:
    """Every envelope the view asked the app to draw is drawn, and no streamed text waits for
    its redraw (what a snapshot shows is final)."""
    return app.view.pending_renders == 0 and not app.view.redraws_pending


async def draw_everything(pilot: Pilot[Any], app: ChatApp) -> None:
    """Page through the whole transcript from the top, so the view draws every item (it draws
    only what is visible) and asks for every envelope; wait until all are drawn."""
    view = app.view
    view.action_first()
    await pilot.pause()  # painted: the view asks for what it shows
    for _ in range(500):
        await settle(pilot, app, lambda: all_rendered(app), what="visible envelopes drawn")
        if view.scroll_y >= view.max_scroll_y:
            break
        view.scroll_page_down(animate=False)
        await pilot.pause()
    await settle(pilot, app, lambda: all_rendered(app), what="every envelope drawn")


def on_screen(view: Any) -> str:
    """The lines a transcript view shows right now, as text."""
    return "\n".join(view.render_line(y).text for y in range(view.size.height))


async def select_item(pilot: Pilot[Any], app: ChatApp, block: Block) -> None:
    """Focus the transcript with ``block`` selected and drawn (as Up/Down would)."""
    view = app.view
    view.focus()
    view.select(view.blocks().index(block))
    await settle(pilot, app, lambda: view.has_focus and all_rendered(app), what="item selected")
    await settle(
        pilot,
        app,
        lambda: block.rendered is not None or not isinstance(block.item, EnvelopeItem),
        what="drawn",
    )


def run_over(app: ChatApp) -> bool:
    """No run in progress and every envelope drawn."""
    session = app.session
    return (
        session is not None
        and session.current_run is None
        and app.transcript.status is not None
        and app.transcript.status != "running"
        and all_rendered(app)
    )


def notices(app: ChatApp, level: str | None = None) -> list[Notice]:
    return [
        item
        for item in app.transcript.items
        if isinstance(item, Notice) and (level is None or item.level == level)
    ]


def items_of(app: ChatApp, kind: type[Any]) -> list[Any]:
    return [item for item in app.transcript.items if isinstance(item, kind)]


def plain(renderable: Any, width: int = 100) -> str:
    """What a Rich renderable looks like as text."""
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def demo_app(*, session_id: str | None = None, **config: Any) -> ChatApp:
    """The app on a fast, deterministic embedded demo host (``session_id``: reopening that
    stored session)."""
    return ChatApp(
        Config(**config),
        AppOptions(session_id=session_id),
        demo_host=DemoHost(pace=0, deterministic=True),
        audio_support=NO_AUDIO,
    )


async def connected(pilot: Pilot[Any], app: ChatApp) -> None:
    await settle(
        pilot,
        app,
        lambda: app.session is not None and app.session.discovery is not None,
        what="connected to the host",
    )


async def send(pilot: Pilot[Any], app: ChatApp, text: str) -> None:
    """Type ``text`` into the prompt (the current tab's) and press Enter."""
    prompt = app.chat.parts.prompt
    prompt.focus()
    prompt.value = text
    await pilot.press("enter")


async def turn(pilot: Pilot[Any], app: ChatApp, text: str) -> None:
    """Send ``text`` and wait until its run is over and every envelope is drawn."""
    runs = len(items_of(app, UserTurn))
    await send(pilot, app, text)
    await settle(
        pilot,
        app,
        lambda: len(items_of(app, UserTurn)) == runs + 1 and run_over(app),
        what=f"the run for {text!r} ended",
    )


async def typed_to_completion(pilot: Pilot[Any], app: ChatApp, text: str = "go") -> None:
    """Once connected, type ``text`` and Enter, as a user does, and wait until the run has
    completed and the app is idle (a hostile host's run must still complete)."""
    await connected(pilot, app)
    await pilot.press(*text, "enter")
    await settle(
        pilot,
        app,
        lambda: app.transcript.status == "completed" and not app.runs.busy,
        what="the run's end",
    )
    await app.workers.wait_for_complete()
    await pilot.pause()
    assert app.transcript.status == "completed"


@pytest.fixture(autouse=True)
def builtin_renderers_loaded() -> None:
    """Load the built-in renderers before the app renders anything.

    Works around an app bug (see `test_the_renderer_registry_loads_safely_from_two_threads` in
    test_app_chat.py): the first renders of a process run in threads, concurrently, and the
    registry's lazy loading is not thread-safe, so a fresh process could fail its first tour
    with KeyError. Each `test_app_*` file imports it, which applies it to that file's tests.
    """
    registered()


@contextmanager
def as_if_running() -> Iterator[None]:
    """Every app's runs controller says a run is going (as between Enter and the end of a
    run), with none started: what is refused meanwhile can be tried."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(RunsController, "busy", property(lambda _runs: True))
        yield


async def pick_file(pilot: Pilot[Any], app: ChatApp, folder: Path, name: str) -> None:
    """Attach ``name`` from ``folder`` through the attach picker: opened, its name typed on the
    picker's line once that has the focus, Enter. (The directory tree's loader is a worker that
    waits for folders to read until the screen closes: not one to wait for.)"""
    from textual.widgets import Input

    from openwop_tui.ui.screens.attach_picker import AttachPicker

    app.attaching.open_picker(folder)

    def typing() -> bool:
        return isinstance(app.screen, AttachPicker) and isinstance(app.focused, Input)

    await settle(pilot, app, typing, what="the picker's line focused", workers=False)
    await pilot.press(*name, "enter")
