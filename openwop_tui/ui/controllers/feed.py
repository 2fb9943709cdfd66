"""What the conversation says changed, shown: items in the transcript view, events in the
timeline (`openwop_tui.ui.controllers.timeline`), the run's state in the status line, questions
as forms.

`Feed.show` is the one way a run's updates reach the screen, for a chat turn, an attached run, a
replay and a reopened session alike; `Feed.show_session` and `Feed.show_older` the one way a
session read from the store does (at start-up, from the sessions screen, a catch-up, the newest
runs of a long session and then the rest). The status line learns the run's state from
`RunChanged` and `ConnectionChanged` messages (typed, never read back from a sentence); items
that were cut and just became final have their full text written first, so their marker can
say where it went.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from openwop_tui.core import overflow
from openwop_tui.core.conversation import Conversation
from openwop_tui.core.fold import Added, Change, Updated, UserTurn
from openwop_tui.core.items import Item
from openwop_tui.core.updates import EventArrived, RunStarted, StreamNoticed, Update
from openwop_tui.devices.desktop import ActionError
from openwop_tui.text.sanitize import HostText, clean_own
from openwop_tui.ui.controllers.chat import Chat
from openwop_tui.ui.controllers.interrupts import InterruptsController
from openwop_tui.ui.controllers.timeline import TimelineController
from openwop_tui.ui.heap import RunSettler, settled_heap
from openwop_tui.ui.key_watch import KeyWatch
from openwop_tui.ui.messages import (
    Connection,
    ConnectionChanged,
    RunChanged,
    RunPhase,
    SessionKept,
)
from openwop_tui.ui.workers import Deferred

if TYPE_CHECKING:
    from textual.timer import Timer


#: How often pushed updates are drawn, at most (a frame at 30 frames a second).
FRAME_SECONDS = 1 / 30
#: The longest a run's ingest, or the drawing of a frame's updates, keeps the event loop before
#: it lets keys and redraws run. A time, not a count of updates: on a machine five times
#: slower, 64 updates took five times as long, and a key waited for all of them. A key on its
#: way ends the slice at once (`openwop_tui.ui.key_watch.KeyWatch`): it needs three turns of
#: the loop to reach the prompt, and waited out a slice at each (the key echo of a 10,000-event
#: flood, median, paired with the code before: 49.4 -> 41.5 ms, 56.0 -> 48.9 ms).
SLICE_SECONDS = 0.003


class Feed:
    """Draws a conversation's updates.

    A run's updates are `push`-ed as they are folded (ingest never waits on drawing) and drawn
    together at most once a frame (`drain`), so a host sending thousands of events a second costs
    one layout per frame, and a key pressed meanwhile is handled within a frame.
    """

    def __init__(
        self, chat: Chat, interrupts: InterruptsController, timeline: TimelineController
    ) -> None:
        self.chat = chat
        self._unsaved_said: set[str] = set()
        """Cut items said not to be saved (a replay without a folder): said once each."""
        self.interrupts = interrupts
        self.timeline = timeline
        """Given every event (lint, its row, statistics) and the changes each one made."""
        self._pending: list[Update] = []
        self._timer: Timer | None = None
        self._slice_began = time.perf_counter()
        self._keys = KeyWatch(chat.app)
        """Ends a slice early when a key is on its way."""
        self._showing = asyncio.Lock()
        """Held while updates are shown: a frame drawn in its own task while the next is due
        (or the run's end drains the rest) shows its updates first, in order."""
        self._status_shown: str | None = None
        """The run status the status line was last told."""
        self._log_error_shown: str | None = None
        """The last reason the session could not be written that the user was told."""
        self._settler = RunSettler()
        """Freezes what a long run makes as it streams (`openwop_tui.ui.heap.RunSettler`)."""

    async def push(self, update: Update) -> None:
        """Take one update of a running stream; it is drawn within a frame. After
        `SLICE_SECONDS` of ingest the event loop gets a turn, so keys and redraws never wait
        behind a fast host."""
        self._pending.append(update)
        if self._timer is None:
            self._timer = self.chat.app.set_timer(FRAME_SECONDS, self._frame)
        await self._turn_if_due()

    async def _turn_if_due(self) -> None:
        """Give the event loop a turn if this task has kept it `SLICE_SECONDS`, or a key is on
        its way (not a wait for anything: keys and redraws run, then this goes on)."""
        if time.perf_counter() - self._slice_began >= SLICE_SECONDS or self._keys.key_coming():
            await asyncio.sleep(0)
            self._slice_began = time.perf_counter()

    def _frame(self) -> None:
        self._timer = None
        # Drawn in a task of its own, not in this timer's callback: the callback runs in the
        # app's message pump, which is also what hands keys to the prompt, so a frame of a
        # fast host's updates (tens of milliseconds) held every key behind it.
        # (The method, not a coroutine made now: a worker never started, as the app closes,
        # leaves no coroutine unawaited.)
        self.chat.work(Deferred(self.drain), group="feed-frame")

    async def drain(self) -> None:
        """Draw every update pushed so far (at the end of a run, before it is settled)."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        async with self._showing:  # (taken and shown in one hold: the order is kept)
            updates, self._pending = self._pending, []
            if updates:
                await self._show(updates)
                self._settler.tick()

    def stop(self) -> None:
        """The tab closes: no frame is drawn any more (what waits for one goes with it)."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._pending = []

    def reset(self) -> None:
        """A new chat is shown: the next run status is news."""
        self._status_shown = None

    async def show_session(self, conversation: Conversation, *, replacing: bool = True) -> None:
        """Put a session read from the store on screen, every item in one batch, the view at
        its end. ``replacing``: another chat was shown, and goes (the next run status is news);
        else what the view shows stays and the items it lacks come after (the first screen's
        notices). What the reading made lives as long as the chat (`openwop_tui.ui.heap`)."""
        view = self.chat.parts.view
        if replacing:
            self.reset()
            await view.clear()
        with settled_heap():
            view.apply_changes([Added(item) for item in conversation.transcript.items])
        view.scroll_end(animate=False)

    def show_older(self, older: Sequence[Item], newest: Sequence[Item]) -> None:
        """The rest of a session opened newest first: ``older`` above what is shown, whose
        blocks are given ``newest`` (the same items as the whole session holds them), where the
        screen was staying."""
        with settled_heap():
            self.chat.parts.view.put_before(older, newest)

    def _tell_status(self, message: RunChanged | ConnectionChanged) -> None:
        self.chat.parts.status.post_message(message)

    async def show(self, updates: Iterable[Update]) -> None:
        """Show ``updates``: every item change of the frame goes to the view in one batch (a
        fast host's frame holds hundreds, one per event), then the events, statuses and
        notices in order, each event's changes linked to it in the timeline. The event loop
        gets a turn every `SLICE_SECONDS` of it (a key typed meanwhile is not kept waiting);
        one show at a time, in the order they were asked for."""
        async with self._showing:
            await self._show(list(updates))

    async def _show(self, updates: list[Update]) -> None:
        changes: list[Change] = [u for u in updates if isinstance(u, Added | Updated)]
        if changes:
            await self.show_changes(changes)
        made: list[Change] = []
        for update in updates:
            if isinstance(update, Added | Updated):
                made.append(update)
                continue
            if made:
                self.timeline.made(made)
                made = []
            if isinstance(update, RunStarted):
                self._status_shown = update.status or "running"
                # The host's answer (cleaned) or, attached, the user's run id and workflow.
                run_id, workflow = clean_own(update.run_id), clean_own(update.workflow)
                shown = clean_own(self._status_shown)
                self._tell_status(RunChanged(RunPhase.STARTED, run_id, shown, workflow))
            elif isinstance(update, EventArrived):
                self.timeline.arrived(update.event, update.logged)
                await self._turn_if_due()
            elif isinstance(update, StreamNoticed):
                notice = update.notice
                if notice.kind == "reconnecting":
                    self._tell_status(ConnectionChanged(Connection.RECONNECTING))
                if notice.level == "error":
                    self.chat.app.notify(notice.message, severity="error", timeout=8, markup=False)
        if made:
            self.timeline.made(made)
        await self._say_log_failure()
        status = self.chat.transcript.status
        if status and status != self._status_shown:
            self._status_shown = status
            # The fold's status, from cleaned events.
            self._tell_status(RunChanged(RunPhase.STATUS, status=HostText(status)))

    async def _say_log_failure(self) -> None:
        """A session that cannot be written says so at once, in the transcript and the status
        line, each time the reason changes (a full disk, a store gone read-only …), and says
        when everything held back was written after all."""
        conversation = self.chat.conversation
        error = conversation.log_error
        if error == self._log_error_shown:
            return
        self._log_error_shown = error
        self.chat.parts.status.post_message(SessionKept(error is None, error))
        if error is None:
            await self.chat.notice("info", "the session is saved again: nothing was lost")
            return
        await self.chat.notice(
            "error",
            f"this session cannot be saved now ({error}): {conversation.logbook.unwritten} "
            "entries are kept in memory and written as soon as the store takes them again; "
            "Ctrl+Q asks what to do with them before quitting",
        )

    async def show_changes(self, changes: list[Change]) -> None:
        """Item changes to the view (and to the question forms); the timeline links them to
        their events (`show`)."""
        await self._keep_overflow(changes)
        await self.chat.parts.view.apply(changes)
        await self.interrupts.follow_changes(changes)
        if any(isinstance(c, Added) and isinstance(c.item, UserTurn) for c in changes):
            # The first message names a new session (the store's title), or it was reopened.
            self.chat.show_title()

    async def _keep_overflow(self, changes: list[Change]) -> None:
        """Write the full text of items that were cut and just became final, before they are
        drawn, so their marker shows where it went (`openwop_tui.core.overflow`), under the
        chat's budget of what is written unasked. Where nothing may be written (a replay without
        ``--save-media``), say once how to save it."""
        for change in changes:
            item = change.item
            if not overflow.needs_saving(item):
                continue
            folder = self.chat.cut_parts_folder()
            if folder is None:
                if item.id not in self._unsaved_said:
                    self._unsaved_said.add(item.id)
                    await self.chat.notice(
                        "info",
                        f"the cut part of {item.id} is not saved (a replay writes nothing "
                        "unasked): replay with --save-media DIR to save it",
                    )
                continue
            try:
                await asyncio.to_thread(
                    overflow.save, item, folder, self.chat.save_budget, self.chat.redact
                )
            except ActionError as error:
                await self.chat.notice("error", f"the cut part of {item.id} was not saved: {error}")
