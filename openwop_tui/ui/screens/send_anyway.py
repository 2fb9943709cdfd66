"""Asks once, before a message goes, about attachments the host's model may not read.

An image for a host whose model does not advertise ``vision-input``, or sound without
``audio-input`` (RFC 0055 §A), may be ignored or refused by the model. The question names each
and why; "Send anyway" sends the message as it is, "Go back" (Esc) returns it to the prompt
with its attachments, to remove them or pick another workflow.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from openwop_tui.text.sanitize import clean_label

__all__ = ["SendAnywayScreen"]


class SendAnywayScreen(ModalScreen[bool]):
    """Send the message although the model may not read some of its attachments?"""

    DEFAULT_CSS = """
    SendAnywayScreen { align: center middle; }
    SendAnywayScreen > Vertical {
        width: 80; max-width: 95%; height: auto;
        background: $panel; border: round $warning; padding: 1 2;
    }
    SendAnywayScreen #why { margin-bottom: 1; }
    SendAnywayScreen Horizontal { height: auto; }
    SendAnywayScreen Button { margin-right: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "answer(False)", "Go back")]

    def __init__(self, reasons: Sequence[str]) -> None:
        super().__init__()
        self.reasons = tuple(reasons)

    def compose(self) -> ComposeResult:
        lines = "\n".join(f"• {clean_label(reason)}" for reason in self.reasons)
        with Vertical():
            yield Static(
                "The host's model may not read what this message carries:\n\n"
                f"{lines}\n\nSend it anyway, or go back to remove them (or pick a workflow "
                "that reads them)?",
                id="why",
                markup=False,
            )
            with Horizontal():
                yield Button("Send anyway", id="send", variant="warning")
                yield Button("Go back (Esc)", id="back", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#back", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "send")

    def action_answer(self, send: bool) -> None:
        self.dismiss(send)
