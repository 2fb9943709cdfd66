"""SIGTERM and SIGHUP end the app as Ctrl+Q would: the terminal is left as it was (main screen,
mouse tracking off, cursor shown), the app's own run is cancelled on the host and the session's
end is written; the exit code says which signal it was (128 + its number).

The real app in a real pseudo-terminal, as a user runs it; what it writes is read until it exits.
"""

from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from patience import PATIENCE

from openwop_tui.store.sessions import Store

#: Generous: a loaded CI machine starts the app slowly. Not a measure of anything.
DEADLINE_S = 120.0


class Terminal:
    """The app's process on a pty, with everything it wrote so far."""

    def __init__(self, env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "openwop_tui",
                "--demo-pace",
                "1",
                "--no-audio",
                "--images",
                "halfblock",
            ],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            start_new_session=True,
        )
        os.close(slave)
        self.seen = b""

    def read_until(self, wanted: bytes) -> None:
        end = time.monotonic() + DEADLINE_S
        while wanted not in self.seen:
            if time.monotonic() > end or self.process.poll() is not None:
                pytest.fail(f"never saw {wanted!r}; the screen so far ends: {self.seen[-400:]!r}")
            self._read(0.5)

    def _read(self, timeout: float) -> None:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if ready:
            with contextlib.suppress(OSError):  # the other side closed
                self.seen += os.read(self.master, 65536)

    def wait(self) -> int:
        end = time.monotonic() + DEADLINE_S
        while self.process.poll() is None and time.monotonic() < end:
            self._read(0.2)
        self._read(0.2)
        code = self.process.wait(timeout=PATIENCE)
        os.close(self.master)
        return code


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_restores_the_terminal_and_ends_the_run(tmp_path: Path, number: int) -> None:
    env = {
        **os.environ,
        "TERM": "xterm-256color",
        "COLUMNS": "100",
        "LINES": "30",
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    terminal = Terminal(env)
    terminal.read_until(b"Connected")
    os.write(terminal.master, b"something slow\r")
    terminal.read_until(b"streaming")
    terminal.process.send_signal(number)
    code = terminal.wait()
    assert code == 128 + number
    tail = terminal.seen[terminal.seen.rfind(b"\x1b[?1049h") :]
    assert b"\x1b[?1049l" in tail, "the alternate screen was left on"
    assert b"\x1b[?25h" in tail, "the cursor was left hidden"
    assert b"\x1b[?1000l" in tail, "mouse tracking was left on"
    name = signal.Signals(number).name.encode()
    assert b"cancelled run" in terminal.seen and name in terminal.seen
    # The session's end is written: the run has its end entry.
    store_env = {"XDG_STATE_HOME": env["XDG_STATE_HOME"], "XDG_DATA_HOME": env["XDG_DATA_HOME"]}
    saved = {key: os.environ.get(key) for key in store_env}
    os.environ.update(store_env)
    try:
        store = Store()
        [session] = store.sessions()
        kinds = [entry.kind for entry in store.entries(session.id)]
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    assert "run" in kinds and kinds.count("end") == kinds.count("run")
