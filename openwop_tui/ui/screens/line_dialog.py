"""A question answered on one line, in a box: the app's one-line dialogs are made on it.

`LineDialog` shows a title, the line (prefilled or not), a place for why an answer cannot be
taken, and the keys; Enter gives the line to `LineDialog.answer`, which says what the dialog
closes with, or raises `Refused`: the dialog stays open with the reason under the line. Esc
closes it with ``None``. The line has focus from the start (the app's ``AUTO_FOCUS`` names the
prompt, which is not on these screens: without it what was typed went nowhere).
"""

from __future__ import annotations

from typing import ClassVar, Generic, TypeVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from openwop_tui.text.sanitize import clean_own

__all__ = ["LineDialog", "Refused"]

T = TypeVar("T")


class Refused(Exception):
    """An answer the dialog cannot take; the message says why (the client's own sentence)."""


class LineDialog(ModalScreen[T | None], Generic[T]):
    """Ask for one line; Enter answers (`answer`), Esc cancels (``None``)."""

    DEFAULT_CSS = """
    LineDialog { align: center middle; }
    LineDialog > Vertical {
        width: 70; max-width: 100%; height: auto; background: $panel;
        border: round $primary; padding: 0 1;
    }
    LineDialog Label { color: $text-muted; }
    LineDialog #problem { color: $error; height: auto; display: none; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    KEYS: ClassVar[str] = "Enter to confirm, Esc to cancel"
    AUTO_FOCUS = "#line"
    """The line, which has focus from the start; its id follows (what tests and styles find it
    by): a subclass names its own here."""

    def __init__(self, title: str, *, value: str = "", placeholder: str = "") -> None:
        """Ask ``title``, the line starting from ``value`` (showing ``placeholder`` while
        empty)."""
        super().__init__()
        self._title = title
        self._value = value
        self._placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self._title, id="title", markup=False)
            line_id = (self.AUTO_FOCUS or "#line").removeprefix("#")
            yield Input(self._value, placeholder=self._placeholder, id=line_id)
            yield Static("", id="problem", markup=False)
            yield Label(self.KEYS)

    def answer(self, text: str) -> T | None:
        """What the dialog closes with for ``text``. Raises `Refused` to stay open."""
        raise NotImplementedError

    def on_input_submitted(self, event: Input.Submitted) -> None:
        try:
            answer = self.answer(event.value)
        except Refused as why:
            problem = self.query_one("#problem", Static)
            problem.update(clean_own(str(why)))
            problem.display = True
            return
        self.dismiss(answer)

    def action_cancel(self) -> None:
        self.dismiss(None)
