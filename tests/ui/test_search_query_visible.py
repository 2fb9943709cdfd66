"""The search bar shows what is typed (issue 15, Build 2). Textual's ``Input:focus`` border won
over the bar's ``border: none`` and took the bar's only line, so the query was invisible while
typed. The bar's line, as drawn, must contain the query, in every theme. Fails without the
``:focus`` rule in `SearchBar`'s CSS.
"""

from __future__ import annotations

import pytest
from app_support import SIZE, connected, demo_app

from openwop_tui.themes import THEMES


def _drawn_line(app, y: int) -> str:  # type: ignore[no-untyped-def]
    """The text of screen row ``y`` as the compositor draws it."""
    return "".join(segment.text for segment in app.screen._compositor.render_strips()[y])


@pytest.mark.parametrize("theme", [theme.name for theme in THEMES])
async def test_the_query_is_drawn_as_typed(theme: str) -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        app.theme = theme
        await pilot.press("ctrl+f")
        await pilot.press(*"image")
        await pilot.pause()
        bar = app.chat.parts.search
        line = _drawn_line(app, bar.region.y)
        assert "Find: image" in line, line
