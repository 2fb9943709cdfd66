"""Catching a reopened session's cut run up from its host.

A session whose app was killed mid-run reopens settled, its last run cut where the log stops
(`openwop_tui.core.catch_up`). Once the host answers discovery, `CatchUp.start` asks it for
that run: a host that has it gives the events after the last logged sequence (and, while the
run still runs, the rest live); they are folded into the run, now open again, logged after its
frames, and the transcript says how many came. A host that cannot (unreachable, the run gone,
another host than the one that ran it) is named in a notice that says why.

The catch-up is a run of the runs controller's: messages typed meanwhile wait in the queue,
Esc cancels, quitting leaves the run on the host (it was started by an app that is gone).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from openwop_tui.core.catch_up import CutRun, why_not
from openwop_tui.core.conversation import Conversation
from openwop_tui.core.opening import stored
from openwop_tui.core.updates import EventArrived
from openwop_tui.protocol.errors import HostError
from openwop_tui.store.database import StoreError
from openwop_tui.store.sessions import SessionLog
from openwop_tui.text.redact import display_url
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
        (and is kept, and nothing else runs). ``True`` when it started (it ends like a run)."""
        chat = self.chat
        cut = chat.conversation.cut
        if cut is None or chat.store is None or chat.session is None or self.runs.busy:
            return False
        chat.conversation.cut = None  # once per open: a failure is said, not retried in a loop
        self.runs.follow_work(self._catch_up(cut), "catch-up")
        return True

    async def unreachable(self, error: HostError) -> None:
        """Discovery failed: a cut run cannot be caught up now; say so beside the reason."""
        cut = self.chat.conversation.cut
        if cut is not None:
            self.chat.conversation.cut = None
            await self.chat.notice("warning", self._later(cut, error))

    @staticmethod
    def _later(cut: CutRun, error: HostError) -> str:
        return (
            f"{_cut_off(cut)} and cannot be caught up now: {error.message.rstrip('.')}. Reopen "
            "this session when the host answers to fetch the rest."
        )

    async def _catch_up(self, cut: CutRun) -> None:
        chat = self.chat
        try:
            found = await self._resumed(cut)
            if found is None:
                return
            resumed, snapshot = found
            chat.parts.prompt.set_busy(True)
            count = 0
            async for update in resumed.catch_up(snapshot):
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

    async def _resumed(self, cut: CutRun) -> tuple[Conversation, Mapping[str, Any]] | None:
        """Ask the host for the run; when it has it, put the session on screen again with the
        run open (the conversation the events are folded into). ``None``: said why not."""
        chat = self.chat
        session = chat.session
        store = chat.store
        session_id = chat.kept_session_id()
        assert session is not None and store is not None
        why = why_not(cut, session.client.base_url, demo=chat.demo)
        if why is None and session_id is None:
            why = f"{_cut_off(cut)} and cannot be caught up: its session is no longer kept"
        if why is not None:
            await chat.notice("warning", why)
            return None
        try:
            snapshot = await session.client.get_run(cut.run_id)
        except HostError as error:
            if error.status in (404, 410):
                await chat.notice(
                    "warning",
                    f"{_cut_off(cut)} and cannot be caught up: the host no longer has it "
                    f"({error.message.rstrip('.')})",
                )
            else:
                await chat.notice("warning", self._later(cut, error))
            return None
        config = chat.config
        assert session_id is not None
        try:
            resumed = stored(
                store,
                session_id,
                session=session,
                host=display_url(config.host) if config.host else "embedded demo host",
                workflow=config.workflow,
                limits=config.limits,
                secrets=chat.conversation.secrets,
                logs=[k for k in chat.conversation.logs if not isinstance(k, SessionLog)],
                resume=True,
            )
        except StoreError as error:
            await chat.notice("error", f"{_cut_off(cut)} and cannot be caught up: {error}")
            return None
        if resumed.open_run is None or resumed.open_run.run_id != cut.run_id:
            return None  # the log changed meanwhile (another app continued it)
        status = snapshot.get("status")
        chat.show_conversation(resumed)
        await self.feed.show_session(resumed)
        if status not in _TERMINAL:
            await chat.notice(
                "info",
                f"run {cut.run_id} is still running on the host: following it from where the "
                "session stopped",
            )
        return resumed, snapshot
