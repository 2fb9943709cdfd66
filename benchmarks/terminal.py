"""The app as a user meets it: a process in a pseudo-terminal, its screen read by pyte.

`Terminal` starts a command on a pty of a fixed size, feeds everything it draws into a `pyte`
screen on a reader thread, and answers "when did this text appear" and "how long until a typed
key is on screen". Nothing runs inside the measured process: these are the figures from
outside it that issue 13 asks for (the in-process figures of `view_figures` cannot see a key
waiting behind ingest in the terminal's input queue).
"""

from __future__ import annotations

import fcntl
import os
import select
import signal
import statistics
import struct
import subprocess
import termios
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pyte

#: Typed before the measured keys, so the typed text cannot be mistaken for the app's own.
MARKER = "Zq"


class _Screen(pyte.Screen):
    """pyte's screen, answering as a terminal does: a primary device attributes request
    (``CSI c``, which every terminal answers) gets a VT102's answer written back to the program
    (`write_process_input`, which pyte leaves to its user). A terminal that never answered
    would hold each start for the app's probe timeout, as no real one does; ``answers=False``
    makes one (a figure's note measures that case)."""

    def __init__(self, cols: int, rows: int, reply: Callable[[bytes], None] | None) -> None:
        super().__init__(cols, rows)
        self._reply = reply

    def write_process_input(self, data: str) -> None:
        if self._reply is not None:
            self._reply(data.encode())


class Terminal:
    """``argv`` running in a ``cols`` x ``rows`` pty; its screen readable at any time."""

    def __init__(
        self,
        argv: Sequence[str],
        env: dict[str, str],
        size: tuple[int, int] = (120, 40),
        *,
        answers: bool = True,
    ) -> None:
        """Start ``argv`` on a new pty.

        Args:
            argv: The program and its arguments.
            env: Its environment (``TERM`` and ``COLORTERM`` are set here).
            size: Columns and rows.
            answers: Whether the terminal answers a device attributes request (as every real
                one does); False plays one that never answers.
        """
        cols, rows = size
        reply = (lambda data: os.write(self._master, data)) if answers else None
        self.screen = _Screen(cols, rows, reply)
        self._stream = pyte.ByteStream(self.screen)
        self._changed = threading.Condition()
        self._text = ""
        self._change_arrived = 0.0
        """When the bytes of the latest change to the screen were read (before pyte parsed
        them: its parsing is this harness's cost, not the app's)."""
        self.bytes_read = 0
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self._master = master
        self.process = subprocess.Popen(
            list(argv),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env={**env, "TERM": "xterm-256color", "COLORTERM": "truecolor"},
            start_new_session=True,
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
        )
        os.close(slave)
        self.started = time.perf_counter()
        self._region: Callable[[list[str]], object] | None = None
        self._region_seen: object = None
        self.region_changes: list[float] = []
        """When the bytes of each change to the watched region arrived (`watch`)."""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._typed = ""

    def watch(self, region: Callable[[list[str]], object]) -> None:
        """From now on, note when what ``region`` picks out of the screen's lines changes
        (`region_changes`): the transcript, say, apart from the prompt a key echoes in."""
        with self._changed:
            self._region = region
            self._region_seen = region(list(self.screen.display))
            self.region_changes = []

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self._master, 1 << 16)
                # All that is there now, before parsing any (a frame comes in pieces of a few
                # KB, and the next piece would otherwise wait for pyte to parse this one).
                while data and select.select([self._master], [], [], 0)[0]:
                    more = os.read(self._master, 1 << 16)
                    if not more:
                        break
                    data += more
            except OSError:
                data = b""
            with self._changed:
                if not data:
                    self._text = self._text  # (unchanged) wake waiters: the app has gone
                    self._changed.notify_all()
                    return
                self.bytes_read += len(data)
                arrived = time.perf_counter()
                self._stream.feed(data)
                text = "\n".join(self.screen.display)
                if text != self._text:
                    self._change_arrived = arrived
                    if self._region is not None:
                        region = self._region(list(self.screen.display))
                        if region != self._region_seen:
                            self._region_seen = region
                            self.region_changes.append(arrived)
                self._text = text
                self._changed.notify_all()

    @property
    def text(self) -> str:
        with self._changed:
            return self._text

    def wait_for(self, seen: str | Callable[[str], bool], timeout: float = 60.0) -> float:
        """``time.perf_counter()`` when ``seen`` (a text, or a test on the screen's text)
        first held; `TimeoutError` naming what was on screen if it never did."""
        test = seen if callable(seen) else (lambda text: seen in text)
        deadline = time.perf_counter() + timeout
        with self._changed:
            while not test(self._text):
                left = deadline - time.perf_counter()
                if left <= 0 or self.process.poll() is not None:
                    raise TimeoutError(f"{seen!r} never appeared; the screen:\n{self._text}")
                self._changed.wait(min(left, 0.5))
            return time.perf_counter()

    def appeared(self, seen: str, timeout: float = 60.0) -> float:
        """``time.perf_counter()`` when the bytes that first drew ``seen`` were read: `wait_for`
        less pyte's parsing and this harness's waking (on a busy machine, tens of ms)."""
        self.wait_for(seen, timeout)
        with self._changed:
            return self._change_arrived

    def send(self, keys: str) -> None:
        os.write(self._master, keys.encode())

    def start_typing(self) -> None:
        """Type the marker (not measured), so every measured key's echo is unmistakable."""
        self._typed = MARKER
        self.send(MARKER)
        self.wait_for(MARKER)

    def echo(self, char: str = "x", timeout: float = 60.0) -> float:
        """Seconds from writing ``char`` to the typed text, ``char`` included, being on screen.

        The prompt is cleared (not measured) before the typed text would no longer fit it."""
        if len(self._typed) > 40:
            self.send("\x7f" * len(self._typed))
            self.wait_for(lambda text: MARKER not in text, timeout)
            self.start_typing()
        want = self._typed + char
        start = time.perf_counter()
        self.send(char)
        seen = self.wait_for(want, timeout)
        self._typed = want
        return seen - start

    def clear_typing(self) -> None:
        if self._typed:
            self.send("\x7f" * len(self._typed))
            self.wait_for(lambda text: MARKER not in text)
            self._typed = ""

    def settle(self, act: Callable[[], None], quiet: float = 0.15, timeout: float = 60.0) -> float:
        """Seconds from ``act`` (a key written, a new size) to the screen changed and settled:
        to the arrival of the bytes that made its last change before ``quiet`` seconds without
        one (the quiet is not counted), so a scroll animation counts to its last frame.

        Counted to the bytes' arrival, not to pyte having parsed them: pyte takes several
        milliseconds over a full screen of colours, which a real terminal does not, and which
        is this harness's work, not the app's."""
        return self.changes(act, quiet, timeout)[1]

    def changes(
        self, act: Callable[[], None], quiet: float = 0.15, timeout: float = 60.0
    ) -> tuple[float, float]:
        """Seconds from ``act`` to the screen's first change, and to it settled (`settle`)."""
        with self._changed:
            before = self._text
        start = time.perf_counter()
        act()
        self.wait_for(lambda text: text != before, timeout)
        deadline = time.perf_counter() + timeout
        with self._changed:
            first = last = self._change_arrived
            while time.perf_counter() < deadline:
                seen = self._text
                if not self._changed.wait(quiet):
                    break
                if self._text != seen:
                    last = self._change_arrived
        return first - start, last - start

    def page(self, keys: str = "\x1b[5~") -> float:
        """Seconds from a Page Up (or ``keys``) to the screen settled (see `settle`)."""
        return self.settle(lambda: self.send(keys))

    def page_changes(self, keys: str = "\x1b[5~") -> tuple[float, float]:
        """Seconds from a Page Up (or ``keys``) to the screen's first change, and to it
        settled (`changes`)."""
        return self.changes(lambda: self.send(keys))

    def resize(self, cols: int, rows: int) -> float:
        """Seconds from the terminal's new size to the screen redrawn for it and settled."""
        return self.resize_changes(cols, rows)[1]

    def resize_changes(self, cols: int, rows: int) -> tuple[float, float]:
        """Seconds from the terminal's new size to the screen's first change, and to it
        redrawn for that size and settled (`changes`)."""
        with self._changed:
            self.screen.resize(rows, cols)
            self._text = "\n".join(self.screen.display)
        size = struct.pack("HHHH", rows, cols, 0, 0)
        # The kernel tells the app (SIGWINCH to the terminal's foreground process group).
        return self.changes(lambda: fcntl.ioctl(self._master, termios.TIOCSWINSZ, size))

    def rss_mb(self) -> float:
        """The app process's resident memory now, in MiB."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def close(self, keys: str = "\x11") -> float:
        """Quit with ``keys`` (Ctrl+Q); seconds until the process ended (killed after 30 s)."""
        start = time.perf_counter()
        try:
            self.send(keys)
            self.process.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        finally:
            os.close(self._master)
        return time.perf_counter() - start


def echoes(term: Terminal, count: int, every: float = 0.0, char: str = "x") -> list[float]:
    """``count`` key echoes, ``every`` seconds apart at least (each after the last echoed)."""
    times = []
    for _ in range(count):
        start = time.perf_counter()
        times.append(term.echo(char))
        rest = every - (time.perf_counter() - start)
        if rest > 0:
            time.sleep(rest)
    return times


def median_ms(times: Sequence[float]) -> float:
    return statistics.median(times) * 1000
