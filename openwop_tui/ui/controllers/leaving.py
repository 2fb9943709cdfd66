"""Leaving the app without losing what the store has not taken yet (a full disk).

While the disk under the store is full, the sessions' entries wait in memory
(`openwop_tui.store.batch`), those of every open tab; quitting would lose them. `Leaving` is
every exit's last step:

* asked (Ctrl+Q, the palette's Quit): when entries still wait after one more try, the
  `UnsavedScreen` asks whether to wait and retry (once a second, saying how it goes, quitting
  once everything is stored), to write them to a journal file whose path it shows (the next
  start writes it into the store, `openwop_tui.store.journal`), or to quit and lose them;
* unasked (SIGTERM, SIGHUP, SIGINT: nobody may be there to answer): they go to a journal at
  once (`keep_unasked`), and the exit line says where, or how many were lost when no journal
  could be written either;
* as the app unmounts, whatever still waits goes to a journal too (`keep_unasked` again): an
  exit path that asked nobody loses nothing.
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path

from textual.timer import Timer
from textual.worker import WorkerCancelled, WorkerFailed

from openwop_tui.core.conversation import Conversation
from openwop_tui.store.sessions import Store
from openwop_tui.ui.controllers.chat import Common, OpenChats
from openwop_tui.ui.screens.unsaved import UnsavedChoice, UnsavedScreen

log = logging.getLogger(__name__)

#: How often "wait and retry" tries the store again.
RETRY_SECONDS = 1.0


class Leaving:
    """Quits the app once the session's entries are stored, kept in a journal, or given up."""

    def __init__(self, common: Common, tabs: OpenChats) -> None:
        self.common = common
        """What every tab shares (the app, the store)."""
        self.tabs = tabs
        """The open chats, whose entries wait."""
        self._message: str | None = None
        """What the app says as it exits (the run's fate), once it does."""
        self._screen: UnsavedScreen | None = None
        self._journals: list[Path] = []
        """The journal files still to try, the one the dialog names first."""
        self._retry: Timer | None = None
        self._tries = 0

    # ------------------------------------------------------------------ counting

    def _store(self) -> Store | None:
        return self.common.store

    def _conversations(self) -> list[Conversation]:
        return [chat.conversation for chat in self.tabs.chats()]

    def _unkept(self) -> int:
        """Entries the store refused outright, across the open chats."""
        return sum(each.logbook.unkept_store_entries() for each in self._conversations())

    def waiting(self) -> int:
        """Entries for the store that it has not written (after one more try)."""
        for conversation in self._conversations():
            conversation.logbook.flush()
        store = self._store()
        held = store.pending if store is not None and store.failing else 0
        return held + self._unkept()

    def _why(self) -> str:
        store = self._store()
        why = store.failing if store is not None else None
        errors = (each.log_error for each in self._conversations() if each.log_error)
        return why or next(errors, None) or "the session store cannot be written"

    async def _runs_logged(self) -> None:
        """Let the run's worker end (it logs the run's end as it goes), so what waits is
        everything the session will ever have."""
        app = self.common.app
        running = [worker for worker in app.workers if worker.group == "run"]
        for worker in running:
            worker.cancel()
        for worker in running:
            with contextlib.suppress(WorkerCancelled, WorkerFailed):
                await worker.wait()

    # ------------------------------------------------------------------ asked

    async def quit(self, message: str | None = None) -> None:
        """Quit, saying ``message``; first asking, when the store has not taken everything."""
        await self._runs_logged()
        count = self.waiting()
        if not count:
            self.common.app.exit(message=message)
            return
        if self._screen is not None:
            return  # already asking
        self._message = message
        store = self._store()
        self._journals = store.new_journal() if store is not None else []
        first = self._journals[0] if self._journals else None
        self._screen = UnsavedScreen(count, self._why(), first)
        self.common.app.push_screen(self._screen)

    async def chosen(self, choice: UnsavedChoice) -> None:
        """The user's answer in the `UnsavedScreen`."""
        if self._screen is None:
            return
        if choice == "back":
            self._stop_retrying()
            self._screen.dismiss()
            self._screen = None
        elif choice == "wait":
            self._start_retrying()
        elif choice == "file":
            self._to_journal()
        elif choice == "lose":
            self._lose()

    def _exit(self, line: str) -> None:
        self._stop_retrying()
        message = "\n".join(part for part in (self._message, line) if part)
        self.common.app.exit(message=message)

    def _start_retrying(self) -> None:
        if self._retry is None:
            self._retry = self.common.app.set_interval(RETRY_SECONDS, self._try_again)
        self._try_again()

    def _stop_retrying(self) -> None:
        if self._retry is not None:
            self._retry.stop()
            self._retry = None

    def _try_again(self) -> None:
        screen = self._screen
        if screen is None:
            return
        self._tries += 1
        count = self.waiting()
        if not count:
            self._exit(f"openwop-tui: every session entry is stored (after {self._tries} tries)")
            return
        screen.show_progress(
            f"Try {self._tries}: {count:,} entries still wait ({self._why()}); trying again "
            f"every {RETRY_SECONDS:g} s: the app quits once they are stored.",
            count,
        )

    def _to_journal(self) -> None:
        screen, store = self._screen, self._store()
        if screen is None or store is None or not self._journals:
            return
        lost = self._unkept()
        target = self._journals[0]
        try:
            kept = store.keep_in_journal(target)
        except OSError as error:
            self._journals.pop(0)
            following = self._journals[0] if self._journals else None
            then = " f writes the file above instead." if following else ""
            screen.journal_failed(
                f"Could not write {target}: {error.strerror or error}.{then}", following
            )
            return
        self._exit(_kept_line(kept, target, lost))

    def _lose(self) -> None:
        store = self._store()
        given_up = store.discard_pending() if store is not None else 0
        given_up += sum(each.logbook.forget_unkept() for each in self._conversations())
        self._exit(f"openwop-tui: {given_up:,} session entries were not stored (lost, as chosen)")

    # ------------------------------------------------------------------ unasked

    def keep_unasked(self) -> str | None:
        """What waits goes to a journal, nobody asked (a signal, the app's unmount); the line
        saying where, or what was lost; ``None`` when nothing waited."""
        store = self._store()
        count = self.waiting()
        if not count or store is None:
            return None
        lost = self._unkept()
        if lost == count:  # nothing for a journal: the store refused them all
            line = (
                f"openwop-tui: {lost:,} session entries were lost: the store refused them "
                f"({self._why()})"
            )
            log.warning("%s", line)
            return line
        failures: list[str] = []
        for target in store.new_journal():
            try:
                kept = store.keep_in_journal(target)
            except OSError as error:
                failures.append(f"{target}: {error.strerror or error}")
                continue
            line = _kept_line(kept, target, lost)
            log.warning("%s", line)
            return line
        line = (
            f"openwop-tui: {count:,} session entries were lost: the store could not take them "
            f"({self._why()}) and no journal could be written ({'; '.join(failures)})"
        )
        log.warning("%s", line)
        return line


def _kept_line(kept: int, target: Path, lost: int) -> str:
    line = (
        f"openwop-tui: {kept:,} session entries the store could not take are in {target}; "
        "the next start writes them into the store"
    )
    if lost:
        line += f" ({lost:,} more were lost: the store refused them)"
    return line
