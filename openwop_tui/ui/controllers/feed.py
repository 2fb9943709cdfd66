"""What the conversation says changed, shown: items in the transcript view, events in the
timeline (`openwop_tui.ui.controllers.timeline`), the run's state in the status line, questions
as forms.

`Feed.show` is the one way a run's updates reach the screen, for a chat turn, an attached run, a
replay and a reopened session alike. The status line learns the run's state from `RunChanged` and
`ConnectionChanged` messages (typed, never read back from a sentence); items that were cut and
just became final have their full text written first, so their marker can say where it went.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from openwop_tui.core.conversation import (
    EventArrived,
    RunStarted,
    StreamNoticed,
    Update,
)
from openwop_tui.core.fold import Added, Change, Updated
from openwop_tui.devices.desktop import ActionError
from openwop_tui.store import overflow
from openwop_tui.ui.controllers.chat import Chat
from openwop_tui.ui.controllers.interrupts import InterruptsController
from openwop_tui.ui.controllers.timeline import TimelineController
from openwop_tui.ui.messages import Connection, ConnectionChanged, RunChanged, RunPhase


class Feed:
    """Draws a conversation's updates."""

    def __init__(
        self, chat: Chat, interrupts: InterruptsController, timeline: TimelineController
    ) -> None:
        self.chat = chat
        self.interrupts = interrupts
        self.timeline = timeline
        """Given every event (lint, its row, statistics) and the changes each one made."""
        self._status_shown: str | None = None
        """The run status the status line was last told."""

    def reset(self) -> None:
        """A new chat is shown: the next run status is news."""
        self._status_shown = None

    def _tell_status(self, message: RunChanged | ConnectionChanged) -> None:
        self.chat.parts.status.post_message(message)

    async def show(self, updates: Iterable[Update]) -> None:
        """Show ``updates`` in order; consecutive item changes go to the view together."""
        changes: list[Change] = []
        for update in updates:
            if isinstance(update, Added | Updated):
                changes.append(update)
                continue
            if changes:
                await self.show_changes(changes)
                changes = []
            if isinstance(update, RunStarted):
                self._status_shown = update.status or "running"
                self._tell_status(
                    RunChanged(RunPhase.STARTED, update.run_id, self._status_shown, update.workflow)
                )
            elif isinstance(update, EventArrived):
                self.timeline.arrived(update.event)
            elif isinstance(update, StreamNoticed):
                notice = update.notice
                if notice.kind == "reconnecting":
                    self._tell_status(ConnectionChanged(Connection.RECONNECTING))
                if notice.level == "error":
                    self.chat.app.notify(notice.message, severity="error", timeout=8, markup=False)
        if changes:
            await self.show_changes(changes)
        status = self.chat.transcript.status
        if status and status != self._status_shown:
            self._status_shown = status
            self._tell_status(RunChanged(RunPhase.STATUS, status=status))

    async def show_changes(self, changes: list[Change]) -> None:
        """Item changes to the view (and to the question forms)."""
        await self._keep_overflow(changes)
        await self.chat.parts.view.apply(changes)
        self.timeline.made(changes)
        await self.interrupts.follow_changes(changes)

    async def _keep_overflow(self, changes: list[Change]) -> None:
        """Write the full text of items that were cut and just became final, before they are
        drawn, so their marker shows where it went (`openwop_tui.store.overflow`)."""
        for change in changes:
            item = change.item
            if not overflow.needs_saving(item):
                continue
            try:
                folder = self.chat.download_folder()
                await asyncio.to_thread(overflow.save, item, folder)
            except ActionError as error:
                await self.chat.notice("error", f"the cut part of {item.id} was not saved: {error}")
