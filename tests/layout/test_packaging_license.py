"""The wheel builds without a warning and declares its licence the current way (an SPDX string).

setuptools deprecated ``license = { text = ... }`` (unsupported after 2027-02-18) and warned on
every build; it also warned that the data folders were "absent from the packages
configuration". A warning nobody reads is how the next one is missed, so the build output is
read here and must be clean.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
import zipfile

import pytest
from paths import TESTS

ROOT = TESTS.parent

#: pip's own notes in verbose mode that say nothing about the project.
_PIP_NOISE = re.compile(r"byte-compiling is disabled")


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, zipfile.ZipFile]:
    """The verbose build output and the wheel, built from a clean copy of the checkout."""
    source = tmp_path_factory.mktemp("source") / "openwop-tui"
    junk = shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", "tests"
    )
    shutil.copytree(ROOT, source, ignore=junk)
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "-w", str(out), str(source)],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    (built,) = out.glob("openwop_tui-*.whl")
    return done.stdout + done.stderr, zipfile.ZipFile(built)


def test_the_license_is_an_spdx_string() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["license"] == "Apache-2.0"
    # SPDX strings need setuptools 77 (PEP 639); an older backend would refuse the file.
    (requirement,) = project["build-system"]["requires"]
    assert requirement == "setuptools>=77"


def test_the_build_prints_no_warning(build: tuple[str, zipfile.ZipFile]) -> None:
    output, _ = build
    warnings = [
        line.strip()
        for line in output.splitlines()
        if re.search(r"warn|deprecat", line, re.IGNORECASE) and not _PIP_NOISE.search(line)
    ]
    assert not warnings, "\n".join(warnings)


def test_the_wheel_declares_the_license_expression(build: tuple[str, zipfile.ZipFile]) -> None:
    _, wheel = build
    (metadata,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    text = wheel.read(metadata).decode()
    assert "License-Expression: Apache-2.0" in text
