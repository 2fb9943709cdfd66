"""Every dialog shows its own keys: a footer of its own, over the chat screen's.

A dialog (a `ModalScreen` of the app: help, the lab, the inspector, settings, a question…)
is drawn over the chat screen, whose footer stayed visible under it and went on offering the
chat's keys ("esc Cancel run") that do nothing there. Each of the app's dialogs is given a
`Footer` when it is shown: it lists the dialog's own bindings (Textual's footer reads the
bindings of the screen it is on), its way out first among them, so a dialog always says how to
leave it. Done once for every dialog here, not in each screen's ``compose``: a dialog added
later has it too (tests/ui/test_key_help.py opens each one).

Textual's own dialogs (the command palette) keep their own ways and are left alone.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer

from openwop_tui.ui.widgets.footer import SteadyFooter


def give_dialogs_footers(app: App[Any]) -> None:
    """From now on, each of the app's dialogs shown in ``app`` gets a footer."""
    app.screen_change_signal.subscribe(app, _shown)


def is_apps_dialog(screen: Screen[object]) -> bool:
    """Whether ``screen`` is one of this app's dialogs (not Textual's own)."""
    return isinstance(screen, ModalScreen) and type(screen).__module__.startswith("openwop_tui.")


def _shown(screen: Screen[object]) -> None:
    if is_apps_dialog(screen) and not screen.query(Footer):
        if screen.is_mounted:
            _add_footer(screen)
        else:
            # (A screen just pushed is composed once its message loop starts: then.)
            screen.call_later(_add_footer, screen)


def _add_footer(screen: Screen[object]) -> None:
    if screen.is_attached and not screen.query(Footer):
        screen.mount(SteadyFooter(show_command_palette=False))
        # A footer fills itself when told the bindings changed: tell it, once it is mounted.
        screen.call_after_refresh(screen.refresh_bindings)
