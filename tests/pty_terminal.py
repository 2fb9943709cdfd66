"""The installed program on a real pseudo-terminal, read as it writes (a plain module:
``tests/`` is on ``sys.path``). Every wait ends as soon as its condition holds; `PATIENCE`
bounds only a wait for what never comes."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from patience import PATIENCE


def installed() -> str:
    """The ``openwop-tui`` script installed beside this Python (as users start it)."""
    script = Path(sys.executable).with_name("openwop-tui")
    if not script.is_file():
        pytest.skip(f"no installed openwop-tui beside {sys.executable}")
    return str(script)


def app_env(tmp_path: Path, **more: str) -> dict[str, str]:
    """An environment for the app: its folders under ``tmp_path``, a known terminal, no
    OpenWOP settings of the caller's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TMUX", "OPENWOP_"))}
    env.update(
        TERM="xterm-256color",
        COLUMNS="100",
        LINES="30",
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
    )
    env.update(more)
    return env


class Terminal:
    """A program on a pty, with everything it wrote so far (``seen``)."""

    def __init__(
        self, argv: Sequence[str], env: dict[str, str], size: tuple[int, int] = (30, 100)
    ) -> None:
        """``size``: the pty's rows and columns."""
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", *size, 0, 0))
        self.process = subprocess.Popen(
            list(argv),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            start_new_session=True,
        )
        os.close(slave)
        self.seen = b""

    def read_until(self, wanted: bytes) -> None:
        """Read until ``wanted`` was written (fails if the program ends first)."""
        end = time.monotonic() + PATIENCE
        while wanted not in self.seen:
            if time.monotonic() > end or self.process.poll() is not None:
                pytest.fail(f"never saw {wanted!r}; the screen so far ends: {self.seen[-400:]!r}")
            self._read(0.5)

    def type(self, data: bytes) -> None:
        os.write(self.master, data)

    def _read(self, timeout: float) -> None:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if ready:
            with contextlib.suppress(OSError):  # the other side closed
                self.seen += os.read(self.master, 65536)

    def wait(self) -> int:
        """Read until the program ends; its exit code."""
        end = time.monotonic() + PATIENCE
        while self.process.poll() is None and time.monotonic() < end:
            self._read(0.2)
        self._read(0.2)
        code = self.process.wait(timeout=PATIENCE)
        os.close(self.master)
        return code

    def kill(self) -> None:
        """End the program if it still runs (a failed test's cleanup)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
