"""Settings that apply now (issue 27): a wrong key fixed in the settings screen lets the next
message through without a restart; a new host or key is tried before it is saved; the key goes
to the system keychain (a keychain in memory here: `keychain_support`), else the config file
readable only by its owner; the key is never shown.

Against real demo hosts on loopback: the app's host requires ``RIGHT``; the app starts with a
wrong key, as a user who mistyped it does.
"""

from __future__ import annotations

import logging
import os
import stat
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from app_support import NO_AUDIO, SIZE, items_of, notices, record_notifications, settle, turn
from keychain_support import memory, no_keychain
from textual.pilot import Pilot
from textual.widgets import Input, Select

from openwop_tui.config import KEY_FROM_FILE, KEY_FROM_KEYCHAIN, Config, load_config
from openwop_tui.core.fold import AssistantTurn, UserTurn
from openwop_tui.demo_host import DemoHost
from openwop_tui.keychain import SERVICE
from openwop_tui.logs import setup_logging
from openwop_tui.text.redact import Redactor
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.messages import Connection
from openwop_tui.ui.options import AppOptions
from openwop_tui.ui.screens.settings import SettingsScreen

RIGHT = "sk-right-7f3a9c2e51d8"
WRONG = "sk-wrong-0000000000"


@pytest.fixture(scope="module")
def keyed() -> Iterator[DemoHost]:
    """A demo host that takes only `RIGHT`."""
    with DemoHost(pace=0, deterministic=True, api_key=RIGHT) as running:
        yield running


def _app(config_file: Path, **config: object) -> ChatApp:
    return ChatApp(
        Config(**config),  # type: ignore[arg-type]
        AppOptions(config_path=config_file),
        demo_host=DemoHost(pace=0, deterministic=True),
        audio_support=NO_AUDIO,
    )


def _screen(app: ChatApp) -> SettingsScreen:
    screen = app.screen
    assert isinstance(screen, SettingsScreen)
    return screen


async def _open(pilot: Pilot[None], app: ChatApp) -> SettingsScreen:
    await pilot.press("f10")
    await settle(
        pilot,
        app,
        lambda: isinstance(app.screen, SettingsScreen) and bool(app.screen.query("#settings-key")),
        what="the settings screen",
    )
    return _screen(app)


async def _save(pilot: Pilot[None], app: ChatApp, screen: SettingsScreen) -> None:
    """Ctrl+S, and wait until the save is over (the screen closed, or a reason shown)."""
    await pilot.press("ctrl+s")
    await settle(
        pilot,
        app,
        lambda: app.screen is not screen or (not screen.saving and bool(screen.error)),
        what="the save tried",
    )


async def _refused(pilot: Pilot[None], app: ChatApp) -> None:
    await settle(
        pilot,
        app,
        lambda: app.status.connection == Connection.DISCONNECTED and bool(notices(app, "error")),
        what="the host refused the key",
    )


async def test_a_wrong_key_fixed_in_settings_lets_the_next_message_through(
    keyed: DemoHost, tmp_path: Path
) -> None:
    config_file = tmp_path / "config.toml"
    config_file.write_text("# mine\n", encoding="utf-8")
    app = _app(config_file, host=keyed.url, api_key=WRONG)
    async with app.run_test(size=SIZE) as pilot:
        await _refused(pilot, app)
        said = str(notices(app, "error")[-1].text)
        # The app's advice: its settings screen, not a flag that needs a restart.
        assert "rejected the API key (401" in said and "Press F10 (Settings)" in said, said
        assert "--api-key" not in said and "OPENWOP_API_KEY" not in said
        # Sending fails with the same clear sentence; the message stays on screen.
        app.chat.parts.prompt.value = "hello before"
        await pilot.press("enter")
        await settle(pilot, app, lambda: len(notices(app, "error")) == 2, what="refused again")
        assert "Press F10 (Settings)" in str(notices(app, "error")[-1].text)
        screen = await _open(pilot, app)
        key = screen.query_one("#settings-key", Input)
        assert key.has_focus and key.password and key.value == ""  # at the key, masked, empty
        key.value = RIGHT
        await pilot.pause()
        assert "this chat goes on" in screen.change
        await _save(pilot, app, screen)
        assert not isinstance(app.screen, SettingsScreen), screen.error
        await settle(pilot, app, lambda: app.status.connection == Connection.CONNECTED)
        # The next message goes to the host with the new key: the answer arrives.
        await turn(pilot, app, "hello after")
        assert items_of(app, AssistantTurn)
        assert "hello before" in [str(t.text) for t in items_of(app, UserTurn)]  # same chat
    # Kept in the keychain under the host's URL; the config file holds no key.
    assert memory().keys[(SERVICE, keyed.url)] == RIGHT
    assert config_file.read_text() == "# mine\n"  # nothing else changed: not written
    # And read back at the next start, from the keychain.
    config = load_config({"host": keyed.url}, environ={}, path=config_file)
    assert (config.api_key, config.key_from) == (RIGHT, KEY_FROM_KEYCHAIN)


async def test_a_refused_key_keeps_the_screen_open_and_everything_typed(
    keyed: DemoHost, tmp_path: Path
) -> None:
    config_file = tmp_path / "config.toml"
    app = _app(config_file, host=keyed.url, api_key=WRONG)
    async with app.run_test(size=SIZE) as pilot:
        await _refused(pilot, app)
        screen = await _open(pilot, app)
        screen.query_one("#settings-key", Input).value = "sk-also-wrong-4242"
        screen.query_one("#settings-workflow", Input).value = "demo.approve"
        screen.query_one("#settings-theme", Select).value = "openwop-light"
        await _save(pilot, app, screen)
        assert app.screen is screen
        assert screen.error == "Not saved: the host refused this key (401): check it and try again"
        assert "sk-also-wrong" not in screen.error
        # Nothing lost, nothing saved, nothing switched.
        assert screen.query_one("#settings-key", Input).value == "sk-also-wrong-4242"
        assert screen.query_one("#settings-workflow", Input).value == "demo.approve"
        assert screen.query_one("#settings-theme", Select).value == "openwop-light"
        assert app.theme != "openwop-light" and app.chat.config.api_key == WRONG
    assert not config_file.exists()
    assert memory().keys == {}


async def test_a_host_that_does_not_answer_or_is_not_openwop_is_named(
    keyed: DemoHost, tmp_path: Path
) -> None:
    config_file = tmp_path / "config.toml"
    app = _app(config_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, lambda: app.status.connection == Connection.CONNECTED)
        screen = await _open(pilot, app)
        host = screen.query_one("#settings-host", Input)
        host.value = "http://127.0.0.1:9"  # the discard port: nothing listens
        await pilot.pause()
        assert "starts a new chat" in screen.change
        await _save(pilot, app, screen)
        assert app.screen is screen
        assert screen.error.startswith("Not saved: nothing answers at http://127.0.0.1:9:")
        host.value = f"{keyed.url}/not-here"
        await _save(pilot, app, screen)
        assert f"{keyed.url}/not-here is not an OpenWOP host" in screen.error
        assert host.value == f"{keyed.url}/not-here"
        assert app.chat.config.host is None and app.chat.demo  # still on the demo host
    assert not config_file.exists()


async def test_a_new_host_starts_a_new_chat_and_keeps_the_old_one(
    keyed: DemoHost, tmp_path: Path
) -> None:
    config_file = tmp_path / "config.toml"
    app = _app(config_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, lambda: app.status.connection == Connection.CONNECTED)
        await turn(pilot, app, "on the demo host")
        old = app.chat.kept_session_id()
        screen = await _open(pilot, app)
        screen.query_one("#settings-host", Input).value = keyed.url
        screen.query_one("#settings-key", Input).value = RIGHT
        await pilot.pause()
        assert "starts a new chat" in screen.change
        assert "stays in the sessions list" in screen.change
        await _save(pilot, app, screen)
        assert not isinstance(app.screen, SettingsScreen), screen.error
        await settle(pilot, app, lambda: app.status.connection == Connection.CONNECTED)
        assert not items_of(app, UserTurn)  # a new chat
        assert app.chat.host_label == keyed.url and not app.chat.demo
        await turn(pilot, app, "on the keyed host")
        assert app.chat.store is not None
        kept = {info.id for info in app.chat.store.sessions()}
        assert old in kept and app.chat.kept_session_id() in kept and len(kept) == 2
    data = tomllib.loads(config_file.read_text())
    assert data["host"] == keyed.url and "api_key" not in data


async def test_without_a_keychain_the_key_goes_to_the_config_file_readable_only_by_you(
    keyed: DemoHost, tmp_path: Path
) -> None:
    config_file = tmp_path / "config.toml"
    config_file.write_text("# mine\n", encoding="utf-8")
    os.chmod(config_file, 0o644)
    with no_keychain():
        app = _app(config_file, host=keyed.url, api_key=WRONG)
        seen = record_notifications(app)
        async with app.run_test(size=SIZE) as pilot:
            await _refused(pilot, app)
            screen = await _open(pilot, app)
            note = str(screen.query_one("#settings-key-note").content)
            assert "the config file, readable only by you (no system keychain here)" in note
            screen.query_one("#settings-key", Input).value = RIGHT
            await _save(pilot, app, screen)
            assert not isinstance(app.screen, SettingsScreen), screen.error
            await settle(pilot, app, lambda: app.status.connection == Connection.CONNECTED)
        config = load_config({"host": keyed.url}, environ={}, path=config_file)
    assert stat.S_IMODE(os.stat(config_file).st_mode) == 0o600
    assert (config.api_key, config.key_from) == (RIGHT, KEY_FROM_FILE)
    assert config_file.read_text().startswith("# mine\n")
    [saved] = [text for _, text in seen if text.startswith("settings saved")]
    assert "the key is saved in" in saved
    assert "(readable only by you): no system keychain here" in saved
    assert "was readable by others (644): now only by you (600)" in saved
    assert RIGHT not in saved


async def test_the_key_is_never_shown(keyed: DemoHost, tmp_path: Path) -> None:
    """Not in a notification, the status line, the log file, the exported session or the
    screen, even when the host echoes it back."""
    config_file = tmp_path / "config.toml"
    log = tmp_path / "openwop-tui.log"
    setup_logging(Redactor(), log)
    app = ChatApp(
        Config(host=keyed.url, api_key=WRONG),
        AppOptions(config_path=config_file, log_file=log),
        audio_support=NO_AUDIO,
    )
    seen = record_notifications(app)
    screens: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await _refused(pilot, app)
        screen = await _open(pilot, app)
        screen.query_one("#settings-key", Input).value = RIGHT
        await pilot.pause()
        screens.append(app.export_screenshot())  # typed, not shown
        await _save(pilot, app, screen)
        await settle(pilot, app, lambda: app.status.connection == Connection.CONNECTED)
        await turn(pilot, app, "hello")
        screens.append(app.export_screenshot())
        status = str(app.status.render())
        # A host that echoes the key back (the user pasted it): its reply is masked.
        await turn(pilot, app, f"my key is {RIGHT}, say it back")
        echoed = str(items_of(app, AssistantTurn)[-1].text)
        assert RIGHT not in echoed and "[api key]" in echoed
        logging.getLogger("test").warning("a line quoting %s", RIGHT)
        await app.run_action("export")
        await settle(pilot, app, lambda: any("exported to" in text for _, text in seen))
        downloads = app.chat.download_folder()
    logging.getLogger().handlers[-1].flush()
    exported = [path.read_text(encoding="utf-8") for path in downloads.rglob("*.md")]
    assert exported
    for text in [*screens, status, log.read_text(), *exported, *(t for _, t in seen)]:
        assert RIGHT not in text
    assert "a line quoting [api key]" in log.read_text()
    assert "[api key]" in exported[0]


async def test_a_workflow_is_picked_from_the_host_and_one_it_lacks_is_refused(
    tmp_path: Path,
) -> None:
    from openwop_tui.ui.screens.workflows import WorkflowPicker

    config_file = tmp_path / "config.toml"
    app = _app(config_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, lambda: app.status.connection == Connection.CONNECTED)
        screen = await _open(pilot, app)
        field = screen.query_one("#settings-workflow", Input)
        field.value = "no.such.workflow"
        await _save(pilot, app, screen)
        assert screen.error.startswith("Not saved: this host has no workflow 'no.such.workflow'")
        await pilot.click("#settings-pick")
        await settle(pilot, app, lambda: isinstance(app.screen, WorkflowPicker), what="picker")
        picker = app.screen
        assert isinstance(picker, WorkflowPicker)
        wanted = next(c.id for c in picker.choices if c.id != "demo.chat")
        picker.dismiss(wanted)
        await settle(pilot, app, lambda: app.screen is screen and field.value == wanted)
        assert app.session is not None and app.session.workflow_id == "demo.chat"  # not yet
        await _save(pilot, app, screen)
        assert app.screen is not screen, screen.error
        assert app.session.workflow_id == wanted  # now, without a restart
    assert tomllib.loads(config_file.read_text())["workflow"] == wanted
