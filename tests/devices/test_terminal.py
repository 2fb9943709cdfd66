"""Image protocol detection (design.md Practices 10) and how the app draws with what it found.

The answers are parsed from recorded bytes; the terminal I/O is driven through a pseudo-terminal
whose far end plays the terminal. textual-image is never imported in this process: the app runs
that would load it run in a subprocess, headless, with stdout captured.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import termios
import textwrap
import threading
from collections.abc import Iterator

import pytest
from patience import PATIENCE

from openwop_tui.devices.terminal import (
    DA1_QUERY,
    KITTY_QUERY,
    QUERY,
    Answers,
    ImageSupport,
    choose,
    detect_image_mode,
    draws_placeholders,
    parse_answers,
    query_terminal,
)

KITTY_OK = b"\x1b_Gi=31;OK\x1b\\"
KITTY_DA1 = b"\x1b[?62;c"  # kitty 0.3x
XTERM_SIXEL_DA1 = b"\x1b[?63;1;2;4;6;9;15;22c"  # xterm -ti vt340
VTE_DA1 = b"\x1b[?65;1;9c"  # GNOME Terminal
WEZTERM = b"\x1b_Gi=31;OK\x1b\\\x1b[6;20;10t\x1b[?65;4;6;18;22c"
TERM = {"TERM": "xterm-256color"}


class FakeStream:
    """Enough of a file for `detect_image_mode`."""

    def __init__(self, tty: bool, fd: int = -1) -> None:
        self.tty, self.fd = tty, fd

    def isatty(self) -> bool:
        return self.tty

    def fileno(self) -> int:
        if self.fd < 0:
            raise OSError("no file descriptor")
        return self.fd

    def flush(self) -> None:
        pass


# ----------------------------------------------------------------- parsing the answers


def test_the_query_asks_kitty_then_cell_size_then_device_attributes() -> None:
    assert QUERY.startswith(KITTY_QUERY)
    assert QUERY.endswith(DA1_QUERY)
    assert KITTY_QUERY == b"\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\"


def test_kitty_answers_ok_and_offers_no_sixel() -> None:
    answers = parse_answers(KITTY_OK + KITTY_DA1)
    assert answers == Answers(kitty=True, device_attributes=("62", ""))
    assert not answers.sixel
    support = choose(answers)
    assert support.mode == "kitty"
    assert support.reason == "the terminal answered the kitty graphics query"


def test_da1_listing_4_means_sixel() -> None:
    answers = parse_answers(XTERM_SIXEL_DA1)
    assert answers.sixel and not answers.kitty
    assert choose(answers).mode == "sixel"


def test_kitty_wins_when_both_are_offered_and_the_cell_size_is_kept() -> None:
    answers = parse_answers(WEZTERM)
    assert answers.kitty and answers.sixel
    assert answers.cell_size == (10, 20)  # CSI 6 ; height ; width t
    assert choose(answers) == ImageSupport(
        "kitty", "the terminal answered the kitty graphics query", (10, 20)
    )


def test_sixel_wins_where_kitty_placeholders_are_not_drawn() -> None:
    # WezTerm and Konsole answer the kitty query but draw no Unicode placeholders.
    assert not draws_placeholders({"TERM_PROGRAM": "WezTerm"})
    assert not draws_placeholders({"KONSOLE_VERSION": "230800"})
    assert draws_placeholders({"TERM": "xterm-kitty"})
    support = choose(parse_answers(WEZTERM), placeholders=False)
    assert support == ImageSupport("sixel", "the terminal offers sixel graphics", (10, 20))


def test_an_xtsmgraphics_answer_means_sixel() -> None:
    answers = parse_answers(b"\x1b[?1;0;256S" + VTE_DA1)
    assert answers.sixel and answers.sixel_registers == 256
    assert choose(answers).mode == "sixel"
    assert not parse_answers(b"\x1b[?1;3;0S" + VTE_DA1).sixel  # status 3: failure


def test_da1_without_4_means_half_blocks() -> None:
    support = choose(parse_answers(VTE_DA1))
    assert support.mode == "halfblock"
    assert support.reason == "the terminal offers neither kitty graphics nor sixel"


def test_the_device_class_4_is_not_the_sixel_attribute() -> None:
    assert not parse_answers(b"\x1b[?4;6c").sixel


def test_a_kitty_error_is_reported() -> None:
    support = choose(parse_answers(b"\x1b_Gi=31;ENOTSUPPORTED:no direct\x1b\\" + VTE_DA1))
    assert support.mode == "halfblock"
    assert "kitty graphics: ENOTSUPPORTED:no direct" in support.reason


def test_an_answer_to_another_query_is_ignored() -> None:
    assert not parse_answers(b"\x1b_Gi=7;OK\x1b\\" + VTE_DA1).kitty


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"garbage \xff\xfe typed keys \x1b[A\x1b[B",
        b"\x1b_Gi=31;OK",  # cut short: no string terminator
        b"\x1b[?63;4",  # DA1 cut short
        b"\x1b[6;0;0t",  # a zero cell size is no cell size
    ],
)
def test_garbage_and_silence_mean_half_blocks(data: bytes) -> None:
    answers = parse_answers(data)
    assert answers == Answers()
    support = choose(answers, timeout=0.2)
    assert support == ImageSupport("halfblock", "the terminal did not answer within 0.2 s")


def test_answers_among_typed_keys_are_found() -> None:
    assert choose(parse_answers(b"ab" + KITTY_OK + b"c" + KITTY_DA1 + b"d")).mode == "kitty"


# ------------------------------------------------------------------ when nothing is asked


@pytest.mark.parametrize("mode", ["kitty", "sixel"])
def test_kitty_and_sixel_are_forced_without_probing(mode: str) -> None:
    # Not a terminal at all: a probe would have nothing to talk to, and none is made.
    support = detect_image_mode(
        mode, stdin=FakeStream(False), stdout=FakeStream(False), environ={"TMUX": "x"}
    )
    assert support.mode == mode
    assert "not probed" in support.reason


@pytest.mark.parametrize("mode", ["halfblock", "none"])
def test_halfblock_and_none_are_taken_as_given(mode: str) -> None:
    support = detect_image_mode(mode, stdin=FakeStream(True), stdout=FakeStream(True), environ=TERM)
    assert support.mode == mode


@pytest.mark.parametrize(("stdin", "stdout"), [(False, True), (True, False), (False, False)])
def test_auto_without_a_terminal_is_half_blocks(stdin: bool, stdout: bool) -> None:
    support = detect_image_mode(
        "auto", stdin=FakeStream(stdin), stdout=FakeStream(stdout), environ=TERM
    )
    assert support == ImageSupport("halfblock", "stdin or stdout is not a terminal: not probed")


@pytest.mark.parametrize(
    ("environ", "reason"),
    [({"TERM": "dumb"}, "TERM=dumb: not probed"), ({}, "TERM is unset: not probed")],
)
def test_auto_on_a_dumb_terminal_is_half_blocks(environ: dict[str, str], reason: str) -> None:
    support = detect_image_mode(
        "auto", stdin=FakeStream(True), stdout=FakeStream(True), environ=environ
    )
    assert support == ImageSupport("halfblock", reason)


@pytest.mark.parametrize(
    "environ",
    [
        {"TERM": "screen-256color", "TMUX": "/tmp/tmux-1000/default,123,0"},
        {"TERM": "tmux-256color"},
    ],
)
def test_inside_tmux_with_passthrough_off_nothing_is_asked(environ: dict[str, str]) -> None:
    # stdin and stdout claim to be terminals but have no descriptor: any probe would fail.
    tty = FakeStream(True)
    support = detect_image_mode(
        "auto", stdin=tty, stdout=tty, environ=environ, ask_tmux=lambda: False
    )
    assert support.mode == "halfblock" and support.tmux
    assert support.reason.startswith("inside tmux with allow-passthrough off")
    assert "--images sixel" in support.reason
    assert detect_image_mode("sixel", stdin=tty, stdout=tty, environ=environ).mode == "sixel"
    assert detect_image_mode("kitty", stdin=tty, stdout=tty, environ=environ).tmux


def test_the_environment_overrides_auto() -> None:
    tty = FakeStream(True)
    environ = {"TERM": "xterm", "OPENWOP_TUI_IMAGES": "kitty"}
    support = detect_image_mode("auto", stdin=tty, stdout=tty, environ=environ)
    assert support.mode == "kitty"
    assert "OPENWOP_TUI_IMAGES=kitty" in support.reason


def test_auto_inside_gnu_screen_is_half_blocks() -> None:
    tty = FakeStream(True)
    support = detect_image_mode("auto", stdin=tty, stdout=tty, environ={"TERM": "screen"})
    assert support.mode == "halfblock"
    assert "GNU screen" in support.reason


def test_a_failing_probe_degrades_and_never_raises() -> None:
    tty = FakeStream(True)  # a terminal, says isatty; fileno() raises
    support = detect_image_mode("auto", stdin=tty, stdout=tty, environ=TERM)
    assert support.mode == "halfblock"
    assert support.reason == "terminal probe failed (OSError: no file descriptor)"


# ------------------------------------------------------- talking to a pseudo-terminal


@pytest.fixture
def pseudo_terminal() -> Iterator[tuple[int, int]]:
    """(terminal end, program end) of a pseudo-terminal."""
    terminal, program = pty.openpty()
    try:
        yield terminal, program
    finally:
        os.close(terminal)
        os.close(program)


def play_terminal(fd: int, replies: list[bytes]) -> threading.Thread:
    """Read the whole query at the terminal end, then send ``replies`` one write at a time."""

    def run() -> None:
        received = b""
        while len(received) < len(QUERY):
            received += os.read(fd, 1024)
        assert received == QUERY
        for reply in replies:
            os.write(fd, reply)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_a_terminal_that_answers_is_read_until_da1_and_restored(
    pseudo_terminal: tuple[int, int],
) -> None:
    terminal, program = pseudo_terminal
    mode_before = termios.tcgetattr(program)
    thread = play_terminal(terminal, [b"\x1b_Gi=31;", b"OK\x1b\\\x1b[?6", b"2;c"])
    data = query_terminal(program, program, timeout=5.0)
    thread.join(5)
    assert data == KITTY_OK + KITTY_DA1
    assert termios.tcgetattr(program) == mode_before


def test_detection_through_a_pseudo_terminal(pseudo_terminal: tuple[int, int]) -> None:
    terminal, program = pseudo_terminal
    tty = FakeStream(True, program)
    thread = play_terminal(terminal, [XTERM_SIXEL_DA1])
    support = detect_image_mode("auto", stdin=tty, stdout=tty, environ=TERM, timeout=5.0)
    thread.join(5)
    assert support.mode == "sixel"


def test_a_silent_terminal_times_out_and_is_restored(pseudo_terminal: tuple[int, int]) -> None:
    terminal, program = pseudo_terminal
    mode_before = termios.tcgetattr(program)
    tty = FakeStream(True, program)
    support = detect_image_mode("auto", stdin=tty, stdout=tty, environ=TERM, timeout=0.05)
    assert support == ImageSupport("halfblock", "the terminal did not answer within 0.05 s")
    assert termios.tcgetattr(program) == mode_before
    assert os.read(terminal, 1024) == QUERY


# -------------------------------------------------------------------- in the app

APP_RUN = textwrap.dedent(
    """
    import asyncio, io, json, sys, time

    from rich.console import Console

    from openwop_tui.ui.app import ChatApp
    from openwop_tui.ui.options import AppOptions
    from openwop_tui.config import Config
    from openwop_tui.demo_host import DemoHost
    from openwop_tui.renderers import AudioSupport
    from openwop_tui.devices.terminal import ImageSupport
    from openwop_tui.core.fold import EnvelopeItem

    mode = sys.argv[1]
    if mode.endswith("-unimportable"):
        mode = mode.removesuffix("-unimportable")
        sys.modules["textual_image"] = None  # import textual_image raises ImportError
    support = None if mode == "default" else ImageSupport(mode, "test", (10, 20))


    def plain(renderable) -> str:
        console = Console(width=120, record=True, color_system=None, file=io.StringIO())
        console.print(renderable)
        return console.export_text()


    async def settle(pilot, app, condition) -> None:
        # Until the condition holds (patience, not a count of rounds: a loaded machine needs
        # many); after the first rounds it yields the CPU so the host's thread can answer.
        deadline, rounds = time.monotonic() + 300, 0
        while not condition() and time.monotonic() < deadline:
            rounds += 1
            await pilot.pause(None if rounds < 50 else 0.01)
            await app.workers.wait_for_complete()


    async def main() -> dict:
        pass  # the app loads its own renderer registry
        app = ChatApp(
            Config(),
            AppOptions(image_support=support),
            demo_host=DemoHost(pace=0, deterministic=True),
            audio_support=AudioSupport(False, "test"),
        )
        async with app.run_test(size=(120, 50)) as pilot:
            await settle(pilot, app, lambda: app.session and app.session.discovery is not None)
            app.query_one("#prompt").value = "image please"
            await pilot.press("enter")

            def images():
                return [
                    v for v in app.view.blocks()
                    if isinstance(v.item, EnvelopeItem) and v.item.envelope.display == "image"
                ]

            await settle(pilot, app, lambda: images() and all(v.rendered for v in images()))
            await pilot.pause()
            view = images()[0]
            return {
                "degraded": view.rendered.degraded,
                "cells": list(view.rendered.cells),
                "body": app.view.text_of(view.item_id),
                "buttons": [a.name for a in view.rendered.actions],
                "loaded": "textual_image" in sys.modules,
                "detail": view.rendered.detail,
                "painted": [
                    segment.text[:2]
                    for y in range(app.view.size.height)
                    for segment in app.view.render_line(y)
                    if segment.text.startswith("\x1b7")
                ],
                "fallback": view.rendered.fallback and view.rendered.fallback.badge,
            }


    result = asyncio.run(main())
    result["loaded_at_exit"] = "textual_image" in sys.modules
    print("RESULT " + json.dumps(result))
    """
)


def run_app(mode: str) -> dict[str, object]:
    """Ask for an image in a headless app in a fresh interpreter; what its image view shows."""
    process = subprocess.run(
        [sys.executable, "-c", APP_RUN, mode],
        capture_output=True,
        text=True,
        timeout=3 * PATIENCE,  # a guard against a hang (the script waits with its own)
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert process.returncode == 0, process.stderr
    lines = process.stdout.splitlines()
    assert len(lines) == 1, process.stdout  # nothing else reached stdout: no stray escapes
    assert lines[0].startswith("RESULT ")
    result: dict[str, object] = json.loads(lines[0].removeprefix("RESULT "))
    return result


def test_the_app_without_image_support_draws_half_blocks_and_never_loads_textual_image() -> None:
    result = run_app("default")
    assert result["degraded"] is None
    assert "▄" in str(result["body"])
    assert result["buttons"] == ["save", "open"]
    assert result["loaded"] is False
    assert result["loaded_at_exit"] is False


def test_a_kitty_terminal_draws_placeholder_cells_in_the_line_view() -> None:
    # The image is text cells (U+10EEEE and diacritics); the commands sending the image went
    # through Textual's driver, never to stdout (run_app checks stdout holds only the result).
    result = run_app("kitty")
    assert result["degraded"] is None
    assert result["detail"] == "kitty"
    assert "\U0010eeee" in str(result["body"])
    assert "\x1b" not in str(result["body"])  # the commands went to the driver, not the lines
    assert "Save" in str(result["body"])  # its buttons are drawn with it
    assert result["buttons"] == ["save", "open"]


def test_a_sixel_terminal_draws_marked_blank_cells_in_the_line_view() -> None:
    # The sixel rows are painted over blank cells as lines are painted
    # (tests/devices/test_graphics_app.py).
    result = run_app("sixel")
    assert result["degraded"] is None
    assert result["detail"] == "sixel"
    assert result["fallback"] is None
    assert "▄" not in str(result["body"])
    assert "\x1b" not in str(result["body"])  # blank cells: the rows are painted over them
    assert "Save" in str(result["body"])
    assert result["painted"]  # lines on screen carry their sixel rows
