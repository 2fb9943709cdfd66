"""Quitting while the session store cannot take the session's last entries (a full disk).

Quitting would lose them, so the app asks first, in three choices: wait and retry (the dialog
stays, saying how the retries go, and the app quits once everything is stored), write them to a
file (a journal, its path on screen: the next start writes it into the store), or quit and lose
them. Esc goes back to the chat. The screen only shows and asks: each choice is posted as
`UnsavedScreen.Chosen` and the app's `openwop_tui.ui.controllers.leaving.Leaving` acts on it,
then updates the screen (`show_progress`, `journal_failed`) or quits.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Literal

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from openwop_tui.text.sanitize import clean_own

UnsavedChoice = Literal["wait", "file", "lose", "back"]


class UnsavedScreen(ModalScreen[None]):
    """Asks what to do with entries the store has not taken, before quitting."""

    DEFAULT_CSS = """
    UnsavedScreen { align: center middle; }
    UnsavedScreen > Vertical {
        width: 76; max-width: 95%; height: auto;
        background: $panel; border: round $error; padding: 1 2;
    }
    UnsavedScreen #question { margin-bottom: 1; }
    UnsavedScreen #journal { margin-bottom: 1; }
    UnsavedScreen #progress { margin-bottom: 1; color: $text-muted; }
    UnsavedScreen #choices { height: auto; }
    UnsavedScreen #choices Button { width: 100%; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("w", "choose('wait')", "Wait and retry"),
        Binding("f", "choose('file')", "Write them to a file"),
        Binding("l", "choose('lose')", "Quit and lose them"),
        Binding("escape", "choose('back')", "Back to the chat"),
    ]

    class Chosen(Message):
        """The user chose what to do with the entries not yet stored."""

        def __init__(self, choice: UnsavedChoice) -> None:
            super().__init__()
            self.choice = choice

    def __init__(self, count: int, why: str, journal: Path | None) -> None:
        """``count`` entries wait because of ``why`` (the store's sentence); ``journal`` is the
        file the second choice writes (``None``: no file can be written)."""
        super().__init__()
        self.count = count
        self.why = why
        self.journal = journal

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self._question(), id="question", markup=False)
            yield Static(self._file_line(), id="journal", markup=False)
            yield Static("", id="progress", markup=False)
            with Vertical(id="choices"):
                yield Button("Wait and retry (w)", id="wait", variant="primary")
                yield Button("Write them to a file (f)", id="file", variant="warning")
                yield Button("Quit and lose them (l)", id="lose", variant="error")

    def _question(self) -> str:
        # The store's sentence names the user's own path: cleaned all the same (a folder name
        # may hold anything).
        return clean_own(
            f"{self.count:,} entries of this session are not stored yet: {self.why}.\n"
            "Quitting now loses them. Esc goes back to the chat."
        )

    def _file_line(self) -> str:
        # (On a line of its own, wrapped: a button would cut a long path.)
        if self.journal is None:
            return "The file: none can be written."
        return clean_own(f"The file: {self.journal}")

    def on_mount(self) -> None:
        self.query_one("#wait", Button).focus()
        self.query_one("#file", Button).disabled = self.journal is None

    def on_button_pressed(self, event: Button.Pressed) -> None:
        choice = event.button.id
        if choice in ("wait", "file", "lose"):
            self.post_message(self.Chosen(choice))  # type: ignore[arg-type]

    def action_choose(self, choice: UnsavedChoice) -> None:
        """Post ``choice`` (a disabled choice is not offered)."""
        if choice == "file" and self.journal is None:
            return
        self.post_message(self.Chosen(choice))

    def show_progress(self, text: str, count: int | None = None) -> None:
        """Say how waiting goes (``count``: the entries still waiting, when it changed)."""
        if count is not None and count != self.count:
            self.count = count
            self.query_one("#question", Static).update(self._question())
        self.query_one("#progress", Static).update(clean_own(text))

    def journal_failed(self, text: str, next_journal: Path | None) -> None:
        """Writing the file failed (``text`` says why); ``next_journal`` is the file tried
        next (``None``: none is left)."""
        self.journal = next_journal
        self.query_one("#journal", Static).update(self._file_line())
        self.query_one("#file", Button).disabled = next_journal is None
        self.query_one("#progress", Static).update(clean_own(text))
