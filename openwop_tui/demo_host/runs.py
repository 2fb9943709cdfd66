"""The run store: each run's event log, its status, and the thread that drives its workflow.

A run's events live in a list whose index *is* the sequence number (0, 1, 2, …), guarded by a
`threading.Condition`: the workflow thread appends and notifies, and any number of SSE or poll
handlers wait on it for "anything after sequence N". Once a terminal event is recorded nothing
else is appended, so a cancel racing the workflow can never be followed by stray events.

Pause and resume (runs.md §Pause and resume, rest-endpoints.md ``:pause``): a pause asked for
while a node runs takes effect when that node ends or suspends on a question
(``drain-current-node``, the one policy this host offers), at once otherwise; it records
``run.paused`` and the run's status is ``paused`` until a resume (``run.resumed``) or a cancel.
The driver asks `Run.hold` before every step, so a paused run takes no step at all.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import threading
import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from openwop_tui.demo_host.assets import AssetStore
from openwop_tui.demo_host.identity import Identity
from openwop_tui.demo_host.interrupts import Ask, Interrupt, InterruptBook
from openwop_tui.demo_host.steps import Emit, Pause, Step, WorkflowContext
from openwop_tui.demo_host.wire import TENANT

logger = logging.getLogger(__name__)

#: A workflow: given its context, a generator of steps (see `steps.py`).
Workflow = Callable[[WorkflowContext], Generator[Step, None, None]]

TERMINAL_STATUS = {
    "run.completed": "completed",
    "run.failed": "failed",
    "run.cancelled": "cancelled",
}
_NODE_DONE = frozenset({"node.completed", "node.failed", "node.skipped", "node.cancelled"})


@dataclass(frozen=True, slots=True)
class Batch:
    """What a waiter gets: new events and the run's state, read under one lock."""

    events: list[dict[str, Any]]
    done: bool
    """No event will ever follow these (terminal, or the host is shutting down)."""
    status: str
    last_sequence: int
    """Highest sequence in the log (-1 when empty); ``events`` run up to it."""


class IdempotencyMismatch(Exception):
    """An ``Idempotency-Key`` was reused with a different request body."""


#: The drain policy this host pauses with: at node boundaries. (``immediate`` would cut a
#: node's attempt and start it afresh on resume, which a demo workflow cannot replay.)
DRAIN_POLICY = "drain-current-node"


class RunConflict(Exception):
    """A pause or resume the run's state refuses (409): ``status`` names that state."""

    def __init__(self, status: str, terminal: bool, paused_at: str | None = None) -> None:
        super().__init__(status)
        self.status, self.terminal, self.paused_at = status, terminal, paused_at


class Run:
    """One run: identity, status and the append-only event log."""

    def __init__(self, run_id: str, workflow_id: str, identity: Identity) -> None:
        self.run_id = run_id
        self.workflow_id = workflow_id
        self.identity = identity
        self.started_at = identity.now()
        self.completed_at: str | None = None
        self.status = "running"
        self.error: dict[str, Any] | None = None
        self.events: list[dict[str, Any]] = []
        self.cond = threading.Condition()  # an RLock inside, so cancel() can call emit()
        self.stop = threading.Event()
        """Set on cancel or host shutdown: the driver stops between steps."""
        self.closed = False
        """Set on host shutdown: waiting streams wake up and end."""
        self.active_node: str | None = None
        self.create_response: dict[str, Any] = {}
        self.interrupts = InterruptBook()
        """This run's interrupts (`interrupts.py`), guarded by ``cond``."""
        """The 201 body, replayed verbatim for a repeated ``Idempotency-Key``."""
        self.paused_at: str | None = None
        """When the pause now in effect began (``None``: not paused)."""
        self.replies: dict[str, tuple[str, dict[str, Any]]] = {}
        """Pause and resume answers by ``"<op>:<Idempotency-Key>"``, with their body's
        fingerprint: a retried request gets the first answer again."""
        self._pause: dict[str, Any] | None = None
        """The ``run.paused`` payload of a pause asked for but not in effect yet (a node runs)."""
        self._started = time.monotonic()

    @property
    def terminal(self) -> bool:
        """True once run.completed, run.failed or run.cancelled has been recorded."""
        return self.status in TERMINAL_STATUS.values()

    def emit(
        self,
        type_: str,
        payload: dict[str, Any],
        node_id: str | None = None,
        causation_id: str | None = None,
    ) -> dict[str, Any] | None:
        """Append one event (a RunEventDoc) and wake waiters; ignored after a terminal event.

        Args:
            type_: The event's type.
            payload: The event's payload.
            node_id: The node it is about; None for a run-level event.
            causation_id: The id of what caused it (an envelope's correlation id); None for none.
        """
        with self.cond:
            if self.terminal:
                return None
            doc: dict[str, Any] = {
                "eventId": self.identity.event_id(),
                "runId": self.run_id,
                "type": type_,
                "payload": payload,
                "timestamp": self.identity.now(),
                "sequence": len(self.events),
                "schemaVersion": 1,
            }
            if node_id is not None:
                doc["nodeId"] = node_id
            if causation_id is not None:
                doc["causationId"] = causation_id
            self.events.append(doc)
            if type_ == "node.started":
                self.active_node = node_id
            elif type_ in _NODE_DONE and node_id == self.active_node:
                self.active_node = None
            if type_ in TERMINAL_STATUS:
                self.status = TERMINAL_STATUS[type_]
                self.completed_at = doc["timestamp"]
                error = payload.get("error")
                self.error = error if isinstance(error, dict) else None
            self.cond.notify_all()
            return doc

    def duration_ms(self) -> int:
        """Milliseconds since the run was created."""
        return int((time.monotonic() - self._started) * 1000)

    def cancel(self, reason: str) -> bool:
        """Record the cancellation now and tell the driver to stop; False if already terminal."""
        with self.cond:
            if self.terminal:
                return False
            if self.active_node is not None:
                self.emit(
                    "node.cancelled",
                    {"nodeId": self.active_node, "reason": reason},
                    self.active_node,
                )
            self.emit(
                "run.cancelled",
                {"reason": reason, "cancelledBy": "api", "durationMs": self.duration_ms()},
            )
        self.stop.set()
        return True

    def pause(self, reason: str | None) -> str:
        """Ask for a pause; when it was asked (`RunConflict` if the run is paused, pausing or
        ended). It takes effect now unless a node is running, else once that node ends."""
        with self.cond:
            if self.terminal:
                raise RunConflict(self.status, True)
            if self.status == "paused" or self._pause is not None:
                raise RunConflict("paused", False, self.paused_at)
            self._pause = {"drainPolicy": DRAIN_POLICY}
            if reason:
                self._pause["reason"] = reason
            asked = self.identity.now()
            if self.active_node is None or self.open_interrupt() is not None:
                self.settle_pause()
            return self.paused_at or asked

    def settle_pause(self) -> None:
        """A node boundary (between steps, or a node suspended on a question): a pause asked
        for takes effect now."""
        with self.cond:
            if self._pause is None or self.terminal:
                return
            payload, self._pause = self._pause, None
            doc = self.emit("run.paused", payload)
            self.status = "paused"
            self.paused_at = doc["timestamp"] if doc else self.identity.now()

    def resume(self, reason: str | None) -> str:
        """End the pause (`RunConflict` if the run is not paused); when. A pause asked for and
        not in effect yet is simply dropped: nothing stopped, so nothing resumes."""
        with self.cond:
            if self.terminal:
                raise RunConflict(self.status, True)
            if self._pause is not None:
                self._pause = None
                return self.identity.now()
            if self.status != "paused":
                raise RunConflict(self.status, False)
            waiting = self.open_interrupt()
            # Back to what it was doing: waiting for its question's answer, or running.
            self.status = waiting.ask.waiting_status if waiting is not None else "running"
            self.paused_at = None
            doc = self.emit("run.resumed", {"reason": reason} if reason else {})
            return doc["timestamp"] if doc else self.identity.now()

    def hold(self) -> bool:
        """Before each step of the driver: settle an asked-for pause, then wait while the run
        is paused. False when the run ended or the host is shutting down meanwhile."""
        with self.cond:
            self.settle_pause()
            self.cond.wait_for(lambda: self.status != "paused" or self.stop.is_set() or self.closed)
            return not (self.stop.is_set() or self.closed or self.terminal)

    def open_interrupt(self) -> Interrupt | None:
        """The question the run waits on, or ``None``."""
        with self.cond:
            waiting = [i for i in self.interrupts.by_node.values() if i.state == "open"]
            return waiting[-1] if waiting else None

    def wait_after(self, after: int, timeout: float | None) -> Batch:
        """Events with sequence > ``after``, waiting up to ``timeout`` s (``None``: no limit) for
        at least one."""
        with self.cond:
            self.cond.wait_for(
                lambda: len(self.events) > after + 1 or self.terminal or self.closed, timeout
            )
            return Batch(
                events=self.events[after + 1 :],
                done=self.closed or self.terminal,
                status=self.status,
                last_sequence=len(self.events) - 1,
            )

    def snapshot(self) -> dict[str, Any]:
        """The ``GET /v1/runs/{runId}`` body."""
        with self.cond:
            body: dict[str, Any] = {
                "runId": self.run_id,
                "workflowId": self.workflow_id,
                "status": self.status,
                "startedAt": self.started_at,
            }
            if self.completed_at is not None:
                body["completedAt"] = self.completed_at
            if self.error is not None:
                body["error"] = self.error
            latest = self.open_interrupt()
            # A run that ended (cancelled while it asked) has no question left to answer.
            if latest is not None and not self.terminal:
                # spec: `currentNodeId` while suspended, and the open `interrupt` (the Postgres
                # host's shape: kind, nodeId, payload, interruptToken), so a client attaching
                # after the question was asked can still answer it.
                body["currentNodeId"] = latest.node_id
                body["interrupt"] = latest.snapshot_entry()
            return body


class RunStore:
    """All runs of one host, the idempotency table, and the workflow threads."""

    def __init__(
        self,
        workflows: Mapping[str, Workflow],
        assets: AssetStore,
        pace: float,
        identity: Identity | None = None,
    ) -> None:
        """An empty store of runs.

        Args:
            workflows: The workflows a run may start, by id.
            assets: Where workflows put the media they serve.
            pace: Multiplies every pause a workflow asks for (0: none).
            identity: Makes ids, tokens and timestamps; None for a fresh, not deterministic one.
        """
        self.workflows = workflows
        self.identity = identity or Identity()
        self.assets = assets
        self.pace = pace
        self.base_url = ""
        """Set by the host once bound; workflows use it for absolute media URLs."""
        self.list_key = secrets.token_bytes(16)
        """Signs ``GET /runs`` cursors (`run_list`), so a forged one is refused."""
        self._lock = threading.Lock()
        self._runs: dict[str, Run] = {}
        self._idempotency: dict[str, tuple[str, str]] = {}
        self._threads: list[threading.Thread] = []
        self._closing = False

    def get(self, run_id: str) -> Run | None:
        """The run with this id, or ``None``."""
        with self._lock:
            return self._runs.get(run_id)

    def all_runs(self) -> list[Run]:
        """Every run, oldest first (the order they were created in)."""
        with self._lock:
            return list(self._runs.values())

    def create(
        self,
        workflow_id: str,
        inputs: Mapping[str, Any],
        metadata: Mapping[str, Any],
        body: Any,
        idempotency_key: str | None,
        tenant: str = TENANT,
    ) -> tuple[Run, bool]:
        """Start a run (the workflow must exist); returns it and whether this was a replay.

        Args:
            workflow_id: The workflow to run.
            inputs: The run's inputs.
            metadata: The run's metadata, echoed in its ``run.started`` event when not empty.
            body: The whole request body, fingerprinted for the idempotency check.
            idempotency_key: With a key already seen, the same body returns the original run and a
                different body raises `IdempotencyMismatch`; None for no key.
            tenant: The tenant whose key started it: the uploads its workflow may read are that
                tenant's (runs themselves are not partitioned by tenant).
        """
        fingerprint = _fingerprint(body)
        with self._lock:
            if idempotency_key is not None and idempotency_key in self._idempotency:
                seen_fingerprint, run_id = self._idempotency[idempotency_key]
                if seen_fingerprint != fingerprint:
                    raise IdempotencyMismatch(idempotency_key)
                return self._runs[run_id], True
            run = Run(self.identity.run_id(), workflow_id, self.identity)
            run.create_response = {
                "runId": run.run_id,
                "status": "running",
                "workflowId": workflow_id,
                "eventsUrl": f"/v1/runs/{run.run_id}/events",
                "statusUrl": f"/v1/runs/{run.run_id}",
                "startedAt": run.started_at,
            }
            self._runs[run.run_id] = run
            if idempotency_key is not None:
                self._idempotency[idempotency_key] = (fingerprint, run.run_id)
            started: dict[str, Any] = {
                "workflowId": workflow_id,
                "inputs": dict(inputs),
                "transport": "rest",
            }
            if metadata:
                started["metadata"] = dict(metadata)
            # Recorded before the 201 goes out, so a client never sees an empty log.
            run.emit("run.started", started)
            ctx = WorkflowContext(
                run.run_id,
                workflow_id,
                inputs,
                self.base_url,
                self.assets,
                self.identity,
                tenant=tenant,
            )
            thread = threading.Thread(
                target=self._drive,
                args=(run, self.workflows[workflow_id], ctx),
                name=f"demo-run-{run.run_id}",
                daemon=True,
            )
            self._threads.append(thread)
            if self._closing:
                run.stop.set()
            thread.start()
            return run, False

    def _drive(self, run: Run, workflow: Workflow, ctx: WorkflowContext) -> None:
        steps = workflow(ctx)
        try:
            # `hold` before each step is taken from the workflow: a paused run takes none.
            while run.hold() and (step := next(steps, None)) is not None:
                if isinstance(step, Pause):
                    delay = step.seconds * self.pace
                    if delay > 0 and run.stop.wait(delay):
                        return
                elif isinstance(step, Emit):
                    run.emit(step.type, step.payload, step.node_id, step.causation_id)
                elif isinstance(step, Ask) and not step.block(run):
                    return  # the run ended (cancel, shutdown) while it waited for an answer
            if run.stop.is_set() or run.closed or run.terminal:
                return
            # A workflow that forgot its terminal event still ends its run.
            run.emit("run.completed", {"outputs": {}, "durationMs": run.duration_ms()})
        except Exception as exc:  # a demo bug must fail the run, not hang its streams
            logger.debug("demo workflow %s crashed", run.workflow_id, exc_info=True)
            run.emit(
                "run.failed",
                {
                    "error": {"code": "internal_error", "message": f"demo workflow crashed: {exc}"},
                    "durationMs": run.duration_ms(),
                },
            )
        finally:
            steps.close()

    def shutdown(self, timeout: float = 5.0) -> None:
        """Stop every workflow, wake every waiting stream, and join the workflow threads."""
        with self._lock:
            self._closing = True
            runs = list(self._runs.values())
            threads = list(self._threads)
        for run in runs:
            run.stop.set()
            with run.cond:
                run.closed = True
                run.cond.notify_all()
        for thread in threads:
            thread.join(timeout)


def _fingerprint(body: Any) -> str:
    """What tells two start requests' bodies apart (key order aside), for `Idempotency-Key`.

    orjson first: a chat's body carries its whole history, and `json.dumps` of it sorted was a
    good part of each turn's work on the host at 500 turns; it refuses what JSON may hold but
    it cannot write (an integer past 64 bits), which takes the slow way."""
    try:
        text = orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # (orjson.JSONEncodeError is one)
        text = json.dumps(body, sort_keys=True).encode()
    return hashlib.sha256(text).hexdigest()
