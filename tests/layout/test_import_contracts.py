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
from paths import TESTS
from patience import PATIENCE

ROOT = TESTS.parent
LINT = ROOT / ".venv" / "bin" / "lint-imports"


def lint(root: Path) -> subprocess.CompletedProcess[str]:
    assert LINT.exists(), "import-linter is in the dev extra: pip install -e '.[dev]'"
    return subprocess.run(
        [str(root / "tools" / "lint-imports")],
        capture_output=True,
        text=True,
        timeout=PATIENCE,
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


def lint_with(tmp_path: Path, path: str, source: str) -> subprocess.CompletedProcess[str]:
    """The contracts checked on a copy of the checkout with ``source`` added to ``path``."""
    root = copy_of_the_checkout(tmp_path)
    target = root / path
    target.write_text(
        (target.read_text(encoding="utf-8") if target.exists() else "") + source, encoding="utf-8"
    )
    return lint(root)


def contracts() -> list[dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found: list[dict[str, object]] = config["tool"]["importlinter"]["contracts"]
    return found


def test_the_contracts_hold() -> None:
    done = lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    count = len(contracts())
    assert count >= 4
    assert f"Contracts: {count} kept, 0 broken." in done.stdout


#: One deliberate violation of each contract: (file to append to, the import, the package the
#: contract names as importing, what it may not import).
VIOLATIONS = [
    ("renderers/video.py", "import httpx\n", "openwop_tui.renderers", "httpx"),
    (
        "renderers/video.py",
        "from openwop_tui.ui import app\n",
        "openwop_tui.renderers",
        "openwop_tui.ui",
    ),
    (
        "renderers/video.py",
        "import openwop_tui.core.conversation\n",
        "openwop_tui.renderers",
        "openwop_tui.core.conversation",
    ),
    (
        "renderers/video.py",
        "import openwop_tui.store.sessions\n",
        "openwop_tui.renderers",
        "openwop_tui.store",
    ),
    ("openwop_tui/protocol/ids.py", "import rich\n", "openwop_tui.protocol", "rich"),
    ("openwop_tui/protocol/ids.py", "import textual\n", "openwop_tui.protocol", "textual"),
    (
        "openwop_tui/protocol/ids.py",
        "import openwop_tui.core.items\n",
        "openwop_tui.protocol",
        "openwop_tui.core",
    ),
    ("openwop_tui/text/units.py", "import rich.text\n", "openwop_tui.text", "rich"),
    (
        "openwop_tui/text/units.py",
        "import openwop_tui.present.items\n",
        "openwop_tui.text",
        "openwop_tui.present",
    ),
    (
        "openwop_tui/store/state.py",
        "import openwop_tui.ui.app\n",
        "openwop_tui.store",
        "openwop_tui.ui",
    ),
    (
        "openwop_tui/devices/desktop.py",
        "import openwop_tui.ui.keys\n",
        "openwop_tui.devices",
        "openwop_tui.ui",
    ),
    (
        "openwop_tui/config.py",
        "import openwop_tui.ui.messages\n",
        "openwop_tui.config",
        "openwop_tui.ui",
    ),
    ("openwop_tui/inspect/timeline.py", "import rich\n", "openwop_tui.inspect", "rich"),
    ("openwop_tui/core/items.py", "import rich\n", "openwop_tui.core", "rich"),
    ("openwop_tui/draw/safe_text.py", "import textual\n", "openwop_tui.draw", "textual"),
]


@pytest.mark.parametrize(("path", "source", "package", "imported"), VIOLATIONS)
def test_a_forbidden_import_breaks_a_contract(
    tmp_path: Path, path: str, source: str, package: str, imported: str
) -> None:
    done = lint_with(tmp_path, path, source)
    assert done.returncode != 0
    assert f"{package} is not allowed to import {imported}" in done.stdout, done.stdout


#: Upward imports the floors contract refuses (design.md §Layout), one across each boundary
#: that a package pair used to cross both ways: (file to append to, the import, the importer,
#: what it may not import).
UPWARD = [
    ("openwop_tui/text/units.py", "import openwop_tui.protocol.ids\n", "text", "protocol"),
    ("openwop_tui/base/records.py", "import openwop_tui.text.units\n", "base", "text"),
    ("openwop_tui/devices/audio.py", "import openwop_tui.renderers.base\n", "devices", "renderers"),
    (
        "openwop_tui/devices/desktop.py",
        "import openwop_tui.openclaw.reader\n",
        "devices",
        "openclaw",
    ),
    ("openwop_tui/store/saving.py", "import openwop_tui.core.items\n", "store", "core"),
    ("renderers/card.py", "import openwop_tui.present.items\n", "renderers", "present"),
    ("openwop_tui/draw/palette.py", "import openwop_tui.renderers.base\n", "draw", "renderers"),
    ("openwop_tui/openclaw/reader.py", "import openwop_tui.core.items\n", "openclaw", "core"),
    ("openwop_tui/openclaw/policy.py", "import openwop_tui.store.saving\n", "openclaw", "store"),
    ("openwop_tui/store/saving.py", "import openwop_tui.openclaw.policy\n", "store", "openclaw"),
    ("openwop_tui/core/items.py", "import openwop_tui.inspect.kinds\n", "core", "inspect"),
    ("openwop_tui/present/items.py", "import openwop_tui.cli.printer\n", "present", "cli"),
    ("openwop_tui/inspect/timeline.py", "import openwop_tui.draw.palette\n", "inspect", "draw"),
    ("openwop_tui/cli/printer.py", "import openwop_tui.ui.messages\n", "cli", "ui"),
    (
        "openwop_tui/protocol/ids.py",
        "import openwop_tui.devices.capabilities\n",
        "protocol",
        "devices",
    ),
]


@pytest.mark.parametrize(("path", "source", "importer", "imported"), UPWARD)
def test_an_upward_import_breaks_the_floors(
    tmp_path: Path, path: str, source: str, importer: str, imported: str
) -> None:
    done = lint_with(tmp_path, path, source)
    assert done.returncode != 0
    said = f"openwop_tui.{importer} is not allowed to import openwop_tui.{imported}"
    assert said in done.stdout, done.stdout
    assert "Each package on its floor BROKEN" in done.stdout


def test_every_contract_has_a_violation_that_breaks_it() -> None:
    """A new contract comes with its deliberate violation above."""
    sources = {package for _, _, package, _ in VIOLATIONS}
    for contract in contracts():
        if contract["type"] == "layers":
            layers = contract["layers"]
            assert isinstance(layers, list)
            floors = {name.strip() for layer in layers for name in str(layer).split("|")}
            tried = {importer for _, _, importer, _ in UPWARD}
            assert floors - {"ui"} <= tried, f"no upward import from {floors - {'ui'} - tried}"
            continue
        named = contract["source_modules"]
        assert isinstance(named, list)
        assert set(named) & sources, f"no violation tests {contract['name']!r}"


def test_only_the_commands_and_main_may_import_the_app() -> None:
    """Every package of openwop_tui but ui and cli (and every top-level module but __main__) is
    forbidden the app."""
    [contract] = [c for c in contracts() if c.get("forbidden_modules") == ["openwop_tui.ui"]]
    named = set(contract["source_modules"])  # type: ignore[arg-type]
    tree = {
        f"openwop_tui.{p.name}"
        for p in (ROOT / "openwop_tui").iterdir()
        if p.is_dir() and (p / "__init__.py").exists()
    }
    tree |= {f"openwop_tui.{p.stem}" for p in (ROOT / "openwop_tui").glob("*.py")}
    allowed = {"openwop_tui.ui", "openwop_tui.cli", "openwop_tui.__main__", "openwop_tui.__init__"}
    assert tree - allowed <= named | {"openwop_tui.renderers", "openwop_tui.themes"}
    assert {"openwop_tui.renderers", "openwop_tui.themes"} <= named
