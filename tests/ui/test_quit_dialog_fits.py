"""The quit dialog fits (issue 15, Build 8): its three buttons side by side needed about 80
columns inside a 72-column dialog, so the third was cut to one letter even at 120 columns. Each
button's whole label must be on screen at 80x24 and at 120x40. Fails with the buttons in a row.
"""

from __future__ import annotations

import pytest
from textual.app import App
from textual.widgets import Button

from openwop_tui.ui.screens.quit import QuitScreen


class _Host(App[None]):
    def on_mount(self) -> None:
        self.push_screen(QuitScreen("run-0123456789abcdef"))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_every_quit_button_shows_its_whole_label(size: tuple[int, int]) -> None:
    app = _Host()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        buttons = list(app.screen.query(Button).results())
        assert len(buttons) == 3
        for button in buttons:
            label = str(button.label)
            # The label and the button's own padding, inside the button, inside the screen.
            assert button.content_region.width >= len(label), (label, button.content_region)
            assert button.region.right <= size[0] and button.region.bottom <= size[1]
