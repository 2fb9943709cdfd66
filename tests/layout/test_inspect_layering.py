"""The inspector core (`openwop_tui.inspect`) stays free of Rich and Textual: its import
contract breaks when a module of it imports either, and a fresh interpreter that imports the
whole core has not loaded Textual. (Rich may be in ``sys.modules`` all the same: httpx loads it
for its own command line when both are installed; the contract checks our imports.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from patience import PATIENCE
from test_import_contracts import lint_with

CORE = "openwop_tui/inspect/timeline.py"


@pytest.mark.parametrize("imported", ["rich", "textual"])
def test_a_forbidden_import_breaks_the_inspector_contract(tmp_path: Path, imported: str) -> None:
    done = lint_with(tmp_path, CORE, f"import {imported}\n")
    assert done.returncode != 0
    assert f"openwop_tui.inspect is not allowed to import {imported}" in done.stdout, done.stdout


def test_the_core_does_not_load_textual() -> None:
    modules = "lint, stats, timeline, log, findings, schemas"
    code = (
        f"import sys\nfrom openwop_tui.inspect import {modules}\n"
        "print('\\n'.join(sorted(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=PATIENCE
    )
    loaded = set(done.stdout.split())
    assert "openwop_tui.inspect.lint" in loaded
    assert not any(m.split(".")[0] == "textual" for m in loaded)
