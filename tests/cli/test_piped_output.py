"""Printed output without padding at the end of its lines where it has no colour (issue 27:
"103 of 328 lines of piped output end in padding spaces"). The installed program into a
pipe as users run it, and `TrimmedLines` on text written in pieces."""

from __future__ import annotations

import io
import re
import subprocess
import sys

import pytest

from openwop_tui.cli.trimmed import TrimmedLines

pytestmark = pytest.mark.usefixtures("cli_isolated_wide")


@pytest.mark.parametrize("colors", [[], ["--colors", "none"]], ids=["plain", "colors-none"])
def test_a_tour_into_a_pipe_has_no_line_ending_in_spaces(colors: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "openwop_tui", "run", "demo.tour", "--demo-pace", "0", *colors],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert len(lines) > 100  # (the whole tour: code, cards, tables, a panel)
    padded = [n for n, line in enumerate(lines, 1) if line.endswith(" ")]
    assert padded == []


def test_spaces_are_dropped_only_before_a_line_ends() -> None:
    out = io.StringIO()
    trimmed = TrimmedLines(out)
    for piece in ["a  b   ", "  ", "\nc ", "  d  \n", "   \n", "prompt: "]:
        trimmed.write(piece)
    assert out.getvalue() == "a  b\nc   d\n\nprompt:"
    trimmed.flush()  # an open line is the reader's: its spaces go out
    assert out.getvalue() == "a  b\nc   d\n\nprompt: "


def test_a_coloured_output_keeps_its_painted_spaces() -> None:
    """Spaces painted with a background (a code block's, a card's) are drawing: kept."""
    argv = ["run", "demo.tour", "--demo-pace", "0", "--colors", "256"]
    done = subprocess.run(
        [sys.executable, "-m", "openwop_tui", *argv],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    painted = [line for line in done.stdout.splitlines() if re.search(r" +\x1b\[0m$", line)]
    assert painted  # (a trimmer applied here would leave none)
