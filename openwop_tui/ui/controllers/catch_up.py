"""Catching a reopened session's cut run up from its host.

A session whose app was killed mid-run reopens with its last run left open where the log stops
(`openwop_tui.core.catch_up`; the app reads a session with ``resume``). Once the host answers
discovery, `CatchUp.start` asks it for that run: a host that has it gives the events after the
last logged sequence (and, while the run still runs, the rest live); they are folded into the
open run, logged after its frames, and the transcript says how many came. A host that cannot
(unreachable, the run gone, another host than the one that ran it) is named in a notice that
says why, and the run is settled as it was kept (`Conversation.settle_cut`): the session is
read once, whichever way it goes.

The catch-up is a run of the runs controller's: messages typed meanwhile wait in the queue,
Esc cancels, quitting leaves the run on the host (it was started by an app that is gone).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from openwop_tui.core.catch_up import CutRun, why_not
from openwop_tui.core.conversation import Conversation
from openwop_tui.core.updates import EventArrived
from openwop_tui.protocol.errors import HostError
from openwop_tui.ui.controllers.chat import Chat
from openwop_tui.ui.controllers.feed import Feed

if TYPE_CHECKING:
    from openwop_tui.ui.controllers.runs import RunsController

#: Run statuses after which the host sends nothing more.
_TERMINAL = frozenset({"completed", "failed", "cancelled"})


def _cut_off(cut: CutRun) -> str:
    return f"run {cut.run_id} was cut off when the app stopped"


class CatchUp:
    """Catches the chat's cut run up from the host, once per reopened session."""

    def __init__(self, chat: Chat, runs: RunsController, feed: Feed) -> None:
        self.chat = chat
        self.runs = runs
        self.feed = feed

    def start(self) -> bool:
        """The host answered discovery: catch the cut run up, if the chat on screen has one
        and nothing else runs (a catch-up already under way, a message sent meanwhile, which
        settled it). ``True`` when it started (it ends like a run)."""
        chat = self.chat
        cut = chat.conversation.cut
        if cut is None or self.runs.busy:
            return False
        if chat.store is None or chat.session is None:
            chat.work(self._not_caught_up(None), group="catch-up")
            return False
        self.runs.follow_work(self._catch_up(chat.conversation, cut), "catch-up")
        return True

    async def unreachable(self, error: HostError) -> None:
        """Discovery failed: a cut run cannot be caught up now; say so beside the reason."""
        cut = self.chat.conversation.cut
        if cut is not None:
            await self._not_caught_up(self._later(cut, error))

    async def _not_caught_up(self, why: str | None) -> None:
        """The cut run stays as it was kept: settled on screen (not in the log: the next open
        may catch it up), and ``why`` said."""
        await self.feed.show(self.chat.conversation.settle_cut())
        if why is not None:
            await self.chat.notice("warning", why)

    @staticmethod
    def _later(cut: CutRun, error: HostError) -> str:
        return (
            f"{_cut_off(cut)} and cannot be caught up now: {error.message.rstrip('.')}. Reopen "
            "this session when the host answers to fetch the rest."
        )

    async def _catch_up(self, conversation: Conversation, cut: CutRun) -> None:
        chat = self.chat
        try:
            snapshot = await self._snapshot(cut)
            if snapshot is None or chat.conversation is not conversation:
                return  # (said why; or another chat is on screen now)
            if snapshot.get("status") not in _TERMINAL:
                await chat.notice(
                    "info",
                    f"run {cut.run_id} is still running on the host: following it from where "
                    "the session stopped",
                )
            chat.parts.prompt.set_busy(True)
            count = 0
            async for update in conversation.catch_up(snapshot):
                if isinstance(update, EventArrived):
                    count += 1
                await self.feed.push(update)
            await self.feed.drain()
            more = "" if count else ": the host has no more of it than was kept"
            await chat.notice(
                "info",
                f"caught up {count} event{'s' if count != 1 else ''} from the host "
                f"({_cut_off(cut)}){more}",
            )
        except HostError as error:
            await chat.notice("warning", f"catching up run {cut.run_id} stopped: {error.message}")
        finally:
            await self.runs.finished()

    async def _snapshot(self, cut: CutRun) -> Mapping[str, Any] | None:
        """The host's snapshot of the cut run; ``None`` when it cannot give the rest (said
        why, and the run settled as kept)."""
        chat = self.chat
        session = chat.session
        assert session is not None
        why = why_not(cut, session.client.base_url, demo=chat.demo)
        if why is None and chat.kept_session_id() is None:
            why = f"{_cut_off(cut)} and cannot be caught up: its session is no longer kept"
        if why is None:
            try:
                return await session.client.get_run(cut.run_id)
            except HostError as error:
                gone = error.status in (404, 410)
                why = (
                    f"{_cut_off(cut)} and cannot be caught up: the host no longer has it "
                    f"({error.message.rstrip('.')})"
                    if gone
                    else self._later(cut, error)
                )
        await self._not_caught_up(why)
        return None
