"""Keys typed while the app starts, kept for the prompt.

The app takes 2-4 s to come up on a loaded machine (imports, the terminal probe, the first
frame). Until Textual puts the terminal in raw mode, the tty is in its cooked mode, so what the
user types meanwhile was lost or changed: the line discipline turns Enter's CR into LF (ICRNL),
which the prompt reads as Ctrl+J, a new line, so "hello⏎" was not sent; and the terminal probe
(`openwop_tui.devices.terminal.query_terminal`) read the typed keys with the terminal's answers
and dropped them.

`TypeAhead.hold` is called first thing when the app is to start: it switches off canonical
input, echo and the CR/LF translations (signals stay: Ctrl+C still stops a start that hangs),
so what is typed from then on arrives as the keys pressed, and takes what was typed before in
cooked mode (its LF is the Enter that ICRNL turned, so it goes back to CR). The probe hands it
the bytes that are not answers (`keep`). The app feeds `take` into the prompt when it mounts,
before any key Textual reads itself, so the order is the typing order. `restore` puts the
terminal back as it was: Textual restores the mode it found, which is this one.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
from typing import Any

#: Signals that end the program before the app handles them (it does once it is up).
_ENDING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))

#: Most bytes kept (a cat on the keyboard; a paste into a starting app).
MAX_BYTES = 64 * 1024


class TypeAhead:
    """The terminal held for typing ahead, and what was typed."""

    def __init__(self, fd: int, saved: list[Any]) -> None:
        self._fd = fd
        self._saved: list[Any] | None = saved
        self._typed = bytearray()
        self._handlers: dict[int, Any] = {}
        """The signal handlers `hold` replaced (so that a stop during start-up still leaves
        the terminal as it was)."""

    @classmethod
    def hold(cls, fd: int) -> TypeAhead | None:
        """Hold terminal ``fd`` (stdin) for typing ahead; ``None`` when it is not a terminal or
        cannot be set (nothing changed then)."""
        try:
            import termios
        except ImportError:  # not a POSIX terminal: nothing to hold
            return None
        try:
            if not os.isatty(fd):
                return None
            saved = termios.tcgetattr(fd)
            held = termios.tcgetattr(fd)
            held[0] &= ~(termios.ICRNL | termios.INLCR | termios.IGNCR)  # iflag
            held[3] &= ~(termios.ICANON | termios.ECHO)  # lflag: ISIG stays
            held[6][termios.VMIN] = 1
            held[6][termios.VTIME] = 0
            termios.tcsetattr(fd, termios.TCSANOW, held)
        except (OSError, termios.error):
            return None
        typed = cls(fd, saved)
        typed._catch_signals()
        # Typed before, in cooked mode: an Enter there reached the queue as ICRNL's LF.
        early = typed._available()
        if saved[0] & termios.ICRNL:
            early = early.replace(b"\n", b"\r")
        typed.keep(early)
        return typed

    def _catch_signals(self) -> None:
        def ended(number: int, _frame: object) -> None:
            self.restore()
            signal.signal(number, signal.SIG_DFL)
            os.kill(os.getpid(), number)  # ended as the signal would have ended it

        for number in _ENDING:
            with contextlib.suppress(ValueError, OSError):  # not the main thread: none set
                self._handlers[number] = signal.signal(number, ended)

    def _available(self) -> bytes:
        """What the terminal has queued now, without waiting."""
        data = bytearray()
        try:
            while len(data) < MAX_BYTES and select.select([self._fd], [], [], 0)[0]:
                chunk = os.read(self._fd, 4096)
                if not chunk:
                    break
                data += chunk
        except OSError:
            pass
        return bytes(data)

    def keep(self, data: bytes) -> None:
        """Keep ``data``, typed keys (the probe's bytes that were not answers)."""
        room = MAX_BYTES - len(self._typed)
        if room > 0:
            self._typed += data[:room]

    def take(self) -> str:
        """What was typed, as text (and forget it): keys that send sequences (arrows,
        function keys) are left out, as the probe leaves out the terminal's answers."""
        from openwop_tui.devices.terminal import typed_keys

        typed, self._typed = bytes(self._typed), bytearray()
        return typed_keys(typed).decode("utf-8", "replace")

    def restore(self) -> None:
        """Put the terminal back in the mode it had before `hold` (once; never raises)."""
        saved, self._saved = self._saved, None
        if saved is None:
            return
        handlers, self._handlers = self._handlers, {}
        for number, handler in handlers.items():
            with contextlib.suppress(ValueError, OSError, TypeError):
                signal.signal(number, handler)
        import termios  # `hold` imported it: a held terminal is a POSIX one

        with contextlib.suppress(OSError, termios.error):
            termios.tcsetattr(self._fd, termios.TCSANOW, saved)
