"""SIGTERM and SIGHUP end the app as Ctrl+Q would: the terminal is left as it was (main screen,
mouse tracking off, cursor shown), the app's own run is cancelled on the host and the session's
end is written; the exit code says which signal it was (128 + its number).

The real app in a real pseudo-terminal, as a user runs it; what it writes is read until it exits.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import pty
import select
import signal
import subprocess
import sys
import threading
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


def _store_kinds(env: dict[str, str]) -> list[str]:
    """The kinds of the one stored session's entries, read from ``env``'s folders."""
    store_env = {"XDG_STATE_HOME": env["XDG_STATE_HOME"], "XDG_DATA_HOME": env["XDG_DATA_HOME"]}
    saved = {key: os.environ.get(key) for key in store_env}
    os.environ.update(store_env)
    try:
        store = Store()
        [session] = store.sessions()
        return [entry.kind for entry in store.entries(session.id)]
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def test_closing_the_terminal_mid_run_ends_the_run_and_the_process(tmp_path: Path) -> None:
    # The window is closed under the app: its terminal is gone (every write fails with EIO),
    # then SIGHUP. Textual's output thread dies on the first write and its full queue used to
    # block the event loop for ever: the process never exited and the run kept going.
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
    os.close(terminal.master)  # the terminal is gone: the app's next redraw fails
    terminal.process.send_signal(signal.SIGHUP)
    assert terminal.process.wait(timeout=PATIENCE) == 128 + signal.SIGHUP
    kinds = _store_kinds(env)
    assert "run" in kinds and kinds.count("end") == kinds.count("run")


class _HungUp(io.TextIOBase):
    """A terminal that was closed: every write fails as a hung-up tty's does."""

    def write(self, text: str) -> int:
        raise OSError(errno.EIO, "Input/output error")

    def fileno(self) -> int:
        return 2


# Textual's writer thread dying on the failed write is the point: its exception is expected.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_driver_whose_terminal_is_gone_never_blocks_the_app() -> None:
    # Pins what Textual does and why `hang_up_safe` is needed: its writer thread dies on the
    # first failed write, and its bounded queue then blocks every later write (and `close`).
    from textual.drivers._writer_thread import MAX_QUEUED_WRITES, WriterThread
    from textual.drivers.linux_driver import LinuxDriver

    from openwop_tui.ui.failure import hang_up_safe

    safe = hang_up_safe(LinuxDriver)
    assert safe is not LinuxDriver and issubclass(safe, LinuxDriver)
    driver = safe.__new__(safe)  # no app, no terminal: only the output path is exercised
    writer = WriterThread(_HungUp())
    driver._writer_thread = writer
    writer.start()
    done = threading.Event()

    def use_it() -> None:
        with contextlib.suppress(OSError):
            driver.write("first")  # the thread dies on it
        writer.join(PATIENCE)
        assert not writer.is_alive()
        for _ in range(MAX_QUEUED_WRITES * 2):
            driver.write("\x1b[?25h")  # would fill the dead thread's queue, then block
        driver.close()
        done.set()

    worker = threading.Thread(target=use_it, daemon=True)
    worker.start()
    assert done.wait(PATIENCE), "a write or close blocked on the dead writer's queue"
