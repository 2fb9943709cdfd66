"""Tabs as a user has them (issue 27): the installed program on a real pseudo-terminal, its
embedded demo host, a message sent in the first chat, Ctrl+N for a second chat in a tab of its
own while the first still streams, a message sent there, and each tab's answer on the screen
when it is shown, the keys as a terminal sends them (Ctrl+PgUp is ``ESC [5;5~``).

Fails without tabs: Ctrl+N replaced the chat on screen (the first answer was gone), or was
refused while the first run streamed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pty_support import Program, home

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pty")

CTRL_N, CTRL_Q = b"\x0e", b"\x11"
CTRL_PAGE_UP, CTRL_PAGE_DOWN = b"\x1b[5;5~", b"\x1b[6;5~"


def test_two_tabs_each_get_their_answer_on_the_installed_program(tmp_path: Path) -> None:
    env = home(tmp_path)
    with Program(["--no-audio", "--images", "halfblock"], env, tmp_path) as terminal:
        terminal.wait_for_screen("Connected to the embedded demo host")
        terminal.type("code please\r")
        terminal.wait_for_screen("run running")
        terminal.type(CTRL_N)  # while the first run streams
        terminal.wait_for(
            lambda: (
                " 2 new chat " in terminal.screen_text()
                and "Connected to the embedded demo host" in terminal.screen_text()
            ),
            "the second tab, with the welcome hint",
        )
        terminal.type("a card please\r")
        terminal.wait_for_screen("Deployment summary")  # the second tab's answer
        terminal.wait_for_screen("run completed")
        terminal.type(CTRL_PAGE_UP)  # back to the first tab
        terminal.wait_for(
            lambda: (
                "def fib" in terminal.screen_text()
                and "“code please”" in terminal.screen_text()
                and "run completed" in terminal.screen_text()
            ),
            "the first tab's answer, its run completed",
        )
        assert "Deployment summary" not in terminal.screen_text()
        labels = terminal.screen_text().splitlines()[0]
        assert "1 code please" in labels and "2 a card please" in labels
        terminal.type(CTRL_PAGE_DOWN)
        terminal.wait_for_screen("Deployment summary")
        terminal.type(CTRL_Q)
        assert terminal.wait() == 0
