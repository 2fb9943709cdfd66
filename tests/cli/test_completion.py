"""Shell completion (issue 27 part 7): ``openwop-tui completion SHELL`` prints a script that
bash, zsh or fish loads, and the program answers the script's requests from its own parser
(argcomplete's protocol: ``_ARGCOMPLETE``, ``COMP_LINE``, ``COMP_POINT``), as a shell on Tab
runs it: the installed program, in a process of its own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("cli_isolated")

PROGRAM = [sys.executable, "-m", "openwop_tui"]


def _completions(line: str, tmp_path: Path) -> list[str]:
    """What the program offers for ``line`` with the cursor at its end."""
    out = tmp_path / "offered"
    env = {
        **os.environ,
        "_ARGCOMPLETE": "1",
        "COMP_LINE": line,
        "COMP_POINT": str(len(line)),
        "_ARGCOMPLETE_STDOUT_FILENAME": str(out),
    }
    done = subprocess.run(
        PROGRAM, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    return [word.strip() for word in out.read_text().split("\v") if word.strip()]


@pytest.mark.parametrize(
    ("line", "offered"),
    [
        ("openwop-tui ses", ["sessions"]),
        ("openwop-tui sessions de", ["delete"]),
        ("openwop-tui run demo.chat --me", ["--message"]),
        ("openwop-tui --ho", ["--host"]),
        ("openwop-tui export --format ", ["md", "jsonl", "sse"]),
        ("openwop-tui completion z", ["zsh"]),
    ],
)
def test_the_program_offers_what_its_parser_takes(
    line: str, offered: list[str], tmp_path: Path
) -> None:
    assert _completions(line, tmp_path) == offered


def test_a_blank_offers_the_shells_beside_the_options(tmp_path: Path) -> None:
    offered = _completions("openwop-tui completion ", tmp_path)
    assert {"bash", "zsh", "fish", "--host"} <= set(offered)


def test_every_command_is_offered(tmp_path: Path) -> None:
    from openwop_tui.cli.parser import build_parser

    parser = build_parser()
    (commands,) = [a for a in parser._actions if a.dest == "command"]
    offered = _completions("openwop-tui ", tmp_path)
    assert set(commands.choices or ()) <= set(offered)


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_loads_the_script_and_completes_with_the_program(tmp_path: Path) -> None:
    script = subprocess.run(
        [*PROGRAM, "completion", "bash"], capture_output=True, text=True, timeout=300, check=True
    ).stdout
    (tmp_path / "completion.bash").write_text(script)
    done = subprocess.run(
        ["bash", "--norc", "-c", f"source {tmp_path / 'completion.bash'}; complete -p openwop-tui"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("openwop-tui")
    assert "_python_argcomplete" in done.stdout


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_get_their_own_scripts(shell: str) -> None:
    script = subprocess.run(
        [*PROGRAM, "completion", shell], capture_output=True, text=True, timeout=300, check=True
    ).stdout
    assert "openwop-tui" in script
    if shell == "fish":
        assert "complete --command openwop-tui" in script
    else:
        assert script.startswith("#compdef openwop-tui")


def test_a_shell_without_a_script_is_a_usage_error() -> None:
    done = subprocess.run(
        [*PROGRAM, "completion", "tcshh"], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 2
    assert "'tcshh' is not one of bash, zsh, fish" in done.stderr
