"""``--version`` and ``--help`` import nothing they do not print: no Textual, no httpx, no
Rich, no Pillow, not even the configuration (each is a fresh interpreter, so what it imported
is exactly what ``sys.modules`` holds)."""

from __future__ import annotations

import json
import subprocess
import sys

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


def test_the_images_choices_are_the_configurations() -> None:
    assert cli.IMAGE_CHOICES == IMAGE_MODES
