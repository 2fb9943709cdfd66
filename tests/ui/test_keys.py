"""The key table: checked [keys] config, remapped bindings, help and palette built from it."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_support import connected, demo_app, settle
from textual.command import CommandList, CommandPalette
from textual.keys import Keys
from textual.widgets import TextArea

from openwop_tui.config import Config, ConfigError, load_config
from openwop_tui.ui import keys
from openwop_tui.ui.command_palette import COMMANDS
from openwop_tui.ui.screens.help import HelpScreen, KeyRow
from openwop_tui.ui.widgets.timeline_panel import TimelinePanel


def test_named_keys_are_keys_textual_knows() -> None:
    known = {key.value for key in Keys} | {"space"}
    assert known >= keys.NAMED_KEYS


def test_reserved_keys_cover_the_text_areas_bindings() -> None:
    """A key the prompt takes for itself can never reach an app action while typing."""
    taken = {
        key.strip()
        for binding in TextArea.BINDINGS
        for key in getattr(binding, "key", "").split(",")
    }
    assert taken <= keys.RESERVED | {"pageup", "pagedown"}  # the prompt lets these through


def test_default_keys_do_not_clash() -> None:
    assert keys.check_keymap({}) == {}


@pytest.mark.parametrize(
    ("table", "fragment"),
    [
        ({"hepl": "f1"}, "unknown action 'hepl'; known: attach_file, attachments, cancel_run"),
        ({"help": "g"}, "would be typed into the input"),
        ({"help": "shift+g"}, "would be typed into the input"),
        ({"help": "ctrl+nope"}, "unknown key 'nope'"),
        ({"help": "strg+g"}, "unknown modifier 'strg'"),
        ({"help": "ctrl+"}, "is not a key"),
        ({"help": 1}, "help must be a string"),
        ({"help": "ctrl+t"}, "ctrl+t is given to both help and events"),
        ({"help": "ctrl+a"}, "ctrl+a is the input's own key"),
    ],
)
def test_a_bad_keys_table_is_a_clear_config_error(table: dict[str, object], fragment: str) -> None:
    with pytest.raises(ConfigError) as error:
        Config().merged({"keys": table}, source="config.toml")
    assert fragment in str(error.value)
    assert str(error.value).startswith("config.toml: ")


def test_keys_from_the_config_file_are_normalised(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[keys]\nhelp = "F1, Ctrl+B"\nsend = "ctrl+r"\n', encoding="utf-8")
    config = load_config({}, environ={}, path=path)
    assert config.keymap == {"help": "f1,ctrl+b", "send": "ctrl+r"}
    assert "ctrl+b" in keys.display(config.keymap["help"]).lower()


async def test_a_keys_table_remaps_an_action_in_the_app() -> None:
    app = demo_app(keys=(("events", "ctrl+b"),))
    async with app.run_test(size=(80, 24)) as pilot:
        await connected(pilot, app)
        panel = app.query_one(TimelinePanel)
        await pilot.press("f2")  # the default key no longer runs it
        await pilot.pause()
        assert not panel.display
        await pilot.press("ctrl+b")
        await settle(pilot, app, lambda: panel.display, what="events panel shown by ctrl+b")
        await pilot.press("ctrl+g")
        await settle(pilot, app, lambda: isinstance(app.screen, HelpScreen), what="help")
        shown = [row.keys_shown for row in app.screen.query(KeyRow)]
        assert "Ctrl+B" in shown and "F2 / Ctrl+T" not in shown


async def test_help_lists_every_key_and_scrolls_by_keys_at_80x24() -> None:
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await connected(pilot, app)
        await pilot.press("ctrl+g")
        await settle(pilot, app, lambda: isinstance(app.screen, HelpScreen), what="help")
        await pilot.pause()
        screen = app.screen
        rows = list(screen.query(KeyRow))
        listed = {row.keys_shown for row in rows}
        for entry in keys.APP_KEYS + keys.PROMPT_KEYS:
            if keys.available(app, entry.action) or entry in keys.PROMPT_KEYS:
                assert keys.display(entry.keys) in listed, entry.name
        panel = screen.query_one("#help-scroll")

        def in_view(row: KeyRow) -> bool:
            top = row.virtual_region.y - panel.scroll_y
            return (
                top >= 0
                and top + row.virtual_region.height <= panel.scrollable_content_region.height
            )

        last = rows[-1]
        assert not in_view(last)  # 80x24 is too small for all: it must scroll
        await pilot.press("down")
        assert panel.scroll_y == 1
        await pilot.press("up")
        assert panel.scroll_y == 0
        for _ in range(10):
            if in_view(last):
                break
            await pilot.press("pagedown")
        assert in_view(last)
        await pilot.press("end")
        assert panel.scroll_y == panel.max_scroll_y > 0
        await pilot.press("home")
        assert panel.scroll_y == 0
        await pilot.press("escape")
        await settle(pilot, app, lambda: not isinstance(app.screen, HelpScreen), what="closed")


async def test_the_palette_lists_the_apps_commands_and_runs_them() -> None:
    app = demo_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await connected(pilot, app)
        await pilot.press("ctrl+p")
        await settle(pilot, app, lambda: isinstance(app.screen, CommandPalette), what="palette")
        for text in "lifecycle":
            await pilot.press(text)
        commands = app.screen.query_one(CommandList)
        await settle(pilot, app, lambda: commands.option_count > 0, what="palette hits")
        names = [str(commands.get_option_at_index(n).prompt) for n in range(commands.option_count)]
        assert any("Lifecycle lines: show or hide" in name for name in names)
        assert not app.view.show_verbose
        await pilot.press("enter")
        await settle(pilot, app, lambda: app.view.show_verbose, what="lifecycle lines shown")


async def test_the_palette_offers_exactly_the_actions_the_app_has() -> None:
    app = demo_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await connected(pilot, app)
        await pilot.press("ctrl+p")
        await settle(pilot, app, lambda: isinstance(app.screen, CommandPalette), what="palette")
        commands = app.screen.query_one(CommandList)
        await settle(pilot, app, lambda: commands.option_count > 0, what="discovery")
        shown = " ".join(
            str(commands.get_option_at_index(n).prompt) for n in range(commands.option_count)
        )
        for command in COMMANDS:
            # Offered when the app has it and it applies now (no run: no "Cancel the run").
            applies = app.check_action(command.action.partition("(")[0], ())
            offered = keys.available(app, command.action) and bool(applies)
            assert (command.name in shown) == offered, command.name
        assert "Cancel the run" not in shown
        assert "Ctrl+G" in shown  # keys next to the commands
