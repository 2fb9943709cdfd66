"""A faulty or hostile terminal answering the image probe (issue 8): answers with thousands of
digits, control characters in a kitty error, a flood that never ends in DA1, and a kernel that
reports an absurd window. The probe degrades, never crashes, shows nothing raw, reads a bounded
amount, and never believes a cell size no terminal has.
"""

from __future__ import annotations

import os
import pty
import struct
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from hostile_media import terminal_leak
from hypothesis import given, settings
from hypothesis import strategies as st

from openwop_tui.devices import terminal
from openwop_tui.devices.terminal import (
    MAX_ANSWER,
    QUERY,
    choose,
    kernel_cell_size,
    parse_answers,
    query_terminal,
)

KITTY_OK = b"\x1b_Gi=31;OK\x1b\\"
DA1 = b"\x1b[?62;4c"


def test_an_answer_with_thousands_of_digits_is_no_answer_and_the_rest_still_counts() -> None:
    answers = parse_answers(KITTY_OK + b"\x1b[6;" + b"9" * 5000 + b";10t" + DA1)
    assert answers.kitty and answers.cell_size is None
    assert choose(answers).mode == "kitty"


def test_sixel_registers_with_thousands_of_digits_are_no_answer() -> None:
    answers = parse_answers(b"\x1b[?1;0;" + b"9" * 9000 + b"S")
    assert answers.sixel_registers is None


def test_a_kitty_error_with_control_characters_is_shown_cleaned() -> None:
    answers = parse_answers(b"\x1b_Gi=31;ENOTSUP\x07\x08\x08\x9b2J\x1b\\" + DA1.replace(b"4", b"1"))
    support = choose(answers)
    assert support.mode == "halfblock"
    assert "ENOTSUP" in support.reason and terminal_leak(support.reason) is None


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                b"\x1b_G",
                b"i=31",
                b";",
                b"OK",
                b"\x1b\\",
                b"\x1b[?",
                b"62",
                b"4",
                b"c",
                b"\x1b[6;",
                b"t",
                b"S",
                b"1;0;",
                b"9" * 5000,
                b"\x07",
                b"\x9b",
                b"\xff",
                b"\x00",
                b",",
            ]
        ),
        max_size=30,
    ).map(b"".join)
)
def test_any_answer_parses_and_its_reason_is_clean(data: bytes) -> None:
    support = choose(parse_answers(data))
    assert terminal_leak(support.reason) is None
    if support.cell_size is not None:
        assert all(0 < side <= terminal.MAX_CELL for side in support.cell_size)


@pytest.fixture
def pseudo_terminal() -> Iterator[tuple[int, int]]:
    """(terminal end, program end) of a pseudo-terminal."""
    here, there = pty.openpty()
    try:
        yield here, there
    finally:
        os.close(here)
        os.close(there)


def test_a_flood_without_da1_is_read_only_up_to_the_cap(pseudo_terminal: tuple[int, int]) -> None:
    far, program = pseudo_terminal
    stop = threading.Event()

    def flood() -> None:
        received = b""
        while len(received) < len(QUERY):
            received += os.read(far, 1024)
        junk = b"\x1b[0n" * 256
        while not stop.is_set():
            try:
                os.write(far, junk)
            except OSError:
                return

    thread = threading.Thread(target=flood, daemon=True)
    thread.start()
    try:
        # The timeout is far longer than a capped read takes: without the cap it ends there.
        data = query_terminal(program, program, timeout=20.0)
    finally:
        stop.set()
    assert MAX_ANSWER <= len(data) < MAX_ANSWER + 4096


class _Window:
    def __init__(self, fd: int) -> None:
        self.fd = fd

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        return True

    def flush(self) -> None:
        pass


@pytest.mark.parametrize(
    "window",
    [(24, 80, 65535, 65535), (1, 1, 65535, 65535), (24, 80, 10, 10), (24, 80, 800, 480)],
    ids=["huge", "one-cell", "too-small", "ordinary"],
)
def test_the_kernel_window_size_gives_only_plausible_cells(
    window: tuple[int, int, int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    import fcntl

    def ioctl(fd: int, request: int, arg: Any) -> bytes:
        return struct.pack("HHHH", *window)

    monkeypatch.setattr(fcntl, "ioctl", ioctl)
    size = kernel_cell_size(_Window(0))
    rows, columns, width, height = window
    expected = (width // columns, height // rows)
    if all(0 < side <= terminal.MAX_CELL for side in expected):
        assert size == expected
    else:
        assert size is None
