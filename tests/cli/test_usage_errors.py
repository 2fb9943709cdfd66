"""Usage errors are two lines and offer the closest known word (issue 27: "usage errors print
ten lines with no 'did you mean'"). The installed program is run as a user runs it: its
stderr, its exit code."""

from __future__ import annotations

import subprocess
import sys

import pytest

from openwop_tui.cli.parser import build_parser
from openwop_tui.cli.usage import unknown_option

pytestmark = pytest.mark.usefixtures("cli_isolated")


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "openwop_tui", *argv],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize(
    ("argv", "said", "help_of"),
    [
        (["sesions"], "unknown command 'sesions'; did you mean 'sessions'?", "openwop-tui"),
        (["--hots", "x"], "unknown option '--hots'; did you mean '--host'?", "openwop-tui"),
        (
            ["run", "demo.chat", "--mesage", "hi"],
            "unknown option '--mesage'; did you mean '--message'?",
            "openwop-tui run",
        ),
        (
            ["--mesage", "hi", "run", "demo.chat"],
            "unknown option '--mesage'; did you mean '--message'?",
            "openwop-tui run",
        ),
        (
            ["sessions", "delet"],
            "unknown command 'delet'; did you mean 'delete'?",
            "openwop-tui sessions",
        ),
        (
            ["render", "-", "--colors", "8"],
            "argument --colors: '8' is not one of truecolor, 256, 16, none",
            "openwop-tui render",
        ),
        (["zzzz"], "unknown command 'zzzz' (commands: demo-host, render, run", "openwop-tui"),
    ],
)
def test_a_mistyped_word_is_said_in_two_lines_with_the_closest_known_one(
    argv: list[str], said: str, help_of: str
) -> None:
    done = _run(*argv)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 2, done.stderr
    assert lines[0].startswith("openwop-tui: error: ")
    assert said in lines[0]
    assert lines[1] == f"see '{help_of} --help'"


def test_a_word_like_no_known_one_offers_nothing() -> None:
    assert unknown_option(build_parser(), ["--zzzzzz"]) == "unknown option '--zzzzzz'"


def test_what_argparse_accepts_is_not_called_unknown() -> None:
    parser = build_parser()
    # A unique start of an option, a value that looks like an option, words after "--".
    assert unknown_option(parser, ["--work", "demo.chat"]) is None
    assert unknown_option(parser, ["run", "x", "--input", "--nope"]) is None
    assert unknown_option(parser, ["--host=http://h", "runs"]) is None
    assert unknown_option(parser, ["render", "--", "--odd-name.sse"]) is None
