"""``--version`` and ``--help`` import nothing they do not print: no Textual, no httpx, no
Rich, no Pillow, not even the configuration (each is a fresh interpreter, so what it imported
is exactly what ``sys.modules`` holds)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from patience import PATIENCE

from openwop_tui.cli import options as cli
from openwop_tui.config import IMAGE_MODES

_PROBE = """
import json, runpy, sys
sys.argv = ["openwop-tui", *json.loads(sys.argv[1])]
try:
    runpy.run_module("openwop_tui", run_name="__main__")
except SystemExit as done:
    code = done.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""

HEAVY = ("textual", "httpx", "rich", "rich.markdown", "PIL", "sqlite3", "markdown_it")
XDG = ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")
OURS = ("openwop_tui.config", "openwop_tui.logs", "openwop_tui.core", "openwop_tui.protocol")


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["run", "--help"]])
def test_printing_the_version_or_the_help_imports_nothing_else(argv: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(argv)],
        capture_output=True,
        text=True,
        timeout=PATIENCE,
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report["code"] == 0
    assert ("openwop-tui" in done.stdout) if argv == ["--version"] else ("usage:" in done.stdout)
    loaded = set(report["modules"])
    for name in HEAVY + OURS:
        assert name not in loaded, f"{' '.join(argv)} imported {name}"


@pytest.mark.parametrize("argv", [["--session", "no-such-session"], ["--continue"]])
def test_choosing_a_stored_session_imports_no_printing_command(
    argv: list[str], tmp_path: Path
) -> None:
    # Before the app's first frame: importing the ``sessions``/``export`` commands with it
    # (Rich's tables, the printer, the renderers) cost 0.2 s of a reopened session's start.
    env = {**os.environ, **{name: str(tmp_path / name) for name in XDG}}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(argv)],
        capture_output=True,
        text=True,
        timeout=PATIENCE,
        env=env,
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report["code"] == 2  # (no such session: said, before anything else)
    assert "openwop-tui: " in done.stderr
    loaded = set(report["modules"])
    for name in ("openwop_tui.cli.sessions", "openwop_tui.cli.output", "rich.table"):
        assert name not in loaded, f"{' '.join(argv)} imported {name}"


def test_the_images_choices_are_the_configurations() -> None:
    assert cli.IMAGE_CHOICES == IMAGE_MODES


#: Modules the chat screen does not need before its first frame: jsonschema (with its format
#: checkers installed, a second of import: loaded when a value first fails the compiled lint
#: check) and the screens opened on request (each loaded on first use).
NOT_BEFORE_FIRST_FRAME = (
    "jsonschema",
    "openwop_tui.ui.screens.help",
    "openwop_tui.ui.screens.inspect",
    "openwop_tui.ui.screens.quit",
    "openwop_tui.ui.screens.sessions",
    "openwop_tui.ui.screens.confirm_open",
    "openwop_tui.ui.screens.save_as",
    "openwop_tui.ui.screens.ask",
    "openwop_tui.ui.screens.workflows",
)


def test_the_chat_app_imports_no_screen_it_has_not_opened() -> None:
    code = "import json, sys; import openwop_tui.ui.app; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "openwop_tui.ui.app" in loaded
    early = [name for name in NOT_BEFORE_FIRST_FRAME if name in loaded]
    assert not early, f"the app imports {early} before its first frame"


def test_a_failed_lint_check_still_explains_itself() -> None:
    # The explanation comes from jsonschema, imported only now.
    from openwop_tui.inspect.schemas import SchemaSet, problems

    schemas = SchemaSet()
    found = problems(schemas.event_v1, {"type": 3})
    assert found and all(problem.message for problem in found)
