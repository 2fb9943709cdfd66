"""Messages the user sent while a run was streaming: kept in order, shown above the input.

Sending while a run streams is accepted, not refused: the message waits here, visibly, and the
app takes it with `QueuedMessages.take` when the run ends (or the host is reached). One line
above the prompt says how many wait and begins the first, so the user sees that the message was
not lost and what goes next.
"""

from __future__ import annotations

from collections import deque
from typing import NamedTuple

from rich.text import Text
from textual.widgets import Static

from openwop_tui.core.attachments import Attachment
from openwop_tui.text.sanitize import clean_own


class Draft(NamedTuple):
    """A message waiting to go: its text and what it carries."""

    text: str
    attachments: tuple[Attachment, ...] = ()


#: Characters of each waiting message shown in the line (the whole text is kept).
PREVIEW = 40


class QueuedMessages(Static):
    """A first-in, first-out queue of messages, drawn as one line while it is not empty."""

    DEFAULT_CSS = """
    QueuedMessages {
        height: 1; margin: 0 2; color: $text-muted; display: none;
    }
    QueuedMessages.-pending { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._pending: deque[Draft] = deque()

    def __len__(self) -> int:
        return len(self._pending)

    @property
    def pending(self) -> tuple[str, ...]:
        """The waiting messages' texts, next first."""
        return tuple(draft.text for draft in self._pending)

    def add(self, text: str, attachments: tuple[Attachment, ...] = ()) -> None:
        """Queue ``text`` (with its ``attachments``) after the others."""
        self._pending.append(Draft(text, attachments))
        self._changed()

    def take(self) -> str | None:
        """The next message's text (removed from the queue: `take_draft` gives what it
        carries too), or ``None`` if there is none."""
        draft = self.take_draft()
        return draft.text if draft is not None else None

    def take_draft(self) -> Draft | None:
        """The next message to send (removed from the queue), or ``None`` if there is none."""
        if not self._pending:
            return None
        draft = self._pending.popleft()
        self._changed()
        return draft

    def clear(self) -> int:
        """Drop every waiting message; returns how many were dropped."""
        count = len(self._pending)
        self._pending.clear()
        self._changed()
        return count

    def _changed(self) -> None:
        self.set_class(bool(self._pending), "-pending")
        self.update(self.describe())

    def describe(self) -> Text:
        """``queued: first message…`` or ``queued (3): first… · second… · …``."""
        if not self._pending:
            return Text()
        count = len(self._pending)
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append("queued" if count == 1 else f"queued ({count})", style="bold")
        line.append(": ")
        for index, (text, attachments) in enumerate(self._pending):
            if index:
                line.append(" · ")
            line.append(_preview(text))
            if attachments:
                line.append(f" (+{len(attachments)} attached)", style="italic")
            if index == 2 and count > 3:
                line.append(" · …")
                break
        line.append("  — sent when the run ends", style="italic")
        return line


def _preview(text: str) -> str:
    """The first line of ``text``, cut to `PREVIEW` characters, safe to draw."""
    first, _, rest = text.partition("\n")
    shown = clean_own(first.strip())  # a message the user typed, queued
    if len(shown) > PREVIEW or rest:
        return f"{shown[:PREVIEW].rstrip()}…"
    return shown
