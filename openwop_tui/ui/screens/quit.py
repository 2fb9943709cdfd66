"""Quitting with runs in flight: cancel them on the host, leave them running, or stay.

Quitting only closes this client; the runs live on the host. So Ctrl+Q while runs are streaming
asks which the user means instead of deciding for them: once, for every tab (the dialog names
each tab with a live run and its run). Closing one tab whose run is live asks the same of that
run. The screen returns ``"cancel"``, ``"leave"`` or ``"stay"`` (Esc).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from openwop_tui.text.sanitize import HostText

QuitChoice = Literal["cancel", "leave", "stay"]

#: The most tabs the dialog lists one per line (the others are counted).
LISTED = 6


@dataclass(frozen=True, slots=True)
class LiveRun:
    """A run in flight, and the tab it is in."""

    run_id: HostText
    tab: str
    """How the tab is named: its number and title (``2 “code please”``)."""


class QuitScreen(ModalScreen[QuitChoice]):
    """Asks what to do with the runs in flight before quitting (or the tab's, before closing
    it)."""

    DEFAULT_CSS = """
    QuitScreen { align: center middle; }
    QuitScreen > Vertical {
        width: 72; max-width: 95%; height: auto;
        background: $panel; border: round $warning; padding: 1 2;
    }
    QuitScreen #question { margin-bottom: 1; }
    QuitScreen #choices { height: auto; }
    QuitScreen #choices Button { width: 100%; }
    """
    # The three buttons stacked, each as wide as the dialog: side by side their labels need
    # about 80 columns, so the third was cut to one letter even at 120 (the dialog is 72 wide).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "choose('cancel')", "Cancel run and quit"),
        Binding("l", "choose('leave')", "Leave running and quit"),
        Binding("escape", "choose('stay')", "Stay"),
        Binding("s", "choose('stay')", "Stay", show=False),
    ]

    def __init__(self, runs: HostText | Sequence[LiveRun], *, closing_tab: bool = False) -> None:
        """Ask about ``runs``: a run id (the one chat open), or each tab's live run.

        ``closing_tab``: the question is about closing the tab the run is in, not quitting.
        """
        super().__init__()
        self.runs: list[LiveRun] = [LiveRun(runs, "")] if isinstance(runs, str) else list(runs)
        self.closing_tab = closing_tab

    def _question(self) -> str:
        runs = self.runs
        if self.closing_tab:
            return (
                f"Run {runs[0].run_id} is still in flight in this tab.\n"
                "Closing the tab stops following it: the run goes on on the host unless it is "
                "cancelled."
            )
        if len(runs) == 1:
            where = f" (tab {runs[0].tab})" if runs[0].tab else ""
            return (
                f"Run {runs[0].run_id} is still in flight on the host{where}.\n"
                "Quitting closes this client only: the run goes on unless it is cancelled."
            )
        lines = [f"Runs are in flight in {len(runs)} tabs:"]
        lines += [f"  tab {run.tab}: run {run.run_id}" for run in runs[:LISTED]]
        if len(runs) > LISTED:
            lines.append(f"  and {len(runs) - LISTED} more")
        lines.append("Quitting closes this client only: the runs go on unless they are cancelled.")
        return "\n".join(lines)

    def compose(self) -> ComposeResult:
        several = len(self.runs) > 1
        goal = "close the tab" if self.closing_tab else "quit"
        cancel = f"Cancel the {len(self.runs)} runs" if several else "Cancel the run"
        leave = "Leave them running" if several else "Leave it running"
        with Vertical():
            yield Static(self._question(), id="question", markup=False)
            with Vertical(id="choices"):
                yield Button(f"{cancel} and {goal} (c)", id="cancel", variant="error")
                yield Button(f"{leave} and {goal} (l)", id="leave", variant="warning")
                yield Button("Stay (Esc)", id="stay", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#stay", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        choice = event.button.id
        if choice in ("cancel", "leave", "stay"):
            self.dismiss(choice)  # type: ignore[arg-type]

    def action_choose(self, choice: QuitChoice) -> None:
        """Close the dialog with ``choice``."""
        self.dismiss(choice)
