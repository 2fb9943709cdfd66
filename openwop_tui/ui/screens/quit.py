"""Quitting with a run in flight: cancel it on the host, leave it running, or stay.

Quitting only closes this client; the run lives on the host. So Ctrl+Q while a run is streaming
asks which the user means instead of deciding for them. The screen returns ``"cancel"``,
``"leave"`` or ``"stay"`` (Esc).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from openwop_tui.text.sanitize import HostText

QuitChoice = Literal["cancel", "leave", "stay"]


class QuitScreen(ModalScreen[QuitChoice]):
    """Asks what to do with the run in flight before quitting."""

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

    def __init__(self, run_id: HostText) -> None:
        super().__init__()
        self.run_id = run_id

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                f"Run {self.run_id} is still in flight on the host.\n"
                "Quitting closes this client only: the run goes on unless it is cancelled.",
                id="question",
                markup=False,
            )
            with Vertical(id="choices"):
                yield Button("Cancel the run and quit (c)", id="cancel", variant="error")
                yield Button("Leave it running and quit (l)", id="leave", variant="warning")
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
