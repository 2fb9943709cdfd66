"""Interrupts on the demo host: the `Ask` step, the per-run book of interrupts, resolving them,
and the signed resolution tokens (protocol.md §5 C; spec/v1/interrupt.md).

A workflow yields an `Ask`; the driver calls `Ask.block`, which registers the interrupt *before*
announcing it (so a client that answers the instant it sees ``interrupt.requested`` never gets a
404), records ``node.suspended`` and ``interrupt.requested`` (and the legacy events the reference
hosts send), then waits on the run's condition until the interrupt is resolved, expires, or the
run ends. Resolving happens on an HTTP thread (`resolve`): validate, record ``interrupt.resolved``
and the kind's own event, wake the workflow. Both sides hold ``run.cond``, so one interrupt is
resolved at most once and a race loses with ``409``.

Outcomes a resolver gets, in the order they are checked: ``410 interrupt_expired`` (past its
deadline or its token's), ``409 interrupt_already_resolved``, ``422 interrupt_cancelled`` (run
ended meanwhile; ``409`` on the token route, as RFC 0093 asks), ``400 validation_error``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openwop_tui.demo_host.runs import Run

#: The spec's recommended default lifetime of a signed token (interrupt.md §Signed tokens).
TOKEN_LIFETIME_S = 30 * 60

# One secret per process: tokens are capabilities, so they must not be forgeable; a token from
# another host in this process still fails, because its run is not found there.
_SECRET = secrets.token_bytes(32)

Events = list[tuple[str, dict[str, Any]]]

#: The ``kind`` values ``node.suspended`` and ``interrupt.resolved`` take in the v1 payload
#: schemas (run-event-payloads ``nodeSuspended``, ``interruptResolved``). The other kinds
#: (``low-confidence``, ``conversation.*``) are named on ``interrupt.requested`` only; on
#: ``node.suspended`` their ``reason`` says why (interrupt.md: ``low-confidence``,
#: ``conversation-input``), so there ``kind`` is left out rather than sent out of its enum.
SUSPENDED_KINDS = frozenset({"approval", "clarification", "external-event", "custom"})


def _kind_field(kind: str) -> dict[str, str]:
    return {"kind": kind} if kind in SUSPENDED_KINDS else {}


class ResolveError(Exception):
    """A resolve refused: the route answers ``status`` with the spec's error body."""

    def __init__(
        self, status: int, code: str, message: str, details: dict[str, Any] | None = None
    ) -> None:
        """A refused resolve, as the route answers it.

        Args:
            status: The HTTP status (400, 404, 409, 410…).
            code: The error code of the body.
            message: The error message of the body.
            details: The body's ``details``; None for none.
        """
        super().__init__(message)
        self.status, self.code, self.message, self.details = status, code, message, details


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _mac(payload: str) -> str:
    return _b64(hmac.new(_SECRET, payload.encode(), hashlib.sha256).digest())


def sign_token(claims: dict[str, Any]) -> str:
    """``base64url(payload) + "." + hmac_sha256(secret, payload)`` (interrupt.md)."""
    payload = _b64(json.dumps(claims, separators=(",", ":"), sort_keys=True).encode())
    return f"{payload}.{_mac(payload)}"


def read_token(token: str) -> dict[str, Any] | None:
    """The claims of a token this process signed, or ``None`` (malformed or forged)."""
    payload, dot, mac = token.partition(".")
    if not dot or not payload or len(token) > 2048:
        return None
    # compare_digest: how much of a forged MAC matched must not show in the timing.
    if not hmac.compare_digest(mac.encode(), _mac(payload).encode()):
        return None
    try:
        claims = json.loads(_unb64(payload))
    except (ValueError, UnicodeDecodeError):
        return None
    return claims if isinstance(claims, dict) else None


@dataclass(eq=False)
class Interrupt:
    """One interrupt of one run, as the book holds it."""

    ask: Ask
    run_id: str
    interrupt_id: str
    key: str
    requested_at: str
    deadline: float | None
    """`time.monotonic` moment the interrupt expires (``None``: never)."""
    token: str
    token_expires_at: str
    token_deadline: float
    state: str = "open"
    """``open``, ``resolved``, ``expired`` or ``cancelled``."""
    replies: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    """Idempotency-Key → (body fingerprint, response), for resolves retried after success."""

    @property
    def node_id(self) -> str:
        """The suspended node."""
        return self.ask.node_id

    def past_deadline(self, *, via_token: bool = False) -> bool:
        """True once the interrupt (or, on the token route, its token) has expired."""
        now = time.monotonic()
        if self.deadline is not None and now >= self.deadline:
            return True
        return via_token and now >= self.token_deadline

    def callback_url(self) -> str:
        """The signed-token route for this interrupt."""
        return f"/v1/interrupts/{self.token}"

    def snapshot_entry(self) -> dict[str, Any]:
        """The run snapshot's ``interrupt`` while this one is open."""
        entry: dict[str, Any] = {
            "kind": self.ask.kind,
            "nodeId": self.node_id,
            "interruptId": self.interrupt_id,
            "payload": self.ask.data,
            "interruptToken": self.token,
            "callbackUrl": self.callback_url(),
        }
        if self.ask.resume_schema is not None:
            entry["resumeSchema"] = self.ask.resume_schema
        return entry

    def inspection(self) -> dict[str, Any]:
        """What ``GET /v1/interrupts/{token}`` answers (kind, key, data, schema, expiry)."""
        body: dict[str, Any] = {
            "runId": self.run_id,
            "nodeId": self.node_id,
            "interruptId": self.interrupt_id,
            "kind": self.ask.kind,
            "key": self.key,
            "data": self.ask.data,
            "requestedAt": self.requested_at,
            "expiresAt": self.token_expires_at,
            "status": self.state,
        }
        if self.ask.resume_schema is not None:
            body["resumeSchema"] = self.ask.resume_schema
        if self.ask.timeout_ms is not None:
            body["timeoutMs"] = self.ask.timeout_ms
        return body


class InterruptBook:
    """A run's interrupts by node and by id (guarded by the run's condition)."""

    def __init__(self) -> None:
        self.by_node: dict[str, Interrupt] = {}
        """The latest interrupt of each node (what the run-scoped route resolves)."""
        self.by_id: dict[str, Interrupt] = {}
        self.count = 0


def _nothing(_: Interrupt) -> Events:
    return []


def _nothing_resolved(_: Interrupt, __: Any) -> Events:
    return []


@dataclass(eq=False)
class Ask:
    """A step: suspend ``node_id`` on an interrupt and wait for its answer.

    ``validate`` turns a resume value into what the workflow uses, or raises `ResolveError`
    (400). ``suspended`` is merged into the ``node.suspended`` payload (the reference hosts'
    ``config``, a ``reason``); ``after_suspend`` events follow it, caused by it (RFC 0005
    ``conversation.opened``), and are recorded once the interrupt is registered even when
    ``announce_suspend`` is off (a conversation's reply turn: a client answering it at once
    must find the next interrupt open); ``requested`` builds the legacy events that follow
    ``interrupt.requested``; ``resolved`` builds the events that follow ``interrupt.resolved``.
    After the step: ``outcome`` is ``resolved`` (``value`` holds the validated answer) or
    ``expired``.
    """

    node_id: str
    kind: str
    data: dict[str, Any]
    validate: Callable[[Any], Any]
    waiting_status: str = "waiting-input"
    resume_schema: dict[str, Any] | None = None
    timeout_ms: int | None = None
    suspended: dict[str, Any] = field(default_factory=dict)
    announce_suspend: bool = True
    after_suspend: Events = field(default_factory=list)
    requested: Callable[[Interrupt], Events] = _nothing
    resolved: Callable[[Interrupt, Any], Events] = _nothing_resolved
    outcome: str = "pending"
    value: Any = None
    raw: Any = None
    interrupt: Interrupt | None = None

    def block(self, run: Run) -> bool:
        """Register, announce and wait (called by the driver); False if the run ended."""
        with run.cond:
            if run.terminal or run.closed:
                return False
            interrupt = self._register(run)
            self._announce(run, interrupt)
            run.status = self.waiting_status
            run.settle_pause()  # the node has suspended: a pause asked for takes effect
            while interrupt.state == "open":
                if run.terminal or run.closed or run.stop.is_set():
                    interrupt.state = "cancelled"
                    return False
                if interrupt.past_deadline():
                    interrupt.state = "expired"
                    self.outcome = "expired"
                    if run.status == self.waiting_status:  # (a paused run stays paused)
                        run.status = "running"
                    return True
                left = None if interrupt.deadline is None else interrupt.deadline - time.monotonic()
                # Woken by every event (emit notifies), by cancel and by shutdown; the bound
                # only matters for the deadline.
                run.cond.wait(None if left is None else max(left, 0.001))
            self.outcome = "resolved"
            return True

    def _register(self, run: Run) -> Interrupt:
        book = run.interrupts
        key = f"{run.run_id}:{self.node_id}:{book.count}"
        book.count += 1
        interrupt_id = "intr_" + hashlib.sha256(key.encode()).hexdigest()[:20]
        now = datetime.now(UTC)
        lifetime = float(TOKEN_LIFETIME_S)
        deadline: float | None = None
        if self.timeout_ms is not None:
            # A token must not outlive the interrupt it resolves (RFC 0093).
            lifetime = min(lifetime, self.timeout_ms / 1000)
            deadline = time.monotonic() + self.timeout_ms / 1000
        expires_at = _iso(now + timedelta(seconds=lifetime))
        token = sign_token(
            {
                "runId": run.run_id,
                "nodeId": self.node_id,
                "interruptId": interrupt_id,
                "expiresAt": expires_at,
                "intent": "resolve",
            }
        )
        interrupt = Interrupt(
            ask=self,
            run_id=run.run_id,
            interrupt_id=interrupt_id,
            key=key,
            requested_at=_iso(now),
            deadline=deadline,
            token=token,
            token_expires_at=expires_at,
            token_deadline=time.monotonic() + lifetime,
        )
        book.by_node[self.node_id] = book.by_id[interrupt_id] = interrupt
        self.interrupt = interrupt
        return interrupt

    def _announce(self, run: Run, interrupt: Interrupt) -> None:
        ids = {"nodeId": self.node_id, "interruptId": interrupt.interrupt_id}
        callback = {"interruptToken": interrupt.token, "callbackUrl": interrupt.callback_url()}
        cause = None
        if self.announce_suspend:
            suspended = run.emit(
                "node.suspended",
                {
                    **ids,
                    **_kind_field(self.kind),
                    "key": interrupt.key,
                    **self.suspended,
                    **callback,
                },
                self.node_id,
            )
            cause = suspended["eventId"] if suspended else None
        # Recorded after registration, so whoever reacts to them finds the interrupt open.
        for type_, payload in self.after_suspend:
            run.emit(type_, payload, self.node_id, cause)
        requested: dict[str, Any] = {
            "runId": run.run_id,
            **ids,
            "kind": self.kind,
            "key": interrupt.key,
            "data": self.data,
            "requestedAt": interrupt.requested_at,
            **callback,
        }
        if self.resume_schema is not None:
            requested["resumeSchema"] = self.resume_schema
        if self.timeout_ms is not None:
            requested["timeoutMs"] = self.timeout_ms
        run.emit("interrupt.requested", requested, self.node_id)
        for type_, payload in self.requested(interrupt):
            run.emit(type_, payload, self.node_id)


def _fingerprint(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def resolve(
    run: Run,
    interrupt: Interrupt,
    resume_value: Any,
    *,
    via_token: bool = False,
    idempotency_key: str | None = None,
) -> dict[str, Any]:
    """Resolve an interrupt with a resume value; the response body, or `ResolveError`.

    Args:
        run: The run waiting on the interrupt.
        interrupt: The interrupt resolved.
        resume_value: The answer.
        via_token: True when it came by the signed-token route, which also refuses it once the token
            has expired.
        idempotency_key: The request's ``Idempotency-Key``: the same key again returns the first
            reply, or 409 with a different answer; None for none.
    """
    with run.cond:
        if idempotency_key is not None and idempotency_key in interrupt.replies:
            seen, reply = interrupt.replies[idempotency_key]
            if seen != _fingerprint(resume_value):
                raise ResolveError(
                    409,
                    "idempotency_key_mismatch",
                    "this Idempotency-Key was already used with a different answer",
                )
            return reply
        if interrupt.state == "expired" or (
            interrupt.state == "open" and interrupt.past_deadline(via_token=via_token)
        ):
            if interrupt.past_deadline():
                interrupt.state = "expired"
                run.cond.notify_all()
            raise ResolveError(
                410,
                "interrupt_expired",
                f"interrupt {interrupt.interrupt_id} expired before it was answered",
                {"interruptId": interrupt.interrupt_id},
            )
        if interrupt.state == "resolved":
            raise ResolveError(
                409,
                "interrupt_already_resolved",
                f"interrupt {interrupt.interrupt_id} on node '{interrupt.node_id}' "
                "has already been answered",
                {"interruptId": interrupt.interrupt_id},
            )
        if interrupt.state == "cancelled" or run.terminal or run.closed:
            interrupt.state = "cancelled"
            if via_token:
                # RFC 0093: a token invalidated by the run ending answers 409.
                raise ResolveError(
                    409,
                    "interrupt_already_resolved",
                    f"the run is {run.status}; this interrupt can no longer be answered",
                    {"runStatus": run.status},
                )
            raise ResolveError(
                422,
                "interrupt_cancelled",
                f"the run is {run.status}; this interrupt can no longer be answered",
                {"runStatus": run.status},
            )
        if run.status == "paused":
            # Only a resume (or a cancel) ends a pause: an answer would move the run on.
            raise ResolveError(
                409,
                "run_state_conflict",
                "the run is paused; resume it before answering",
                {"runStatus": run.status},
            )
        ask = interrupt.ask
        value = ask.validate(resume_value)  # ResolveError(400) on a bad answer
        interrupt.state = "resolved"
        ask.value, ask.raw = value, resume_value
        resolved_at = _iso(datetime.now(UTC))
        run.emit(
            "interrupt.resolved",
            {
                "runId": run.run_id,
                "nodeId": interrupt.node_id,
                "interruptId": interrupt.interrupt_id,
                **_kind_field(ask.kind),
                "resumeValue": resume_value,
                "resolvedAt": resolved_at,
                "resolvedBy": "callback-token" if via_token else "api-key",
            },
            interrupt.node_id,
        )
        for type_, payload in ask.resolved(interrupt, value):
            run.emit(type_, payload, interrupt.node_id)
        run.status = "running"
        run.cond.notify_all()
        reply = {
            "runId": run.run_id,
            "nodeId": interrupt.node_id,
            "interruptId": interrupt.interrupt_id,
            "kind": ask.kind,
            "status": "running",
            "resolvedAt": resolved_at,
        }
        if idempotency_key is not None:
            interrupt.replies[idempotency_key] = (_fingerprint(resume_value), reply)
        return reply
