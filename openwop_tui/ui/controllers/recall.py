"""The prompt's history across restarts (`openwop_tui.store.prompt_history`): read for the host
the app talks to once the first frame is drawn, given to the prompt for ↑, and each message sent
kept (masked by the chat's redactor), in a thread: the event loop never waits on the disk."""

from __future__ import annotations

import asyncio

from openwop_tui.store.prompt_history import PromptHistory
from openwop_tui.text.redact import display_url
from openwop_tui.ui.controllers.chat import Chat

__all__ = ["RecallController"]

#: The history's name for the embedded demo host (a new URL at every start).
EMBEDDED = "embedded demo host"


class RecallController:
    """Reads and keeps the prompt history of the chat's host."""

    def __init__(self, chat: Chat) -> None:
        self.chat = chat
        host = chat.config.host
        self._history = PromptHistory(display_url(host) if host else EMBEDDED)
        self._writing = asyncio.Lock()
        """Held while a message is written: kept in the order sent."""

    async def load(self) -> None:
        """Give the prompt what was sent to this host before (↑ recalls it)."""
        earlier = await asyncio.to_thread(self._history.load)
        self.chat.parts.prompt.recall(earlier)

    async def kept(self, text: str) -> None:
        """Keep a message just sent (its secrets masked)."""
        masked = self.chat.redact(text)
        async with self._writing:
            await asyncio.to_thread(self._history.add, masked)
