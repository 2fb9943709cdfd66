""" "Save as…": which folder to save into, prefilled with the last one used (or the download
folder). Enter checks the folder (it exists, or is created now) and closes with it; a folder
that cannot be used keeps the dialog open with the reason under the input. Esc cancels
(``None``)."""

from __future__ import annotations

from pathlib import Path

from openwop_tui.devices.desktop import ActionError, chosen_folder
from openwop_tui.text.sanitize import clean_label
from openwop_tui.ui.screens.line_dialog import LineDialog, Refused


class SaveAsScreen(LineDialog[Path]):
    """Ask for the folder to save a file into."""

    DEFAULT_CSS = """
    SaveAsScreen > Vertical { width: 80; }
    """
    AUTO_FOCUS = "#folder"
    KEYS = "Enter to save (a missing folder is created), Esc to cancel"

    def __init__(self, file_name: str, folder: Path) -> None:
        """Ask where ``file_name`` goes, starting from ``folder``."""
        super().__init__(f"Save {clean_label(file_name)} into the folder:", value=str(folder))
        self.file_name = file_name
        self.folder = folder

    def answer(self, text: str) -> Path:
        try:
            return chosen_folder(text)
        except ActionError as error:
            raise Refused(str(error)) from None  # (the client's own sentence, about a folder)
