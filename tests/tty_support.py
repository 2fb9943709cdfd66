"""One end of a pseudo-terminal as the terminal probe sees a stream (isatty, fileno, flush): the
stdin and stdout the probe tests hand it."""

from __future__ import annotations

XTERM = {"TERM": "xterm-256color"}
TMUX = {"TERM": "screen-256color", "TMUX": "/tmp/tmux-0/default,1,0"}


class Tty:
    """A stream on one end of a pty."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def flush(self) -> None:
        pass
