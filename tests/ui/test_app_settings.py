"""The settings screen (issue 15, Build 1): F10 (and the palette) opens it; it shows the paths
this run really uses; a change is written to the config file, keeping the user's comments, and
read back at the next start and on reopening; a bad value is refused with a sentence and the
file is not touched.

Without `SettingsController.save` nothing reaches the file; without the read-back check in
`save_settings` a host the app cannot start with (``ftp://``) would be written.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from app_support import NO_AUDIO, SIZE, connected, settle
from textual.widgets import Checkbox, Input, Select, Static

from openwop_tui.config import Config, ConfigError, load_config
from openwop_tui.config_file import save_settings
from openwop_tui.demo_host import DemoHost
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.options import AppOptions
from openwop_tui.ui.screens.settings import SettingsScreen

USER_FILE = """\
# my own notes: keep me
images = "halfblock"  # pictures as half-blocks

[keys]
help = "ctrl+g"
"""


def _open(app: ChatApp) -> bool:
    """The settings screen is on top, composed."""
    return isinstance(app.screen, SettingsScreen) and bool(app.screen.query("#settings-workflow"))


def _app(path: Path) -> ChatApp:
    return ChatApp(
        load_config({}, environ={}, path=path),
        AppOptions(config_path=path),
        demo_host=DemoHost(pace=0, deterministic=True),
        audio_support=NO_AUDIO,
    )


async def test_a_changed_setting_is_in_the_file_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(USER_FILE, encoding="utf-8")
    app = _app(path)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await pilot.press("f10")
        await settle(pilot, app, lambda: _open(app), what="settings")
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        # The real places of this run, on screen.
        shown = " ".join(str(s.content) for s in screen.query(Static).results())
        assert str(path) in shown
        assert app.chat.store is not None and str(app.chat.store.path) in shown
        assert str(app.chat.download_folder()) in shown
        screen.query_one("#settings-images", Select).value = "none"
        screen.query_one("#settings-theme", Select).value = "openwop-light"
        screen.query_one("#settings-audio", Checkbox).value = False
        screen.query_one("#settings-workflow", Input).value = "demo.approve"
        await pilot.press("ctrl+s")
        await settle(pilot, app, lambda: not isinstance(app.screen, SettingsScreen), what="saved")
        assert app.theme == "openwop-light"  # applied at once
        assert app.lab.profile.images == "none" and not app.lab.profile.audio
        # Reopened: the screen reads what was saved.
        await pilot.press("f10")
        await settle(pilot, app, lambda: _open(app), what="again")
        assert app.screen.query_one("#settings-images", Select).value == "none"
        assert app.screen.query_one("#settings-workflow", Input).value == "demo.approve"
    text = path.read_text(encoding="utf-8")
    assert "# my own notes: keep me" in text and "# pictures as half-blocks" in text
    data = tomllib.loads(text)
    assert data["images"] == "none" and data["audio"] is False
    assert data["keys"] == {"help": "ctrl+g"} and "host" not in data
    # The next start reads it.
    config = load_config({}, environ={}, path=path)
    assert (config.images, config.audio, config.workflow, config.theme) == (
        "none",
        False,
        "demo.approve",
        "openwop-light",
    )


async def test_a_bad_value_is_refused_with_why_and_not_saved(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(USER_FILE, encoding="utf-8")
    app = _app(path)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await app.run_action("settings")
        await settle(pilot, app, lambda: _open(app), what="settings")
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        screen.query_one("#settings-images", Select).value = "none"
        screen.query_one("#settings-host", Input).value = "ftp://example.org"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen  # still open, the values still there
        assert "host must be an http:// or https:// URL" in screen.error
        assert screen.error.startswith("Not saved:")
        screen.query_one("#settings-host", Input).value = ""
        screen.query_one("#settings-workflow", Input).value = "two words"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "spaces or control characters" in screen.error
    assert path.read_text(encoding="utf-8") == USER_FILE


def test_the_file_is_created_and_an_absent_host_means_the_demo_host(tmp_path: Path) -> None:
    path = tmp_path / "new" / "config.toml"
    save_settings(path, {"host": "http://127.0.0.1:3737", "workflow": "demo.chat"})
    assert load_config({}, environ={}, path=path).host == "http://127.0.0.1:3737"
    save_settings(path, {"host": None})
    assert load_config({}, environ={}, path=path).host is None
    assert not list(path.parent.glob(".*.saving"))  # the temporary file is gone


def test_a_file_that_is_not_toml_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("images = \n", encoding="utf-8")
    with pytest.raises(ConfigError, match="fix it by hand"):
        save_settings(path, {"images": "none"})
    assert path.read_text(encoding="utf-8") == "images = \n"
    with pytest.raises(ConfigError, match="unknown theme"):
        save_settings(tmp_path / "other.toml", {"theme": "nope"}, themes=["openwop-dark"])
    assert Config().images == "auto"


async def test_what_was_not_changed_is_not_written(tmp_path: Path) -> None:
    """A flag given for this run (--no-audio) is not written into the file, nor are defaults
    the user left alone."""
    path = tmp_path / "config.toml"
    path.write_text(USER_FILE, encoding="utf-8")
    app = ChatApp(
        load_config({"audio": False}, environ={}, path=path),
        AppOptions(config_path=path),
        demo_host=DemoHost(pace=0, deterministic=True),
        audio_support=NO_AUDIO,
    )
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await app.run_action("settings")
        await settle(pilot, app, lambda: _open(app), what="settings")
        app.screen.query_one("#settings-theme", Select).value = "openwop-high-contrast"
        await pilot.press("ctrl+s")
        await settle(pilot, app, lambda: not isinstance(app.screen, SettingsScreen), what="saved")
        assert app.config.audio is False  # the flag still holds for this run
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert data == {
        "images": "halfblock",
        "theme": "openwop-high-contrast",
        "keys": {"help": "ctrl+g"},
    }


async def test_a_path_with_controls_shows_them_as_marks(tmp_path: Path) -> None:
    # The measured case (issue 23): a folder named with an OSC title sequence (as
    # XDG_CONFIG_HOME may name one) retitled the terminal when the screen drew its path, and a
    # newline in it drew a line the screen never wrote.
    folder = tmp_path / "conf\x1b]0;pwned\x07\nSessions"
    folder.mkdir()
    path = folder / "config.toml"
    path.write_text(USER_FILE, encoding="utf-8")
    app = _app(path)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await pilot.press("f10")
        await settle(pilot, app, lambda: _open(app), what="settings")
        [shown] = [
            str(s.content)
            for s in app.screen.query(".path").results(Static)
            if "conf" in str(s.content)
        ]
    assert "\x1b" not in shown and "\x07" not in shown and "\n" not in shown
    assert "conf␛]0;pwned␇␊Sessions" in shown
