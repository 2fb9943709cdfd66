"""Which image protocol the terminal speaks: decided once, in ``__main__``, before the app starts.

``detect_image_mode`` turns the ``images`` setting into an `ImageSupport`. ``auto`` asks the
terminal, and only a terminal that can answer: stdin and stdout must be TTYs, ``TERM`` must not be
``dumb``, and inside tmux or GNU screen nothing is asked (tmux passes sixel only when built with
it and kitty graphics not at all), so half-blocks it is unless a protocol is forced. ``kitty`` and
``sixel`` force that protocol without asking; ``halfblock`` and ``none`` are taken as given.

The question is one write: the kitty graphics query (a 1x1 image that is checked, not stored),
the cell-size report request (``CSI 16 t``), then primary device attributes (``CSI c``), which
every terminal answers. Terminals answer in order, so once the DA1 reply is in, everything that
is coming has come; a terminal that says nothing is given `DEFAULT_TIMEOUT` seconds. The
answers are parsed by the pure `parse_answers` and weighed by `choose`, both tested with recorded
bytes; `query_terminal` is the only part that touches the terminal (raw mode, ``select`` with a
deadline, the old mode restored in ``finally``). Whatever goes wrong, the result is half-blocks
with the reason: a probe never crashes the app.

textual-image has its own detection, but it runs when the package is imported, reads one byte at
a time decoding each as UTF-8 (a stray non-ASCII key raises), calls ``tcgetattr`` on stdin
without checking it is a terminal, and silently picks half-blocks when imported after Textual has
taken stdin. Doing it here keeps the import free of I/O and the decision explicit.
"""

from __future__ import annotations

import os
import re
import select
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, Protocol

__all__ = [
    "DEFAULT_TIMEOUT",
    "QUERY",
    "Answers",
    "ImageProtocol",
    "ImageSupport",
    "choose",
    "detect_image_mode",
    "forced_or_skipped",
    "parse_answers",
    "query_terminal",
]

ImageProtocol = Literal["kitty", "sixel", "halfblock", "none"]

DEFAULT_TIMEOUT = 0.2
"""Seconds to wait for a terminal that does not answer at all (most answer in milliseconds)."""

KITTY_QUERY = b"\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\"
CELL_SIZE_QUERY = b"\x1b[16t"
DA1_QUERY = b"\x1b[c"
QUERY = KITTY_QUERY + CELL_SIZE_QUERY + DA1_QUERY
"""Everything asked, in one write; DA1 last, so its answer marks the end of the others."""

_KITTY_REPLY = re.compile(rb"\x1b_G([^\x1b]*)\x1b\\")
_DA1_REPLY = re.compile(rb"\x1b\[\?([0-9;]*)c")
_CELL_SIZE_REPLY = re.compile(rb"\x1b\[6;([0-9]+);([0-9]+)t")


class _Stream(Protocol):
    def fileno(self) -> int: ...
    def isatty(self) -> bool: ...
    def flush(self) -> None: ...


@dataclass(frozen=True, slots=True)
class ImageSupport:
    """How images are drawn in the app, and why (the reason is for people, not for code)."""

    mode: ImageProtocol
    reason: str
    cell_size: tuple[int, int] | None = None
    """One cell's size in pixels (width, height) when the terminal or the kernel told us."""

    @property
    def pixels(self) -> bool:
        """True when a terminal graphics protocol draws the images (kitty or sixel)."""
        return self.mode in ("kitty", "sixel")


@dataclass(frozen=True, slots=True)
class Answers:
    """What the terminal said, parsed."""

    kitty: bool = False
    """The kitty graphics query was answered ``OK``."""
    kitty_error: str | None = None
    """The kitty graphics query was answered with an error (``ENOTSUPPORTED:…``)."""
    device_attributes: tuple[str, ...] | None = None
    """DA1 parameters, or ``None`` when DA1 was not answered."""
    cell_size: tuple[int, int] | None = None

    @property
    def sixel(self) -> bool:
        """DA1 lists attribute 4 (sixel graphics); the first parameter is the device class."""
        return self.device_attributes is not None and "4" in self.device_attributes[1:]


def parse_answers(data: bytes) -> Answers:
    """Parse whatever the terminal sent back; anything that is not an answer is ignored."""
    kitty, kitty_error = False, None
    for match in _KITTY_REPLY.finditer(data):
        keys, _, message = match.group(1).partition(b";")
        if b"i=31" not in keys.split(b","):
            continue  # an answer to someone else's query
        if message == b"OK":
            kitty = True
        else:
            kitty_error = message.decode("ascii", "replace")[:80] or "no message"
    da1 = _DA1_REPLY.search(data)
    attributes = tuple(da1.group(1).decode("ascii").split(";")) if da1 else None
    size = _CELL_SIZE_REPLY.search(data)
    cell_size = None
    if size:
        height, width = int(size.group(1)), int(size.group(2))
        if width > 0 and height > 0:
            cell_size = (width, height)
    return Answers(kitty, kitty_error, attributes, cell_size)


def answered(data: bytes | bytearray) -> bool:
    """True once the DA1 reply is in: nothing else asked is still on its way."""
    return _DA1_REPLY.search(data) is not None


def choose(answers: Answers, *, timeout: float = DEFAULT_TIMEOUT) -> ImageSupport:
    """The best protocol the answers allow.

    Sixel wins when both are offered: textual-image draws kitty images with Unicode
    placeholders, which only kitty itself handles; WezTerm and Konsole answer the kitty query
    but draw its placeholders wrong, and draw sixel right. Kitty never offers sixel.
    """
    size = answers.cell_size
    if answers.sixel:
        return ImageSupport(
            "sixel", "the terminal lists sixel graphics in its device attributes", size
        )
    if answers.kitty:
        return ImageSupport("kitty", "the terminal answered the kitty graphics query", size)
    if answers.device_attributes is not None:
        why = "the terminal offers neither kitty graphics nor sixel"
        if answers.kitty_error:
            why += f" (kitty graphics: {answers.kitty_error})"
        return ImageSupport("halfblock", why, size)
    return ImageSupport("halfblock", f"the terminal did not answer within {timeout:g} s", size)


def forced_or_skipped(
    requested: str, *, interactive: bool, environ: Mapping[str, str]
) -> ImageSupport | None:
    """The decision when no question needs asking, or ``None`` when the terminal must be asked.

    ``interactive`` is whether stdin and stdout are both terminals.
    """
    if requested == "kitty":
        return ImageSupport("kitty", "kitty graphics, as set (images = kitty); not probed")
    if requested == "sixel":
        return ImageSupport("sixel", "sixel, as set (images = sixel); not probed")
    if requested == "halfblock":
        return ImageSupport("halfblock", "half-blocks, as set (images = halfblock)")
    if requested == "none":
        return ImageSupport("none", "image display is off (images = none)")
    if requested != "auto":
        return ImageSupport("halfblock", f"unknown image mode {requested!r}: half-blocks")
    if not interactive:
        return ImageSupport("halfblock", "stdin or stdout is not a terminal: not probed")
    term = environ.get("TERM", "")
    if not term or term == "dumb":
        shown = f"TERM={term}" if term else "TERM is unset"
        return ImageSupport("halfblock", f"{shown}: not probed")
    if environ.get("TMUX") or term.startswith("tmux"):
        return ImageSupport(
            "halfblock",
            "inside tmux, which passes sixel only when built with it and kitty graphics not at "
            "all: half-blocks (--images sixel forces sixel)",
        )
    if environ.get("STY") or term.startswith("screen"):
        return ImageSupport(
            "halfblock", "inside GNU screen, which passes no terminal graphics: half-blocks"
        )
    return None


def query_terminal(fd_in: int, fd_out: int, *, timeout: float = DEFAULT_TIMEOUT) -> bytes:
    """Send `QUERY` and collect the answers until DA1 comes back or ``timeout`` passes.

    Raises ``OSError`` (or ``termios.error``) when the terminal cannot be set up; the caller turns
    that into half-blocks. The terminal's mode is restored whatever happens.
    """
    import termios  # not on Windows: the ImportError is the caller's to degrade
    import tty

    saved = termios.tcgetattr(fd_in)
    received = bytearray()
    try:
        tty.setraw(fd_in, termios.TCSANOW)
        os.write(fd_out, QUERY)
        deadline = time.monotonic() + timeout
        while not answered(received):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            ready, _, _ = select.select([fd_in], [], [], remaining)
            if not ready:
                break
            chunk = os.read(fd_in, 1024)
            if not chunk:
                break
            received += chunk
    finally:
        termios.tcsetattr(fd_in, termios.TCSANOW, saved)
    return bytes(received)


def kernel_cell_size(stream: _Stream) -> tuple[int, int] | None:
    """A cell's size in pixels from ``TIOCGWINSZ``, when the terminal fills in its pixel size
    (a kernel call: nothing is written to the terminal)."""
    try:
        import fcntl
        import struct
        import termios

        packed = fcntl.ioctl(stream.fileno(), termios.TIOCGWINSZ, b"\0" * 8)
        rows, columns, width, height = struct.unpack("HHHH", packed)
    except Exception:  # not a terminal, no descriptor, not POSIX: the size stays unknown
        return None
    if not (rows and columns and width and height):
        return None
    return width // columns, height // rows


def detect_image_mode(
    requested: str,
    *,
    stdin: _Stream,
    stdout: _Stream,
    environ: Mapping[str, str],
    timeout: float = DEFAULT_TIMEOUT,
) -> ImageSupport:
    """Decide how the app draws images (see the module docstring). Never raises."""
    try:
        interactive = stdin.isatty() and stdout.isatty()
        decided = forced_or_skipped(requested, interactive=interactive, environ=environ)
        if decided is not None:
            if decided.pixels and interactive:
                return _with_cell_size(decided, kernel_cell_size(stdout))
            return decided
        stdout.flush()  # anything already written goes out before the question
        data = query_terminal(stdin.fileno(), stdout.fileno(), timeout=timeout)
        support = choose(parse_answers(data), timeout=timeout)
        if support.pixels and support.cell_size is None:
            support = _with_cell_size(support, kernel_cell_size(stdout))
        return support
    except Exception as error:  # a probe degrades, never crashes
        return ImageSupport("halfblock", f"terminal probe failed ({type(error).__name__}: {error})")


def _with_cell_size(support: ImageSupport, size: tuple[int, int] | None) -> ImageSupport:
    return ImageSupport(support.mode, support.reason, size or support.cell_size)
