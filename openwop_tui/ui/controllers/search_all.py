"""Search every session: the screen, the index built in the background, and opening a session
at its match.

`SearchAllController` opens `~openwop_tui.ui.screens.search_all.SearchAllScreen` over the
store's index (`openwop_tui.core.searching`, in a thread, through a connection of its own).
A chosen result is opened in two steps: the session, through the one way the app opens a
stored session (`TabsController.open_session`: its tab, or a tab of its own), then the word
found there (`find_in_chat`): the
transcript's find searches it, the match the result stands for is made current (marked as a
word, scrolled to) and the find bar shows "3 of 17".

Sessions stored before the index existed (or whose log grew past it) are indexed a session at
a time in a thread, once the first screen is drawn (`index_in_background`), through a store
connection of the thread's own: the app's is never shared between threads.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from openwop_tui.core import indexing
from openwop_tui.core.items import AssistantTurn, UserTurn
from openwop_tui.store.database import StoreError
from openwop_tui.store.sessions import Store
from openwop_tui.ui import warming
from openwop_tui.ui.controllers.chat import Chat
from openwop_tui.ui.transcript.finder import Finder

if TYPE_CHECKING:
    from openwop_tui.core import searching  # (imported when a search is first made: `show`)
    from openwop_tui.ui.controllers.tabs import TabsController

__all__ = ["SearchAllController"]

log = logging.getLogger(__name__)

#: How often opening at a match looks whether a long session is all read yet.
_READ_CHECK = 0.05


class _Closing(Exception):
    """The app is closing: the index's thread stops where it is (the next start goes on)."""


class SearchAllController:
    """Owns the search everywhere: the screen it opens, how far the index is built."""

    def __init__(self, tabs: TabsController, *, now: Callable[[], float] = time.time) -> None:
        self.tabs = tabs
        """The open chats: a result opens in its tab (`TabsController.open_session`)."""
        self.now = now
        """The clock results' dates are said against (a test gives a fixed one)."""
        self.unindexed = 0
        """Sessions still to index in the background (a note on the screen says so)."""

    @property
    def chat(self) -> Chat:
        """The chat on screen (the current tab's)."""
        return self.tabs.chat

    # ------------------------------------------------------------------ the index

    def index_in_background(self) -> None:
        """Index the sessions whose index is behind their log, in a thread (once the first
        screen is drawn). Nothing to do without a store that can be written."""
        store = self.chat.store
        if store is None or store.read_only is not None:
            return
        self.chat.app.run_worker(
            self._index, thread=True, group="search-index", exclusive=True, exit_on_error=False
        )

    def _index(self) -> None:
        store = self.chat.store
        assert store is not None
        worker = get_current_worker()

        def give_way() -> None:
            # Before each session and between the steps of its build: not while a long
            # session is read onto the screen (a reading holds the warming), nor while keys
            # are typed (a whole session's build in one go held the interpreter: the first
            # keys after opening another session echoed in 33 ms instead of 13, issue 26).
            while not worker.is_cancelled and not warming.quiet_now():
                time.sleep(_READ_CHECK)
            if worker.is_cancelled:
                raise _Closing

        try:
            with Store(store.path, secrets=store.secrets) as own:
                waiting = own.unindexed()
                self.unindexed = len(waiting)
                for session_id in waiting:
                    give_way()
                    if session_id not in self._open_sessions():
                        self._build(own, session_id, give_way)
                    self.unindexed = max(0, self.unindexed - 1)
        except _Closing:
            return  # (the app is closing)
        except StoreError as error:
            log.warning("the search index could not be built: %s", error)
        self.unindexed = 0

    @staticmethod
    def _build(store: Store, session_id: str, between: Callable[[], None]) -> None:
        try:
            indexing.build(store, session_id, between=between)
        except StoreError as error:  # (that one is tried again at the next start)
            log.warning("session %s could not be indexed for search: %s", session_id, error)

    def _open_sessions(self) -> set[str]:
        """The sessions written live now (indexed as they are written, not built)."""
        kept = (chat.kept_session_id() for chat in self.tabs.chats())
        return {session_id for session_id in kept if session_id is not None}

    # ----------------------------------------------------------------- the screen

    def show(self) -> None:
        """Open the search screen; a chosen result is opened at its match."""
        chat = self.chat
        store = chat.store
        if store is None:
            chat.app.notify(
                "Sessions are not kept: the store could not be opened, so there is nothing to "
                "search.",
                severity="error",
            )
            return
        from openwop_tui.core import searching
        from openwop_tui.ui.screens.search_all import SearchAllScreen  # on first use

        path = Path(store.path)
        note = None
        if self.unindexed:
            left = self.unindexed
            note = f"{left:,} older session{'s are' if left != 1 else ' is'} still being indexed"
        screen = SearchAllScreen(
            lambda query: searching.search(path, query),
            match=chat.parts.view.palette.match,  # type: ignore[arg-type]
            now=self.now,
            note=note,
        )

        async def chosen(choice: tuple[searching.Result, str] | None) -> None:
            if choice is not None:
                await self.open_at(*choice)

        chat.app.push_screen(screen, chosen)

    # ----------------------------------------------------------- opening at a match

    async def open_at(self, result: searching.Result, query: str) -> None:
        """Open ``result``'s session and show the match it stands for."""
        if result.session != self.chat.kept_session_id():
            await self.tabs.open_session(result.session)  # (its tab, or a tab of its own)
            if result.session != self.chat.kept_session_id():
                return  # (not opened: a store error; already said)
        await self.find_in_chat(result, query)

    async def find_in_chat(self, result: searching.Result, query: str) -> None:
        """Find ``query`` in the chat on screen and make current the occurrence ``result``
        stands for: the first in the ``result.nth``-th message or reply holding it, or (the
        transcript differs from the index) the ``result.before``-th occurrence."""
        chat = self.chat
        conversation = chat.conversation
        while chat.reading is not None and chat.conversation is conversation:
            # A long session shows its newest runs first: the match may be in the rest.
            await asyncio.sleep(_READ_CHECK)
        if chat.conversation is not conversation:
            return  # (another chat replaced it meanwhile)
        view = chat.parts.view
        total = view.search(query)
        current, total = view.go_to_match(*self._place(result, query))
        if not current and total:
            current, total = view.step_match(1)
        chat.parts.search.show_query(query)
        chat.parts.search.show_count(current, total, query)

    def _place(self, result: searching.Result, query: str) -> tuple[int, int]:
        """The (block, occurrence) of the transcript that ``result`` stands for."""
        finder = Finder(query)
        column = self.chat.parts.view.column
        seen = 0
        for index in range(len(column)):
            block = column[index]
            if not isinstance(block.item, UserTurn | AssistantTurn):
                continue
            if finder.count(block.plain()):
                if seen == result.nth:
                    return index, 0
                seen += 1
        # Not there as indexed: the occurrence by its number over the whole chat.
        counted = 0
        for index in range(len(column)):
            here = finder.count(column[index].plain())
            if counted + here > result.before:
                return index, result.before - counted
            counted += here
        return 0, 0
