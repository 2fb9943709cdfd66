"""Before a file that may run is handed to the desktop opener: say why, and ask.

The name, its extension and the media type all come from the host, and the desktop opener acts
on type: a ``.desktop`` launcher starts its command, a script may run, a web page runs its
scripts. `openwop_tui.devices.desktop.open_risk` decides when to ask; this screen asks. It returns
``True`` (the Yes button) or ``False`` (Esc, n, or the No button); the safe answer has the
focus, and no single key says yes.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from openwop_tui.text.sanitize import clean_label


class ConfirmOpenScreen(ModalScreen[bool]):
    """Asks whether to open a file that may run, saying why it asks."""

    DEFAULT_CSS = """
    ConfirmOpenScreen { align: center middle; }
    ConfirmOpenScreen > Vertical {
        width: 76; max-width: 95%; height: auto;
        background: $panel; border: round $warning; padding: 1 2;
    }
    ConfirmOpenScreen #why { margin-bottom: 1; }
    ConfirmOpenScreen Horizontal { height: auto; }
    ConfirmOpenScreen Button { margin-right: 1; }
    """
    # No one-key yes: a key meant for the transcript (y copies code) pressed just as the dialog
    # opens must not open the file. Yes is the button: Tab to it and Enter, or click it.
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,n", "answer(False)", "Do not open")]

    def __init__(self, name: str, reason: str) -> None:
        super().__init__()
        self.file_name = name
        self.reason = reason

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                f"Open {clean_label(self.file_name)}?\n\n"
                f"It was named by the host, and {clean_label(self.reason)}.\n"
                "Open it only if you trust the host and expected this file.",
                id="why",
                markup=False,
            )
            with Horizontal():
                yield Button("No, do not open (n, Esc)", id="no", variant="primary")
                yield Button("Yes, open it", id="yes", variant="error")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        """Close the dialog with the answer."""
        self.dismiss(yes)
