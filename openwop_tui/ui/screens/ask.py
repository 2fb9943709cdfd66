"""A one-line question: "Attach to run" and the like. Dismissed with the text, or ``None``."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label


class AskScreen(ModalScreen[str | None]):
    """Ask for one line of text; Enter answers, Esc cancels."""

    DEFAULT_CSS = """
    AskScreen { align: center middle; }
    AskScreen > Vertical {
        width: 70; max-width: 100%; height: auto; background: $panel;
        border: round $primary; padding: 0 1;
    }
    AskScreen Label { color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    # The app's AUTO_FOCUS names the prompt, which is not on this screen: without this the
    # line had no focus and what was typed went nowhere.
    AUTO_FOCUS = "#answer"

    def __init__(self, title: str, placeholder: str, *, value: str = "") -> None:
        """``value``: the answer to start from (a rename starts from the current title)."""
        super().__init__()
        self._title = title
        self._placeholder = placeholder
        self._value = value

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self._title)
            yield Input(self._value, placeholder=self._placeholder, id="answer")
            yield Label("Enter to confirm, Esc to cancel")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
