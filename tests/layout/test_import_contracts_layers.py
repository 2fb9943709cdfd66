"""The layer contracts of the drawing path hold and can fail: core and store import neither
Rich nor Textual (what they hand on is data: items, assets), and present imports no Textual
and nothing of the app (the printer draws with it, outside any app)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_import_contracts import ROOT, lint, lint_with


def test_the_layer_contracts_are_there_and_kept() -> None:
    done = lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "core and store never import Rich or Textual KEPT" in done.stdout
    assert "present never imports Textual KEPT" in done.stdout


@pytest.mark.parametrize(
    ("path", "source", "package", "imported"),
    [
        ("openwop_tui/core/items.py", "import rich.text\n", "openwop_tui.core", "rich"),
        ("openwop_tui/core/fold/transcript.py", "import textual\n", "openwop_tui.core", "textual"),
        # Indirectly too: core reaching the renderers reaches Rich through them.
        (
            "openwop_tui/core/conversation.py",
            "from openwop_tui.renderers import base\n",
            "openwop_tui.core",
            "rich",
        ),
        ("openwop_tui/store/saving.py", "import rich.console\n", "openwop_tui.store", "rich"),
        ("openwop_tui/present/dispatch.py", "import textual\n", "openwop_tui.present", "textual"),
        (
            "openwop_tui/draw/palette.py",
            "from openwop_tui.ui import theme_palette\n",
            "openwop_tui.draw",
            "openwop_tui.ui",
        ),
    ],
)
def test_a_forbidden_import_breaks_a_layer_contract(
    tmp_path: Path, path: str, source: str, package: str, imported: str
) -> None:
    done = lint_with(tmp_path, path, source)
    assert done.returncode != 0
    assert f"{package} is not allowed to import {imported}" in done.stdout, done.stdout
