"""Keys that tell the truth (issue 27): F1, the footer and the palette made from the bindings.

Measured by a user: F1 left out ``E``, ``r`` and ``y`` and listed Shift+Tab twice; the footer
offered "esc Cancel run" with no run, while editing and behind dialogs; Textual's own commands
headed the palette. Now F1 is generated from the key table and every place's bindings
(`openwop_tui.ui.key_help`), a binding without its help line fails here, the footer lists
what applies where the focus is, and the palette lists the app's commands first.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from app_support import NO_AUDIO, SIZE, connected, demo_app, settle, turn
from recorder_support import FakeInput, sine
from textual.binding import Binding
from textual.command import CommandList, CommandPalette
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

import openwop_tui.ui
from openwop_tui.config import Config, ConfigError, load_config
from openwop_tui.core.fold import UserTurn
from openwop_tui.demo_host import DemoHost
from openwop_tui.devices.recorder import Recorder
from openwop_tui.ui import key_help, keys
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.controllers import recording
from openwop_tui.ui.screens.capabilities import CapabilitiesScreen
from openwop_tui.ui.screens.help import HelpScreen, KeyRow
from openwop_tui.ui.transcript.view import TranscriptView


def _ui_classes() -> Iterator[type]:
    """Every class defined in a module of `openwop_tui.ui` (each module imported)."""
    for info in pkgutil.walk_packages(openwop_tui.ui.__path__, "openwop_tui.ui."):
        module = importlib.import_module(info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if value.__module__ == module.__name__:
                yield value


def _own_bindings(cls: type) -> list[Binding]:
    return [b for b in cls.__dict__.get("BINDINGS", ()) if isinstance(b, Binding)]


def test_every_binding_of_the_app_its_screens_and_widgets_has_words() -> None:
    """A binding with no description would be a blank in the footer and the palette."""
    classes = [cls for cls in _ui_classes() if _own_bindings(cls)]
    assert ChatApp in classes and TranscriptView in classes and HelpScreen in classes
    for cls in classes:
        for binding in _own_bindings(cls):
            assert binding.description.strip(), f"{cls.__name__}: {binding.key} has no words"


def test_a_binding_added_to_a_place_without_its_help_line_fails() -> None:
    """Each key of a place F1 lists has its help line (its tooltip); each widget with keys is
    in a place, so its keys reach F1. Screens show their keys in their own footer."""
    placed = {widget for place in key_help.PLACES for widget in place.widgets}
    for cls in _ui_classes():
        bindings = _own_bindings(cls)
        if not bindings or issubclass(cls, Screen) or not issubclass(cls, Widget):
            continue
        assert cls in placed, f"{cls.__name__} has keys but no place in F1 (key_help.PLACES)"
        for binding in bindings:
            assert binding.tooltip.strip(), f"{cls.__name__}: {binding.key} has no help line"


def test_every_app_key_has_its_help_line() -> None:
    for entry in keys.APP_KEYS + keys.PROMPT_KEYS:
        assert entry.title.strip() and entry.description.strip(), entry.name
    for also in keys.ALSO_RUNS:
        assert also.name in keys.ACTIONS and also.title and also.description


def _help_lines(app: ChatApp) -> list[tuple[str, str]]:
    return [(row.keys_shown, row.does) for row in app.screen.query(KeyRow)]


def _expected(app: ChatApp, focused: object) -> list[tuple[str, str]]:
    return [
        (line.keys, f"{line.does} [{line.name}]" if line.name else line.does)
        for section in key_help.sections(app, focused)  # type: ignore[arg-type]
        for line in section.lines
    ]


async def test_f1_is_what_the_keymap_and_the_focused_place_generate_each_key_once() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "hello")
        for focus in ("prompt", "transcript"):
            if focus == "transcript":
                await pilot.press("shift+tab")
                await settle(pilot, app, lambda: app.view.has_focus, what="transcript")
            focused = app.focused
            await pilot.press("f1")
            await settle(pilot, app, lambda: isinstance(app.screen, HelpScreen), what="help")
            shown = _help_lines(app)
            assert shown == _expected(app, focused)
            sections = key_help.sections(app, focused)
            assert sections[0].here
            assert sections[0].title == f"Here: in the {focus.replace('prompt', 'input')}"
            for section in sections:
                counts = Counter(line.keys for line in section.lines)
                assert max(counts.values()) == 1, (section.title, counts)
            every_key = [key for keys_shown, _ in shown for key in keys_shown.split(" / ")]
            assert every_key.count("Shift+Tab") == 1  # (Ctrl+Shift+Tab is another key)
            (transcript,) = [s for s in sections if s.title.lower().endswith("in the transcript")]
            lines = {line.keys: line.does for line in transcript.lines}
            # The transcript's keys the user found missing, wherever F1 is pressed.
            assert lines["E"].startswith("on your last message: edit it")
            assert lines["r"].startswith("on your last message: send it again")
            assert lines["y"] == "on a reply: copy its code block"
            assert "j" not in lines  # vim-style keys are off by default
            await pilot.press("escape")
            await settle(pilot, app, lambda: not isinstance(app.screen, HelpScreen), what="shut")


def _footer(app: ChatApp) -> dict[str, str]:
    """What the footer of the screen on top shows: key -> words."""
    footer = app.screen.query_one(Footer)
    return {key.key: key.description for key in footer.query(FooterKey).results() if key.display}


async def _footer_says(pilot: object, app: ChatApp, key: str, words: str | None) -> None:
    await settle(
        pilot,  # type: ignore[arg-type]
        app,
        lambda: _footer(app).get(key) == words,
        what=f"the footer: {key} {words}",
        workers=False,
    )


async def test_the_footer_offers_esc_only_for_what_it_does_there() -> None:
    app = ChatApp(Config(), demo_host=DemoHost(pace=1, deterministic=True), audio_support=NO_AUDIO)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        # Idle, in the input: Esc would do nothing, so it is not offered.
        await _footer_says(pilot, app, "escape", None)
        assert "f1" in _footer(app)
        # A live run: Esc cancels it.
        app.chat.parts.prompt.value = "slow"
        await pilot.press("enter")
        await _footer_says(pilot, app, "escape", "Cancel run")
        await pilot.press("escape")
        await settle(pilot, app, lambda: not app.runs.busy, what="cancelled")
        await _footer_says(pilot, app, "escape", None)
        # Editing the last message: Esc keeps the exchange.
        app.resend.edit()
        await _footer_says(pilot, app, "escape", "Keep exchange")
        await pilot.press("escape")
        await settle(pilot, app, lambda: not app.resend.editing, what="edit kept")
        await _footer_says(pilot, app, "escape", None)
        assert app.chat.parts.prompt.value == ""
        # In the transcript: Esc goes back to the input.
        await pilot.press("shift+tab")
        await _footer_says(pilot, app, "escape", "Back to input")
        # A dialog: its own footer, its own way out, none of the chat's keys.
        await pilot.press("f4")
        await settle(pilot, app, lambda: isinstance(app.screen, CapabilitiesScreen), what="lab")
        await _footer_says(pilot, app, "escape", "Close")
        assert "f2" not in _footer(app)
        await pilot.press("escape")
        await settle(pilot, app, lambda: not isinstance(app.screen, ModalScreen), what="shut")


def test_every_dialog_binds_esc_to_its_way_out() -> None:
    """Each of the app's dialogs leaves on Esc and says so (its footer shows the binding)."""
    dialogs = [c for c in _ui_classes() if issubclass(c, ModalScreen)]
    assert CapabilitiesScreen in dialogs and HelpScreen in dialogs
    for dialog in dialogs:
        chain = [b for cls in dialog.__mro__ for b in _own_bindings(cls)]
        escape = [b for b in chain if "escape" in b.key.split(",")]
        assert escape and escape[0].description, f"{dialog.__name__}: no way out on Esc"


async def test_the_palette_lists_the_apps_commands_first_then_textuals() -> None:
    app = demo_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "hello")
        await pilot.press("shift+tab")
        await settle(pilot, app, lambda: app.view.has_focus, what="transcript")
        await pilot.press("ctrl+p")
        await settle(pilot, app, lambda: isinstance(app.screen, CommandPalette), what="palette")
        commands = app.screen.query_one(CommandList)
        await settle(pilot, app, lambda: commands.option_count > 40, what="discovery")
        names = [
            str(commands.get_option_at_index(n).prompt).split("\n")[0]
            for n in range(commands.option_count)
        ]
        # The selected item's keys first (the footer's), then the app's, Textual's last.
        assert names[0].startswith("Here: ")
        assert "Here: Copy" in names and names.count("Here: Copy") == 1
        first_textual = min(names.index(n) for n in ("Keys", "Screenshot") if n in names)
        assert names.index("Sessions: open, rename or delete a session") < first_textual
        assert all(not n.startswith("Here: ") for n in names[first_textual:])
        assert names.count("Quit") == 1 and "Theme" not in names


@pytest.mark.parametrize("on", [False, True])
async def test_vim_keys_move_only_when_turned_on_and_show_then(on: bool) -> None:
    app = demo_app(vim_keys=on)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "one")
        await turn(pilot, app, "two")
        view = app.view
        await pilot.press("shift+tab")
        await settle(pilot, app, lambda: view.has_focus, what="transcript")
        newest = view.cursor
        await pilot.press("k")
        await pilot.pause()
        assert (view.cursor != newest) is on
        await pilot.press("g")
        await pilot.pause()
        first = next(i for i, b in enumerate(view.blocks()) if isinstance(b.item, UserTurn))
        assert (view.cursor == first) is on
        await pilot.press("G")
        await pilot.pause()
        assert view.cursor == newest
        assert ("j" in _footer(app)) is on  # the footer's "Move" group
        lines = dict(
            (line.keys, line.does) for s in key_help.sections(app, view) for line in s.lines
        )
        assert ("j" in lines and "G" in lines and "Ctrl+D" in lines) is on


def test_vim_keys_is_a_setting_of_the_config_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    assert not Config().vim_keys  # off by default
    path.write_text("vim_keys = true\n", encoding="utf-8")
    assert load_config({}, environ={}, path=path).vim_keys
    path.write_text("vim_keys = 1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="vim_keys must be true or false"):
        load_config({}, environ={}, path=path)


async def test_while_recording_esc_discards_the_clip_and_the_footer_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    microphone = FakeInput()
    monkeypatch.setattr(recording, "Recorder", lambda **kw: Recorder(microphone, **kw))
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await _footer_says(pilot, app, "escape", None)
        await pilot.press("f11")
        await settle(pilot, app, lambda: bool(microphone.streams), what="recording")
        await _footer_says(pilot, app, "escape", "Discard recording")
        microphone.stream.pump(sine(1.0))
        await pilot.press("escape")
        await settle(pilot, app, lambda: not app.recording.recording, what="discarded")
        await _footer_says(pilot, app, "escape", None)
        assert app.attaching.take() == ()  # nothing attached
