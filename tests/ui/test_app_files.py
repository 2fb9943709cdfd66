"""File actions in the chat app: Open asks first for a file that may run (and No does nothing),
save as… asks for a folder and remembers it, and a CSV previews inline. The desktop opener is a
stub (`actions.launch`): no test starts a real program.

Every wait is `app_support.settle`, never a fixed sleep.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from app_support import (
    SIZE,
    builtin_renderers_loaded,  # noqa: F401  (an autouse fixture: importing it applies it here)
    connected,
    demo_app,
    envelope_views,
    record_notifications,
    select_item,
    settle,
    turn,
)
from render_helpers import NASTY
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, Static

from openwop_tui.demo_host.tour import SETUP_SH
from openwop_tui.devices import desktop as actions
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.screens.confirm_open import ConfirmOpenScreen
from openwop_tui.ui.screens.save_as import SaveAsScreen
from openwop_tui.ui.transcript.blocks import Block

Launched = list[list[str]]


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> Launched:
    """Every opener command the app starts, instead of starting it."""
    started: Launched = []
    monkeypatch.setattr(actions.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(actions, "launch", started.append)
    return started


async def file_item(pilot: Pilot[Any], app: ChatApp, ask: str, name: str) -> Block:
    """Ask the demo host for ``ask`` and select the file item called ``name``."""
    await connected(pilot, app)
    await turn(pilot, app, ask)
    (block,) = [b for b in envelope_views(app) if name in (b.rendered.title if b.rendered else "")]
    await select_item(pilot, app, block)
    return block


async def test_open_on_a_shell_script_asks_and_no_does_nothing(
    tmp_path: Path, launched: Launched
) -> None:
    app = demo_app(download_dir=str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        block = await file_item(pilot, app, "a shell script please", "setup.sh")
        assert block.rendered is not None and block.rendered.detail == "preview · bash"
        await pilot.press("o")
        await settle(pilot, app, lambda: isinstance(app.screen, ConfirmOpenScreen), what="asked")
        question = str(app.screen.query_one("#why", Static).render())
        assert "Open setup.sh?" in question
        assert "this is a shell script: opening it may run it" in question
        await pilot.press("n")
        await settle(pilot, app, lambda: not isinstance(app.screen, ConfirmOpenScreen))
        assert launched == [] and list(tmp_path.iterdir()) == []  # nothing written, nothing run


async def test_open_on_a_shell_script_yes_opens_it(tmp_path: Path, launched: Launched) -> None:
    app = demo_app(download_dir=str(tmp_path))
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await file_item(pilot, app, "a shell script please", "setup.sh")
        await pilot.press("o")
        await settle(pilot, app, lambda: isinstance(app.screen, ConfirmOpenScreen), what="asked")
        await pilot.press("y")  # no one-key yes: a stray key must not open it
        await pilot.pause()
        assert isinstance(app.screen, ConfirmOpenScreen) and launched == []
        await pilot.press("tab", "enter")  # to the Yes button, and press it
        await settle(pilot, app, lambda: bool(launched), what="the opener started")
        saved = tmp_path / "setup.sh"
        assert launched == [[launched[0][0], str(saved)]] and saved.read_bytes() == SETUP_SH
        assert ("information", f"opened {saved}") in seen


async def test_the_no_button_has_the_focus_so_enter_does_not_open(
    tmp_path: Path, launched: Launched
) -> None:
    app = demo_app(download_dir=str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await file_item(pilot, app, "a shell script please", "setup.sh")
        await pilot.press("o")
        await settle(pilot, app, lambda: isinstance(app.screen, ConfirmOpenScreen), what="asked")
        await pilot.press("enter")
        await settle(pilot, app, lambda: not isinstance(app.screen, ConfirmOpenScreen))
        assert launched == []


async def test_open_on_a_csv_report_opens_without_asking(
    tmp_path: Path, launched: Launched
) -> None:
    app = demo_app(download_dir=str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        block = await file_item(pilot, app, "a file please", "tour-report.csv")
        assert block.rendered is not None and block.rendered.detail == "preview · csv"
        assert "saved on request" in app.view.text_of(block.item_id)  # the rows, inline
        await pilot.press("o")
        await settle(pilot, app, lambda: bool(launched), what="the opener started")
        assert not isinstance(app.screen, ConfirmOpenScreen)
        assert launched[0][1] == str(tmp_path / "tour-report.csv")


async def test_save_as_asks_for_a_folder_says_what_is_wrong_and_remembers_it(
    tmp_path: Path,
) -> None:
    downloads = tmp_path / "downloads"
    app = demo_app(download_dir=str(downloads))
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await file_item(pilot, app, "a file please", "tour-report.csv")
        await pilot.press("S")
        await settle(pilot, app, lambda: isinstance(app.screen, SaveAsScreen), what="asked")
        field = app.screen.query_one("#folder", Input)
        assert field.value == str(downloads)  # prefilled with the download folder

        blocker = tmp_path / "blocker"
        blocker.write_text("a file")
        field.value = str(blocker)
        await pilot.press("enter")
        problem = app.screen.query_one("#problem", Static)
        await settle(pilot, app, lambda: bool(str(problem.render())), what="the problem shown")
        assert isinstance(app.screen, SaveAsScreen)  # still open, saying why
        assert str(problem.render()) == f"{blocker} is a file, not a folder"

        chosen = tmp_path / "reports" / "q3"
        field.value = str(chosen)
        await pilot.press("enter")
        saved = chosen / "tour-report.csv"
        await settle(pilot, app, lambda: saved.exists(), what="saved into the chosen folder")
        assert not isinstance(app.screen, SaveAsScreen)
        assert ("information", f"saved to {saved}") in seen
        assert not downloads.exists()

        # The next save as… starts from the folder chosen last; Esc saves nothing.
        app.view.focus()
        await pilot.press("S")
        await settle(pilot, app, lambda: isinstance(app.screen, SaveAsScreen), what="asked again")
        assert app.screen.query_one("#folder", Input).value == str(chosen)
        await pilot.press("escape")
        await settle(pilot, app, lambda: not isinstance(app.screen, SaveAsScreen))
        assert sorted(p.name for p in chosen.iterdir()) == ["tour-report.csv"]


async def test_save_as_from_the_palette_needs_a_selected_item(tmp_path: Path) -> None:
    app = demo_app(download_dir=str(tmp_path))
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await app.run_action("save_as")
        await pilot.pause()
        assert not isinstance(app.screen, SaveAsScreen)
        assert any(level == "warning" and "select an item first" in text for level, text in seen)


async def test_save_as_from_the_palette_on_the_selected_file(tmp_path: Path) -> None:
    app = demo_app(download_dir=str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await file_item(pilot, app, "a file please", "tour-report.csv")
        await app.run_action("save_as")
        await settle(pilot, app, lambda: isinstance(app.screen, SaveAsScreen), what="asked")


async def test_the_question_shows_a_hostile_name_cleaned() -> None:
    class Host(App[None]):
        pass

    app = Host()
    async with app.run_test() as pilot:
        await app.push_screen(ConfirmOpenScreen(f"{NASTY}.sh", "this is a shell script: x"))
        await pilot.pause()
        question = str(app.screen.query_one("#why", Static).render())
        assert "\x1b" not in question and "\u202e" not in question
        assert "␛]52;c;ZXZpbA==␇" in question and "<U+202E>.sh" in question
