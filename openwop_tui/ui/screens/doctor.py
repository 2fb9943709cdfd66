"""The doctor's checks on a screen: ``openwop-tui doctor``, from inside the app.

One line per check of `openwop_tui.doctor` (this terminal and machine, then the host the app
is connected to): its status, its name, what was found and, when it is not ``ok``, what to do.
The checks are made off the event loop by the diagnostics controller
(`openwop_tui.ui.controllers.diagnostics`); the screen says so until they are in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from openwop_tui.doctor import Check
from openwop_tui.text.sanitize import clean_own, one_line

_LABELS = {
    "ok": ("ok", "green"),
    "info": ("info", "cyan"),
    "warn": ("warn", "yellow"),
    "fail": ("FAIL", "bold red"),
}


def checks_text(checks: Sequence[Check]) -> Text:
    """The report, as the command prints it."""
    text = Text()
    for number, check in enumerate(checks):
        if number:
            text.append("\n")
        label, style = _LABELS.get(check.status, (check.status, ""))
        text.append(f"{label:>4} ", style=style)
        # The doctor's own sentences, around paths, settings and what a host said of itself.
        text.append(f"{clean_own(check.name)}: ", style="bold")
        text.append(one_line(clean_own(check.detail)))  # one check, one line
        if check.fix and check.status != "ok":
            text.append(f"  → {one_line(clean_own(check.fix))}", style="dim")
    return text


class DoctorScreen(ModalScreen[None]):
    """Will this setup work: the doctor's report."""

    DEFAULT_CSS = """
    DoctorScreen { align: center middle; }
    DoctorScreen > VerticalScroll { width: 95%; height: 90%; background: $panel;
        border: round $primary; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close"),
        Binding("q", "dismiss", "Close", show=False),
    ]

    def compose(self) -> ComposeResult:
        box = VerticalScroll()
        box.border_title = "doctor"
        with box:
            yield Static(Text("checking…", style="dim"), id="doctor-report")

    def show(self, checks: Sequence[Check]) -> None:
        """The checks are in."""
        self.checks = list(checks)
        self.query_one("#doctor-report", Static).update(checks_text(checks))
