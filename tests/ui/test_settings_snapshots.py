"""SVG snapshots of the settings screen (issue 27): at 80x24 and 120x40, in the default theme and
the two others the app ships (`OTHER_THEMES` of the app's snapshots). At 80x24 it scrolls: the
top is in the snapshot, and `tests/ui/test_dialogs_fit.py` checks that nothing on it is cut.

The screen is shown by a small app of its own with fixed paths and values (the chat app's would
show this run's temporary folders).

Update with ``pytest tests/ui/test_settings_snapshots.py --snapshot-update`` after a deliberate
change, and look at every changed SVG.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.app import App

from openwop_tui.ui import theme_palette
from openwop_tui.ui.screens.settings import SettingsScreen, SettingsView

Snap = Callable[..., bool]
THEMES = ["openwop-dark", "openwop-light", "openwop-high-contrast"]
SIZES = [(80, 24), (120, 40)]


def view(theme: str) -> SettingsView:
    return SettingsView(
        config_file=Path("/home/someone/.config/openwop-tui/config.toml"),
        sessions=Path("/home/someone/.local/share/openwop-tui/sessions.db"),
        log=Path("/home/someone/.local/state/openwop-tui/log/openwop-tui.log"),
        downloads=Path("/home/someone/Downloads/openwop-tui"),
        theme=theme,
        themes=THEMES,
        images="auto",
        audio=True,
        host="http://127.0.0.1:3737",
        workflow="demo.chat",
        code_theme=None,
        code_themes=["dracula", "monokai", "solarized-light", "xcode"],
        palette=theme_palette.named(theme),
        key_note=(
            "In use: the key kept in the system keychain. A new one is tried first, then kept "
            "in the system keychain (Secret Service)."
        ),
    )


class SettingsApp(App[None]):
    """The settings screen alone, in ``theme``."""

    def __init__(self, theme: str) -> None:
        super().__init__()
        self.shown = theme

    def on_mount(self) -> None:
        from openwop_tui.themes import THEMES as SHIPPED

        for each in SHIPPED:
            self.register_theme(each)
        self.theme = self.shown

        async def save(_values: object) -> str | None:
            return None

        async def pick(_current: str) -> str | None:
            return None

        self.push_screen(SettingsScreen(view(self.shown), save, pick))


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
@pytest.mark.parametrize("theme", THEMES)
def test_settings_screen(snap_compare: Snap, theme: str, size: tuple[int, int]) -> None:
    assert snap_compare(SettingsApp(theme), terminal_size=size)
