"""The installed program on a pseudo terminal, as a user starts it, with its screen read by pyte.

`Program` starts the ``openwop-tui`` script that the install put beside the interpreter (the
entry point users type, not ``python -m``), on a pty of a fixed size, in folders of its own
(config, data, state, downloads), and keeps what it wrote. `Program.screen_text` is what a
terminal would show now: the bytes played through pyte's VT100 emulator, so a test reads the
screen, not escape sequences.

Waits are for a condition (text on the screen, the process's end), bounded only by `PATIENCE`
(a guard against a hang, never a synchronisation).
"""

from __future__ import annotations

import contextlib
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Callable, Mapping, Sequence
from fcntl import ioctl
from pathlib import Path

import pyte
import pytest
from installed import PROGRAM
from patience import PATIENCE

COLUMNS, LINES = 120, 40


_SGR = re.compile(r"\x1b\[[0-9;:]*m")


def home(tmp_path: Path, **more: str) -> dict[str, str]:
    """An environment whose config, data, state and download folders are under ``tmp_path``,
    with no key or host from the developer's own environment (``more`` on top)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("OPENWOP_") and key not in ("NO_COLOR", "COLUMNS", "LINES")
    }
    env.update(
        TERM="xterm-256color",
        COLORTERM="truecolor",
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_DOWNLOAD_DIR=str(tmp_path / "downloads"),
        HOME=str(tmp_path / "home"),
    )
    env.update(more)
    return env


def _control_terminal() -> None:
    """(In the child, after ``setsid``) make its stdin, the pty, its controlling terminal."""
    ioctl(0, termios.TIOCSCTTY, 0)


class Program:
    """``openwop-tui ARGS`` on a pty of ``size`` (rows, columns; `LINES` x `COLUMNS` unless
    given)."""

    def __init__(
        self,
        args: Sequence[str],
        env: Mapping[str, str],
        cwd: Path,
        size: tuple[int, int] = (LINES, COLUMNS),
    ) -> None:
        self.master, slave = pty.openpty()
        ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", *size, 0, 0))
        self.process = subprocess.Popen(
            [str(PROGRAM), *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=dict(env),
            cwd=cwd,
            # A session of its own with the pty as its controlling terminal, as a shell gives a
            # program: Ctrl-C typed on it is SIGINT, closing it is SIGHUP.
            start_new_session=True,
            preexec_fn=_control_terminal,
        )
        os.close(slave)
        self.seen = b""
        self._screen = pyte.Screen(size[1], size[0])
        self._stream = pyte.ByteStream(self._screen)
        self.code: int | None = None

    def __enter__(self) -> Program:
        return self

    def __exit__(self, *_: object) -> None:
        self.kill()
        with contextlib.suppress(OSError):
            os.close(self.master)

    def kill(self) -> None:
        """End the program (and what it started) if it still runs: a failed test's cleanup."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    # -------------------------------------------------------------- reading

    def _read(self, timeout: float) -> bool:
        """Take what the program wrote within ``timeout``; whether anything came."""
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return False
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # the other side closed: the program ended
            return False
        if not chunk:
            return False
        self.seen += chunk
        self._stream.feed(chunk)
        return True

    def screen_text(self) -> str:
        """The screen as a terminal shows it now, a line per row, trailing spaces cut."""
        return "\n".join(line.rstrip() for line in self._screen.display)

    def output(self) -> str:
        """Everything written, as text (for a printing command that ended)."""
        return self.seen.decode("utf-8", "replace")

    def words(self) -> str:
        """`output` without its colours (SGR sequences), for what a line says."""
        return _SGR.sub("", self.output())

    def wait_for(self, condition: Callable[[], bool], what: str) -> None:
        """Read until ``condition`` holds; fail, showing the screen, if the program ends or
        `PATIENCE` passes first."""
        end = time.monotonic() + PATIENCE
        while not condition():
            if time.monotonic() > end:
                pytest.fail(f"never happened: {what}\nthe screen:\n{self.screen_text()}")
            if not self._read(0.5) and self.process.poll() is not None:
                while self._read(0.1):  # what it wrote last
                    pass
                if condition():
                    return
                pytest.fail(
                    f"the program ended (exit {self.process.returncode}) before: {what}\n"
                    f"the screen:\n{self.screen_text()}"
                )

    def wait_for_screen(self, text: str) -> None:
        """Until ``text`` is on the screen."""
        self.wait_for(lambda: text in self.screen_text(), f"{text!r} on the screen")

    def wait_for_all(self, *texts: str) -> None:
        """Until every one of ``texts`` is on the screen at once. Not one waited for and the
        rest then asserted: what the program draws comes in reads, and the screen that shows
        the first may show the rest a read later (seen in CI: a replay's status line said "run
        completed" a read before its transcript and the recording's name were drawn)."""
        self.wait_for(
            lambda: all(text in self.screen_text() for text in texts),
            " and ".join(f"{text!r}" for text in texts) + " on the screen",
        )

    def read_until(self, wanted: bytes) -> None:
        """Until ``wanted`` was written, in whatever escape sequences around it."""
        self.wait_for(lambda: wanted in self.seen, f"{wanted!r} written")

    def type(self, keys: str | bytes) -> None:
        os.write(self.master, keys.encode() if isinstance(keys, str) else keys)

    def wait(self) -> int:
        """Until the program ends, reading what it writes (a full pty would block it)."""
        end = time.monotonic() + PATIENCE
        while self.process.poll() is None:
            if time.monotonic() > end:
                pytest.fail(f"the program never ended\nthe screen:\n{self.screen_text()}")
            self._read(0.2)
        while self._read(0.1):
            pass
        self.code = self.process.wait()
        return self.code
