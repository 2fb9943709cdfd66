""" "Save as…": which folder to save into, prefilled with the last one used (or the download
folder). Enter checks the folder (it exists, or is created now) and closes with it; a folder
that cannot be used keeps the dialog open with the reason under the input. Esc cancels
(``None``)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from openwop_tui.devices.desktop import ActionError, chosen_folder
from openwop_tui.text.sanitize import clean_label, clean_own


class SaveAsScreen(ModalScreen[Path | None]):
    """Ask for the folder to save a file into."""

    DEFAULT_CSS = """
    SaveAsScreen { align: center middle; }
    SaveAsScreen > Vertical {
        width: 80; max-width: 100%; height: auto; background: $panel;
        border: round $primary; padding: 0 1;
    }
    SaveAsScreen Label { color: $text-muted; }
    SaveAsScreen #problem { color: $error; height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, file_name: str, folder: Path) -> None:
        super().__init__()
        self.file_name = file_name
        self.folder = folder

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"Save {clean_label(self.file_name)} into the folder:", markup=False)
            yield Input(value=str(self.folder), id="folder")
            yield Static("", id="problem", markup=False)
            yield Label("Enter to save (a missing folder is created), Esc to cancel")

    def on_mount(self) -> None:
        self.query_one("#folder", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        try:
            folder = chosen_folder(event.value)
        except ActionError as error:
            # The client's own sentence about a folder the user typed.
            self.query_one("#problem", Static).update(clean_own(str(error)))
            return
        self.dismiss(folder)

    def action_cancel(self) -> None:
        self.dismiss(None)
