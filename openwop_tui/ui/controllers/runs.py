"""The app's runs: a chat turn, a run someone else started, a recording played back, the
workflow each message runs, the queue of messages typed while a run is going, and cancelling.

`RunsController` owns whether a turn is going (``busy``, set before any await so a second Enter
cannot start a second run while the first is still being created) and whether the workflow
picker is open (``picking``); messages typed meanwhile wait in the queue above the prompt and go
when the run ends. Each run streams in a worker of its tab's ``run`` group (exclusive: one run
at a time in a tab, a run in each tab at once; cancelling the worker stops listening, nothing
more). What a run changes is shown by
the `Feed`; what the status line shows is told to it by `RunChanged`/`ConnectionChanged`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from openwop_tui.core.attachments import Attachment, AttachmentError
from openwop_tui.core.updates import RunStarted, Update
from openwop_tui.protocol.catalog import load_catalog, obvious_choice
from openwop_tui.protocol.errors import HostError
from openwop_tui.store import state
from openwop_tui.store.record import replay_frames
from openwop_tui.text.sanitize import HostText, clean_own
from openwop_tui.ui import heap, warming
from openwop_tui.ui.controllers.catch_up import CatchUp
from openwop_tui.ui.controllers.chat import Chat
from openwop_tui.ui.controllers.feed import Feed
from openwop_tui.ui.controllers.interrupts import InterruptsController
from openwop_tui.ui.host_advice import said
from openwop_tui.ui.messages import (
    Connection,
    ConnectionChanged,
    DraftReturned,
    HostShown,
    RunChanged,
    RunPhase,
    WorkflowChosen,
)
from openwop_tui.ui.quiet_walk import QuietWalks
from openwop_tui.ui.workers import Deferred

log = logging.getLogger(__name__)

#: How long after an accepted cancel the app waits for the stream's run.cancelled.
CANCEL_GRACE_SECONDS = 5.0


class RunsController:
    """Starts, follows and ends the chat's runs."""

    def __init__(
        self,
        chat: Chat,
        feed: Feed,
        interrupts: InterruptsController,
        *,
        attach_to: str | None = None,
        workflow_settled: bool = False,
    ) -> None:
        """No run going yet.

        Args:
            chat: The chat its runs are of.
            feed: Shows what each run changes.
            interrupts: The forms of the questions a run asks.
            attach_to: A run to follow once connected (``--attach``), if any.
            workflow_settled: The workflow is decided already (a tab opened from another
                takes its workflow, and does not ask the host again).
        """
        self.chat = chat
        self.feed = feed
        self.interrupts = interrupts
        self._idle = asyncio.Event()
        self.busy_changed: Callable[[], None] = lambda: None
        """Told each time `busy` changes (the tab bar's mark depends on it, and on the status
        line, which is told of the run's end by a message that may come before or after)."""
        self._idle.set()
        self.picking = False
        """The workflow picker is open: messages wait until a workflow is chosen."""
        self.following = False
        """The run in flight is one this client follows (attached), not one it started."""
        self.attach_to = attach_to
        """A run to follow once connected (``--attach``), until it is followed."""
        self.workflow_settled = workflow_settled
        """The workflow to chat with is decided (said by the user, or picked from the host)."""
        self.missing_workflow: str | None = None
        """The workflow messages would run, which the host said it does not have, left so by
        Esc on the picker: messages wait in the queue instead of going to a certain 404."""
        self.catch_up = CatchUp(chat, self, feed)
        """Catches a reopened session's cut run up once the host answers."""
        self.key_refused = False
        """The host refused the API key (or wanted one) the last time it was asked: the
        settings screen opens at its key field."""
        self._unreachable: HostError | None = None
        """Why the host could not be reached while a session was read (said after it)."""

    @property
    def busy(self) -> bool:
        """A turn is between Enter and the end of its run (or a run is followed, caught up)."""
        return not self._idle.is_set()

    def _set_busy(self, value: bool, *, following: bool | None = None) -> None:
        """A turn begins (or is over); ``following``: whether it is a run this client
        follows rather than one it started (left as it was when ``None``)."""
        if value:
            self._idle.clear()
        else:
            self._idle.set()
        if following is not None:
            self.following = following
        self.chat.app.refresh_bindings()  # Esc cancels the run (the footer says so) or not
        self.busy_changed()

    async def until_idle(self) -> None:
        """Return once no run is going (at once when none is)."""
        while self.busy:
            await self._idle.wait()

    # ------------------------------------------------------------------ helpers

    def _status(self, message: RunChanged | ConnectionChanged | HostShown | WorkflowChosen) -> None:
        self.chat.parts.status.post_message(message)

    async def _show(self, update: Update) -> None:
        await self.feed.push(update)

    def _worker(self, work: Coroutine[Any, Any, None], name: str) -> None:
        # One run at a time in a tab: a new one replaces (cancels) the worker of the last.
        self.chat.work(work, name=name, group="run", exclusive=True)

    def follow_work(self, work: Coroutine[Any, Any, None], name: str) -> None:
        """Run ``work`` as a run this client follows (a catch-up), busy until it calls
        `finished`: the prompt's next run waits for it."""
        self._set_busy(True, following=True)
        self._worker(work, name)

    async def finished(self) -> None:
        """What `work` ends with: the run's end shown, then the next queued message goes."""
        await self._ended_quietly()

    # --------------------------------------------------------------- messages

    async def submitted(self, text: str, attachments: tuple[Attachment, ...] = ()) -> None:
        """The user sent ``text`` (with ``attachments``): the open conversation's next turn,
        now, or queued (shown above the input) while a run is going or the host is not reached
        yet."""
        chat = self.chat
        if chat.reading is not None and not chat.reading.sends:
            # The session is still being read: sent once it is in.
            chat.parts.queued.add(text, attachments)
            return
        talking = chat.conversation.open_conversation()
        if talking is not None and not self.picking:
            if attachments:
                # A conversation's turn is an answer its schema shapes: no parts go with it.
                await chat.notice(
                    "warning",
                    "a turn of the run's conversation carries words only: the attachments "
                    "wait for the next message",
                )
                chat.parts.input_area.post_message(DraftReturned("", attachments))
            # The run holds a conversation open: the message is its next turn (RFC 0005).
            chat.work(self.interrupts.say(talking.id, text), group="turns")
            return
        if chat.session is None or self.busy or self.picking:
            chat.parts.queued.add(text, attachments)
            return
        if self.missing_workflow is not None:
            chat.parts.queued.add(text, attachments)
            chat.app.notify(
                f"Not sent: this host has no workflow {self.missing_workflow!r}. Pick one with "
                "Ctrl+P → Pick a workflow; the message waits until then.",
                severity="warning",
                markup=False,
            )
            return
        self.start_turn(text, attachments)

    def start_turn(self, text: str, attachments: tuple[Attachment, ...] = ()) -> None:
        """Run ``text`` (with ``attachments``) as the next turn now (the caller checked nothing
        else is going)."""
        self._set_busy(True)
        self.chat.parts.view.scroll_end(animate=False)
        self._worker(self._run_turn(text, attachments), "turn")

    async def send_queued(self) -> None:
        """The run ended or the host answered: send the next queued message, if any (not
        while a session whose history is not known yet is read: `after_reading` sends it)."""
        reading = self.chat.reading
        if self.busy or self.chat.session is None or (reading is not None and not reading.sends):
            return
        draft = self.chat.parts.queued.take_draft()
        if draft is not None:
            self.start_turn(draft.text, draft.attachments)

    def discard_queued(self) -> None:
        count = self.chat.parts.queued.clear()
        self.chat.app.notify(f"discarded {count} queued message{'s' if count != 1 else ''}")

    # ------------------------------------------------------------------- runs

    async def _run_turn(self, text: str, attachments: tuple[Attachment, ...]) -> None:
        """One user turn: create the run, stream it, fold and draw every event."""
        chat = self.chat
        session = chat.session
        assert session is not None
        chat.parts.prompt.set_busy(True)
        try:
            if session.discovery is None and not await self.discover(unsent=text):
                return
            async for update in chat.conversation.send(text, attachments):
                await self._show(update)
        except AttachmentError as error:
            # Refused before anything was logged or sent: the message comes back whole.
            await chat.notice("error", f"not sent: {error}")
            chat.parts.input_area.post_message(DraftReturned(text, attachments))
        except HostError as error:
            self.key_refused = error.key_trouble is not None or self.key_refused
            self._status(RunChanged(RunPhase.STATUS, status=clean_own("error")))
            await chat.notice("error", said(error, chat.app))
        except Exception as error:  # the user sees a sentence, the log keeps the traceback
            if not chat.app.is_running:
                # The app is closing (its widgets are going away under the stream): not an error.
                return
            log.exception("run failed unexpectedly")
            self._status(RunChanged(RunPhase.STATUS, status=clean_own("error")))
            await chat.notice("error", f"unexpected error: {type(error).__name__}: {error}")
        finally:
            await self._ended_quietly()

    def follow(self, run_id: str) -> None:
        """``--attach RUN_ID`` and the palette's Attach: a run this client did not start, from
        its first event to its end. Stopping only stops following: nothing is cancelled."""
        self._worker(self._follow(run_id), "attach")

    async def _follow(self, run_id: str) -> None:
        chat = self.chat
        self._set_busy(True, following=True)
        chat.parts.prompt.set_busy(True)
        try:
            await chat.notice("info", f"attaching to run {run_id}")
            async for update in chat.conversation.attach(run_id):
                # The next message continues with the attached run's workflow, not the
                # configured one (which may not be on this host: a 404).
                if (
                    isinstance(update, RunStarted)
                    and update.workflow
                    and chat.session is not None
                    and update.workflow != chat.session.workflow_id
                ):
                    self.use_workflow(update.workflow, "the attached run's workflow")
                await self._show(update)
        except HostError as error:
            await chat.notice("error", said(error, chat.app))
        finally:
            await self._ended_quietly()

    def ask_for_run(self) -> None:
        """The palette's Attach: ask for a run id, then follow that run."""
        chat = self.chat
        if chat.session is None or chat.session.discovery is None:
            chat.app.notify("Not connected to a host yet.", severity="warning")
            return
        if self.busy:
            chat.app.notify("A run is in progress: attach when it has ended.")
            return
        if chat.reading is not None:
            chat.app.notify(
                "This session's older turns are still being read: attach once they are in."
            )
            return
        from openwop_tui.ui.screens.ask import AskScreen

        def chosen(run_id: str | None) -> None:
            if run_id:
                self.follow(run_id)

        chat.app.push_screen(AskScreen("Attach to run", "the run id, as the host gave it"), chosen)

    def play_recording(self, path: Path, speed: float) -> None:
        """``replay FILE``: the recording's events through the same fold and view, paced."""
        self._worker(self._play(path, speed), "replay")

    async def _play(self, path: Path, speed: float) -> None:
        chat = self.chat
        self._status(HostShown(clean_own(f"replay of {path.name}")))  # the user's file
        self._status(ConnectionChanged(Connection.REPLAYING))
        try:
            async for entry in replay_frames(path, speed):
                for update in chat.conversation.replay(entry):
                    await self.feed.push(update)
            await self.feed.drain()
            await self.feed.show(chat.conversation.finish_replay())
            chat.parts.view.flush_streamed()
        except OSError as error:
            await chat.notice("error", f"cannot read {path}: {error.strerror or error}")
        self._status(ConnectionChanged(Connection.REPLAYED))
        await chat.notice("info", "End of the recording. Nothing here talks to a host.")

    async def _ended_quietly(self) -> None:
        """`_ended`, even while the app closes: Textual removes the widgets before it cancels
        the workers, so a run that ends then finds nothing to draw into, which is not an error."""
        try:
            await self._ended()
        except Exception:
            if self.chat.app.is_running:
                raise

    def _settle(self) -> None:
        """What the run left lives as long as the chat (`openwop_tui.ui.heap`); a full pass of
        the collector, if one is due, is taken once nobody types (`QuietWalks`)."""
        heap.settle()
        app = self.chat.app
        if isinstance(app, QuietWalks) and app.is_running:
            app.walk_when_quiet()

    async def _ended(self) -> None:
        """Whatever ended the stream, nothing still open will change any more; then the next
        queued message goes."""
        chat = self.chat
        await self.feed.drain()
        await self.feed.show(chat.conversation.settle())
        await self.feed.show(chat.transcript.close_open())
        chat.parts.view.flush_streamed()  # the screen whole before the status says "ended"
        self.interrupts.close_all()
        # Once the frame that shows the run's end is out: a settle that finds the heap doubled
        # walks all of it (121 ms after a 600-line code answer in a fresh app, issue 26), and
        # the reply's last lines and the status waited behind it.
        chat.app.call_after_refresh(self._settle)
        self._set_busy(False, following=False)
        chat.parts.prompt.set_busy(False)
        status = chat.transcript.status  # the fold's, from cleaned events
        self._status(
            RunChanged(RunPhase.ENDED, status=None if status is None else HostText(status))
        )
        chat.app.call_later(self.send_queued)

    # -------------------------------------------------------------- discovery

    async def discover(self, *, unsent: str | None = None) -> bool:
        """Read the discovery document; say why when the host cannot be reached. ``unsent``: a
        message that was waiting for it, kept on screen (and in the log) above the reason."""
        chat = self.chat
        assert chat.session is not None
        try:
            discovery = await chat.session.connect()
        except HostError as error:
            self.key_refused = error.key_trouble is not None
            self._status(ConnectionChanged(Connection.DISCONNECTED))
            if unsent is not None:
                await self.feed.show(chat.conversation.add_user(unsent))
            await chat.notice("error", said(error, chat.app))
            if chat.reading is not None:
                self._unreachable = error  # (a run cut off in it is known once it is read)
            else:
                await self.catch_up.unreachable(error)
            return False
        self._unreachable = None
        self.key_refused = False
        self._status(ConnectionChanged(Connection.CONNECTED))
        # Answers can come now: the lint (before the first run's events need it) and what
        # draws a reply, each loaded once in a thread. Not before: a host that cannot be
        # reached sends nothing to draw (0.45 s of CPU spent for it at every such start).
        warming.warm_lint()
        warming.warm()
        if chat.config.host is not None:
            # The host answered: `runs` and `attach` without --host look there next
            # (`openwop_tui.cli.host.last_used`). Its URL only, never its key.
            await asyncio.to_thread(state.remember_host, chat.config.host)
        self._status(
            HostShown(
                clean_own(chat.host_label),  # the user's host
                # The discovery document's, through `host_value` (and the header, `host_text`).
                HostText(discovery.protocol_version or "?"),
                HostText(discovery.implementation_name or ""),
            )
        )
        # A cut run first (unless a message is on its way: it continues the chat instead):
        # messages typed meanwhile wait until it has caught up. While a session is read, the
        # run to catch up or follow waits for it (`after_reading`).
        reading = chat.reading is not None
        caught = unsent is None and self.attach_to is None and not reading and self.catch_up.start()
        if self.attach_to is not None:
            if not reading:
                run_id, self.attach_to = self.attach_to, None
                self.follow(run_id)
        elif chat.config.host is not None and not self.workflow_settled:
            self.workflow_settled = True
            chat.work(Deferred(self.choose_workflow), group="workflows", exclusive=True)
        elif not caught:
            chat.app.call_later(self.send_queued)
        if chat.demo and not reading and not chat.transcript.items:
            await chat.notice(
                "info",
                "Connected to the embedded demo host. Try “show me everything”, or ask for an "
                "image, audio, code, a card, a file or json. F1 lists the keys.",
            )
        return True

    def after_reading(self) -> None:
        """A session opened newest first is all in (`openwop_tui.ui.controllers.reopening`):
        what the host's answer left for then. Connected: follow the run asked for, or catch
        up a run cut off in the session, or send what was queued meanwhile; the host refused:
        say that a cut run cannot be caught up now; still connecting: discovery does it."""
        chat = self.chat
        refused, self._unreachable = self._unreachable, None
        if chat.session is None or chat.session.discovery is None:
            if refused is not None:
                chat.work(self.catch_up.unreachable(refused), group="catch-up")
            return
        if self.attach_to is not None and not self.busy:
            run_id, self.attach_to = self.attach_to, None
            self.follow(run_id)
        elif not self.catch_up.start():
            chat.app.call_later(self.send_queued)

    # --------------------------------------------------------------- workflow

    def pick_workflow(self) -> None:
        """The palette's Pick a workflow: always the picker."""
        chat = self.chat
        if chat.session is None or chat.session.discovery is None or self.busy:
            chat.app.notify("Connect first, and wait for the run to end.", severity="warning")
            return
        chat.work(
            Deferred(lambda: self.choose_workflow(ask=True)), group="workflows", exclusive=True
        )

    async def choose_workflow(self, *, ask: bool = False) -> None:
        """Decide what each message runs, from what the host offers (discovery ``fixtures``,
        ``/workflows``, ``/agents``): the configured workflow when the host has it, else the one
        obvious choice, else the picker (messages typed meanwhile wait in the queue). ``ask``:
        always show the picker."""
        chat = self.chat
        assert chat.session is not None and chat.client is not None
        try:
            choices = await load_catalog(chat.client)
        except HostError as error:
            await chat.notice(
                "warning", f"could not list the host's workflows: {said(error, chat.app)}"
            )
            choices = []
        current = chat.session.workflow_id
        ids = [choice.id for choice in choices]
        chosen = None if ask else obvious_choice(choices, preferred=current)
        if not choices or (chosen is not None and chosen.id == current):
            chat.app.call_later(self.send_queued)
            return
        if chosen is not None:
            self.use_workflow(chosen.id, "the host's only or default workflow")
            return
        if not ask and current not in ids:
            await chat.notice(
                "info",
                f"this host has no workflow {current!r}: pick one of its {len(ids)} (Enter takes "
                "the highlighted one)",
            )
        self.picking = True
        from openwop_tui.ui.screens.workflows import WorkflowPicker

        def closed(workflow_id: str | None) -> None:
            # A workflow chosen arrives as `WorkflowChosen` (the app routes it to
            # `use_workflow`); here only Esc is left to handle.
            self.picking = False
            if workflow_id is None:
                if current not in ids:
                    self.missing_workflow = current
                    chat.app.call_later(
                        chat.notice,
                        "warning",
                        f"no workflow picked, and this host has no {current!r}: messages wait "
                        "until you pick one (Ctrl+P → Pick a workflow)",
                    )
                    return
                chat.app.call_later(self.send_queued)

        chat.app.push_screen(WorkflowPicker(choices, current=current), closed)

    def host_changed(self) -> None:
        """The chat talks to another host now (the settings screen): its workflow is decided
        again once the host answers (kept when the host has it, else picked)."""
        self.workflow_settled = False
        self.missing_workflow = None

    def use_workflow(self, workflow_id: str, why: str) -> None:
        """Run ``workflow_id`` for every message from now on, and say so."""
        chat = self.chat
        assert chat.session is not None
        self.picking = False
        self.missing_workflow = None
        chat.session.workflow_id = workflow_id
        self._status(WorkflowChosen(clean_own(workflow_id)))  # picked or typed by the user
        chat.app.notify(f"chatting with workflow {workflow_id} ({why})", markup=False)
        chat.app.call_later(self.send_queued)

    # ----------------------------------------------------------------- cancel

    async def cancel(self) -> None:
        """Ask the host to cancel the running run; drop the stream if the host won't answer."""
        chat = self.chat
        session = chat.session
        if session is None or session.current_run is None:
            chat.app.notify("No run to cancel.")
            return
        self._status(RunChanged(RunPhase.STATUS, status=clean_own("cancelling")))
        run = session.current_run
        try:
            await session.cancel()
        except HostError as error:
            await chat.notice(
                "warning", f"the host did not accept the cancel: {said(error, chat.app)}"
            )
            self.stop_listening()
            return

        async def give_up() -> None:
            # The host said yes but its stream never said run.cancelled (a dead connection
            # would otherwise keep the prompt busy for ever).
            if chat.session is not None and chat.session.current_run is run:
                await chat.notice(
                    "warning",
                    f"the host accepted the cancel, but the run's stream did not end within "
                    f"{CANCEL_GRACE_SECONDS:g} s: stopped listening",
                )
                self.stop_listening()

        chat.app.set_timer(CANCEL_GRACE_SECONDS, give_up)

    def stop_listening(self) -> None:
        self.chat.stop_work("run")
        self._status(RunChanged(RunPhase.STATUS, status=clean_own("cancelled (locally)")))

    def live_run(self) -> HostText | None:
        """The id of the run in flight in this chat (``None``: none), as the user may see it:
        the user's (attach RUN) or the host's (cleaned)."""
        session = self.chat.session
        run = session.current_run if session is not None else None
        return clean_own(run.run_id) if run is not None else None

    async def end_for_signal(self, name: str) -> str:
        """The app is told to stop (``SIGTERM``, ``SIGHUP``): cancel the run it started, leave
        one it follows running; the sentence to exit with."""
        session = self.chat.session
        run = session.current_run if session is not None else None
        if run is None:
            return f"openwop-tui: stopped by {name}"
        shown = clean_own(run.run_id)  # the user's (attach RUN) or the host's (cleaned)
        if self.following:
            return (
                f"openwop-tui: stopped by {name}; run {shown} is still running on the host "
                f"(openwop-tui attach {shown} follows it)"
            )
        return f"{await self.cancel_for_quit()} (stopped by {name})"

    async def cancel_for_quit(self) -> str:
        """Cancel the run in flight because the user quits: the sentence to exit with."""
        session = self.chat.session
        run = session.current_run if session is not None else None
        if run is None or session is None:
            return ""
        shown = clean_own(run.run_id)  # the user's (attach RUN) or the host's (cleaned)
        self._status(RunChanged(RunPhase.STATUS, status=clean_own("cancelling")))
        try:
            await asyncio.wait_for(session.cancel(), CANCEL_GRACE_SECONDS)
        except HostError as error:
            return f"openwop-tui: could not cancel run {shown}: {error.message}"
        except TimeoutError:
            return (
                f"openwop-tui: the host did not answer the cancel of run {shown} within "
                f"{CANCEL_GRACE_SECONDS:g} s: it may still be running"
            )
        return f"openwop-tui: cancelled run {shown} on the host"
