"""Opening a stored session newest first: its last runs on screen at once, the rest read after.

Reading a session back costs with its length (0.2 s at 3,000 turns, and a whole fold again,
many seconds, the first time after an upgrade). So a long one is opened in two parts, at
start-up (``--session``) and from the sessions screen alike:

1. its newest runs, folded on their own (`openwop_tui.core.conversation.newest_runs`, a few
   milliseconds), are drawn straight away;
2. once that frame is out, a worker reads the whole session into the conversation a step at a
   time (`openwop_tui.core.conversation.opening`), the app drawing and taking keys between
   steps; then the older items go on screen above the newest, whose blocks are kept (bound to
   the conversation's items) when the newest were folded the same (`same_items`), else the
   whole session is drawn again.

While the rest is read (`Chat.reading`) the notices said meanwhile wait and are said after it,
and messages sent wait in the queue: nothing is folded into a conversation half read.
Search and export see every item once the rest is in (export reads the store at any time; a
search made meanwhile is made again then).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass

from openwop_tui.core.conversation import Conversation, newest_runs
from openwop_tui.core.fold import Added
from openwop_tui.core.items import Item
from openwop_tui.core.reopen import same_items
from openwop_tui.store.sessions import Store, StoreError
from openwop_tui.ui.controllers.chat import Chat
from openwop_tui.ui.heap import settled_heap

__all__ = ["NEWEST_RUNS", "Newest", "Reopening", "begin_reading"]

#: Runs a long session shows before the rest is read: a screenful or more of turns.
NEWEST_RUNS = 12

#: Seconds of reading between two turns of the event loop (a step is a few milliseconds):
#: a key waits no longer, and the reading does not pay a loop's turn for every step. (Timed,
#: as only the pace depends on it: what is read, and drawn, does not.)
TURN_SECONDS = 0.008


@dataclass
class Newest:
    """A session being opened newest first: ``items`` to show now, ``rest`` to read after."""

    items: list[Item]
    """The newest runs' items, folded on their own (what is drawn first)."""
    rest: Iterator[None]
    """The steps that read the whole session into the conversation (`Conversation` of the
    chat, once shown)."""


def begin_reading(
    conversation: Conversation, store: Store, session_id: str | None, steps: Iterator[None]
) -> Newest | None:
    """Start reading session ``session_id`` into ``conversation`` (``steps``: what
    `openwop_tui.core.conversation.opening` gave). A short one (or a new one, ``None``) is read
    at once: ``None``. A long one: what to show first while the rest is read (`Reopening.show`).
    Raises `StoreError` when the log cannot be read at once."""
    newest = _newest(conversation, store, session_id) if session_id is not None else None
    if newest is None:
        for _ in steps:
            pass
        return None
    return Newest(newest, steps)


def _newest(conversation: Conversation, store: Store, session_id: str) -> list[Item] | None:
    """The newest runs' items, folded on their own; ``None`` when the session is short, or
    they cannot be read on their own (reading it whole says why)."""
    try:
        newest = newest_runs(
            store,
            session_id,
            NEWEST_RUNS,
            limits=conversation.transcript.limits,
            secrets=conversation.secrets,
        )
    except StoreError:
        return None
    if newest is None:
        return None
    # What the newest items' media resolve against while the rest is read (the same hosts the
    # whole fold will name: they come with the runs).
    conversation.hosts.update(newest.hosts)
    return list(newest.transcript.items)


class Reopening:
    """Reads the rest of a session opened newest first, and puts it on screen."""

    def __init__(self, chat: Chat) -> None:
        self.chat = chat
        self._idle = asyncio.Event()
        self._idle.set()
        self._reading: Conversation | None = None
        """The conversation being read (the one whose end resets `Chat.reading`)."""

    async def read(self) -> None:
        """Return once no session is being read (the host is reached only after: connecting
        adds its key to the conversation's secrets, and catches up the run the log left
        open)."""
        await self._idle.wait()

    def show(self, newest: Newest, then: Callable[[], object] | None = None) -> None:
        """Draw ``newest``'s items now, and read the rest once they are on screen; ``then``
        once the whole session is in, unless another replaced it meanwhile (catch up, send
        what was queued). The chat's conversation is the one ``newest.rest`` reads into."""
        chat = self.chat
        if chat.reading is None:
            chat.reading = []
        self._idle.clear()
        view = chat.parts.view
        view.apply_changes([Added(item) for item in newest.items])
        view.scroll_end(animate=False)
        conversation = self._reading = chat.conversation

        def start() -> None:
            if chat.conversation is not conversation:
                # Replaced before its first frame was out (a new chat): nothing to read.
                chat.app.call_later(self._done, conversation)
                return
            work = self._read(newest, conversation, then)
            chat.app.run_worker(work, group="reopen", exclusive=True)

        chat.app.call_after_refresh(start)

    async def _read(
        self, newest: Newest, conversation: Conversation, then: Callable[[], object] | None
    ) -> None:
        chat = self.chat
        try:
            whole = await self._steps(newest.rest, conversation)
        except StoreError as error:
            # The log cannot be read after all: as when it cannot be at start-up, the chat goes
            # on unkept (the log stays in the store), and the newest items go with it.
            chat.show_conversation(
                Conversation(limits=conversation.transcript.limits, secrets=conversation.secrets)
            )
            await chat.parts.view.clear()
            await self._done(conversation)
            await chat.notice("warning", f"this session is not kept: {error}")
            return
        if whole:
            await self._draw(newest, conversation)
        await self._done(conversation)
        if whole and then is not None:
            then()

    async def _steps(self, rest: Iterator[None], conversation: Conversation) -> bool:
        """Read; ``False`` when another conversation was put on screen meanwhile."""
        chat = self.chat
        given = time.perf_counter()
        try:
            for _ in rest:
                if time.perf_counter() - given < TURN_SECONDS:
                    continue
                await asyncio.sleep(0)  # a frame or a key
                given = time.perf_counter()
                if chat.conversation is not conversation:
                    return False
        finally:
            if isinstance(rest, Generator):
                rest.close()  # (stopped early: the collector resumes now, not later)
        # (Replaced even before a step gave the app a turn: a short remainder.)
        return chat.conversation is conversation

    async def _draw(self, newest: Newest, conversation: Conversation) -> None:
        """Put the whole conversation on screen, keeping the newest blocks if they agree."""
        items = conversation.transcript.items
        view = self.chat.parts.view
        older = len(items) - len(newest.items)
        # (What the reading made lives as long as the chat: `openwop_tui.ui.heap`.)
        with settled_heap():
            if older >= 0 and same_items(newest.items, items[older:]):
                view.put_before(items[:older], items[older:])
            else:
                await view.clear()
                await view.apply([Added(item) for item in items])
                view.scroll_end(animate=False)
        finder = view.finder
        if finder:
            # A search made while the rest was read looked at the newest items only.
            total = view.search(finder.query, case=finder.case, whole_word=finder.whole_word)
            self.chat.parts.search.show_count(0, total, finder.query)

    async def stop(self) -> None:
        """Read no more: another session replaces the one being read."""
        self.chat.app.workers.cancel_group(self.chat.app, "reopen")
        if self._reading is not None:
            await self._done(self._reading)

    async def _done(self, conversation: Conversation) -> None:
        """``conversation`` is read no more: say the notices that waited, and let the host be
        reached (unless another reading began meanwhile: it owns them now)."""
        if self._reading is not conversation:
            return
        self._reading = None
        chat = self.chat
        waiting, chat.reading = chat.reading or [], None
        self._idle.set()
        for level, text in waiting:
            await chat.notice(level, text)
