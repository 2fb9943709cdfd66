"""The terminal asked before the app's modules load, its answers read after
(`openwop_tui.devices.early_probe`): the same decisions as asking late, the keys typed in
between kept, and a deadline counted from the question, so a silent terminal's timeout passes
while the modules load. The far end of a pty plays the terminal (as in test_terminal_probe);
the program end is held as `TypeAhead` holds it (no canonical input, no echo)."""

from __future__ import annotations

import os
import pty
from collections.abc import Iterator

import pytest
from tty_support import TMUX, XTERM, Tty

from openwop_tui.devices import terminal as probe_module
from openwop_tui.devices.early_probe import EarlyProbe
from openwop_tui.devices.terminal import QUERY, TMUX_QUERY, detect_image_mode
from openwop_tui.devices.typeahead import TypeAhead


@pytest.fixture
def held() -> Iterator[tuple[int, int]]:
    """A pty (terminal end, program end), the program end held for typing ahead as the app
    holds it (`TypeAhead.hold`)."""
    terminal, program = pty.openpty()
    typing = TypeAhead.hold(program)
    assert typing is not None
    try:
        yield terminal, program
    finally:
        typing.restore()
        os.close(terminal)
        os.close(program)


def _read_query(terminal: int, query: bytes) -> bytes:
    received = b""
    while len(received) < len(query):
        received += os.read(terminal, 4096)
    return received


ANSWERS = {
    "kitty": b"\x1b_Gi=31;OK\x1b\\\x1b[6;18;9t\x1b[?62;c",
    "sixel": b"\x1b[?63;1;2;4;6;9;15;22c",
    "xtsmgraphics": b"\x1b[?1;0;1024S\x1b[?65;1;9c",
    "plain": b"\x1b[?6c",
}


@pytest.mark.parametrize("answer", ANSWERS.values(), ids=ANSWERS.keys())
def test_asked_early_decides_as_asked_late(held: tuple[int, int], answer: bytes) -> None:
    """The question is written by `ask` (nothing read yet); the terminal answers while the
    modules would load; `answer` reads it and decides what the one-step probe decides."""
    terminal, program = held
    tty = Tty(program)
    early = EarlyProbe.ask("auto", stdin=tty, stdout=tty, environ=XTERM, timeout=600)
    assert _read_query(terminal, QUERY) == QUERY  # asked now, not when answered
    os.write(terminal, answer)
    support = early.answer()

    # The late probe, on the same answers (the terminal end answers once it has the question).
    late_terminal, late_program = pty.openpty()
    try:
        import threading

        def plays() -> None:
            _read_query(late_terminal, QUERY)
            os.write(late_terminal, answer)

        thread = threading.Thread(target=plays, daemon=True)
        thread.start()
        late = Tty(late_program)
        expected = detect_image_mode("auto", stdin=late, stdout=late, environ=XTERM, timeout=600)
        thread.join(60)
    finally:
        os.close(late_terminal)
        os.close(late_program)
    assert support == expected


def test_keys_typed_while_the_modules_load_are_kept_with_the_answers(
    held: tuple[int, int],
) -> None:
    terminal, program = held
    tty = Tty(program)
    early = EarlyProbe.ask("auto", stdin=tty, stdout=tty, environ=XTERM, timeout=600)
    _read_query(terminal, QUERY)
    os.write(terminal, b"hel" + b"\x1b_Gi=31;OK\x1b\\" + b"lo\r" + b"\x1b[?62;c")
    kept: list[bytes] = []
    assert early.answer(typed=kept.append).mode == "kitty"
    assert kept == [b"hello\r"]


def test_a_silent_terminal_is_given_its_time_from_the_question_not_from_the_reading(
    held: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asked with 600 s to answer; the modules "take" 601 s (the clock moved on): reading
    then waits for nothing more (each wait is recorded, none made) and says the terminal did
    not answer. Counted from `answer`, it would wait 600 s more."""
    terminal, program = held
    tty = Tty(program)
    now = [1000.0]
    waits: list[float] = []

    def select(read: object, write: object, error: object, timeout: float) -> tuple:
        waits.append(timeout)
        return [], [], []

    monkeypatch.setattr(probe_module.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(probe_module.select, "select", select)
    early = EarlyProbe.ask("auto", stdin=tty, stdout=tty, environ=XTERM, timeout=600)
    _read_query(terminal, QUERY)
    now[0] += 601
    support = early.answer()
    assert waits == [0.0]
    assert (support.mode, support.reason) == (
        "halfblock",
        "the terminal did not answer within 600 s",
    )


def test_inside_tmux_the_passthrough_question_is_asked(held: tuple[int, int]) -> None:
    terminal, program = held
    tty = Tty(program)
    early = EarlyProbe.ask(
        "auto", stdin=tty, stdout=tty, environ=TMUX, timeout=600, ask_tmux=lambda: True
    )
    assert _read_query(terminal, TMUX_QUERY) == TMUX_QUERY
    os.write(terminal, b"\x1b[6;20;10t\x1b_Gi=31;OK\x1b\\\x1b[?62;4c")
    support = early.answer()
    assert support.mode == "kitty" and support.tmux


@pytest.mark.parametrize("requested", ["halfblock", "none"])
def test_a_setting_that_needs_no_question_writes_nothing(
    held: tuple[int, int], requested: str
) -> None:
    terminal, program = held
    tty = Tty(program)
    support = EarlyProbe.ask(requested, stdin=tty, stdout=tty, environ=XTERM).answer()
    assert support.mode == requested
    os.set_blocking(terminal, False)
    with pytest.raises(BlockingIOError):
        os.read(terminal, 1024)


def test_a_terminal_that_cannot_be_asked_degrades_to_half_blocks_saying_why() -> None:
    class Broken(Tty):
        def fileno(self) -> int:
            raise OSError("no descriptor")

    tty = Broken(-1)
    support = EarlyProbe.ask("auto", stdin=tty, stdout=tty, environ=XTERM).answer()
    assert support.mode == "halfblock"
    assert support.reason == "terminal probe failed (OSError: no descriptor)"
