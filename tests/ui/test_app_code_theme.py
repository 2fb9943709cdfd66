"""The code highlight theme (issue 27): chosen in the settings screen, previewed there, applied
at once to the code already drawn (a code envelope, a code block in a reply) and to what comes,
kept in the config file and used from the start next time.

Read from what the transcript paints: the chosen style's own background (dracula's #282A36) on
the code's cells, which no theme of the app's draws code on.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from app_support import NO_AUDIO, SIZE, all_rendered, draw_everything, settle, turn
from rich.color import Color
from textual.widgets import Select, Static

from openwop_tui.config import load_config
from openwop_tui.demo_host import DemoHost
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.options import AppOptions
from openwop_tui.ui.screens.settings import SettingsScreen

DRACULA = Color.parse("#282a36")


def _app(path: Path) -> ChatApp:
    return ChatApp(
        load_config({}, environ={}, path=path),
        AppOptions(config_path=path),
        demo_host=DemoHost(pace=0, deterministic=True),
        audio_support=NO_AUDIO,
    )


def _dracula_cells(app: ChatApp) -> int:
    """Cells of the transcript painted on dracula's background, on the whole transcript."""
    view = app.view
    count = 0
    for y in range(view.size.height):
        for segment in view.render_line(y):
            style = segment.style
            if style is not None and style.bgcolor is not None and style.bgcolor == DRACULA:
                count += len(segment.text)
    return count


async def test_a_code_theme_applies_to_code_on_screen_at_once_and_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("", encoding="utf-8")
    app = _app(path)
    async with app.run_test(size=SIZE) as pilot:
        await turn(pilot, app, "code")
        await draw_everything(pilot, app)
        app.view.scroll_end(animate=False)
        await pilot.pause()
        assert _dracula_cells(app) == 0
        await pilot.press("f10")
        await settle(pilot, app, lambda: isinstance(app.screen, SettingsScreen), what="settings")
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        screen.query_one("#settings-code-theme", Select).value = "dracula"
        await pilot.pause()
        preview = screen.query_one("#settings-preview", Static)
        assert any(
            s.style is not None and s.style.bgcolor == DRACULA
            for line in preview.render_lines(preview.region.reset_offset)
            for s in line
        )
        await pilot.press("ctrl+s")
        await settle(pilot, app, lambda: not isinstance(app.screen, SettingsScreen), what="saved")
        # Drawn again in it, without a restart.
        await settle(
            pilot,
            app,
            lambda: all_rendered(app) and _dracula_cells(app) > 0,
            what="the code drawn again in dracula",
        )
    assert tomllib.loads(path.read_text(encoding="utf-8"))["code_theme"] == "dracula"
    # The next start draws in it from the first item.
    again = _app(path)
    assert again.config.code_theme == "dracula"
    async with again.run_test(size=SIZE) as pilot:
        await turn(pilot, again, "code")
        await draw_everything(pilot, again)
        again.view.scroll_end(animate=False)
        await settle(pilot, again, lambda: _dracula_cells(again) > 0, what="dracula at start")
