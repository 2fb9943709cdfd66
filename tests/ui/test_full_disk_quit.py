"""Nothing typed is lost at quit while the store is full (issue 23, item 5).

Measured before: with the store full the app said so, but Ctrl+Q quit at once (exit code 0,
nothing said) and the entries still waiting were lost ("174 session entries were not kept" in
the log; two of four turns gone). Now quitting with entries not yet stored asks, in three
choices: wait and retry, write them to a file named on screen (a journal the next start writes
in), or quit and lose them.

The full disk here is SIMULATED at the store's lowest write calls (`full_disk.simulate`);
`test_full_disk_signal.py` fills a real filesystem. Pilot drives the app: the turns are typed
while the disk is full, then Ctrl+Q; the disk is freed (the fault removed) and the app started
again, and the store is read.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from app_support import NO_AUDIO, SIZE, connected, notices, settle, turn
from full_disk import FullDisk, simulate
from patience import PATIENCE
from textual.pilot import Pilot
from textual.widgets import Button, Static

from openwop_tui.config import Config
from openwop_tui.demo_host import DemoHost
from openwop_tui.store.sessions import Store
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.screens.unsaved import UnsavedScreen


@pytest.fixture
def full(monkeypatch: pytest.MonkeyPatch) -> FullDisk:
    return simulate(monkeypatch)


def _app() -> ChatApp:
    return ChatApp(Config(), demo_host=DemoHost(pace=0, deterministic=True), audio_support=NO_AUDIO)


def _users() -> list[str]:
    store = Store()
    try:
        return [e.data for s in store.sessions() for e in store.entries(s.id) if e.kind == "user"]
    finally:
        store.close()


async def _gone(pilot: Pilot[None], app: ChatApp) -> None:
    """Let the app work until it has exited (bounded by `PATIENCE`, a guard only)."""
    deadline = time.monotonic() + PATIENCE
    while app.is_running:
        assert time.monotonic() < deadline, "the app never quit"
        await pilot.pause(0.01)


async def _asked(pilot: Pilot[None], app: ChatApp, full: FullDisk) -> UnsavedScreen:
    """One turn stored; two typed while the disk is full; then Ctrl+Q: the dialog."""
    await connected(pilot, app)
    await turn(pilot, app, "stored first")
    full.on = True
    await turn(pilot, app, "typed while full")
    await turn(pilot, app, "typed while full, again")
    [said] = [n.text for n in notices(app) if "cannot be saved now" in n.text]
    assert said.endswith("Ctrl+Q asks what to do with them before quitting")
    await pilot.press("ctrl+q")
    await settle(pilot, app, lambda: isinstance(app.screen, UnsavedScreen), workers=False)
    assert isinstance(app.screen, UnsavedScreen)
    return app.screen


def _text(screen: UnsavedScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_quitting_asks_in_three_choices_and_waiting_quits_once_all_is_stored(
    full: FullDisk, capsys: pytest.CaptureFixture[str]
) -> None:
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _asked(pilot, app, full)
        labels = [str(button.label) for button in screen.query(Button).results()]
        assert labels == [
            "Wait and retry (w)",
            "Write them to a file (f)",
            "Quit and lose them (l)",
        ]
        named = _text(screen, "#journal")
        assert named.startswith("The file: ") and named.endswith(".json") and "journal" in named
        assert "not stored yet" in _text(screen, "#question")
        assert "database or disk is full" in _text(screen, "#question")
        await pilot.press("w")
        await settle(pilot, app, lambda: "Try 1" in _text(screen, "#progress"), workers=False)
        assert app.is_running  # still full: it waits, saying so
        full.on = False  # space freed: the next retry stores everything, then quits
        await _gone(pilot, app)
    assert "every session entry is stored" in capsys.readouterr().err
    assert _users() == ["stored first", "typed while full", "typed while full, again"]


async def test_writing_them_to_the_file_named_keeps_them_for_the_next_start(
    full: FullDisk, capsys: pytest.CaptureFixture[str]
) -> None:
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _asked(pilot, app, full)
        named = Path(_text(screen, "#journal").removeprefix("The file: "))
        await pilot.press("f")
        await _gone(pilot, app)
    said = capsys.readouterr().err
    assert str(named) in said and "the next start writes them into the store" in said
    assert named.is_file()
    full.on = False
    again = _app()
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot, again, lambda: bool(notices(again, "info")), workers=False)
        [line] = [n.text for n in notices(again, "info") if "journal" in n.text]
        assert str(named) in line and "are now in the store" in line
        assert "(2 of your messages and what came with them)" in line
        await again.workers.wait_for_complete()
    assert not named.exists()
    assert _users() == ["stored first", "typed while full", "typed while full, again"]


async def test_quit_and_lose_them_loses_them_and_says_how_many(
    full: FullDisk, capsys: pytest.CaptureFixture[str]
) -> None:
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await _asked(pilot, app, full)
        await pilot.press("l")
        await _gone(pilot, app)
    said = capsys.readouterr().err
    assert "session entries were not stored (lost, as chosen)" in said
    full.on = False
    assert _users() == ["stored first"]  # as chosen: and no journal brings them back


async def test_escape_goes_back_to_the_chat(full: FullDisk) -> None:
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await _asked(pilot, app, full)
        await pilot.press("escape")
        await settle(pilot, app, lambda: not isinstance(app.screen, UnsavedScreen))
        assert app.is_running
        full.on = False
        await turn(pilot, app, "and on")
    assert _users() == ["stored first", "typed while full", "typed while full, again", "and on"]


async def test_quitting_with_everything_stored_asks_nothing() -> None:
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "stored")
        await pilot.press("ctrl+q")
        await _gone(pilot, app)
    assert _users() == ["stored"]


async def test_the_signal_handlers_go_with_the_app() -> None:
    # SIGINT is the app's while it runs (kill -INT ends it as Ctrl-C ends a command); once it
    # is gone, a Ctrl-C in the same process (a test run) is Python's again.
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
        await pilot.press("ctrl+q")
        await _gone(pilot, app)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


async def test_sigterm_keeps_them_in_a_journal_unasked(
    full: FullDisk, capsys: pytest.CaptureFixture[str]
) -> None:
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "stored first")
        full.on = True
        await turn(pilot, app, "typed while full")
        os.kill(os.getpid(), signal.SIGTERM)  # the app's own handler takes it
        await _gone(pilot, app)
    assert app.return_code == 128 + signal.SIGTERM
    said = capsys.readouterr().err
    assert "the next start writes them into the store" in said
    full.on = False
    Store().close()  # the next start
    assert _users() == ["stored first", "typed while full"]


async def test_sigterm_with_no_room_for_a_journal_says_how_many_were_lost(
    full: FullDisk, capsys: pytest.CaptureFixture[str]
) -> None:
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "stored first")
        full.on = True
        await turn(pilot, app, "typed while full")
        assert app.chat.store is not None
        for folder in app.chat.store.journal_folders:  # no folder can be made where they go
            folder.parent.mkdir(parents=True, exist_ok=True)
            folder.write_text("not a folder")
        os.kill(os.getpid(), signal.SIGTERM)
        await _gone(pilot, app)
    said = capsys.readouterr().err
    [line] = [line for line in said.splitlines() if "were lost" in line]
    assert "no journal could be written" in line and "database or disk is full" in line
    assert int(line.split("openwop-tui: ")[1].split()[0]) > 0
