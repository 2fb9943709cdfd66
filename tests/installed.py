"""The installed ``openwop-tui`` run as a user runs a printing command: a subprocess of the
script the install put beside this interpreter (not ``python -m``, not the functions behind it),
its output captured (a plain module: ``tests/`` is on ``sys.path``)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from patience import PATIENCE

#: The installed entry point (``[project.scripts]``).
PROGRAM = Path(sys.executable).with_name("openwop-tui")


def printing_env(tmp_path: Path, *, columns: int = 200, **more: str) -> dict[str, str]:
    """The caller's environment for a printed transcript: no colour, no sound, a fixed width,
    a config folder of the test's own (``more`` on top)."""
    return {
        **os.environ,
        "NO_COLOR": "1",
        "OPENWOP_TUI_AUDIO": "off",
        "COLUMNS": str(columns),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        **more,
    }


def run_installed(
    args: Sequence[str], env: Mapping[str, str], *, ok: bool = True
) -> subprocess.CompletedProcess[str]:
    """``openwop-tui ARGS`` to its end; with ``ok``, failing the test (with what it said on
    stderr) unless it exits 0."""
    done = subprocess.run(
        [str(PROGRAM), *args],
        capture_output=True,
        text=True,
        env=dict(env),
        timeout=PATIENCE,
        check=False,
    )
    if ok:
        assert done.returncode == 0, done.stderr
    return done
