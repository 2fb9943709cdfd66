"""The prompt's history across restarts (`openwop_tui.store.prompt_history`): read for the host
the app talks to once the first frame is drawn, given to every tab's prompt for ↑ (a tab opened
later gets it, with what was sent since, as it opens), and each message sent kept (masked by the
redactor), in a thread: the event loop never waits on the disk."""

from __future__ import annotations

import asyncio

from openwop_tui.store.prompt_history import PromptHistory
from openwop_tui.text.redact import display_url
from openwop_tui.ui.controllers.chat import Chat, Common, OpenChats

__all__ = ["RecallController"]

#: The history's name for the embedded demo host (a new URL at every start).
EMBEDDED = "embedded demo host"


class RecallController:
    """Reads and keeps the prompt history of the app's host."""

    def __init__(self, common: Common, tabs: OpenChats) -> None:
        self.common = common
        self.tabs = tabs
        host = common.config.host
        self._history = PromptHistory(display_url(host) if host else EMBEDDED)
        self._writing = asyncio.Lock()
        """Held while a message is written: kept in the order sent."""
        self._known: list[str] | None = None
        """What was sent before this start and since, oldest first (``None``: not read yet)."""

    async def load(self) -> None:
        """Give every prompt what was sent to this host before (↑ recalls it)."""
        earlier = await asyncio.to_thread(self._history.load)
        self._known = list(earlier)
        for chat in self.tabs.chats():
            chat.parts.prompt.recall(list(earlier))

    def prime(self, chat: Chat) -> None:
        """A tab opened: its prompt recalls what was sent before (once it is read)."""
        if self._known is not None:
            chat.parts.prompt.recall(list(self._known))

    async def kept(self, text: str) -> None:
        """Keep a message just sent (its secrets masked)."""
        if self._known is not None:
            self._known.append(text)  # (as the prompt that sent it keeps it)
        masked = self.common.redact(text)
        async with self._writing:
            await asyncio.to_thread(self._history.add, masked)
