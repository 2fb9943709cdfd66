"""The footer shows what Textual's footer shows, without making its keys again
(`openwop_tui.ui.widgets.footer`).

Each change of the keys on offer used to remove every key widget and make new ones (a run's
start and end, the transcript's focus moving between items), garbage cycles the app's frozen
heap kept until a full pass of the collector (issue 26).
"""

from __future__ import annotations

import weakref
from typing import Any, ClassVar

import pytest
from app_support import settle
from rich.style import Style
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.pilot import Pilot
from textual.widgets import Footer, Static
from textual.widgets._footer import FooterKey

from openwop_tui.ui.widgets.footer import SteadyFooter

pytestmark = pytest.mark.quick

#: What each key is in each of the states walked: shown, hidden (False) or shown dim (None).
_STATES: list[dict[str, bool | None]] = [
    {"open": True, "cancel": False, "save": False, "play": False},
    {"open": True, "cancel": True, "save": False, "play": False},  # a run started: Esc appears
    {"open": True, "cancel": True, "save": True, "play": True},  # an item with keys focused
    {"open": True, "cancel": False, "save": True, "play": None},  # the run ended; Play dim
    {"open": False, "cancel": False, "save": False, "play": False},  # nothing on offer
    {"open": True, "cancel": True, "save": True, "play": True},
    {"open": True, "cancel": False, "save": False, "play": False},
]


class _Keys(App[None]):
    """Four keys that come and go with `state`, over a footer of ``footer_class``."""

    BINDINGS: ClassVar = [
        Binding("ctrl+o", "open", "Open"),
        Binding("escape", "cancel", "Cancel run", tooltip="Stop the run going"),
        Binding("s", "save", "Save"),
        Binding("p", "play", "Play"),
    ]

    def __init__(self, footer_class: type[Footer]) -> None:
        super().__init__()
        self.footer_class = footer_class
        self.state = _STATES[0]

    def compose(self) -> ComposeResult:
        yield Static("body")
        yield self.footer_class(show_command_palette=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.state.get(action, True)

    def action_open(self) -> None:
        """(Only there to be offered.)"""

    action_cancel = action_save = action_play = action_open


def _bottom_line(app: App[Any]) -> list[tuple[str, Style]]:
    """The footer's line as drawn: each piece's text and look (without click metadata)."""
    strips = app.screen._compositor.render_strips()
    return [(segment.text, segment.style.clear_meta_and_links()) for segment in strips[-1]]


def _on_show(footer: Footer) -> list[tuple[str, str, bool]]:
    keys = footer.query(FooterKey).results()
    return [(key.key, key.description, key._disabled) for key in keys if key.display]


def _expected(state: dict[str, bool | None]) -> list[tuple[str, str, bool]]:
    words = {"open": ("ctrl+o", "Open"), "cancel": ("escape", "Cancel run")}
    words |= {"save": ("s", "Save"), "play": ("p", "Play")}
    offered = [(action, shown) for action, shown in state.items() if shown is not False]
    return [(*words[action], shown is None) for action, shown in offered]


async def _walk(footer_class: type[Footer]) -> tuple[list[list[tuple[str, Style]]], int]:
    """Each state's footer line as drawn, and how many key widgets were made in all."""
    app = _Keys(footer_class)
    lines: list[list[tuple[str, Style]]] = []
    made: weakref.WeakSet[FooterKey] = weakref.WeakSet()
    async with app.run_test(size=(80, 6)) as pilot:
        footer = app.query_one(footer_class)
        for state in _STATES:
            app.state = state
            app.screen.refresh_bindings()
            await _shows(pilot, app, footer, _expected(state))
            made.update(footer.query(FooterKey).results())
            lines.append(_bottom_line(app))
    return lines, len(made)


async def _shows(
    pilot: Pilot[Any], app: App[Any], footer: Footer, expected: list[tuple[str, str, bool]]
) -> None:
    await settle(pilot, app, lambda: _on_show(footer) == expected, what=f"footer {expected}")
    await pilot.pause()  # (and drawn)


async def test_it_draws_what_textuals_footer_draws_and_makes_each_key_once() -> None:
    textuals, textual_made = await _walk(Footer)
    steady, steady_made = await _walk(SteadyFooter)
    for state, theirs, ours in zip(_STATES, textuals, steady, strict=True):
        assert ours == theirs, state
    assert textual_made > 4  # (Textual's makes them again at each change)
    assert steady_made == 4  # (the most keys ever on offer at once)


async def test_a_key_shown_again_keeps_its_tooltip_and_enabled_look() -> None:
    app = _Keys(SteadyFooter)
    async with app.run_test(size=(80, 6)) as pilot:
        footer = app.query_one(SteadyFooter)
        for state in (_STATES[2], _STATES[4], _STATES[1]):
            app.state = state
            app.screen.refresh_bindings()
            await _shows(pilot, app, footer, _expected(state))
        escape = next(key for key in footer.shown() if key.key == "escape")
        assert escape.tooltip == "Stop the run going"
        assert not escape.has_class("-disabled")
        others = [key for key in footer.shown() if key.key != "escape"]
        assert all(not key.tooltip for key in others)


async def test_a_key_appearing_among_the_others_leaves_them_as_they_were() -> None:
    app = _Keys(SteadyFooter)
    before: dict[str, bool | None] = {"open": True, "cancel": False, "save": True, "play": False}
    after = before | {"cancel": True}  # (a run started: Esc comes between Open and Save)
    async with app.run_test(size=(80, 6)) as pilot:
        footer = app.query_one(SteadyFooter)
        app.state = before
        app.screen.refresh_bindings()
        await _shows(pilot, app, footer, _expected(before))
        widgets = {key.action: key for key in footer.shown()}
        app.state = after
        app.screen.refresh_bindings()
        await _shows(pilot, app, footer, _expected(after))
        now = {key.action: key for key in footer.shown()}
        # Open and Save are shown by the same widgets, unchanged; Esc's is a new one between.
        assert now["open"] is widgets["open"] and now["save"] is widgets["save"]
        assert [key.action for key in footer.shown()] == ["open", "cancel", "save"]
        # And back: Esc's widget is hidden, kept for the next run, and used again then.
        cancel = now["cancel"]
        app.state = before
        app.screen.refresh_bindings()
        await _shows(pilot, app, footer, _expected(before))
        app.state = after
        app.screen.refresh_bindings()
        await _shows(pilot, app, footer, _expected(after))
        assert {key.action: key for key in footer.shown()}["cancel"] is cancel
        assert _bottom_line(app) == await _textuals_line(after)


async def _textuals_line(state: dict[str, bool | None]) -> list[tuple[str, Style]]:
    """The footer line Textual's own footer draws for ``state``."""
    app = _Keys(Footer)
    async with app.run_test(size=(80, 6)) as pilot:
        app.state = state
        app.screen.refresh_bindings()
        await _shows(pilot, app, app.query_one(Footer), _expected(state))
        return _bottom_line(app)
