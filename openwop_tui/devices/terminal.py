"""Which image protocol the terminal speaks: decided once, before the app takes the terminal.

``detect_image_mode`` turns the ``images`` setting into an `ImageSupport`. ``auto`` asks the
terminal, and only a terminal that can answer: stdin and stdout must be TTYs and ``TERM`` must
not be ``dumb``. The order is kitty, then sixel, then half-blocks (``none`` only when asked):
kitty draws through Unicode placeholders (`openwop_tui.devices.graphics.kitty`), which scroll with
the
transcript; WezTerm and Konsole answer the kitty query but do not draw placeholders, so there
sixel wins when offered. ``kitty`` and ``sixel`` force that protocol without asking;
``halfblock`` and ``none`` are taken as given. ``OPENWOP_TUI_IMAGES`` in the environment
overrides ``auto`` (the same values).

The question is one write: the kitty graphics query (a 1x1 image that is checked, not stored),
the cell-size report request (``CSI 16 t``), the sixel colour-register query (XTSMGRAPHICS), then
primary device attributes (``CSI c``), which every terminal answers. Terminals answer in order,
so once the DA1 reply is in, everything that is coming has come; a terminal that says nothing is
given `DEFAULT_TIMEOUT` seconds, and garbage is ignored. Sixel is offered by DA1 attribute 4 or
a successful XTSMGRAPHICS answer.

Inside tmux, the kitty query and a DA1 go to the outer terminal through tmux's passthrough
(``ESC P tmux; … ESC \\``), which tmux forwards only with ``allow-passthrough`` on (asked of
``tmux show-options`` first; when it is off nothing is sent to the terminal and the reason says
how to turn it on). The images are then sent through the passthrough too. Sixel is not chosen by
itself inside tmux (tmux draws it only when built with it): ``--images sixel`` forces it. GNU
screen passes nothing.

The answers are parsed by the pure `parse_answers` and weighed by `choose`, both tested with
recorded bytes; `query_terminal` is the only part that touches the terminal (raw mode, ``select``
with a deadline, the old mode restored in ``finally``). Whatever goes wrong, the result is
half-blocks with the reason: a probe never crashes or hangs the app.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal, Protocol

from openwop_tui.devices.capabilities import Graphics
from openwop_tui.devices.graphics.tmux import passthrough
from openwop_tui.text.sanitize import clean_label

__all__ = [
    "DEFAULT_CELL",
    "DEFAULT_TIMEOUT",
    "ENV_OVERRIDE",
    "QUERY",
    "TMUX_QUERY",
    "Answers",
    "ImageProtocol",
    "ImageSupport",
    "Plan",
    "Stream",
    "choose",
    "colour_system",
    "decide",
    "detect_image_mode",
    "draws_placeholders",
    "failed",
    "forced_or_skipped",
    "in_the_app",
    "in_tmux",
    "parse_answers",
    "plan_probe",
    "query_terminal",
    "read_answers",
    "tmux_passthrough",
    "with_colours",
]

ImageProtocol = Literal["kitty", "sixel", "halfblock", "none"]

DEFAULT_CELL = (10, 20)
"""A cell's size in pixels when nobody said (a common one; the VT340's)."""

ENV_OVERRIDE = "OPENWOP_TUI_IMAGES"
"""An environment variable that replaces ``auto`` (kitty, sixel, halfblock, none)."""

DEFAULT_TIMEOUT = 0.2
"""Seconds to wait for a terminal that does not answer at all (most answer in milliseconds)."""

KITTY_QUERY = b"\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\"
CELL_SIZE_QUERY = b"\x1b[16t"
SIXEL_QUERY = b"\x1b[?1;1;0S"
"""XTSMGRAPHICS: read the number of sixel colour registers (answered by sixel terminals)."""
DA1_QUERY = b"\x1b[c"
QUERY = KITTY_QUERY + CELL_SIZE_QUERY + SIXEL_QUERY + DA1_QUERY
"""Everything asked, in one write; DA1 last, so its answer marks the end of the others."""
TMUX_QUERY = (
    passthrough(KITTY_QUERY.decode("ascii")).encode("ascii")
    + CELL_SIZE_QUERY
    + passthrough(DA1_QUERY.decode("ascii")).encode("ascii")
)
"""Inside tmux: the kitty query and DA1 for the outer terminal, the cell size for tmux."""

_KITTY_REPLY = re.compile(rb"\x1b_G([^\x1b]*)\x1b\\")
# Numbers are bounded in the patterns: a faulty or hostile terminal can answer with thousands
# of digits, which `int` refuses (over 4,300) and no real answer has; such an answer is none.
_DA1_REPLY = re.compile(rb"\x1b\[\?([0-9;]{0,256})c")
_CELL_SIZE_REPLY = re.compile(rb"\x1b\[6;([0-9]{1,6});([0-9]{1,6})t")
_SIXEL_REPLY = re.compile(rb"\x1b\[\?1;([0-9]{1,3});([0-9]{1,9})S")
#: The most bytes of answers read: a terminal that streams without ever sending DA1 is cut off
#: here as well as at the timeout (and each look for DA1 stays cheap).
MAX_ANSWER = 65_536
#: A cell is believed between 1 and this many pixels each way (a kernel that reports a
#: 65,535-pixel window of one column would make every image canvas enormous).
MAX_CELL = 999


class Stream(Protocol):
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
    tmux: bool = False
    """Inside tmux: kitty commands go through its passthrough."""
    colours: str = field(default="truecolor", compare=False)
    """The colours the output is written in (Rich's names: truecolor, 256, standard …); not
    part of the decision, so not compared."""
    blocked: str | None = None
    """Why the asked-for protocol cannot reach the terminal although it was forced (kitty
    inside tmux with passthrough off): images then fall back, saying this."""

    @property
    def pixels(self) -> bool:
        """True when a terminal graphics protocol draws the images (kitty or sixel)."""
        return self.mode in ("kitty", "sixel")

    def graphics(self) -> Graphics:
        """What renderers may draw in pixels here (the chosen protocol, the cell size)."""
        protocols = frozenset({self.mode}) if self.pixels else frozenset[str]()
        size = self.cell_size or DEFAULT_CELL
        reason = f"this output takes {self.mode} graphics only" if self.pixels else self.reason
        if self.blocked is not None:
            protocols, reason = frozenset(), self.blocked
        if self.mode == "kitty" and self.colours not in ("truecolor", "256"):
            # A kitty image is named by its cells' colour: 16 colours cannot name one.
            protocols = frozenset()
            reason = f"the output is written in {self.colours} colours, too few to name an image"
        return Graphics(
            protocols,
            size,
            tmux=self.tmux,
            reason=reason,
            truecolor=self.colours == "truecolor",
        )


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
    sixel_registers: int | None = None
    """XTSMGRAPHICS answered with success: the sixel colour registers."""

    @property
    def sixel(self) -> bool:
        """DA1 lists attribute 4 (sixel graphics; the first parameter is the device class), or
        XTSMGRAPHICS answered."""
        listed = self.device_attributes is not None and "4" in self.device_attributes[1:]
        return listed or self.sixel_registers is not None


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
            # Shown to the user in reasons: the terminal's bytes are cleaned like a host's.
            kitty_error = clean_label(message[:80].decode("ascii", "replace")) or "no message"
    da1 = _DA1_REPLY.search(data)
    attributes = tuple(da1.group(1).decode("ascii").split(";")) if da1 else None
    size = _CELL_SIZE_REPLY.search(data)
    cell_size = None
    if size:
        height, width = int(size.group(1)), int(size.group(2))
        cell_size = _plausible_cell(width, height)
    registers = None
    sixel = _SIXEL_REPLY.search(data)
    if sixel and sixel.group(1) == b"0":
        registers = int(sixel.group(2)[:6])
    return Answers(kitty, kitty_error, attributes, cell_size, registers)


#: What a terminal answers with: control sequences (CSI …, and the strings APC, DCS, OSC, PM,
#: SOS up to their terminator, or cut off by the deadline), a stray string terminator; and the
#: keys that send sequences too (arrows and function keys: CSI, or SS3 ``ESC O A``…``ESC O S``).
#: Any other ESC is the Esc key alone: it goes, and what was typed after it stays (``Esc d``
#: is an Esc and a "d"; taking them as one pair lost the letter).
_ANSWER = re.compile(
    rb"\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]"
    rb"|\x1b[_P\]^X].*?(?:\x1b\\|\x07|\Z)"
    rb"|\x1b\[[\x20-\x3f]*\Z"
    rb"|\x1b(?:O[A-DFHP-S]|\\)?",
    re.DOTALL,
)


def typed_keys(data: bytes) -> bytes:
    """What in the probe's bytes is not a terminal answer: keys the user typed while it
    waited (`openwop_tui.devices.typeahead`), in the order typed, without the keys that send
    sequences (arrows, function keys, Esc): the text, and Enter, Backspace and Ctrl keys."""
    return _ANSWER.sub(b"", data)


def _plausible_cell(width: int, height: int) -> tuple[int, int] | None:
    return (width, height) if 0 < width <= MAX_CELL and 0 < height <= MAX_CELL else None


def answered(data: bytes | bytearray) -> bool:
    """True once the DA1 reply is in: nothing else asked is still on its way."""
    return _DA1_REPLY.search(data) is not None


def choose(
    answers: Answers, *, timeout: float = DEFAULT_TIMEOUT, placeholders: bool = True
) -> ImageSupport:
    """The best protocol the answers allow: kitty, then sixel, then half-blocks.

    ``placeholders`` is false for terminals known to answer the kitty query without drawing
    its Unicode placeholders (WezTerm, Konsole): there sixel comes first when offered.
    """
    size = answers.cell_size
    kitty = ImageSupport("kitty", "the terminal answered the kitty graphics query", size)
    if answers.kitty and (placeholders or not answers.sixel):
        return kitty
    if answers.sixel:
        return ImageSupport("sixel", "the terminal offers sixel graphics", size)
    if answers.device_attributes is not None:
        why = "the terminal offers neither kitty graphics nor sixel"
        if answers.kitty_error:
            why += f" (kitty graphics: {answers.kitty_error})"
        return ImageSupport("halfblock", why, size)
    return ImageSupport("halfblock", f"the terminal did not answer within {timeout:g} s", size)


def draws_placeholders(environ: Mapping[str, str]) -> bool:
    """False for terminals that answer the kitty query but draw no Unicode placeholders."""
    program = environ.get("TERM_PROGRAM", "").lower()
    return program != "wezterm" and not environ.get("KONSOLE_VERSION")


def tmux_passthrough() -> bool | None:
    """Whether tmux's ``allow-passthrough`` is on (``None``: tmux could not be asked)."""
    tmux = shutil.which("tmux")
    if tmux is None:
        return None
    try:
        answer = subprocess.run(
            [tmux, "show-options", "-gv", "allow-passthrough"],
            capture_output=True,
            text=True,
            timeout=1.0,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if answer.returncode != 0:
        return None
    return answer.stdout.strip() in ("on", "all")


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
    override = environ.get(ENV_OVERRIDE, "").strip().lower()
    if override and override != "auto":
        decided = forced_or_skipped(override, interactive=interactive, environ={})
        assert decided is not None
        reason = decided.reason.replace(f"images = {override}", f"{ENV_OVERRIDE}={override}")
        return ImageSupport(decided.mode, reason, tmux=in_tmux(environ))
    if not interactive:
        return ImageSupport("halfblock", "stdin or stdout is not a terminal: not probed")
    term = environ.get("TERM", "")
    if not term or term == "dumb":
        shown = f"TERM={term}" if term else "TERM is unset"
        return ImageSupport("halfblock", f"{shown}: not probed")
    if not in_tmux(environ) and (environ.get("STY") or term.startswith("screen")):
        return ImageSupport(
            "halfblock", "inside GNU screen, which passes no terminal graphics: half-blocks"
        )
    return None


def in_tmux(environ: Mapping[str, str]) -> bool:
    """Whether this runs inside tmux."""
    return bool(environ.get("TMUX")) or environ.get("TERM", "").startswith("tmux")


def query_terminal(
    fd_in: int, fd_out: int, *, timeout: float = DEFAULT_TIMEOUT, query: bytes = QUERY
) -> bytes:
    """Send ``query`` and collect the answers until DA1 comes back or ``timeout`` passes.

    Raises ``OSError`` (or ``termios.error``) when the terminal cannot be set up; the caller turns
    that into half-blocks. The terminal's mode is restored whatever happens.

    Args:
        fd_in: The terminal's input, where the answers come, set raw meanwhile.
        fd_out: The terminal's output, where the query is written.
        timeout: Seconds to wait for the answers.
        query: The bytes asked (`QUERY`, or `TMUX_QUERY` inside tmux).
    """
    import termios  # not on Windows: the ImportError is the caller's to degrade
    import tty

    saved = termios.tcgetattr(fd_in)
    try:
        tty.setraw(fd_in, termios.TCSANOW)
        os.write(fd_out, query)
        return read_answers(fd_in, time.monotonic() + timeout)
    finally:
        termios.tcsetattr(fd_in, termios.TCSANOW, saved)


def read_answers(fd_in: int, deadline: float) -> bytes:
    """What the terminal sends on ``fd_in`` (already out of canonical mode, not echoing) until
    its DA1 answer is in or ``time.monotonic()`` reaches ``deadline``: the answers, and any keys
    typed meanwhile (`typed_keys` tells them apart)."""
    received = bytearray()
    while not answered(received) and len(received) < MAX_ANSWER:
        remaining = deadline - time.monotonic()
        ready, _, _ = select.select([fd_in], [], [], max(remaining, 0.0))
        if not ready:
            break
        chunk = os.read(fd_in, 1024)
        if not chunk:
            break
        received += chunk
    return bytes(received)


def kernel_cell_size(stream: Stream) -> tuple[int, int] | None:
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
    return _plausible_cell(width // columns, height // rows)


def colour_system(environ: Mapping[str, str]) -> str:
    """The colours a terminal app writes here, decided as Textual and Rich decide it."""
    forced = environ.get("TEXTUAL_COLOR_SYSTEM", "auto")
    if forced != "auto":
        return forced
    from io import StringIO

    from rich.console import Console

    detected = Console(file=StringIO(), force_terminal=True, _environ=dict(environ)).color_system
    return detected or "standard"


def detect_image_mode(
    requested: str,
    *,
    stdin: Stream,
    stdout: Stream,
    environ: Mapping[str, str],
    timeout: float = DEFAULT_TIMEOUT,
    ask_tmux: Callable[[], bool | None] = tmux_passthrough,
    typed: Callable[[bytes], None] | None = None,
) -> ImageSupport:
    """Decide how images are drawn (see the module docstring). Never raises, never hangs.

    Args:
        requested: The ``images`` setting: ``auto``, ``kitty``, ``sixel``, ``halfblock`` or
            ``none``.
        stdin: The input, where the terminal answers.
        stdout: The output, where the question is written.
        environ: The environment (``TERM``, tmux, ``OPENWOP_TUI_IMAGES``…).
        timeout: Seconds to wait for the terminal's answers.
        ask_tmux: Says whether tmux passes graphics through (None: unknown).
        typed: Given the keys the user typed while the terminal was asked (`typed_keys`); None drops
            them.
    """
    try:
        plan = plan_probe(requested, stdin=stdin, stdout=stdout, environ=environ, ask_tmux=ask_tmux)
        if plan.decided is not None:
            support = plan.decided
        else:
            stdout.flush()  # anything already written goes out before the question
            data = query_terminal(
                stdin.fileno(), stdout.fileno(), timeout=timeout, query=plan.query
            )
            support = decide(
                data, plan, stdout=stdout, environ=environ, timeout=timeout, typed=typed
            )
    except Exception as error:  # a probe degrades, never crashes
        support = failed(error)
    return with_colours(support, environ)


def in_the_app(support: ImageSupport, environ: Mapping[str, str]) -> ImageSupport:
    """How the app draws images, given ``support``: with ``NO_COLOR`` set, Textual draws in no
    colour, so half-block pixels would be grey blocks and a kitty image's id (its placeholders'
    colour) would be lost: pictures are described instead (sixel draws its own pixels: kept).
    (A printing command's ``--colors`` may force colours back: `for_printing` decides there.)"""
    if environ.get("NO_COLOR") and support.mode in ("halfblock", "kitty"):
        return ImageSupport(
            "none",
            f"NO_COLOR is set: {_MODE_WORDS[support.mode]} are colours, so pictures are "
            "described instead",
            support.cell_size,
            support.tmux,
        )
    return support


_MODE_WORDS = {"halfblock": "half-block pixels", "kitty": "kitty image ids"}


def with_colours(support: ImageSupport, environ: Mapping[str, str]) -> ImageSupport:
    """``support`` with the colour system the app will draw in (`colour_system`)."""
    try:
        return replace(support, colours=colour_system(environ))
    except Exception:  # an odd environment: kitty ids stay 24-bit colours
        return support


def failed(error: Exception) -> ImageSupport:
    """Half-blocks, and why: the probe failed with ``error``."""
    return ImageSupport("halfblock", f"terminal probe failed ({type(error).__name__}: {error})")


@dataclass(frozen=True, slots=True)
class Plan:
    """The probe before the terminal is asked (`plan_probe`): decided without asking, or what
    to ask (inside tmux or not)."""

    decided: ImageSupport | None
    query: bytes = QUERY
    tmux: bool = False


def plan_probe(
    requested: str,
    *,
    stdin: Stream,
    stdout: Stream,
    environ: Mapping[str, str],
    ask_tmux: Callable[[], bool | None] = tmux_passthrough,
) -> Plan:
    """What the probe does before asking: a setting that needs no question, a terminal that
    cannot answer, tmux with passthrough off (each decided), else the question to send. May raise
    (the callers turn that into `failed`).

    Args:
        requested: The ``images`` setting.
        stdin: The input, where the terminal answers.
        stdout: The output, where the question is written.
        environ: The environment (``TERM``, tmux, ``OPENWOP_TUI_IMAGES``…).
        ask_tmux: Says whether tmux passes graphics through (None: unknown).
    """
    interactive = stdin.isatty() and stdout.isatty()
    tmux = in_tmux(environ)
    decided = forced_or_skipped(requested, interactive=interactive, environ=environ)
    if decided is not None:
        decided = ImageSupport(decided.mode, decided.reason, decided.cell_size, tmux)
        if decided.mode == "kitty" and tmux and interactive and ask_tmux() is False:
            # Forced, but tmux would print the commands' placeholders as junk.
            return Plan(
                replace(
                    decided,
                    blocked="tmux passes no kitty commands through (allow-passthrough is off: "
                    "tmux set -g allow-passthrough on)",
                )
            )
        if decided.pixels and interactive:
            return Plan(_with_cell_size(decided, kernel_cell_size(stdout)))
        return Plan(decided)
    if not tmux:
        return Plan(None)
    if ask_tmux() is False:
        return Plan(
            ImageSupport(
                "halfblock",
                "inside tmux with allow-passthrough off: half-blocks "
                "(tmux set -g allow-passthrough on, or --images sixel to force sixel)",
                tmux=True,
            )
        )
    return Plan(None, TMUX_QUERY, tmux=True)


def decide(
    data: bytes,
    plan: Plan,
    *,
    stdout: Stream,
    environ: Mapping[str, str],
    timeout: float,
    typed: Callable[[bytes], None] | None = None,
) -> ImageSupport:
    """The probe's answer from what the terminal sent back (``data``) to ``plan``'s question.

    Args:
        data: The bytes read after the question (answers, and keys typed meanwhile).
        plan: The question asked (`plan_probe`).
        stdout: The terminal's output (its cell size asked of the kernel when it did not say).
        environ: The environment (whether kitty's placeholders are drawn).
        timeout: The seconds the answers were given (named when none came).
        typed: Given the keys typed while the terminal was asked; None drops them.
    """
    if typed is not None:
        typed(typed_keys(data))  # read with the answers: not the probe's to drop
    answers = parse_answers(data)
    if plan.tmux:  # the outer terminal's sixel is not tmux's: kitty or half-blocks here
        listed = answers.device_attributes
        answers = replace(
            answers,
            sixel_registers=None,
            device_attributes=None if listed is None else listed[:1],
        )
    support = choose(answers, timeout=timeout, placeholders=draws_placeholders(environ))
    support = ImageSupport(support.mode, support.reason, support.cell_size, plan.tmux)
    if support.pixels and support.cell_size is None:
        support = _with_cell_size(support, kernel_cell_size(stdout))
    return support


def _with_cell_size(support: ImageSupport, size: tuple[int, int] | None) -> ImageSupport:
    return replace(support, cell_size=size or support.cell_size)
