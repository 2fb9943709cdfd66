"""A one-line question: "Attach to run" and the like. Dismissed with the text, or ``None``."""

from __future__ import annotations

from openwop_tui.ui.screens.line_dialog import LineDialog


class AskScreen(LineDialog[str]):
    """Ask for one line of text; Enter answers (nothing typed: ``None``), Esc cancels."""

    AUTO_FOCUS = "#answer"

    def __init__(self, title: str, placeholder: str, *, value: str = "") -> None:
        """Ask ``title`` (``placeholder`` shows while the line is empty); ``value``: the
        answer to start from (a rename starts from the current title)."""
        super().__init__(title, value=value, placeholder=placeholder)

    def answer(self, text: str) -> str | None:
        return text.strip() or None
