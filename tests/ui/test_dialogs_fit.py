"""Every dialog fits at 80 columns (issue 15, Build 8): at 80x24 each screen the app opens is
inside the terminal, and every button label, border title and key hint it shows is on screen
whole, not cut by the edge or by an ellipsis. Read from the screen as drawn (the compositor's
text, as a screenshot has it), so a label cut by any cause fails.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest
from rich.console import Console
from textual.app import App
from textual.content import Content
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Label, Static

from openwop_tui.devices.profile import Profile
from openwop_tui.protocol.catalog import WorkflowChoice
from openwop_tui.ui.screens.ask import AskScreen
from openwop_tui.ui.screens.capabilities import CapabilitiesScreen, Probed
from openwop_tui.ui.screens.confirm_open import ConfirmOpenScreen
from openwop_tui.ui.screens.doctor import DoctorScreen
from openwop_tui.ui.screens.help import HelpScreen
from openwop_tui.ui.screens.help_tasks import Places
from openwop_tui.ui.screens.quit import QuitScreen
from openwop_tui.ui.screens.save_as import SaveAsScreen
from openwop_tui.ui.screens.sessions import SessionsScreen, SessionSummary
from openwop_tui.ui.screens.settings import SettingsScreen, SettingsView
from openwop_tui.ui.screens.stats import StatsScreen
from openwop_tui.ui.screens.unsaved import UnsavedScreen
from openwop_tui.ui.screens.workflows import WorkflowPicker

WIDTH, HEIGHT = 80, 24

_PLACES = Places(
    Path("/home/someone/.config/openwop-tui/config.toml"),
    Path("/home/someone/.local/share/openwop-tui/sessions.db"),
    Path("/home/someone/.local/state/openwop-tui/log/openwop-tui.log"),
    Path("/home/someone/Downloads/openwop-tui"),
)

SCREENS: dict[str, Callable[[], Screen[object]]] = {
    "quit": lambda: QuitScreen("run_5a90ce309fc7606fb857"),
    "unsaved": lambda: UnsavedScreen(
        174,
        "the session store /home/someone/.local/share/openwop-tui/sessions.db cannot be "
        "written: database or disk is full",
        Path("/home/someone/.local/share/openwop-tui/journal/unstored-20261205-0615-1142.json"),
    ),
    "confirm-open": lambda: ConfirmOpenScreen("installer.sh", "it is a shell script that runs"),
    "save-as": lambda: SaveAsScreen("tour-report.csv", Path("/home/someone/Downloads")),
    "ask": lambda: AskScreen("Attach to run", "the run id, as the host gave it"),
    "workflow picker": lambda: WorkflowPicker(
        [
            WorkflowChoice("demo.chat", "Chat", "Talks back, and shows every envelope kind"),
            WorkflowChoice("demo.approve", "Approval", "Asks before it goes on", default=True),
        ],
        current="demo.chat",
    ),
    "help": lambda: HelpScreen(_PLACES),
    "sessions": lambda: SessionsScreen(
        [
            SessionSummary(
                "s1", "show me everything", datetime(2026, 1, 2, 3, 4), 12, "embedded demo host"
            )
        ]
    ),
    "stats": lambda: StatsScreen(list),
    "doctor": DoctorScreen,
    "lab": lambda: CapabilitiesScreen(
        Probed("halfblock", "test", None, "truecolor", False, "no audio device", (80, 24)),
        Profile(),
    ),
    "settings": lambda: SettingsScreen(
        SettingsView(
            config_file=_PLACES.config,
            sessions=_PLACES.sessions,
            log=_PLACES.log,
            downloads=_PLACES.downloads,
            theme="openwop-dark",
            themes=("openwop-dark", "openwop-light", "openwop-high-contrast"),
            images="auto",
            audio=True,
            host="",
            workflow="demo.chat",
        )
    ),
}


class _Host(App[None]):
    def __init__(self, make: Callable[[], Screen[object]]) -> None:
        super().__init__()
        self.make = make

    def on_mount(self) -> None:
        from openwop_tui.themes import THEMES

        for theme in THEMES:
            self.register_theme(theme)
        self.push_screen(self.make())


def _screen_text(app: App[None]) -> str:
    """The screen as drawn, as plain text (what `App.export_screenshot` records)."""
    console = Console(
        width=WIDTH, height=HEIGHT, file=io.StringIO(), record=True, legacy_windows=False
    )
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text()


def _labels(screen: Screen[object]) -> list[str]:
    """What must be read whole: buttons, border titles and subtitles, one-line hints."""
    shown: list[str] = []
    whole = Region(0, 0, WIDTH, HEIGHT)
    for widget in screen.query(Widget).results():
        if not widget.display or not whole.contains_region(widget.region):
            continue  # hidden, or scrolled out of the dialog's view
        if isinstance(widget, Button):
            shown.append(str(widget.label))
        for title in (widget.border_title, widget.border_subtitle):
            if title:
                shown.append(str(title))
        if isinstance(widget, Label | Static) and isinstance(widget.content, str | Content):
            text = str(widget.content).strip()
            if text and "\n" not in text and len(text) <= WIDTH - 4:
                shown.append(text)  # a key hint or a one-line question
    return shown


@pytest.mark.parametrize("name", sorted(SCREENS))
async def test_each_dialog_fits_at_80_columns(name: str) -> None:
    app = _Host(SCREENS[name])
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        await pilot.pause()
        await pilot.pause()
        screen = app.screen
        assert type(screen) is type(SCREENS[name]())
        text = _screen_text(app)
        # The dialog itself (what scrolls inside it may be below its edge).
        for widget in screen.children:
            region = widget.region
            assert region.right <= WIDTH and region.bottom <= HEIGHT, (widget, region)
        for button in screen.query(Button).results():
            assert button.content_region.width >= len(str(button.label)), button
        labels = _labels(screen)
        assert labels, name
        # One line of the screen holds each label whole (cut ones end in "…" or at the edge).
        flat = [" ".join(line.split()) for line in text.splitlines()]
        for label in labels:
            wanted = " ".join(label.split())
            assert any(wanted in line for line in flat), f"{name}: {label!r} cut\n{text}"
