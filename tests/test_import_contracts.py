"""The import contracts ([tool.importlinter] in pyproject.toml) hold, and they can fail: a
renderer that imports the HTTP client or the app, or a protocol module that imports Rich, breaks
them, including in renderers/ (installed as openwop_tui.renderers by package-dir mapping, which
a plain run of lint-imports would not see at all)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT = ROOT / ".venv" / "bin" / "lint-imports"


def lint(root: Path) -> subprocess.CompletedProcess[str]:
    assert LINT.exists(), "import-linter is in the dev extra: pip install -e '.[dev]'"
    return subprocess.run(
        [str(root / "tools" / "lint-imports")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "LINT_IMPORTS": str(LINT)},
        check=False,
    )


def copy_of_the_checkout(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    ignore = shutil.ignore_patterns("__pycache__")
    for folder in ("openwop_tui", "renderers", "themes", "tools"):
        shutil.copytree(ROOT / folder, root / folder, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def test_the_contracts_hold() -> None:
    done = lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert " kept, 0 broken." in done.stdout


RENDERER = "renderers/video.py"
PROTOCOL = "openwop_tui/protocol/ids.py"


@pytest.mark.parametrize(
    ("path", "source", "imported"),
    [
        (RENDERER, "import httpx\n", "httpx"),
        (RENDERER, "from openwop_tui.ui import app\n", "openwop_tui.ui"),
        (RENDERER, "import openwop_tui.core.conversation\n", "openwop_tui.core.conversation"),
        (RENDERER, "from openwop_tui.ui.widgets import blocks\n", "openwop_tui.ui.widgets"),
        (PROTOCOL, "import rich\n", "rich"),
        (PROTOCOL, "import textual\n", "textual"),
    ],
)
def test_a_forbidden_import_breaks_a_contract(
    tmp_path: Path, path: str, source: str, imported: str
) -> None:
    root = copy_of_the_checkout(tmp_path)
    target = root / path
    target.write_text(
        (target.read_text(encoding="utf-8") if target.exists() else "") + source, encoding="utf-8"
    )
    done = lint(root)
    package = "openwop_tui.renderers" if path == RENDERER else "openwop_tui.protocol"
    assert done.returncode != 0
    assert f"{package} is not allowed to import {imported}" in done.stdout, done.stdout


def test_every_app_module_is_forbidden_to_the_renderers() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    [renderers] = [c for c in contracts if c["source_modules"] == ["openwop_tui.renderers"]]
    forbidden = set(renderers["forbidden_modules"])
    apps = {f"openwop_tui.{p.stem}" for p in (ROOT / "openwop_tui").glob("app*.py")}
    assert apps and apps <= forbidden
    assert {
        "openwop_tui.core.session",
        "openwop_tui.core.conversation",
        "openwop_tui.protocol.client",
    } <= (forbidden)
    assert {"httpx", "openwop_tui.ui.widgets", "openwop_tui.ui.screens"} <= forbidden
