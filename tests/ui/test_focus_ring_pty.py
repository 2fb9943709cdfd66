"""Shift+Tab, Home, E edits the last message, typed as a user types it (issue 27).

Measured by a user: after a message, Shift+Tab then Home then ``E`` did not edit the message
("Home" landed on the welcome line, and Shift+Tab pressed again had toggled back to the input,
where ``E`` was typed as a letter). Now the lines of the client's own (the welcome, lifecycle
lines) are no stops, so Home lands on the message; ``E`` puts it in the input, Enter sends it
in place of its exchange. And with the events panel shown the ring has four stops: Shift+Tab
twice from the input goes on to the panel's rows, it does not come back to the input.

The installed program on a pseudo terminal, its screen read by pyte: what the footer offers is
how the test knows where the focus is, as a user knows.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pty_support import Program, home

from openwop_tui.store.sessions import Store

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pty")

SHIFT_TAB = "\x1b[Z"
HOME = "\x1b[H"
F2 = "\x1bOQ"


def _sent(env: dict[str, str]) -> list[str]:
    store = Store(Path(env["XDG_DATA_HOME"]) / "openwop-tui" / "sessions.db")
    try:
        return [e.data for i in store.sessions() for e in store.entries(i.id) if e.kind == "user"]
    finally:
        store.close()


def _footer(terminal: Program) -> str:
    return terminal.screen_text().rstrip().splitlines()[-1]


def test_shift_tab_home_e_edits_the_message_and_the_ring_goes_on(tmp_path: Path) -> None:
    env = home(tmp_path)
    args = ["--no-audio", "--images", "halfblock", "--demo-pace", "0"]
    with Program(args, env, tmp_path) as terminal:
        terminal.wait_for_screen("F1 lists the keys")
        terminal.type("hello\r")
        terminal.wait_for_screen("run completed")
        terminal.type(SHIFT_TAB)
        terminal.wait_for(lambda: "Back to input" in _footer(terminal), "in the transcript")
        terminal.type(HOME)
        # Home lands on the message (the welcome line is no stop): its keys are offered.
        terminal.wait_for(lambda: "Edit & resend" in _footer(terminal), "on the message")
        terminal.type("E")
        terminal.wait_for_screen("Editing your last message")
        terminal.type(" again\r")
        terminal.wait_for(lambda: _sent(env) == ["hello", "hello again"], "the edit sent")
        terminal.wait_for_screen("You said:")
        assert "E" not in [line.strip(" ▊▎") for line in terminal.screen_text().splitlines()]

        # The events panel adds two stops: filter and rows. Back twice from the input reaches
        # the rows, not the input again; Tab comes forward through the same places.
        terminal.type(F2)
        terminal.wait_for_screen("filter: node.*")
        terminal.type(SHIFT_TAB)
        terminal.wait_for(lambda: "Back to input" in _footer(terminal), "in the transcript")
        terminal.type(SHIFT_TAB)
        terminal.wait_for(lambda: "To item" in _footer(terminal), "in the events' rows")
        terminal.type("\t")
        terminal.wait_for(lambda: "Back to input" in _footer(terminal), "forward: transcript")
        terminal.type("\x11")  # Ctrl+Q
        assert terminal.wait() == 0
