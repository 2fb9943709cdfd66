"""A real full disk, then SIGTERM: the turns the store could not take are kept in a journal and
the next start writes them in (issue 23, item 5).

Not simulated: the data folder is a 2 MB tmpfs mounted for the test (root only: CI runs as
root; elsewhere the test skips and says why), filled to its last byte mid-chat. The installed
program runs on a pseudo-terminal against its embedded demo host; the store is read back with
SQLite, read-only, once the program is gone.
"""

from __future__ import annotations

import signal
import sqlite3
import sys
from pathlib import Path

import pytest
from full_disk import fill, tmpfs
from pty_support import Program, home

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="a tmpfs and a POSIX pty")

#: Wide enough that no line of the app's is wrapped (the journal line names a long path).
SIZE = (40, 320)


def _users(database: Path) -> list[str]:
    db = sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT data FROM entries WHERE kind = 'user' ORDER BY session, seq")
        return [bytes(row[0]).decode() for row in rows]
    finally:
        db.close()


def _journals(*folders: Path) -> list[Path]:
    return [p for folder in folders if folder.is_dir() for p in folder.glob("unstored-*.json")]


def _sent(screen: str) -> bool:
    """Whether the second message left the prompt: on the screen, with the prompt empty."""
    empty = "Message the host" in screen or "A run is in progress" in screen
    return "typed while full, again" in screen and empty


def _start(env: dict[str, str], cwd: Path) -> Program:
    return Program(["--demo-pace", "0", "--no-audio", "--images", "halfblock"], env, cwd, SIZE)


def test_turns_typed_on_a_full_disk_survive_sigterm_and_come_back_at_the_next_start(
    tmp_path: Path,
) -> None:
    with tmpfs(tmp_path / "data", "2m") as data:
        env = home(tmp_path, XDG_DATA_HOME=str(data), LINES=str(SIZE[0]), COLUMNS=str(SIZE[1]))
        database = data / "openwop-tui" / "sessions.db"
        beside, spare = (
            data / "openwop-tui" / "journal",
            tmp_path / "state" / "openwop-tui" / "journal",
        )
        app = _start(env, tmp_path)
        try:
            app.read_until(b"Connected")
            app.type(b"stored first\r")
            app.read_until(b"completed")
            filler = fill(data)  # the disk is full from here on
            app.type(b"typed while full\r")
            app.read_until(b"cannot be saved now")
            app.type(b"typed while full, again\r")
            # Sent, not only echoed in the prompt as it was typed (a key is drawn at once):
            # in the transcript, and the prompt empty again (its placeholder shown).
            app.wait_for(lambda: _sent(app.screen_text()), "the second message sent")
            app.process.send_signal(signal.SIGTERM)
            assert app.wait() == 128 + signal.SIGTERM
        finally:
            app.kill()
        said = app.seen[app.seen.rfind(b"\x1b[?1049l") :].decode(errors="replace")
        [journal] = _journals(beside, spare)
        assert f"are in {journal}" in said, said
        assert _users(database) == ["stored first"]  # the rest is in the journal only

        filler.unlink()  # space freed: the next start writes the journal in
        again = _start(env, tmp_path)
        try:
            again.read_until(b"earlier quit kept in a journal")
            again.read_until(b"connected")  # (the status line: no welcome above a notice)
            again.type(b"\x11")  # Ctrl+Q
            assert again.wait() == 0
        finally:
            again.kill()
        assert not journal.exists()
        assert _users(database) == ["stored first", "typed while full", "typed while full, again"]
