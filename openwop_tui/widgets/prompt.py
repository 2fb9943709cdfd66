"""The message input: an `Input` that remembers what was sent, as a shell does.

Up and Down walk through earlier messages (the text being typed is kept and comes back at the
bottom); the placeholder says when a run is in progress and how to cancel it.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Input

IDLE_PLACEHOLDER = "Message the host — Enter to send, F1 for help"
BUSY_PLACEHOLDER = "A run is in progress — Esc cancels it"


class PromptInput(Input):
    """Where the user types."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "history(-1)", "Earlier", show=False),
        Binding("down", "history(1)", "Later", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(placeholder=IDLE_PLACEHOLDER, id=id)
        self._sent: list[str] = []
        self._position = 0
        """Index into ``_sent``; ``len(_sent)`` is the draft being typed."""
        self._draft = ""

    def remember(self, text: str) -> None:
        """Record a sent message (consecutive repeats are kept once)."""
        if not self._sent or self._sent[-1] != text:
            self._sent.append(text)
        self._position = len(self._sent)
        self._draft = ""

    def set_busy(self, busy: bool) -> None:
        """Say in the placeholder whether a run is in progress."""
        self.placeholder = BUSY_PLACEHOLDER if busy else IDLE_PLACEHOLDER

    def action_history(self, step: int) -> None:
        """Show the previous (``-1``) or next (``1``) sent message."""
        if not self._sent:
            return
        if self._position == len(self._sent):
            self._draft = self.value
        position = min(max(self._position + step, 0), len(self._sent))
        if position == self._position:
            return
        self._position = position
        self.value = self._draft if position == len(self._sent) else self._sent[position]
        self.cursor_position = len(self.value)
