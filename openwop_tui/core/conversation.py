"""The conversation pipeline every front end consumes: the app, ``run``, ``render``, ``replay``.

A `Conversation` owns the network `Session` (runs, cancel, assets; ``None`` when offline), the
pure `Transcript` fold, the chat history and the event logs it appends to (a stored session, a
recording). `Conversation.send` and `Conversation.start` yield `Update`\\ s: the fold's `Added` /
`Updated` plus `RunStarted`, `EventArrived`, `StreamNoticed` and `RunEnded`, so a view only draws.

Everything it learns is appended to its logs as it arrives (`openwop_tui.store.records.Entry`): the
user's message, the run's creation, each raw frame, the stream's notices, the run's end. A log
folded back with `Conversation.replay` (or `from_log`) gives the same transcript and history,
without contacting the host, because it goes through the same acceptance rules
(`openwop_tui.protocol.acceptance.Redelivery`) and the same fold. No Textual, no widgets.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from typing import Any, Unpack

from openwop_tui.core import answering, assets, own_media, replaying, sending
from openwop_tui.core.assets import DEFAULT_INLINE_BYTES
from openwop_tui.core.attachments import Attachment
from openwop_tui.core.catch_up import CutRun
from openwop_tui.core.chat_history import ChatHistory
from openwop_tui.core.fold import (
    Added,
    Change,
    Interrupt,
    Level,
    Limits,
    Transcript,
    UserTurn,
)
from openwop_tui.core.hitl import Submitted
from openwop_tui.core.logbook import Logbook
from openwop_tui.core.origins import HOST_KEY, host_url
from openwop_tui.core.reopen import FoldKeeper
from openwop_tui.core.session import RunCreated, Session
from openwop_tui.core.updates import (
    REPLACED_NOTICE,
    Answered,
    EventArrived,
    EventLog,
    NeedsBytes,
    Offline,
    Options,
    Replaced,
    RunEnded,
    RunStarted,
    StreamItem,
    StreamNoticed,
    Update,
)
from openwop_tui.protocol.acceptance import Redelivery
from openwop_tui.protocol.client import Discovery, RunHandle
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.protocol.events import RunEvent
from openwop_tui.protocol.interrupt_answers import AnswerError
from openwop_tui.protocol.media import Asset
from openwop_tui.protocol.stream_items import Arrival, StreamNotice
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import SessionLog, Store
from openwop_tui.text.sanitize import clean_own

log = logging.getLogger(__name__)


class Conversation:
    """One chat: the host (optional), the fold, the history and the logs, kept in step."""

    def __init__(
        self,
        session: Session | None = None,
        *,
        limits: Limits | None = None,
        logs: Sequence[EventLog] = (),
        store: Store | None = None,
        secrets: Iterable[str] = (),
        capture: bool = False,
    ) -> None:
        """A conversation with nothing folded yet, on a host or offline.

        Args:
            session: The host and workflow runs are started on; ``None`` for a conversation
                with no host (a log read offline), on which a send raises `Offline`.
            limits: How much of each item is drawn; ``None`` for the defaults (`Limits()`).
            logs: Where every entry is appended as it is learned (a stored session, a
                recording); nothing is appended while replaying.
            store: Keeps fetched media bytes (and gives them back offline); ``None`` keeps none.
            secrets: Strings masked in decoded host data.
            capture: What is replayed is a bare SSE capture, not a log this program wrote:
                every frame's events are folded as decoded (no de-duplication) and its
                malformed frames give their warnings (a log keeps the live warnings as notices
                of their own).
        """
        self.session = session
        self.transcript = Transcript(limits=limits or Limits())
        self.chat = ChatHistory()
        self.logbook = Logbook(logs)
        """The logs everything is appended to, and what waits for one that failed."""
        self.store = store
        self.secrets = tuple(secrets)
        self.captured = capture
        """Whether this conversation replays a bare SSE capture (``capture=True``)."""
        self.pending_user: str | None = None
        """A user message the next run's creation takes into the history."""
        self.pending_parts: list[dict[str, Any]] = []
        """Its attachments' content parts (`openwop_tui.core.sending`), when it has any."""
        self.resolved: dict[str, str] = {}
        """Each fetched media URL as the envelope gave it → as the fetch resolved it
        (`openwop_tui.core.assets`)."""
        self._carry: str | None = None
        """The message that started this run, until it goes as the first turn of a
        conversation the run opens (or the host shows it already took it)."""
        self._redelivery: Redelivery | None = None
        self._run_id: str | None = None
        self._unshown: list[Update] = []
        self.replaying = False
        """Whether what is folded now comes from a log, not a host."""
        self.keeper: FoldKeeper | None = None
        """Keeps each completed run's fold beside a stored session's log (`stored` sets it)."""
        self.hosts: dict[str, str] = {}
        """Run id → the base URL of the host that ran it (`openwop_tui.core.origins`): what
        its media URLs resolve against, live, offline and on another host alike."""
        self.cut: CutRun | None = None
        """The run the replayed log left open (the app was killed mid-run), which the host
        may still complete (`catch_up`; read with ``resume``, it is still open until then, or
        until `settle_cut`); ``None`` when the log's last run ended."""
        self.old_runs_host: str | None = None
        """The host of replayed runs whose ``run`` entry names none (logs written before
        they did): the stored session's own host, when that is a URL."""
        self._replaced: set[str] = set()
        """Items of exchanges replaced in this sitting: kept in the transcript (export, the
        store) but no longer given to a view."""

    # ------------------------------------------------------------------ state

    def last_user_turn(self) -> UserTurn | None:
        """The newest message the user sent that is still on screen, if any."""
        for item in reversed(self.transcript.items):
            if isinstance(item, UserTurn) and item.id not in self._replaced:
                return item
        return None

    def take_fold(self, whole: Conversation) -> None:
        """``whole`` is this conversation's stored session read from its log (up to its last
        entry): its fold and chat history become this one's, which held the session's newest
        runs only (`newest_runs`), and this one's runs are kept with their folds from now on.
        Only between runs (nothing open here but the run the log left open, `cut`, which is
        ``whole``'s then), and before anything was replaced."""
        assert self.open_run is None or self.cut is not None
        assert not self._replaced
        self.transcript = whole.transcript
        self.chat = whole.chat
        self.hosts = {**whole.hosts, **self.hosts}
        self._run_id, self._redelivery, self.cut = whole._run_id, whole._redelivery, whole.cut
        self._carry = whole._carry
        self.pending_user = None
        keep = self.logbook.session_log
        self.keeper = None
        if keep is not None:
            self.keep_runs(keep)

    def replace_last_exchange(self) -> Replaced | None:
        """The last user turn and everything after it are to be replaced (its message edited
        and sent again, or regenerated): they leave the chat history the host is sent and the
        view, while the transcript and the log keep them; a notice entry records it (with how
        many history messages went, so reading the log back does the same). ``None`` when the
        user has sent nothing yet."""
        turn = self.last_user_turn()
        if turn is None:
            return None
        items = self.transcript.items
        start = next(index for index in range(len(items) - 1, -1, -1) if items[index] is turn)
        taken = tuple(item.id for item in items[start:] if item.id not in self._replaced)
        self._replaced.update(taken)
        dropped = self.chat.retract(turn.text)
        self._log(Entry("notice", REPLACED_NOTICE, label="info", meta={"replaces": dropped}))
        notice = self.transcript.add_notice("info", clean_own(REPLACED_NOTICE))
        return Replaced(taken, turn.text, notice)

    @property
    def replaced(self) -> frozenset[str]:
        """The ids of items replaced in this sitting (not shown)."""
        return frozenset(self._replaced)

    @property
    def secrets(self) -> tuple[str, ...]:
        """What is masked in decoded host data, and across the chunks the fold joins."""
        return self.transcript.secrets

    @secrets.setter
    def secrets(self, value: Iterable[str]) -> None:
        self.transcript.secrets = tuple(value)

    @property
    def history(self) -> list[dict[str, str]]:
        """The messages the next `send` carries in ``inputs.messages``."""
        return self.chat.messages

    @property
    def current_run(self) -> RunHandle | None:
        """The run streaming now, if any."""
        return self.session.current_run if self.session is not None else None

    @property
    def discovery(self) -> Discovery | None:
        """The host's discovery document, once `connect` read it."""
        return self.session.discovery if self.session is not None else None

    async def connect(self) -> Discovery:
        """Read the host's discovery document (raises `HostError`; `Offline` without a host)."""
        return await self._session().connect()

    async def cancel(self) -> bool:
        """Ask the host to cancel the current run; ``False`` when there is none."""
        return await self.session.cancel() if self.session is not None else False

    def _session(self) -> Session:
        if self.session is None:
            raise Offline("this conversation has no host to send to")
        return self.session

    def _log(self, entry: Entry) -> None:
        """Append ``entry`` to every log (`Logbook.append`); nothing while replaying one."""
        if not self.replaying:
            self.logbook.append(entry)

    @property
    def logs(self) -> list[EventLog]:
        """Where everything this conversation learns is appended (a stored session, a
        recording)."""
        return self.logbook.logs

    @logs.setter
    def logs(self, value: Sequence[EventLog]) -> None:
        self.logbook.logs = list(value)

    @property
    def log_error(self) -> str | None:
        """Why a log cannot be written now (`Logbook.error`): the conversation goes on."""
        return self.logbook.error

    @log_error.setter
    def log_error(self, why: str | None) -> None:
        self.logbook.error = why

    def keep_runs(self, keep: SessionLog, *, folds: bool = True) -> FoldKeeper:
        """Keep this conversation's runs beside its stored session ``keep`` as they end: their
        folds (unless not ``folds``) and what they did to the chat history; the `keeper` that
        does (`Logbook.keeper`: a row that cannot be written goes to `log_error`)."""
        self.keeper = self.logbook.keeper(keep, folds=folds)
        return self.keeper

    # ----------------------------------------------------------------- sending

    def add_user(self, text: str, sent: Sequence[sending.Sent] = ()) -> list[Added]:
        """Log a user message (its attachments byte for byte) and fold it (`own_media`)."""
        self.pending_user = text
        self.pending_parts, meta = sending.logged(sent)
        self._log(Entry("user", text, meta=meta))
        return own_media.add_message(self.transcript, clean_own(text), own_media.read_logged(meta))

    def notice(self, level: Level, text: str) -> Added:
        """Record a line of the client's own (an error, a hint): logged and folded."""
        self._log(Entry("notice", text, label=level))
        return self.transcript.add_notice(level, clean_own(text))

    async def send(
        self, text: str, attachments: Sequence[Attachment] = ()
    ) -> AsyncIterator[Update]:
        """Add ``text`` (with ``attachments``: `sending.content_parts`) as a user turn and run
        it with the whole history; yield every update. A run the log left open is settled
        first (`settle_cut`). Raises `AttachmentError` (before anything is logged) when an
        attachment cannot go; `HostError` when the host refuses or cannot be reached (the turn
        stays on screen, not in the history: `settle` gives what the run's end changed)."""
        for update in self.settle_cut():
            yield update
        session = self._session()
        sent = await sending.content_parts(attachments, session.client, session.discovery)
        limits, discovery = self.transcript.limits, session.discovery
        fitted = self.chat.fitted(
            text,
            parts=[each.part for each in sent],
            workflow_id=session.workflow_id,
            max_body_bytes=discovery.max_request_body_bytes if discovery else None,
            max_turns=limits.history_turns,
            max_history_bytes=limits.history_bytes,
        )
        for added in self.add_user(text, sent):
            yield added
        if fitted.note is not None:
            yield self.notice("info", fitted.note)
        self._carry = text
        async for update in self._run(fitted.inputs, user=text):
            yield update

    async def start(self, inputs: Mapping[str, Any]) -> AsyncIterator[Update]:
        """Run the workflow with ``inputs`` as given (no user turn, no history): ``run``."""
        for update in self.settle_cut():
            yield update
        async for update in self._run(dict(inputs), user=None):
            yield update

    async def _run(self, inputs: dict[str, Any], *, user: str | None) -> AsyncIterator[Update]:
        session = self._session()
        self.pending_user = user
        source = session.start(inputs, on_arrival=self._arrived)
        async for update in self._consume(source, session.workflow_id):
            yield update

    async def attach(self, run_id: str, from_seq: int | None = None) -> AsyncIterator[Update]:
        """Follow a run this client did not start (``attach``, the app's ``--attach``): its
        history from sequence ``from_seq`` on (``None``: all of it), then live to its end.

        The run's snapshot is read first, so an unknown run is a `HostError` (404) before
        anything is shown; `RunStarted` then carries the snapshot's workflow and status. A
        finished run yields its whole history and ends. Nothing is ever cancelled here: a
        consumer that stops iterating only stops following. A run the log left open is
        settled first (`settle_cut`).
        """
        session = self._session()
        self.pending_user = None
        snapshot = await session.client.get_run(run_id)
        for update in self.settle_cut():
            yield update
        handle = session.client.handle_of(run_id, snapshot)
        workflow = handle.workflow
        # The stream resumes *after* a sequence: from SEQ means after SEQ - 1.
        after = from_seq - 1 if from_seq is not None and from_seq > 0 else None

        async def source() -> AsyncIterator[StreamItem]:
            yield RunCreated(handle)
            async for item in session.follow(handle, last_event_id=after, on_arrival=self._arrived):
                yield item

        # From a sequence on, the events that asked the run's open question may be skipped:
        # the snapshot's ``interrupt`` asks it (the events, if they come, merge into it).
        opening = snapshot if after is not None else None
        async for update in self._consume(source(), workflow, opening):
            yield update

    def _arrived(self, arrival: Arrival) -> None:
        self._log(Entry.of_arrival(arrival, self._run_id))

    @property
    def open_run(self) -> CutRun | None:
        """The run a replayed log has left open so far (its end not seen), if any."""
        redelivery, run_id = self._redelivery, self._run_id
        if redelivery is None or run_id is None or redelivery.ended or self.replaying:
            return None
        return CutRun(run_id, redelivery.highest, self.hosts.get(run_id))

    async def catch_up(self, snapshot: Mapping[str, Any]) -> AsyncIterator[Update]:
        """Pick up the run a reopened log left open (`stored` with ``resume=True``) from
        after its last logged sequence, to its end: the events the host has and the log lacks
        (then, if it still runs, live), folded into the open run and logged after its frames.
        ``snapshot``: the host's ``GET …/runs/{id}`` answer (read first: a run it no longer
        has is a `HostError` before anything changes). Raises `HostError` as `attach` does."""
        cut = self.open_run
        if cut is None:
            return
        self.cut = None  # followed now: settled by its own end
        session = self._session()
        handle = session.client.handle_of(cut.run_id, snapshot)
        workflow = handle.workflow
        # Not logged: the run's entry is in the log already; this tells the views it goes on.
        yield RunStarted(cut.run_id, workflow, handle.status, handle)
        source = session.follow(handle, last_event_id=cut.after, on_arrival=self._arrived)
        async for update in self._consume(source, workflow, resumed=True):
            yield update

    async def _consume(
        self,
        source: AsyncIterator[StreamItem],
        workflow: str,
        snapshot: Mapping[str, Any] | None = None,
        *,
        resumed: bool = False,
    ) -> AsyncIterator[Update]:
        """Fold what a run's stream brings (its creation, events, notices) into updates.

        Args:
            source: The run's stream: its `RunCreated`, its `RunEvent`s and the stream's
                notices, in order.
            workflow: The id of the workflow the run is of (logged with the run's entry).
            snapshot: The host's ``GET …/runs/{id}`` answer for a run attached to; its open
                question, if any, is added right after the run's creation. ``None``: none to add.
            resumed: The run is already under way here (`catch_up`), its stream brings no
                creation.
        """
        if not resumed:
            self._run_id = None
        finished = False
        try:
            async for item in source:
                if isinstance(item, RunCreated):
                    yield self.begin_run(item.handle.run_id, workflow, item.handle)
                    if snapshot is not None:
                        for change in self.transcript.take_snapshot_question(snapshot):
                            yield change
                elif isinstance(item, RunEvent):
                    # (Its arrival was logged just before it: `session.follow`'s on_arrival.)
                    kept = self.logbook.session_log
                    yield EventArrived(item, kept.last_seq if kept is not None else -1)
                    changes = self.fold(item)
                    # Before the question is shown: nobody can answer it first.
                    changes += await self._carried(changes)
                    for change in changes:
                        yield change
                else:
                    self._log(Entry("notice", item.message, label=item.level, meta={"stream": 1}))
                    yield StreamNoticed(item)
                    yield self.transcript.add_notice(item.level, item.shown)
            finished = True
            for update in self.end_run():
                yield update
        finally:
            if not finished:
                # Cancelled, closed or failed: the end is logged and folded now; the consumer
                # asks `settle` for what it changed (a generator being closed cannot yield).
                self._unshown.extend(self.end_run())

    # -------------------------------------------------------------- answering

    @property
    def run_id(self) -> str | None:
        """The run being followed now (started or attached), if any."""
        return self._run_id

    async def answer(self, interrupt: Interrupt, value: Any) -> Answered:
        """Send ``value`` as the answer to ``interrupt`` and record what became of it in the
        transcript (`openwop_tui.core.answering.answer`). Never raises `HostError`."""
        client = self._session().client
        return await answering.answer(
            self.transcript, client, interrupt, value, run_id=self._run_id
        )

    def open_conversation(self) -> Interrupt | None:
        """The conversation turn the run waits for, if any (`answering.open_conversation`)."""
        return answering.open_conversation(self.transcript)

    async def say(self, interrupt: Interrupt, text: str, *, shown: bool = False) -> Answered:
        """Send ``text`` as the user's next turn of the conversation ``interrupt`` waits on:
        the turn is added (unless ``shown`` already) and logged, then sent as the interrupt's
        answer, built to its ``outcomeSchema``. A turn the host refuses stays on screen with
        a line saying why."""
        changes: list[Change] = [] if shown else [*self.add_user(text)]
        self.pending_user = None
        try:
            value = await answering.turn_value(interrupt.request, text)
        except AnswerError as error:
            failed = Submitted("failed", f"Your turn was not sent: {error}.")
            return Answered(failed, [*changes, self.notice("error", failed.message)])
        answered = await self.answer(interrupt, value)
        changes += answered.changes
        if answered.submitted.outcome != "answered":
            changes.append(
                self.notice("error", f"Your turn was not sent: {answered.submitted.message}")
            )
        return Answered(answered.submitted, changes)

    async def _carried(self, changes: list[Change]) -> list[Change]:
        """The run that a message started opened a conversation: that message is its first
        turn (`answering.carried_turn`)."""
        carry = self._carry
        if carry is None:
            return []
        opened, settled = answering.carried_turn(self.transcript, carry, changes)
        if settled:
            self._carry = None
        return [] if opened is None else (await self.say(opened, carry, shown=True)).changes

    def settle(self) -> list[Update]:
        """What the end of an interrupted run changed (after a cancel or a `HostError`)."""
        updates, self._unshown = self._unshown, []
        return updates

    def begin_run(
        self, run_id: str, workflow: str, handle: RunHandle | None, host: str | None = None
    ) -> RunStarted:
        """A run begins (live, on the session's host; replayed, on its entry's): logged, and
        the `RunStarted` that tells the views.

        Args:
            run_id: The host's id for the run (``"?"`` for a logged run whose entry names none).
            workflow: The id of the workflow the run is of (``""`` when the log does not say).
            handle: The run as the host created it; ``None`` when replayed from a log.
            host: The base URL of the host the run is on, when replayed (its ``run`` entry's);
                live, ignored: the session's host is used. ``None``: not known.
        """
        self._run_id = run_id
        if self.pending_user is None:
            self._carry = None
        if not self.replaying:
            self.cut = None  # a new run follows the cut one: the log has settled it
        if not self.replaying and self.session is not None:
            host = host_url(self.session.client.base_url)
        meta: dict[str, Any] = {"workflow": workflow}
        if host is not None:
            self.hosts[run_id] = host
            meta[HOST_KEY] = host
        self._log(Entry("run", run=run_id, meta=meta))
        if self.keeper is not None:
            self.keeper.begin(self)
        if self.pending_user is not None:
            self.chat.accepted(self.pending_user, self.pending_parts)
            self.pending_user, self.pending_parts = None, []
        self._redelivery = Redelivery(run_id, self.secrets, filtered=not self.captured)
        return RunStarted(run_id, workflow, handle.status if handle else None, handle)

    def fold(self, event: RunEvent) -> list[Change]:
        changes = self.transcript.apply(event)
        self.chat.saw(changes)
        return changes

    def end_run(self) -> list[Update]:
        if self._run_id is None and self._redelivery is None:
            return []
        run_id, self._run_id, self._redelivery = self._run_id, None, None
        status = self.transcript.status
        self._log(Entry("end", run=run_id, meta={"status": status} if status else {}))
        closed: list[Update] = list(self.transcript.close_open())
        self.chat.saw(change for change in closed if isinstance(change, Added))
        self.chat.run_ended()
        if self.keeper is not None:
            self.keeper.end(self)
        return [*closed, RunEnded(run_id, status)]

    # ----------------------------------------------------------------- replay

    @classmethod
    def from_log(
        cls, entries: Iterable[Entry], session: Session | None = None, **options: Unpack[Options]
    ) -> Conversation:
        """A conversation rebuilt from a log, offline (`replaying.from_log`)."""
        return replaying.from_log(cls(session, **options), entries)

    def replay(self, entry: Entry) -> list[Update]:
        """Fold one logged entry, as it was folded live; what it changed. Nothing is logged:
        the entry is already in the log it came from."""
        self.replaying = True
        try:
            return replaying.replayed(self, entry)
        finally:
            self.replaying = False

    def finish_replay(self, *, at_end: bool = False) -> list[Update]:
        """The end of a replayed log: settle a run it left open (the process was killed, or
        the recording stopped, mid-run). ``at_end``: the log's very end (not a later run's
        start), where what the run added to the chat history is not known yet (not kept)."""
        self.replaying = False
        self.cut = self.open_run
        self.replaying = True
        keeper = self.keeper
        if keeper is not None:
            keeper.at_end = at_end
        try:
            return self.end_run()
        finally:
            self.replaying = False
            if keeper is not None:
                keeper.at_end = False

    def settle_cut(self) -> list[Update]:
        """The run the log left open (`cut`, read with ``resume``) will not be caught up (the
        host cannot give the rest, or another run begins): settle it as a reopen without
        ``resume`` would have, and forget it; what that changed. Nothing is logged, so the next
        open may still catch it up. Nothing to do (``[]``) for a run settled already."""
        cut, self.cut = self.cut, None
        if cut is None or self.open_run is None or self.open_run.run_id != cut.run_id:
            return []
        updates = self.finish_replay(at_end=True)
        self.cut = None
        return updates

    def accepted(self, arrival: Arrival, run: str | None) -> list[RunEvent | StreamNotice]:
        """What the run's redelivery rules take from a logged ``arrival`` of run ``run``
        (`Redelivery.take`); frames before any run marker (a capture, not a recording) begin
        one implicit run."""
        if self._redelivery is None:
            self.begin_run(run or "?", "", None, self.old_runs_host)
        assert self._redelivery is not None
        return self._redelivery.take(arrival)

    # ------------------------------------------------------------------ assets

    @property
    def max_inline_bytes(self) -> int:
        """The host's inline media cap, or the spec default offline."""
        return self.session.max_inline_bytes if self.session is not None else DEFAULT_INLINE_BYTES

    async def asset_for(self, envelope: Envelope, needs_bytes: NeedsBytes) -> Asset | None:
        """The bytes behind a media envelope's ``url`` (`openwop_tui.core.assets.asset_for`)."""
        return await assets.asset_for(self, envelope, needs_bytes)

    def host_of(self, envelope: Envelope) -> str | None:
        """The base URL of the host whose run carried ``envelope`` (``None``: unknown)."""
        return assets.host_of(self.hosts, envelope)
