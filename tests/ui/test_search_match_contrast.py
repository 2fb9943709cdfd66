"""The current search match is readable in every theme (issue 15, Build 2): the match style was
laid under the text's own style, so a coloured header ("Assistant", bold in the theme's success
colour) kept its colour on the match background: yellow on yellow in high contrast. Every cell
drawn on the match background must have the match's foreground. Fails with
`Strip.apply_style` (under) instead of `_over` in `Matches.mark`.
"""

from __future__ import annotations

import pytest
from app_support import SIZE, connected, demo_app, turn
from rich.style import Style

from openwop_tui.themes import THEMES


@pytest.mark.parametrize("theme", [theme.name for theme in THEMES])
async def test_a_match_in_a_header_takes_the_match_colours(theme: str) -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "code please")
        app.theme = theme
        await pilot.pause()
        app.view.search("assistant")
        await pilot.pause()
        match = Style.parse(app.palette.match)
        marked = [
            segment
            for row in app.screen._compositor.render_strips()
            for segment in row
            if segment.style is not None
            and segment.style.bgcolor == match.bgcolor
            and segment.text.strip()
            and "assistant" in segment.text.lower()
        ]
        assert marked, "no match drawn"
        for segment in marked:
            assert segment.style is not None and segment.style.color == match.color, segment
