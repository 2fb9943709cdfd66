"""The layers stay apart: the protocol core and the fold never import Textual, renderers never
import the app (design.md Practices 11). Checked in a fresh interpreter, as harlequin does."""

from __future__ import annotations

import subprocess
import sys

import pytest
from patience import PATIENCE


def imported_after(module: str) -> set[str]:
    code = f"import sys, {module}; print('\\n'.join(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=PATIENCE
    )
    return set(result.stdout.split())


@pytest.mark.parametrize(
    "module",
    [
        "openwop_tui.protocol.client",
        "openwop_tui.protocol.stream",
        "openwop_tui.protocol.media",
        "openwop_tui.core.fold",
        "openwop_tui.core.session",
    ],
)
def test_core_does_not_import_textual(module: str) -> None:
    modules = imported_after(module)
    assert not any(name == "textual" or name.startswith("textual.") for name in modules)


def test_renderers_do_not_import_the_app() -> None:
    code = (
        "import sys, openwop_tui.renderers.registry as r; r.Registry().load(); "
        "print('\\n'.join(sorted(sys.modules)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=PATIENCE
    )
    modules = set(result.stdout.split())
    assert "openwop_tui.ui.app" not in modules
    assert not any(name.startswith("textual") for name in modules)


def test_audio_libraries_are_imported_lazily() -> None:
    modules = imported_after("openwop_tui.devices.audio")
    assert "sounddevice" not in modules
