"""The fold version a kept fold is checked against is what the fold is, not what the process
happened to import (issue 24, item 5): it hashes the fields of every item-module class, and a
module not imported yet was left out, so a command that opened a session before the app's
modules were loaded made folds the app then ignored, and the other way round."""

from __future__ import annotations

import subprocess
import sys

from patience import PATIENCE


def _version_after(imports: str) -> str:
    code = f"{imports}\nfrom openwop_tui.core.reopen import fold_version\nprint(fold_version())"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=PATIENCE
    )
    return done.stdout.strip()


def test_the_fold_version_does_not_depend_on_what_was_imported_first() -> None:
    alone = _version_after("")
    with_the_app = _version_after("import openwop_tui.ui.app")
    with_the_commands = _version_after("import openwop_tui.cli.follow, openwop_tui.cli.sessions")
    assert alone == with_the_app == with_the_commands
    assert alone.count(":") == 2 and alone.split(":")[2]  # number, package version, shape
