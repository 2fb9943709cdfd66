"""SVG snapshots of the envelope inspector (pytest-textual-snapshot): the summary with its badge
and degradation record above the envelope's JSON tree, the source event's tree beside it, the
cursor moved and a node folded (so a row that is not redrawn when the cursor leaves it shows),
and a hostile key and string drawn cleaned. At 80x24 and 120x40.

Update with ``pytest tests/ui/test_inspect_snapshots.py --snapshot-update`` after a deliberate
change, and look at every changed SVG before committing it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from json_support import envelope_of
from render_helpers import builtins
from textual.app import App
from textual.pilot import Pilot

from openwop_tui.renderers import render
from openwop_tui.renderers.base import RenderContext
from openwop_tui.themes import THEMES
from openwop_tui.ui.screens.inspect import InspectScreen

Snap = Callable[..., bool]

DOCUMENT = {
    "type": "vendor.acme.table",
    "envelopeId": "env_snap",
    "meta": {"rendering": {"display": "vendor.acme.table", "title": "Quarterly \x1b[2Jfigures"}},
    "payload": {
        "columns": ["region", "revenue"],
        "rows": [{"region": f"region {n}", "revenue": n * 1250.5} for n in range(40)],
        "odd key \u202e": "QUJD" * 200,
        "empty": {},
        "flags": [True, False, None],
    },
}


class InspectorApp(App[None]):
    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = "openwop-dark"
        envelope = envelope_of(DOCUMENT)
        self.push_screen(InspectScreen(envelope, render(envelope, RenderContext(), builtins())))


async def browse(pilot: Pilot[Any]) -> None:
    """Fold the meta, unfold it, step down to the title: the cursor has passed over rows that
    must be drawn again without it."""
    await pilot.pause()
    await pilot.press("down", "down", "down", "left", "right", "down", "down", "down")
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_the_inspector(snap_compare: Snap, size: tuple[int, int]) -> None:
    assert snap_compare(InspectorApp(), terminal_size=size, run_before=browse)
