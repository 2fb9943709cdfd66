"""The terminal probe against pseudo-terminals that answer nothing, garbage, or as kitty, sixel
and tmux do. The far end of each pty plays the terminal in a thread: it reads the whole query,
then writes its canned answer; nothing is timed but the probe's own deadline."""

from __future__ import annotations

import os
import pty
import termios
import threading
from collections.abc import Iterator

import pytest
from tty_support import TMUX, XTERM, Tty

from openwop_tui.devices.graphics import passthrough
from openwop_tui.devices.printed_images import for_printing
from openwop_tui.devices.terminal import (
    QUERY,
    TMUX_QUERY,
    ImageSupport,
    detect_image_mode,
)


@pytest.fixture
def pseudo_terminal() -> Iterator[tuple[int, int]]:
    terminal, program = pty.openpty()
    try:
        yield terminal, program
    finally:
        os.close(terminal)
        os.close(program)


def terminal_answers(fd: int, query: bytes, answer: bytes) -> threading.Thread:
    seen: list[bytes] = []

    def run() -> None:
        received = b""
        while len(received) < len(query):
            received += os.read(fd, 4096)
        seen.append(received)
        if answer:
            os.write(fd, answer)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.seen = seen  # type: ignore[attr-defined]
    return thread


def probe(program: int, environ: dict[str, str], timeout: float, **options: object) -> ImageSupport:
    tty = Tty(program)
    return detect_image_mode(
        "auto",
        stdin=tty,
        stdout=tty,
        environ=environ,
        timeout=timeout,
        **options,  # type: ignore[arg-type]
    )


def test_a_terminal_that_answers_nothing_gives_half_blocks_and_its_mode_back(
    pseudo_terminal: tuple[int, int],
) -> None:
    terminal, program = pseudo_terminal
    before = termios.tcgetattr(program)
    thread = terminal_answers(terminal, QUERY, b"")
    support = probe(program, XTERM, 0.05)
    thread.join(5)
    assert support == ImageSupport("halfblock", "the terminal did not answer within 0.05 s")
    assert termios.tcgetattr(program) == before
    assert thread.seen == [QUERY]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "garbage",
    [
        b"\xff\xfe\x80 not an answer \x1b[?",
        b"\x1b_Gi=31;OK",  # a kitty answer cut short, no DA1
        b"\x1b[6;0;0t\x1b[?1;0;",
        bytes(range(256)),
    ],
)
def test_a_terminal_that_answers_garbage_gives_half_blocks(
    pseudo_terminal: tuple[int, int], garbage: bytes
) -> None:
    terminal, program = pseudo_terminal
    thread = terminal_answers(terminal, QUERY, garbage)
    support = probe(program, XTERM, 0.1)
    thread.join(5)
    assert support.mode == "halfblock"


def test_a_kitty_terminal_is_found_with_its_cell_size(pseudo_terminal: tuple[int, int]) -> None:
    terminal, program = pseudo_terminal
    answer = b"\x1b_Gi=31;OK\x1b\\\x1b[6;18;9t\x1b[?62;c"
    thread = terminal_answers(terminal, QUERY, answer)
    support = probe(program, {"TERM": "xterm-kitty"}, 5.0)
    thread.join(5)
    assert support.mode == "kitty" and support.cell_size == (9, 18)
    assert support.graphics().protocols == frozenset({"kitty"})
    assert support.graphics().cell_size == (9, 18)


@pytest.mark.parametrize(
    "answer",
    [b"\x1b[?63;1;2;4;6;9;15;22c", b"\x1b[?1;0;1024S\x1b[?65;1;9c"],
    ids=["da1-attribute-4", "xtsmgraphics"],
)
def test_a_sixel_terminal_is_found(pseudo_terminal: tuple[int, int], answer: bytes) -> None:
    terminal, program = pseudo_terminal
    thread = terminal_answers(terminal, QUERY, answer)
    support = probe(program, XTERM, 5.0)
    thread.join(5)
    assert support.mode == "sixel"


def test_inside_tmux_kitty_is_asked_through_the_passthrough(
    pseudo_terminal: tuple[int, int],
) -> None:
    terminal, program = pseudo_terminal
    assert passthrough("\x1b[c").encode() in TMUX_QUERY
    # tmux answers the cell size itself; the outer kitty answers through it, DA1 last.
    answer = b"\x1b[6;20;10t\x1b_Gi=31;OK\x1b\\\x1b[?62;4c"
    thread = terminal_answers(terminal, TMUX_QUERY, answer)
    support = probe(program, TMUX, 5.0, ask_tmux=lambda: True)
    thread.join(5)
    assert thread.seen == [TMUX_QUERY]  # type: ignore[attr-defined]
    assert support.mode == "kitty" and support.tmux
    assert support.graphics().tmux


def test_inside_tmux_the_outer_terminals_sixel_is_not_taken(
    pseudo_terminal: tuple[int, int],
) -> None:
    terminal, program = pseudo_terminal
    thread = terminal_answers(terminal, TMUX_QUERY, b"\x1b[?63;1;2;4;6c")
    support = probe(program, TMUX, 5.0, ask_tmux=lambda: True)
    thread.join(5)
    assert support.mode == "halfblock"
    assert support.reason == "the terminal offers neither kitty graphics nor sixel"


def test_inside_tmux_without_passthrough_nothing_is_written(
    pseudo_terminal: tuple[int, int],
) -> None:
    terminal, program = pseudo_terminal
    support = probe(program, TMUX, 5.0, ask_tmux=lambda: False)
    assert support.mode == "halfblock"
    assert "allow-passthrough" in support.reason
    os.set_blocking(terminal, False)
    with pytest.raises(BlockingIOError):
        os.read(terminal, 1024)


def test_forced_kitty_inside_tmux_without_passthrough_falls_back_saying_why(
    pseudo_terminal: tuple[int, int],
) -> None:
    """``--images kitty`` in tmux with passthrough off: the placeholders would print as junk,
    so images fall back to half-blocks with the reason (the badge says kitty unavailable)."""
    _, program = pseudo_terminal
    tty = Tty(program)
    support = detect_image_mode(
        "kitty", stdin=tty, stdout=tty, environ=TMUX, timeout=1.0, ask_tmux=lambda: False
    )
    graphics = support.graphics()
    assert support.mode == "kitty" and "kitty" not in graphics.protocols
    assert "allow-passthrough" in graphics.reason
    forced = detect_image_mode(
        "kitty", stdin=tty, stdout=tty, environ=TMUX, timeout=1.0, ask_tmux=lambda: True
    )
    assert "kitty" in forced.graphics().protocols


class Pipe(Tty):
    def isatty(self) -> bool:
        return False


@pytest.mark.parametrize(
    ("requested", "colour", "mode"),
    [
        ("auto", True, "halfblock"),
        ("auto", False, "none"),
        ("kitty", False, "kitty"),
        ("sixel", True, "sixel"),
        ("none", True, "none"),
    ],
)
def test_printing_to_a_pipe_asks_nothing_and_forced_modes_are_kept(
    requested: str, colour: bool, mode: str
) -> None:
    pipe = Pipe(-1)  # no descriptor: any question would fail
    support = for_printing(requested, stdin=pipe, stdout=pipe, environ=XTERM, colour=colour)
    assert support.mode == mode
    if mode in ("kitty", "sixel"):
        assert support.graphics().protocols == frozenset({mode})


def test_the_apps_context_carries_what_the_probe_found() -> None:
    from openwop_tui.ui.controllers.profile import app_image_context

    kitty = app_image_context(ImageSupport("kitty", "answered", (9, 18), tmux=True), "auto")
    assert kitty.images == "kitty"
    assert kitty.graphics.protocols == frozenset({"kitty"})
    assert kitty.graphics.cell_size == (9, 18) and kitty.graphics.tmux
    assert kitty.graphics.reason == "this output takes kitty graphics only"
    plain = app_image_context(ImageSupport("halfblock", "the terminal did not answer"), "auto")
    assert plain.images == "halfblock" and not plain.graphics.protocols
    assert plain.graphics.reason == "the terminal did not answer"  # why a switch to kitty fails
    assert app_image_context(None, "none").images == "none"
    assert app_image_context(None, "auto").images == "halfblock"
