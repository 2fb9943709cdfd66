"""Alt+letter keys reach the app from the input, as a terminal sends them (``ESC`` then the
letter): Alt+U opens the file picker, Alt+R records. Textual reads them as ``alt+u`` with the
letter as their character, and the input typed that letter instead (measured in tmux: Alt+S
typed "s", Alt+R and Alt+X did nothing but type). (Alt+F was the picker's key: a terminal's
ESC f is read as Ctrl+→, so it never reached the app.)

Fails without `PromptInput._on_key` leaving ``alt+…`` keys to the app's bindings.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pty_support import Program, home

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pty")

ESC, CTRL_Q = b"\x1b", b"\x11"


@pytest.mark.parametrize(
    ("letter", "shown"),
    [(b"u", "Attach a file from"), (b"r", "Cannot record")],
)
def test_an_alt_letter_from_the_input_is_the_apps_key(
    tmp_path: Path, letter: bytes, shown: str
) -> None:
    env = home(tmp_path)
    with Program(["--no-audio", "--images", "halfblock"], env, tmp_path) as terminal:
        terminal.wait_for_screen("Connected to the embedded demo host")
        terminal.type(ESC + letter)
        terminal.wait_for_screen(shown)
        if shown.startswith("Attach"):
            terminal.type(ESC)  # the dialog closes
            terminal.wait_for(lambda: shown not in terminal.screen_text(), "the dialog closed")
        typed = terminal.screen_text()
        assert "▊ " + letter.decode() not in typed  # nothing typed into the input
        terminal.type(CTRL_Q)
        assert terminal.wait() == 0
