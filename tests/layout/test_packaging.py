"""The package installs as users install it: from a wheel, with every module and data file.

An editable install reads the checkout, so a package missing from ``pyproject.toml`` goes unseen
until a user runs ``pip install openwop-tui`` and the app dies with ``ModuleNotFoundError`` (it
happened: ``openwop_tui.ui.screens`` was not listed). These tests build the real wheel and compare
it
with the tree; ``tools/wheel-smoke`` (run by CI) installs it into a fresh venv and starts the app.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from paths import TESTS

ROOT = TESTS.parent

#: Top-level folders that install under another name (pyproject's package-dir).
MAPPED = {"renderers": "openwop_tui/renderers", "themes": "openwop_tui/themes"}


def _installed_name(path: Path) -> str:
    """Where a file of the checkout lands inside the wheel."""
    relative = path.relative_to(ROOT).as_posix()
    top, _, rest = relative.partition("/")
    return f"{MAPPED[top]}/{rest}" if top in MAPPED else relative


def _shipped_files() -> list[Path]:
    """Every file of the checkout that must be in the wheel: modules and their data."""
    files: list[Path] = []
    for top in ("openwop_tui", *MAPPED):
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                files.append(path)
    return files


def test_listed_packages_match_the_tree() -> None:
    """Every folder holding Python modules is a listed package, and each has an __init__.py."""
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(conf["packages"])
    found = set()
    for path in _shipped_files():
        if path.suffix == ".py":
            folder = _installed_name(path.parent / "x").rpartition("/")[0]
            found.add(folder.replace("/", "."))
            assert (path.parent / "__init__.py").is_file(), f"{path.parent} has no __init__.py"
    assert found == listed, f"not listed: {sorted(found - listed)}; stale: {sorted(listed - found)}"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    # Built from a copy: setuptools reuses a checkout's build/ folder, whose stale files would
    # hide a package that is no longer (or not yet) listed.
    source = tmp_path_factory.mktemp("source") / "openwop-tui"
    junk = shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", "tests"
    )
    shutil.copytree(ROOT, source, ignore=junk)
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(source)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (built,) = out.glob("openwop_tui-*.whl")
    return zipfile.ZipFile(built)


def test_the_wheel_ships_every_module_and_data_file(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    missing = [_installed_name(p) for p in _shipped_files() if _installed_name(p) not in names]
    assert not missing, f"left out of the wheel: {missing}"


def test_the_wheel_declares_the_command(wheel: zipfile.ZipFile) -> None:
    (entry_points,) = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
    text = wheel.read(entry_points).decode()
    assert "openwop-tui = openwop_tui.__main__:main" in text


def test_the_wheel_says_where_the_project_belongs(wheel: zipfile.ZipFile) -> None:
    """An index page and ``pip show`` have links, classifiers and keywords to show (issue 27:
    "the wheel carries no project link, classifiers or keywords")."""
    from email.parser import Parser

    (name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    metadata = Parser().parsestr(wheel.read(name).decode())
    urls = metadata.get_all("Project-URL") or []
    assert any(url.endswith("https://github.com/openwop/openwop") for url in urls)
    classifiers = metadata.get_all("Classifier") or []
    assert "Environment :: Console" in classifiers
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert "Typing :: Typed" in classifiers
    assert "openwop" in (metadata["Keywords"] or "")
    assert "argcomplete>=3.1" in (metadata.get_all("Requires-Dist") or [])
