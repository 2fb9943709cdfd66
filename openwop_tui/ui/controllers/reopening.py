"""Opening a stored session newest first: its last runs on screen at once, the rest read after.

Reading a session back costs with its length (0.2 s at 3,000 turns, and a whole fold again,
10 s and more, the first time after an upgrade or on another machine, when no kept fold
holds). So a long one is opened in two parts, at start-up (``--session``) and from the
sessions screen alike:

1. its newest runs, folded on their own (`openwop_tui.core.conversation.newest_runs`, a few
   milliseconds), are drawn straight away, and the host is reached at once;
2. once that frame is out, a thread reads the whole session into the conversation
   (`openwop_tui.core.reopen.reopening`, through a store connection of its own), while the
   event loop draws, takes keys and talks to the host; then the older items go on screen above
   the newest, whose blocks are kept (bound to the conversation's items) when the newest were
   folded the same (`same_items`), else the whole session is drawn again.

The fold is pure and touches nothing but the conversation it folds into, which nothing else
changes while it is read (`Chat.reading`): the notices said meanwhile wait and are said after
it, messages sent wait in the queue (their history is the whole session's), a run cut off in
it is caught up after, and the host's key joins the conversation's secrets after
(`Chat.add_secrets`): the reading masks with, and checks kept folds against, the secrets known
when it began, as the next open will. The status line and the prompt say how far it is.
Search and export see every item once the rest is in (export reads the store at any time; a
search made meanwhile is made again then).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path

from openwop_tui.core.conversation import Conversation, newest_runs
from openwop_tui.core.fold import Added
from openwop_tui.core.items import Item
from openwop_tui.core.reopen import reopening, same_items
from openwop_tui.store.sessions import Store, StoreError
from openwop_tui.ui.controllers.chat import Chat
from openwop_tui.ui.heap import settled_heap
from openwop_tui.ui.messages import ReadingChanged

__all__ = ["NEWEST_RUNS", "Newest", "Reopening", "begin_reading"]

#: Runs a long session shows before the rest is read: a screenful or more of turns.
NEWEST_RUNS = 12

#: Parts of the log the reading thread folds between two chances it gives the event loop's
#: thread to take the interpreter (a part is a few tens of microseconds). The interpreter
#: takes it from a thread that keeps it for 5 ms only (``sys.getswitchinterval``), and the
#: loop needs it several times for one key (woken, read, drawn, written): handing it over
#: this often keeps a key's echo to a few milliseconds of waiting.
THREAD_STEP = 16

#: Seconds between two updates of how far the reading is (the status line, the prompt).
PROGRESS_SECONDS = 0.25


@dataclass
class Newest:
    """A session being opened newest first: ``items`` to show now, the rest to read after."""

    items: list[Item]
    """The newest runs' items, folded on their own (what is drawn first)."""
    session_id: str
    path: Path
    """The store's file (the reading opens a connection of its own to it)."""
    secrets: tuple[str, ...]
    """What the store masks (the reading's connection masks the same)."""
    older: int
    """Turns older than the newest runs (how many the reading brings)."""
    entries: int
    """The log's length when it was opened (how far the reading has to go)."""


def begin_reading(
    conversation: Conversation, store: Store, session_id: str | None, steps: Iterator[None]
) -> Newest | None:
    """Start reading session ``session_id`` into ``conversation`` (``steps``: what
    `openwop_tui.core.conversation.opening` gave). A short one (or a new one, ``None``) is read
    at once: ``None``. A long one: what to show first while the rest is read (`Reopening.show`).
    Raises `StoreError` when the log cannot be read at once."""
    newest = _newest(conversation, store, session_id) if session_id is not None else None
    if newest is None or session_id is None:
        for _ in steps:
            pass
        return None
    if isinstance(steps, Generator):
        steps.close()  # (not begun) read by a thread instead, through its own connection
    info = store.info(session_id)
    older = max(info.runs - NEWEST_RUNS, 0)
    return Newest(newest, session_id, store.path, store.secrets, older, info.entries)


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
        self._reading: Conversation | None = None
        """The conversation being read (the one whose end resets `Chat.reading`)."""
        self._stop = threading.Event()
        """Set to stop the reading thread (another session replaced the one it reads)."""

    def show(self, newest: Newest, then: Callable[[], object] | None = None) -> None:
        """Draw ``newest``'s items now, and read the rest once they are on screen; ``then``
        once the whole session is in, unless another replaced it meanwhile (catch up, send
        what was queued). The chat's conversation is the one the rest is read into."""
        chat = self.chat
        if chat.reading is None:
            chat.reading = []
        view = chat.parts.view
        view.apply_changes([Added(item) for item in newest.items])
        view.scroll_end(animate=False)
        conversation = self._reading = chat.conversation
        self._stop.set()  # (a reading still going reads for nobody now)
        self._stop = stop = threading.Event()
        self._say(newest, 0.0)

        def start() -> None:
            if chat.conversation is not conversation:
                # Replaced before its first frame was out (a new chat): nothing to read.
                chat.app.call_later(self._done, conversation)
                return
            work = self._read(newest, conversation, stop, then)
            chat.app.run_worker(work, group="reopen", exclusive=True)

        chat.app.call_after_refresh(start)

    def _say(self, newest: Newest, done: float) -> None:
        """Tell the status line and the prompt how far the reading is (``done``: 0 to 1)."""
        turns = f"{newest.older:,} older turn{'s' if newest.older != 1 else ''}"
        text = f"reading {turns}… {min(int(done * 100), 99)}%"
        self.chat.parts.status.post_message(ReadingChanged(text))
        self.chat.parts.prompt.set_reading(text)

    def _said(self) -> None:
        self.chat.parts.status.post_message(ReadingChanged(""))
        self.chat.parts.prompt.set_reading("")

    async def _read(
        self,
        newest: Newest,
        conversation: Conversation,
        stop: threading.Event,
        then: Callable[[], object] | None,
    ) -> None:
        chat = self.chat
        keeper = conversation.keeper
        assert keeper is not None  # (a conversation `opening` made)

        def progress() -> None:
            self._say(newest, keeper.reached / max(newest.entries, 1))

        timer = chat.app.set_interval(PROGRESS_SECONDS, progress)
        try:
            whole = await self._fold(newest, conversation, stop)
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
        finally:
            timer.stop()
            stop.set()  # (cancelled while the thread reads: it stops at its next step)
        if whole:
            await self._draw(newest, conversation)
        await self._done(conversation)
        if whole and then is not None:
            then()

    async def _fold(
        self, newest: Newest, conversation: Conversation, stop: threading.Event
    ) -> bool:
        """Read the session into ``conversation`` in a thread; ``False`` when another
        conversation was put on screen meanwhile (the thread stopped early)."""
        chat = self.chat
        keeper = conversation.keeper
        assert keeper is not None

        def fold() -> bool:
            # A connection of the thread's own: the app's goes on writing and reading meanwhile.
            with Store(newest.path, secrets=newest.secrets) as store:
                steps = reopening(conversation, store, newest.session_id, keeper, step=THREAD_STEP)
                try:
                    for _ in steps:
                        if stop.is_set() or chat.conversation is not conversation:
                            return False  # (a new chat, or another session: read for nobody)
                        self.between_steps()
                finally:
                    if isinstance(steps, Generator):
                        steps.close()  # (stopped early: the collector resumes now, not later)
            return True

        return await asyncio.to_thread(fold) and chat.conversation is conversation

    @staticmethod
    def between_steps() -> None:
        """What the reading thread does between two steps: hand the interpreter to the event
        loop's thread if it waits for it (a sleep of nothing releases it). Tests pace the
        reading here."""
        time.sleep(0)

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
        self._stop.set()
        self.chat.app.workers.cancel_group(self.chat.app, "reopen")
        if self._reading is not None:
            await self._done(self._reading)

    async def _done(self, conversation: Conversation) -> None:
        """``conversation`` is read no more: the secrets learnt meanwhile join the chat's,
        and the notices that waited are said (unless another reading began meanwhile: it owns
        them now)."""
        if self._reading is not conversation:
            return
        self._reading = None
        chat = self.chat
        waiting, chat.reading = chat.reading or [], None
        self._said()
        chat.add_secrets(())
        for level, text in waiting:
            await chat.notice(level, text)
