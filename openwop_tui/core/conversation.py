"""The conversation pipeline every front end consumes: the app, ``run``, ``render``, ``replay``.

A `Conversation` owns the network `Session` (runs, cancel, assets; ``None`` when offline), the
pure `Transcript` fold, the chat history and the event logs it appends to (a stored session, a
recording). `Conversation.send` and `Conversation.start` yield `Update`\\ s: the fold's `Added` /
`Updated` plus `RunStarted`, `EventArrived`, `StreamNoticed` and `RunEnded`, so a view only draws.

Everything it learns is appended to its logs as it arrives (`openwop_tui.store.sessions.Entry`): the
user's message, the run's creation, each raw frame, the stream's notices, the run's end. A log
folded back with `Conversation.replay` (or `from_log`) gives the same transcript and history,
without contacting the host, because it goes through the same acceptance rules
(`openwop_tui.protocol.stream.Redelivery`) and the same fold. No Textual, no widgets.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Protocol, TypeAlias, TypedDict, Unpack

from openwop_tui.core.catch_up import CutRun
from openwop_tui.core.chat_history import ChatHistory
from openwop_tui.core.directives import refused_asset
from openwop_tui.core.fold import (
    Added,
    Change,
    Interrupt,
    Level,
    Limits,
    Transcript,
    Updated,
    UserTurn,
)
from openwop_tui.core.hitl import Submitted, submit
from openwop_tui.core.log_flush import FlushTimer, pending
from openwop_tui.core.origins import HOST_KEY, absolute, host_url
from openwop_tui.core.reopen import FoldKeeper, reopening
from openwop_tui.core.session import RunCreated, Session
from openwop_tui.openclaw.reader import check_media
from openwop_tui.protocol.acceptance import Redelivery
from openwop_tui.protocol.client import Discovery, RunHandle
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.protocol.events import RunEvent
from openwop_tui.protocol.interrupt_answers import AnswerError, build_answer
from openwop_tui.protocol.interrupts import InterruptState
from openwop_tui.protocol.media import Asset
from openwop_tui.protocol.media_policy import offline_asset
from openwop_tui.protocol.stream_items import Arrival, StreamNotice
from openwop_tui.store.database import StoreError, Unwritten
from openwop_tui.store.folds import FoldRow
from openwop_tui.store.histories import HistoryRow
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import SessionLog, Store
from openwop_tui.text.sanitize import clean, clean_own

log = logging.getLogger(__name__)

#: The spec's inline media cap, used when no host told its own (protocol.md §4.5).
DEFAULT_INLINE_BYTES = 262144

#: The line logged (and shown) where an exchange was replaced by an edited or regenerated one.
REPLACED_NOTICE = (
    "the last message was sent again (edited or regenerated): the exchange before this line "
    "was replaced, and stays in the session's history"
)


@dataclass(frozen=True, slots=True)
class Replaced:
    """What `Conversation.replace_last_exchange` took off the screen, and the line saying so."""

    item_ids: tuple[str, ...]
    """The last user turn and every item after it."""
    text: str
    """What the user had sent."""
    notice: Added


@dataclass(frozen=True, slots=True)
class RunStarted:
    """The host created a run (its stream follows)."""

    run_id: str
    workflow: str
    status: str | None = None
    handle: RunHandle | None = None
    """The host's answer, when live (``None`` when replayed from a log)."""


@dataclass(frozen=True, slots=True)
class RunEnded:
    """A run's stream is over: ``status`` is the last the fold saw (``None``: it never said)."""

    run_id: str | None
    status: str | None


@dataclass(frozen=True, slots=True)
class EventArrived:
    """A run event arrived (before the fold's changes for it); for an events panel."""

    event: RunEvent


@dataclass(frozen=True, slots=True)
class StreamNoticed:
    """The stream told something about itself (reconnecting, a malformed frame…)."""

    notice: StreamNotice


Update: TypeAlias = Added | Updated | RunStarted | RunEnded | EventArrived | StreamNoticed

StreamItem: TypeAlias = RunCreated | RunEvent | StreamNotice
"""What a run's stream brings to `Conversation._consume`."""


@dataclass(frozen=True, slots=True)
class Answered:
    """What became of an answer sent with `Conversation.answer`: the host's verdict
    (`openwop_tui.core.hitl.Submitted`: outcome, sentence, whether to retry) and what it changed in
    the transcript (the interrupt answered here, or closed)."""

    submitted: Submitted
    changes: list[Change]


#: How a closing outcome settles the interrupt: its new state, and the words for it.
_CLOSING: dict[str, tuple[InterruptState, str]] = {
    "elsewhere": ("answered", "answered elsewhere first"),
    "expired": ("expired", "expired"),
    "closed": ("closed", "nothing left to resolve"),
}


NeedsBytes: TypeAlias = Callable[[str | None], bool]
"""Whether the renderer for a display value needs its envelope's bytes fetched."""


class EventLog(Protocol):
    """Where a conversation appends what it learns (a stored session, a recording)."""

    def append(self, entry: Entry) -> None:
        """Keep ``entry``; called as things arrive, in order."""


class Offline(RuntimeError):
    """A send on a conversation that has no host."""


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
        """``store`` keeps fetched media bytes (and gives them back offline); ``secrets`` are
        masked in decoded host data. ``capture``: what is replayed is a bare SSE capture, not
        a log this program wrote: every frame's events are folded as decoded (no
        de-duplication) and its malformed frames give their warnings (a log keeps the live
        warnings as notices of their own)."""
        self.session = session
        self.transcript = Transcript(limits=limits or Limits())
        self.chat = ChatHistory()
        self.logs: list[EventLog] = list(logs)
        self.store = store
        self.secrets = tuple(secrets)
        self._capture = capture
        self._pending_user: str | None = None
        self._absolute: dict[str, str] = {}
        """Each fetched media URL as the envelope gave it → as the fetch resolved it."""
        self._carry: str | None = None
        """The message that started this run, until it goes as the first turn of a
        conversation the run opens (or the host shows it already took it)."""
        self._redelivery: Redelivery | None = None
        self._run_id: str | None = None
        self._unshown: list[Update] = []
        self._replaying = False
        self.log_error: str | None = None
        """Why the log cannot be written now (``None`` once everything waiting is written):
        the conversation goes on, the app says so."""
        self._unwritten: dict[int, list[Entry]] = {}
        """Entries a log could not take yet, by log (its ``id``), oldest first."""
        self._flusher = FlushTimer(lambda: self.logs, self._log_failed, self._log_caught_up)
        self.keeper: FoldKeeper | None = None
        """Keeps each completed run's fold beside a stored session's log (`stored` sets it)."""
        self.hosts: dict[str, str] = {}
        """Run id → the base URL of the host that ran it (`openwop_tui.core.origins`): what
        its media URLs resolve against, live, offline and on another host alike."""
        self.cut: CutRun | None = None
        """The run the replayed log left open (the app was killed mid-run), which the host
        may still complete (`catch_up`); ``None`` when the log's last run ended."""
        self.old_runs_host: str | None = None
        """The host of replayed runs whose ``run`` entry names none (logs written before
        they did): the stored session's own host, when that is a URL."""
        self._replaced: set[str] = set()
        """Items of exchanges replaced in this sitting: kept in the transcript (export, the
        store) but no longer given to a view."""

    # ------------------------------------------------------------------ state

    @property
    def replaying(self) -> bool:
        """Whether what is folded now comes from a log, not a host."""
        return self._replaying

    @property
    def captured(self) -> bool:
        """Whether this conversation replays a bare SSE capture (``capture=True``)."""
        return self._capture

    @property
    def pending_user(self) -> str | None:
        """A user message the next run's creation takes into the history."""
        return self._pending_user

    @pending_user.setter
    def pending_user(self, text: str | None) -> None:
        self._pending_user = text

    def last_user_turn(self) -> UserTurn | None:
        """The newest message the user sent that is still on screen, if any."""
        for item in reversed(self.transcript.items):
            if isinstance(item, UserTurn) and item.id not in self._replaced:
                return item
        return None

    def close_logs(self) -> None:
        """Close the logs that hold something open (a recording: flushed and closed); the
        others (the store) are closed by their owner."""
        for keep in self.logs:
            close = getattr(keep, "close", None)
            if close is not None:
                close()

    @property
    def session_log(self) -> SessionLog | None:
        """The stored session this conversation is kept in (``None``: not kept)."""
        return next((log for log in self.logs if isinstance(log, SessionLog)), None)

    def take_fold(self, whole: Conversation) -> None:
        """``whole`` is this conversation's stored session read from its log (up to its last
        entry): its fold and chat history become this one's, which held the session's newest
        runs only (`newest_runs`), and this one's runs are kept with their folds from now on.
        Only between runs (nothing open here), and before anything was replaced."""
        assert self._run_id is None and self._redelivery is None and not self._replaced
        self.transcript = whole.transcript
        self.chat = whole.chat
        self.hosts = {**whole.hosts, **self.hosts}
        self._pending_user = None
        keep = self.session_log
        self.keeper = live_keeper(self, keep) if keep is not None else None

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
        """Append ``entry`` to every log. A log that cannot be written (a full disk, a store
        gone read-only) loses nothing: its entries wait here, in order, and are written before
        the next one as soon as it can take them again; ``log_error`` says why meanwhile."""
        if self._replaying:
            return
        for sink in self.logs:
            self._unwritten.setdefault(id(sink), []).append(entry)
            self._offer(sink)
        self._log_caught_up()
        # A stored session commits in batches: the tail of a stream that goes quiet is
        # written shortly after, not at the run's end.
        self._flusher.appended()

    def _offer(self, sink: EventLog) -> None:
        """Append what waits for ``sink``, oldest first, until it refuses one."""
        waiting = self._unwritten.setdefault(id(sink), [])
        while waiting:
            try:
                sink.append(waiting[0])
            except Unwritten as error:
                # Taken: the log holds it, in order, until it can write it (appending it
                # again would keep it twice).
                self._log_failed(str(error))
            except (StoreError, OSError) as error:
                # Losing the log must not lose the chat: say why, keep going, try again later.
                self._log_failed(str(error))
                return
            waiting.pop(0)

    def _log_caught_up(self) -> None:
        """Clear ``log_error`` once nothing waits for a log that failed."""
        if self.log_error is None or any(self._unwritten.values()):
            return
        if any(_failing(sink) for sink in self.logs):
            return
        self.log_error = None

    @property
    def unwritten(self) -> int:
        """Entries kept in memory only: waiting for a log that could not take them, or taken
        by one that could not write them yet (a full disk)."""
        held = sum(pending(sink) for sink in self.logs if _failing(sink))
        return held + sum(len(waiting) for waiting in self._unwritten.values())

    def forget_unkept(self) -> int:
        """Give up the entries the session store refused (the user chose to lose them); how
        many. They are not offered to it again, so no journal brings them back."""
        given_up = self.unkept_store_entries()
        for sink in self.logs:
            if isinstance(sink, SessionLog):
                self._unwritten.pop(id(sink), None)
        self._log_caught_up()
        return given_up

    def unkept_store_entries(self) -> int:
        """Entries for the session store that it never took (they are not in its journal
        either): what quitting now loses for sure."""
        return sum(
            len(self._unwritten.get(id(sink), ()))
            for sink in self.logs
            if isinstance(sink, SessionLog)
        )

    def _log_failed(self, why: str) -> None:
        self.log_error = why
        log.warning("event log write failed: %s", why)

    def flush(self) -> None:
        """Write what the logs hold uncommitted now (the app's exit paths, a view that wants
        the store complete); a failure goes to `log_error`, like every write's. Entries a log
        refused earlier are offered again first."""
        for sink in self.logs:
            if self._unwritten.get(id(sink)):
                self._offer(sink)
        self._flusher.flush()

    # ----------------------------------------------------------------- sending

    def add_user(self, text: str) -> Added:
        """Record a user message (logged, folded) before it is sent."""
        self._log(Entry("user", text))
        self._pending_user = text
        return self.transcript.add_user(clean_own(text))

    def notice(self, level: Level, text: str) -> Added:
        """Record a line of the client's own (an error, a hint): logged and folded."""
        self._log(Entry("notice", text, label=level))
        return self.transcript.add_notice(level, clean_own(text))

    async def send(self, text: str) -> AsyncIterator[Update]:
        """Add ``text`` as a user turn and run it with the whole history; yield every update.

        Raises `HostError` when the host refuses or cannot be reached (the turn stays on
        screen but not in the history); `settle` then gives what the end of the run changed.
        """
        session = self._session()
        limits = self.transcript.limits
        discovery = session.discovery
        fitted = self.chat.fitted(
            text,
            workflow_id=session.workflow_id,
            max_body_bytes=discovery.max_request_body_bytes if discovery else None,
            max_turns=limits.history_turns,
            max_history_bytes=limits.history_bytes,
        )
        inputs = fitted.inputs
        yield self.add_user(text)
        if fitted.note is not None:
            yield self.notice("info", fitted.note)
        self._carry = text
        async for update in self._run(inputs, user=text):
            yield update

    async def start(self, inputs: Mapping[str, Any]) -> AsyncIterator[Update]:
        """Run the workflow with ``inputs`` as given (no user turn, no history): ``run``."""
        async for update in self._run(dict(inputs), user=None):
            yield update

    async def _run(self, inputs: dict[str, Any], *, user: str | None) -> AsyncIterator[Update]:
        session = self._session()
        self._pending_user = user
        source = session.start(inputs, on_arrival=self._arrived)
        async for update in self._consume(source, session.workflow_id):
            yield update

    async def attach(self, run_id: str, from_seq: int | None = None) -> AsyncIterator[Update]:
        """Follow a run this client did not start (``attach``, the app's ``--attach``): its
        history from sequence ``from_seq`` on (``None``: all of it), then live to its end.

        The run's snapshot is read first, so an unknown run is a `HostError` (404) before
        anything is shown; `RunStarted` then carries the snapshot's workflow and status. A
        finished run yields its whole history and ends. Nothing is ever cancelled here: a
        consumer that stops iterating only stops following.
        """
        session = self._session()
        self._pending_user = None
        snapshot = await session.client.get_run(run_id)
        workflow = snapshot.get("workflowId") or snapshot.get("workflow") or ""
        status = snapshot.get("status")
        handle = RunHandle(
            run_id,
            status if isinstance(status, str) else None,
            session.client.events_url(run_id),
            snapshot,
        )
        # The stream resumes *after* a sequence: from SEQ means after SEQ - 1.
        after = from_seq - 1 if from_seq is not None and from_seq > 0 else None

        async def source() -> AsyncIterator[StreamItem]:
            yield RunCreated(handle)
            async for item in session.follow(handle, last_event_id=after, on_arrival=self._arrived):
                yield item

        # From a sequence on, the events that asked the run's open question may be skipped:
        # the snapshot's ``interrupt`` asks it (the events, if they come, merge into it).
        opening = snapshot if after is not None else None
        async for update in self._consume(source(), str(workflow) if workflow else "", opening):
            yield update

    def _arrived(self, arrival: Arrival) -> None:
        self._log(Entry.of_arrival(arrival, self._run_id))

    @property
    def open_run(self) -> CutRun | None:
        """The run a replayed log has left open so far (its end not seen), if any."""
        redelivery, run_id = self._redelivery, self._run_id
        if redelivery is None or run_id is None or redelivery.ended or self._replaying:
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
        session = self._session()
        status = snapshot.get("status")
        handle = RunHandle(
            cut.run_id,
            status if isinstance(status, str) else None,
            session.client.events_url(cut.run_id),
            snapshot,
        )
        workflow = snapshot.get("workflowId") or snapshot.get("workflow") or ""
        # Not logged: the run's entry is in the log already; this tells the views it goes on.
        yield RunStarted(cut.run_id, str(workflow), handle.status, handle)
        source = session.follow(handle, last_event_id=cut.after, on_arrival=self._arrived)
        async for update in self._consume(source, str(workflow), resumed=True):
            yield update

    async def _consume(
        self,
        source: AsyncIterator[StreamItem],
        workflow: str,
        snapshot: Mapping[str, Any] | None = None,
        *,
        resumed: bool = False,
    ) -> AsyncIterator[Update]:
        """Fold what a run's stream brings (its creation, events, notices) into updates;
        ``snapshot``'s open question, if any, right after the run's creation. ``resumed``:
        the run is already under way here (`catch_up`), its stream brings no creation."""
        if not resumed:
            self._run_id = None
        finished = False
        try:
            async for item in source:
                if isinstance(item, RunCreated):
                    yield self._started(item.handle.run_id, workflow, item.handle)
                    if snapshot is not None:
                        for change in self.transcript.take_snapshot_question(snapshot):
                            yield change
                elif isinstance(item, RunEvent):
                    yield EventArrived(item)
                    changes = self._apply(item)
                    # Before the question is shown: nobody can answer it first.
                    changes += await self._carried(changes)
                    for change in changes:
                        yield change
                else:
                    self._log(Entry("notice", item.message, label=item.level, meta={"stream": 1}))
                    yield StreamNoticed(item)
                    yield self.transcript.add_notice(item.level, item.shown)
            finished = True
            for update in self._ended():
                yield update
        finally:
            if not finished:
                # Cancelled, closed or failed: the end is logged and folded now; the consumer
                # asks `settle` for what it changed (a generator being closed cannot yield).
                self._unshown.extend(self._ended())

    # -------------------------------------------------------------- answering

    @property
    def run_id(self) -> str | None:
        """The run being followed now (started or attached), if any."""
        return self._run_id

    async def answer(self, interrupt: Interrupt, value: Any) -> Answered:
        """Send ``value`` (from `openwop_tui.protocol.interrupts.build_answer`) as the answer to
        ``interrupt`` and record what became of it in the transcript: answered here, or closed
        (answered elsewhere, expired, nothing to resolve). Never raises `HostError`: the
        `Submitted` says what the host answered and whether another try makes sense."""
        session = self._session()
        request = interrupt.request
        if request is None:
            failed = Submitted("failed", "This item is not a question that can be answered.")
            return Answered(failed, [])
        if request.run_id is None and self._run_id is not None:
            # A host whose events do not name their run: the run being followed is theirs.
            request = replace(request, run_id=self._run_id)
        submitted = await submit(session.client, request, value)
        changes: list[Change] = []
        if submitted.outcome == "answered":
            named = submitted.response.get("interruptId") if submitted.response else None
            changes = self.transcript.interrupt_answered(
                interrupt, submitted.value, named if isinstance(named, str) else None
            )
        elif submitted.outcome in _CLOSING:
            state, outcome = _CLOSING[submitted.outcome]
            by = "elsewhere" if submitted.outcome == "elsewhere" else None
            changes = self.transcript.interrupt_closed(interrupt, state, outcome, by=by)
        return Answered(submitted, changes)

    def open_conversation(self) -> Interrupt | None:
        """The conversation turn the run waits for (RFC 0005, protocol.md §5 B), if any: while
        there is one, a message is a turn of that conversation, not a new run."""
        for item in reversed(self.transcript.pending_interrupts()):
            request = item.request
            if (
                request is not None
                and request.kind == "conversation"
                and request.conversation_op in (None, "exchange")
            ):
                return item
        return None

    async def say(self, interrupt: Interrupt, text: str, *, shown: bool = False) -> Answered:
        """Send ``text`` as the user's next turn of the conversation ``interrupt`` waits on:
        the turn is added (unless ``shown`` already) and logged, then sent as the interrupt's
        answer, built to its ``outcomeSchema``. A turn the host refuses stays on screen with
        a line saying why."""
        changes: list[Change] = [] if shown else [self.add_user(text)]
        self._pending_user = None
        request = interrupt.request
        try:
            if request is None:
                raise AnswerError("this item is not a conversation turn")
            # In a thread: a host's outcomeSchema pattern is checked off the event loop.
            value = await asyncio.to_thread(build_answer, request, text=text, now=datetime.now(UTC))
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
        turn (a host that took it from ``inputs.messages`` echoes it first, which drops it)."""
        carry = self._carry
        if carry is None:
            return []
        if any(isinstance(c.item, UserTurn) for c in changes if isinstance(c, Added)):
            self._carry = None  # someone's turn came first: the conversation is under way
            return []
        opened = next(
            (
                c.item
                for c in changes
                if isinstance(c, Added)
                and isinstance(c.item, Interrupt)
                and c.item is self.open_conversation()
            ),
            None,
        )
        if opened is None:
            return []
        self._carry = None
        if carry.strip() not in self.transcript.own_turns:
            return []  # the host echoed it already: it took the message from the run's inputs
        return (await self.say(opened, carry, shown=True)).changes

    def settle(self) -> list[Update]:
        """What the end of an interrupted run changed (after a cancel or a `HostError`)."""
        updates, self._unshown = self._unshown, []
        return updates

    def _started(
        self, run_id: str, workflow: str, handle: RunHandle | None, host: str | None = None
    ) -> RunStarted:
        """A run begins: live, on the session's host; replayed, on ``host`` (its entry's)."""
        self._run_id = run_id
        if self._pending_user is None:
            self._carry = None
        if not self._replaying:
            self.cut = None  # a new run follows the cut one: the log has settled it
        if not self._replaying and self.session is not None:
            host = host_url(self.session.client.base_url)
        meta: dict[str, Any] = {"workflow": workflow}
        if host is not None:
            self.hosts[run_id] = host
            meta[HOST_KEY] = host
        self._log(Entry("run", run=run_id, meta=meta))
        if self.keeper is not None:
            self.keeper.begin(self)
        if self._pending_user is not None:
            self.chat.accepted(self._pending_user)
            self._pending_user = None
        self._redelivery = Redelivery(run_id, self.secrets, filtered=not self._capture)
        return RunStarted(run_id, workflow, handle.status if handle else None, handle)

    def _apply(self, event: RunEvent) -> list[Change]:
        changes = self.transcript.apply(event)
        self.chat.saw(changes)
        return changes

    def _ended(self) -> list[Update]:
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
        cls, entries: Iterable[Entry], session: Session | None = None, **kwargs: Any
    ) -> Conversation:
        """A conversation rebuilt from a log, without contacting anything: the transcript and
        the history as they were, ready for the next `send` (through ``session``, if given).
        ``kwargs`` as for the constructor (``logs``: where the continued chat is appended)."""
        conversation = cls(session, **kwargs)
        for entry in entries:
            conversation.replay(entry)
        conversation.finish_replay()
        return conversation

    def replay(self, entry: Entry) -> list[Update]:
        """Fold one logged entry, as it was folded live; what it changed. Nothing is logged:
        the entry is already in the log it came from."""
        self._replaying = True
        try:
            return self._replay(entry)
        finally:
            self._replaying = False

    def finish_replay(self) -> list[Update]:
        """The end of a replayed log: settle a run it left open (the process was killed, or
        the recording stopped, mid-run)."""
        self._replaying = False
        self.cut = self.open_run
        self._replaying = True
        try:
            return self._ended()
        finally:
            self._replaying = False

    def _replay(self, entry: Entry) -> list[Update]:
        if entry.kind == "user":
            # Not the end of a run: a message may be queued while one streams.
            self._pending_user = entry.data
            # A boundary: a message read back from the store (a file anyone may have written).
            return [self.transcript.add_user(clean(entry.data))]
        if entry.kind == "notice":
            level: Level = "info"
            if entry.label == "warning":
                level = "warning"
            elif entry.label == "error":
                level = "error"
            stream = (
                [StreamNoticed(StreamNotice(level, entry.data))] if entry.meta.get("stream") else []
            )
            replaces = entry.meta.get("replaces")
            if isinstance(replaces, int) and not isinstance(replaces, bool):
                # An exchange was replaced: its messages leave the history as they did live;
                # its items stay on screen above this line (the log keeps everything).
                self.chat.drop(replaces)
            # A boundary: a notice read back from the store, like the message above.
            return [*stream, self.transcript.add_notice(level, clean(entry.data))]
        if entry.kind == "run":
            ended = self._ended()  # a run the log never saw end (a killed process)
            workflow = entry.meta.get("workflow")
            host = host_url(entry.meta.get(HOST_KEY)) or self.old_runs_host
            started = self._started(entry.run or "?", str(workflow or ""), None, host)
            return [*ended, started]
        if entry.kind == "end":
            return self._ended()
        arrival = entry.arrival
        if arrival is None:
            return []
        updates: list[Update] = []
        if self._redelivery is None:
            # Frames before any run marker (a capture, not a recording): one implicit run.
            updates.append(self._started(entry.run or "?", "", None, self.old_runs_host))
        assert self._redelivery is not None
        for item in self._redelivery.take(arrival):
            if isinstance(item, RunEvent):
                updates.append(EventArrived(item))
                updates.extend(self._apply(item))
            elif self._capture:
                updates.append(StreamNoticed(item))
                updates.append(self.transcript.add_notice(item.level, item.shown))
        return updates

    # ------------------------------------------------------------------ assets

    @property
    def max_inline_bytes(self) -> int:
        """The host's inline media cap, or the spec default offline."""
        return self.session.max_inline_bytes if self.session is not None else DEFAULT_INLINE_BYTES

    async def asset_for(self, envelope: Envelope, needs_bytes: NeedsBytes) -> Asset | None:
        """The bytes behind a media envelope's ``url``: stored ones first, else fetched from
        the host (and stored), else why there are none; ``None`` without a URL, or when the
        renderer for its display draws no bytes (``needs_bytes``: the front end's renderer
        registry decides, not a list of families here). A media directive the policy refused
        is never fetched: its refusal is the answer. What the asset is drawn with is decided
        above the core (`openwop_tui.present.envelope`)."""
        refused = refused_asset(envelope)
        if refused is not None:
            return refused
        media = envelope.bytes_ref(needs_bytes)
        if media is None or media.url is None or media.base64 is not None:
            return None
        # A relative URL names an asset of the host that ran the envelope's run, which may not
        # be the host connected now (a reopened session), or there may be none (offline).
        given = media.url
        url = absolute(given, self.host_of(envelope))
        if url != given:
            media = replace(media, url=url)
        # Stores written before URLs were resolved keep the bytes under the URL as given.
        stored = self._stored(url) or (self._stored(given) if url != given else None)
        if stored is not None:
            return stored
        if self.session is None:
            # Refused whatever the network (file:, a private address, …) says so, not "offline".
            return offline_asset(url, self.host_of(envelope))
        asset = await self.session.asset_for(envelope, media)
        if asset is not None and asset.url:
            # The absolute URL the fetch resolved (after redirects) is what the user is shown,
            # redraw after redraw, also when the bytes come from the store.
            self._absolute[url] = asset.url
        if asset is not None and asset.data is not None and self.store is not None:
            try:
                self.store.put_asset(url, asset.data, asset.content_type)
            except StoreError as error:
                self.log_error = str(error)
        return asset

    def host_of(self, envelope: Envelope) -> str | None:
        """The base URL of the host whose run carried ``envelope`` (``None``: unknown). An
        event that names no run is the only host's when every run came from one."""
        run_id = envelope.source.run_id
        if run_id is not None:
            return self.hosts.get(run_id)
        hosts = set(self.hosts.values())
        return hosts.pop() if len(hosts) == 1 else None

    def _stored(self, url: str) -> Asset | None:
        if self.store is None:
            return None
        try:
            found = self.store.asset(url)
        except StoreError:
            return None
        if not found:
            return None
        return Asset(url=self._absolute.get(url, url), data=found[0], content_type=found[1])


def check_link(url: str) -> tuple[str | None, str | None]:
    """A URL a renderer offers to a browser (an embed's), judged by the directive media policy:
    only a public ``https:`` URL is opened (`openwop_tui.renderers.base.LinkCheck`)."""
    checked = check_media(url)
    return checked.url, checked.refused


class Opening(TypedDict, total=False):
    """How `stored` and `opening` open a conversation kept in a store (every key optional)."""

    session: Session | None
    """The host connection the next `Conversation.send` goes through."""
    host: str
    """The host a new session records (without credentials)."""
    workflow: str
    limits: Limits | None
    secrets: Iterable[str]
    logs: Sequence[EventLog]
    """More logs to append to (a recording)."""
    resume: bool
    """A run the log leaves open stays open (`Conversation.catch_up` continues it) instead of
    being settled as cut."""


def _failing(sink: object) -> bool:
    """Whether ``sink`` holds entries it failed to write (a log without ``failing`` never
    holds any)."""
    return bool(getattr(sink, "failing", None))


def stored(store: Store, session_id: str | None = None, **how: Unpack[Opening]) -> Conversation:
    """A conversation kept in ``store``: session ``session_id`` folded back from its log
    (without contacting the host; the next `send` through ``how["session"]`` continues it),
    or a new one (``None``, created at its first entry). Raises `StoreError` for an unknown
    id, or a log that cannot be read."""
    chat, steps = opening(store, session_id, **how)
    for _ in steps:
        pass
    return chat


def opening(
    store: Store, session_id: str | None = None, **how: Unpack[Opening]
) -> tuple[Conversation, Iterator[None]]:
    """`stored`, read a step at a time: the conversation, and the steps that fold session
    ``session_id`` into it (`openwop_tui.core.reopen.reopening`; none for a new one). Until
    the last step the conversation is incomplete: show it, or send through it, only after.
    Raises `StoreError` for an unknown id; a step, for a log that cannot be read."""
    host, workflow = how.get("host", ""), how.get("workflow", "")
    session, limits = how.get("session"), how.get("limits")
    secrets, logs = how.get("secrets", ()), how.get("logs", ())
    resume = how.get("resume", False)
    keep = SessionLog(store, session_id, host=host, workflow=workflow)
    chat = Conversation(session, logs=[keep, *logs], limits=limits, store=store, secrets=secrets)

    chat.keeper = live_keeper(chat, keep)
    if session_id is None:
        return chat, iter(())
    # Runs logged before their entries named their host ran on the session's.
    chat.old_runs_host = host_url(store.info(session_id).host)
    # Kept runs are read back as items; only runs without a kept fold are folded.
    return chat, reopening(chat, store, session_id, chat.keeper, resume=resume)


def live_keeper(chat: Conversation, keep: SessionLog, *, folds: bool = True) -> FoldKeeper:
    """What keeps ``chat``'s runs beside its stored session ``keep`` as they end: their folds
    (unless not ``folds``) and what they did to the chat history. A row that cannot be
    written goes to `Conversation.log_error` (the log has everything; the next open folds
    again)."""

    def keep_fold(row: FoldRow) -> None:
        if folds:
            try:
                keep.keep_fold(row)
            except StoreError as error:
                chat.log_error = str(error)

    def keep_history(row: HistoryRow) -> None:
        try:
            keep.keep_history(row)
        except StoreError as error:
            chat.log_error = str(error)

    return FoldKeeper(keep, keep_fold, histories=keep_history)


def newest_runs(
    store: Store,
    session_id: str,
    runs: int,
    *,
    limits: Limits | None = None,
    secrets: Iterable[str] = (),
) -> NewestRuns | None:
    """The last ``runs`` runs of session ``session_id`` (and what the log holds after them),
    folded on their own: what a long session shows while the rest is read (`opening`).
    ``None`` when the session has no more runs than that (read it all at once).

    Folded alone, from the newest ``run`` entry's place on: its kept runs are restored
    whatever state they land on, nothing is kept, and no log is written. What it shows is the
    session's newest items when the state before them carries no further than the kept runs
    do (their ids and usage); the caller checks (`openwop_tui.core.reopen.same_items`). Its
    chat history is the whole session's when the history the runs before left is kept
    (`Store.history_before`): then it can take the session's next message at once."""
    run = store.run_start(session_id, runs)
    if run is None:
        return None
    chat = Conversation(None, limits=limits, secrets=secrets)
    chat.old_runs_host = host_url(store.info(session_id).host)
    history = store.history_before(session_id, run)
    if history is not None:
        chat.chat.messages.extend(history)
        # The message that started the first run (logged before its ``run`` entry) joins the
        # history as the run begins, as it would have folded whole; it is not drawn (the
        # items' numbering begins with the first kept run's).
        chat.pending_user = store.message_before(session_id, run)
    keeper = FoldKeeper(None, lambda _row: None, trusting=True)
    for _ in reopening(chat, store, session_id, keeper, since=run):
        pass
    return NewestRuns(chat, history is not None)


@dataclass(frozen=True, slots=True)
class NewestRuns:
    """A session's newest runs folded on their own (`newest_runs`)."""

    conversation: Conversation
    whole_history: bool
    """Its chat history is the whole session's (else only its own runs')."""
