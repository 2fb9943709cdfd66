"""Opening a stored session newest first: its last runs on screen at once, the rest read after.

Reading a session back costs with its length (0.2 s at 3,000 turns, and a whole fold again,
10 s and more, the first time after an upgrade or on another machine, when no kept fold
holds). So a long one is opened in two parts, at start-up (``--session``) and from the
sessions screen alike:

1. its newest runs, folded on their own (`openwop_tui.core.opening.newest_runs`, a few
   milliseconds), become the chat (`Newest.live`): drawn straight away, the host reached at
   once, notices said and logged as they come;
2. once that frame is out, a thread reads the rest of the session, up to where the newest runs
   begin, into a conversation of its own (`Newest.whole`: `openwop_tui.core.reopen.reopening`,
   through a store connection of its own), and folds the newest runs' parts after it from
   memory, as step 1 read them: no part of the log is read twice. The event loop draws, takes
   keys and talks to the host meanwhile;
3. then, between runs, that conversation reads what the chat logged meanwhile, and its fold
   becomes the chat's (`Conversation.take_fold`): the older items go on screen above the
   newest, whose blocks are kept (bound to the whole session's items) when both were folded
   the same (`same_items`), else the whole session is drawn again.

A message sent meanwhile goes at once when the session's chat history is kept beside its log
(`openwop_tui.store.histories`: the newest runs' conversation then holds the whole of it); for
a session written before those rows were kept it waits in the queue until the session is in
(and the reading keeps them for the next open). A run cut off in it is caught up, an attach or
an edit made, once it is in. The status line and the prompt say how far the reading is and
whether a message goes now. Search and export see every item once the rest is in (export reads
the store at any time; a search made meanwhile is made again then).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path

from openwop_tui.core.conversation import Conversation
from openwop_tui.core.items import Item
from openwop_tui.core.opening import NewestRuns, newest_runs
from openwop_tui.core.reopen import reopening, same_items
from openwop_tui.store.database import StoreError
from openwop_tui.store.sessions import Store
from openwop_tui.ui import warming
from openwop_tui.ui.controllers.chat import Chat, Reading
from openwop_tui.ui.controllers.feed import Feed
from openwop_tui.ui.heap import settled_heap
from openwop_tui.ui.key_watch import reading_beside
from openwop_tui.ui.messages import ReadingChanged

__all__ = ["NEWEST_RUNS", "Newest", "Reopening", "begin_reading"]

#: Runs a long session shows before the rest is read: a screenful or more of turns.
NEWEST_RUNS = 12

#: Parts of the log the reading thread folds between two chances it gives the event loop's
#: thread to take the interpreter (a part is a few tens of microseconds). The interpreter
#: takes it from a thread only once that thread has kept it for the switch interval
#: (``sys.getswitchinterval``: CPython's 5 ms, 0.5 ms while the app runs, `ui.key_watch`), and
#: the loop needs it several times for one key (woken, read, drawn, written): handing it over
#: this often keeps a key's echo to a few milliseconds of waiting.
THREAD_STEP = 16

#: Seconds between two updates of how far the reading is (the status line, the prompt).
PROGRESS_SECONDS = 0.25


@dataclass
class Newest:
    """A session being opened newest first: the chat now, the rest to read after."""

    live: Conversation
    """The newest runs, folded on their own: the chat while the rest is read (it logs, sends
    and draws as any chat does)."""
    whole: Conversation
    """What the rest is read into (kept runs restored, the rest folded): its fold becomes the
    chat's once it is in (`Reopening`)."""
    session_id: str
    path: Path
    """The store's file (the reading opens a connection of its own to it)."""
    secrets: tuple[str, ...]
    """What the store masks (the reading's connection masks the same)."""
    older: int
    """Turns older than the newest runs (how many the reading brings)."""
    read: NewestRuns
    """The newest runs as read: where they begin (the rest is read up to there), the parts
    of the log they were folded from (folded again after the rest, from memory), and the log's
    length when it was opened (what the chat logs after is read once the rest is in)."""
    sends: bool
    """The live conversation's chat history is the whole session's: messages go at once."""


def begin_reading(
    conversation: Conversation, store: Store, session_id: str | None, steps: Iterator[None]
) -> Newest | None:
    """Start reading a stored session into a conversation. A short one (or a new one) is read
    at once: ``None``. A long one: the chat to show while the rest is read (`Newest.live`, with
    ``conversation``'s logs), and the rest (`Reopening.show`). Raises `StoreError` when the log
    cannot be read at once.

    Args:
        conversation: The conversation `openwop_tui.core.opening.opening` made for the
            session, nothing read into it yet.
        store: The store the session is kept in.
        session_id: The stored session's id; ``None`` for a new session (nothing to read).
        steps: The steps that read the session into ``conversation``, as `opening` gave them;
            a long session's are closed unread (a thread reads it through its own connection).
    """
    newest = _newest(conversation, store, session_id) if session_id is not None else None
    if newest is None or session_id is None:
        for _ in steps:
            pass
        return None
    if isinstance(steps, Generator):
        steps.close()  # (not begun) read by a thread instead, through its own connection
    info = store.info(session_id)
    older = max(info.runs - NEWEST_RUNS, 0)
    live = newest.conversation
    live.logs = list(conversation.logs)
    live.store = conversation.store
    live.session = conversation.session
    keep = conversation.logbook.session_log
    if keep is not None and newest.whole_history:
        # Its runs' effect on the history is kept (not their folds: the whole session's
        # reading folds and keeps them, once it is in).
        live.keep_runs(keep, folds=False)
    return Newest(
        live,
        conversation,
        session_id,
        store.path,
        store.secrets,
        older,
        newest,
        newest.whole_history and keep is not None,
    )


def _newest(conversation: Conversation, store: Store, session_id: str) -> NewestRuns | None:
    """The newest runs, folded on their own; ``None`` when the session is short, or they
    cannot be read on their own (reading it whole says why)."""
    try:
        return newest_runs(
            store,
            session_id,
            NEWEST_RUNS,
            limits=conversation.transcript.limits,
            secrets=conversation.secrets,
            resume=True,  # (read as the whole session is: `opening`'s callers resume)
        )
    except StoreError:
        return None


class Reopening:
    """Reads the rest of a session opened newest first, and makes it the chat's."""

    def __init__(self, chat: Chat, feed: Feed) -> None:
        self.chat = chat
        self.feed = feed
        """Puts the session on screen (its newest runs, then the rest)."""
        self._reading: Newest | None = None
        """The session being read (the one whose end resets `Chat.reading`)."""
        self._stop = threading.Event()
        """Set to stop the reading thread (another chat replaced the one it reads for)."""

    async def show(
        self,
        newest: Newest,
        *,
        then: Callable[[], object],
        idle: Callable[[], Awaitable[None]],
    ) -> None:
        """Make ``newest.live`` the chat and draw it now; read the rest once it is on screen.
        Once the whole session is in and no run is going (``idle``), it becomes the chat's and
        ``then`` runs (catch up, send what was queued), unless another chat replaced this one
        meanwhile."""
        chat = self.chat
        if chat.conversation is not newest.live:
            chat.show_conversation(newest.live)
        chat.reading = Reading(sends=newest.sends)
        warming.hold(self)  # (the rest comes in first: the warming can wait)
        await self.feed.show_session(newest.live)
        self._reading = newest
        self._stop.set()  # (a reading still going reads for nobody now)
        self._stop = stop = threading.Event()
        self._say(newest, 0.0)

        def start() -> None:
            if chat.conversation is not newest.live:
                # Replaced before its first frame was out (a new chat): nothing to read.
                chat.app.call_later(self._done, newest)
                return
            work = self._read(newest, stop, then, idle)
            chat.work(work, group="reopen", exclusive=True)

        chat.app.call_after_refresh(start)

    def _say(self, newest: Newest, done: float) -> None:
        """Tell the status line and the prompt how far the reading is (``done``: 0 to 1)."""
        turns = f"{newest.older:,} older turn{'s' if newest.older != 1 else ''}"
        text = f"reading {turns}… {min(int(done * 100), 99)}%"
        self.chat.parts.status.post_message(ReadingChanged(text))
        reading = self.chat.reading
        self.chat.parts.prompt.set_reading(text, sends=reading is not None and reading.sends)

    def _said(self) -> None:
        self.chat.parts.status.post_message(ReadingChanged(""))
        self.chat.parts.prompt.set_reading("")

    async def _read(
        self,
        newest: Newest,
        stop: threading.Event,
        then: Callable[[], object],
        idle: Callable[[], Awaitable[None]],
    ) -> None:
        """Read the rest of the session in a thread, then make it the chat's and draw it.

        Args:
            newest: The session opened newest first: the chat on screen and the whole one to
                read.
            stop: Set to stop the reading thread (another chat replaced this one); set here
                once the reading ends.
            then: Runs once the whole session is the chat's (catch up, send what was queued).
            idle: Waits until no run is going, so the whole session takes over between runs.
        """
        chat = self.chat
        keeper = newest.whole.keeper
        assert keeper is not None  # (a conversation `opening` made)

        def progress() -> None:
            self._say(newest, keeper.reached / max(newest.read.until, 1))

        timer = chat.app.set_interval(PROGRESS_SECONDS, progress)
        try:
            whole = await self._fold(newest, stop)
        except StoreError as error:
            # The log cannot be read after all: the chat goes on with its newest runs (the
            # log stays in the store, and the next open tries again).
            await self._done(newest)
            sent = "" if newest.sends else "; the host is sent the newest turns only"
            await chat.notice(
                "warning", f"this session's older turns cannot be read: {error}{sent}"
            )
            return
        finally:
            timer.stop()
            stop.set()  # (cancelled while the thread reads: it stops at its next step)
        if not whole:
            await self._done(newest)  # (replaced: a new chat, another session)
            return
        # In: what comes now waits for it to become the chat's, between runs.
        if chat.reading is not None:
            chat.reading.sends = False
        await idle()
        if chat.conversation is not newest.live:
            await self._done(newest)  # (replaced meanwhile)
            return
        shown = list(newest.live.transcript.items)
        try:
            self._take(newest)
        except StoreError as error:
            await self._done(newest)
            await chat.notice("warning", f"this session's older turns cannot be read: {error}")
            return
        await self._draw(shown, newest.live)
        await self._done(newest)
        then()

    async def _fold(self, newest: Newest, stop: threading.Event) -> bool:
        """Read the session into ``newest.whole`` in a thread: the store's log up to where the
        newest runs begin, then their parts as they were read; ``False`` when another chat was
        put on screen meanwhile (the thread stopped early)."""
        chat = self.chat
        whole, live = newest.whole, newest.live
        keeper = whole.keeper
        assert keeper is not None

        def fold() -> bool:
            # A connection of the thread's own: the app's goes on writing and reading meanwhile.
            with Store(newest.path, secrets=newest.secrets) as store:
                steps = reopening(
                    whole,
                    store,
                    newest.session_id,
                    keeper,
                    resume=True,  # (a run cut off in it stays open: `CatchUp` settles it)
                    until=newest.read.since,
                    then=newest.read.parts,
                    step=THREAD_STEP,
                )
                try:
                    for _ in steps:
                        if stop.is_set() or chat.conversation is not live:
                            return False  # (a new chat, or another session: read for nobody)
                        self.between_steps()
                finally:
                    if isinstance(steps, Generator):
                        steps.close()  # (stopped early: the collector resumes now, not later)
            return True

        with reading_beside():
            read = await asyncio.to_thread(fold)
        return read and chat.conversation is live

    def _take(self, newest: Newest) -> None:
        """The whole session, read up to where it opened, reads what the chat logged since
        (a few runs at most), and its fold becomes the chat's. Raises `StoreError`."""
        chat = self.chat
        whole, live = newest.whole, newest.live
        keeper = whole.keeper
        assert keeper is not None and chat.store is not None
        with settled_heap():
            since = newest.read.until
            steps = reopening(
                whole, chat.store, newest.session_id, keeper, resume=True, since=since
            )
            for _ in steps:
                pass
            live.take_fold(whole)

    @staticmethod
    def between_steps() -> None:
        """What the reading thread does between two steps: hand the interpreter to the event
        loop's thread if it waits for it (a sleep of nothing releases it). Tests pace the
        reading here."""
        time.sleep(0)

    async def _draw(self, shown: list[Item], conversation: Conversation) -> None:
        """Put the whole conversation on screen in place of ``shown`` (its newest items),
        keeping their blocks if they agree."""
        items = conversation.transcript.items
        view = self.chat.parts.view
        older = len(items) - len(shown)
        if older >= 0 and same_items(shown, items[older:]):
            self.feed.show_older(items[:older], items[older:])
        else:
            await self.feed.show_session(conversation)
        finder = view.finder
        if finder:
            # A search made while the rest was read looked at the newest items only.
            total = view.search(finder.query, case=finder.case, whole_word=finder.whole_word)
            self.chat.parts.search.show_count(0, total, finder.query)

    async def stop(self) -> None:
        """Read no more: another session replaces the one being read."""
        self._stop.set()
        self.chat.stop_work("reopen")
        if self._reading is not None:
            await self._done(self._reading)

    async def _done(self, newest: Newest) -> None:
        """``newest`` is read no more (unless another reading began meanwhile: it owns the
        chat's reading state now)."""
        if self._reading is not newest:
            return
        self._reading = None
        self.chat.reading = None
        warming.release(self)
        self._said()
