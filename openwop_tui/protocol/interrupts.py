"""Interrupts: what a run waits for, read from whichever events a host sends, and the answers.

A run that waits for a person announces it in one of several ways (protocol.md §3.6, §5, §10):

* the spec's ``interrupt.requested`` ``{nodeId, interruptId, kind, key, data, resumeSchema?,
  timeoutMs?, requestedAt}``, often with the legacy ``clarification.requested`` /
  ``approval.requested`` beside it;
* ``node.suspended`` alone, which is all the SQLite and Postgres reference hosts send: ``{kind,
  nodeId, config{…}}`` for approvals and clarifications, ``{reason: "low-confidence", agentId,
  threshold, observed}`` for the Postgres host's low-confidence pause, ``interruptToken`` and
  ``callbackUrl`` for its external-event interrupts;
* the ``suspend`` aliases of interrupt.md (``reason`` for ``kind``, ``answerSchema`` for
  ``resumeSchema``, ``resumeKey`` for ``key``).

`read_request` turns any of them into one `InterruptRequest`; `InterruptRequest.merge` folds a
second event about the same interrupt into the first (the fold keeps one per node);
`request_from_snapshot` reads the open question of a run snapshot. `resolve_routes` says where
an answer goes; `summarize` and `describe_value` put a request and an answer in a line. The
answers themselves are built in `openwop_tui.protocol.interrupt_answers`, and checked against
the host's schema by `openwop_tui.protocol.resume_schema`.

Pure: no I/O, no clock.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from openwop_tui.protocol.resume_schema import (
    AnswerError,
    coerce,
    mapping,
    number,
    schema_problem,
    schema_property,
)

InterruptKind = Literal["clarification", "approval", "low-confidence", "conversation", "input"]
"""What the form asks for: answers to questions, a decision, a ratification, a chat turn, or a
value (``custom``, ``external-event`` and kinds this client does not know)."""

InterruptState = Literal["pending", "answered", "expired", "closed"]
"""``pending`` until answered (here or elsewhere), past its deadline (``expired``), or the run or
node ended while it waited (``closed``)."""

ClarificationShape = Literal["object", "list"]
"""``object``: ``{"answers": {"q1": "blue"}}`` (the SQLite and Postgres hosts); ``list``:
``{"answers": [{"id": "q1", "answer": "blue"}]}`` (interrupt.md ``ClarificationResume``)."""

#: Event types that ask for something; `read_request` reads each of them.
REQUEST_TYPES = frozenset(
    {"interrupt.requested", "clarification.requested", "approval.requested", "node.suspended"}
)

#: The approval actions of interrupt.md, each with the key its button carries in the app.
ACTION_KEYS: dict[str, str] = {
    "accept": "a",
    "reject": "r",
    "refine": "f",
    "edit-accept": "e",
    "ask": "q",
}

#: The label of each action on its button.
ACTION_LABELS: dict[str, str] = {
    "accept": "Accept",
    "reject": "Reject",
    "refine": "Refine with feedback",
    "edit-accept": "Edit and accept",
    "ask": "Ask a question",
}

#: What an approval offers when the host names no actions (the reference hosts' gate default).
DEFAULT_ACTIONS = ("accept", "reject")

#: Why a pause that names no interrupt cannot be answered (the Postgres host's low confidence).
NO_INTERRUPT = (
    "the host paused this run but offers no interrupt to resolve: cancel the run, "
    "or ratify it where the host allows"
)


@dataclass(frozen=True, slots=True)
class Choice:
    """One allowed answer: the ``value`` sent, the ``label`` shown."""

    value: Any
    label: str


@dataclass(frozen=True, slots=True)
class Question:
    """One question of a clarification: its id, text, choices (from ``schema.enum`` and the
    like) and the answer's JSON schema when the host gave one."""

    id: str
    text: str
    choices: tuple[Choice, ...] = ()
    schema: Mapping[str, Any] | None = None
    required: bool = True

    def check(self, raw: str) -> Any:
        """The value to send for the typed text ``raw``, or `AnswerError` saying why not.

        A choice matches by value or label, exactly or ignoring case when that is unambiguous;
        numbers and booleans are parsed when the schema asks for them; string length, pattern
        and number bounds are checked.
        """
        text = raw.strip()
        name = f"{self.id} ({_short(self.text)})" if self.text else self.id
        if not text:
            if self.required:
                raise AnswerError(f"question {name} needs an answer")
            return ""
        if self.choices:
            return self._choice(text, name)
        value = coerce(text, self.schema, name)
        problem = schema_problem(self.schema, value, name) if self.schema else None
        if problem:
            raise AnswerError(problem)
        return value

    def _choice(self, text: str, name: str) -> Any:
        for choice in self.choices:
            if text in (str(choice.value), choice.label):
                return choice.value
        folded = text.casefold()
        matches = [
            c for c in self.choices if folded in (str(c.value).casefold(), c.label.casefold())
        ]
        if len(matches) == 1:
            return matches[0].value
        allowed = ", ".join(c.label for c in self.choices)
        raise AnswerError(f"question {name} takes one of: {allowed} (got {_short(text)!r})")


@dataclass(frozen=True, slots=True)
class Route:
    """Where an answer goes: ``run`` is ``POST …/runs/{runId}/interrupts/{nodeId}`` (Bearer key,
    scope ``approvals:respond``), ``token`` is ``POST …/interrupts/{token}`` (the token is the
    authorization: no Bearer key). Both take ``{"resumeValue": …}``."""

    kind: Literal["run", "token"]
    run_id: str | None = None
    node_id: str | None = None
    token: str | None = None


@dataclass(slots=True)
class InterruptRequest:
    """Everything the host said about one interrupt, merged over the events that told of it."""

    kind: InterruptKind
    node_id: str | None = None
    interrupt_id: str | None = None
    run_id: str | None = None
    host_kind: str | None = None
    """The host's own ``kind`` (``conversation.exchange``, ``external-event``, ``custom``…)."""
    key: str | None = None
    title: str | None = None
    description: str | None = None
    prompt: str | None = None
    """A conversation turn's prompt, or a custom interrupt's message."""
    questions: tuple[Question, ...] = ()
    actions: tuple[str, ...] = ()
    """The approval actions the host allows, in its order (``()``: it named none)."""
    reason: str | None = None
    """``node.suspended.reason``: ``low-confidence``, ``conversation-input``…"""
    agent_id: str | None = None
    confidence: float | None = None
    """The agent's observed confidence (low confidence)."""
    threshold: float | None = None
    """The escalation threshold it fell below (low confidence)."""
    decision: Any = None
    """The decision awaiting ratification (low confidence), when the host sent it."""
    conversation_id: str | None = None
    turn_index: int | None = None
    artifact_id: str | None = None
    artifact_type: str | None = None
    resume_schema: Mapping[str, Any] | None = None
    """``resumeSchema`` (or a conversation's ``outcomeSchema``): what the answer must match."""
    token: str | None = None
    """The signed resolution token, from ``interruptToken``/``token`` or a ``callbackUrl``."""
    requested_at: str | None = None
    timeout_ms: float | None = None
    expires_at: str | None = None
    """ISO 8601: the host's ``expiresAt``, else ``requestedAt`` + ``timeoutMs``."""
    clarification_shape: ClarificationShape = "list"
    """How answers go when no ``resumeSchema`` says: ``object`` once a reference-host
    ``node.suspended {config}`` told of the interrupt, the spec's ``list`` otherwise."""
    data: Mapping[str, Any] = field(default_factory=dict)
    """The interrupt's ``data`` (or ``config``) as sent, for kinds without a form of their own."""
    sources: list[str] = field(default_factory=list)
    """The event types that told of it, in order."""

    # --------------------------------------------------------------------- derived

    @property
    def answerable(self) -> bool:
        """Whether there is something to resolve. A low-confidence pause that names no interrupt
        (no id, no token, no ``interrupt.requested``: the Postgres host) is not: see
        `unanswerable_reason`."""
        if self.kind != "low-confidence":
            return True
        return bool(self.interrupt_id or self.token or "interrupt.requested" in self.sources)

    @property
    def unanswerable_reason(self) -> str | None:
        """The sentence to show instead of the actions when `answerable` is false."""
        return None if self.answerable else NO_INTERRUPT

    @property
    def offered_actions(self) -> tuple[str, ...]:
        """The decision buttons to draw: the host's actions, else the schema's ``action`` enum,
        else accept / reject (approvals and answerable low-confidence pauses only)."""
        if self.kind not in ("approval", "low-confidence") or not self.answerable:
            return ()
        if self.actions:
            return self.actions
        enum = schema_property(self.resume_schema, "action").get("enum")
        if isinstance(enum, list) and enum:
            return tuple(str(a) for a in enum)
        return DEFAULT_ACTIONS

    @property
    def conversation_op(self) -> str | None:
        """``start``, ``exchange`` or ``close`` for a conversation interrupt."""
        if self.kind != "conversation":
            return None
        if self.host_kind and self.host_kind.startswith("conversation."):
            return self.host_kind.split(".", 1)[1]
        return "exchange"

    def routes(self) -> tuple[Route, ...]:
        """Where to send the answer, best first (see `resolve_routes`)."""
        return resolve_routes(self)

    def expired(self, now: datetime) -> bool:
        """Whether ``now`` is past `expires_at` (``False`` when there is none)."""
        deadline = _parse_time(self.expires_at)
        return deadline is not None and now >= deadline

    def same_as(self, other: InterruptRequest) -> bool:
        """Whether ``other`` tells of this interrupt: the same node, and the same interrupt id
        when both have one (the reference hosts' ``node.suspended`` carries none)."""
        if self.node_id != other.node_id:
            return False
        return not (self.interrupt_id and other.interrupt_id) or (
            self.interrupt_id == other.interrupt_id
        )

    def merge(self, other: InterruptRequest) -> None:
        """Fill what this request lacks from ``other`` (a second event about the same interrupt).

        A specific kind replaces the generic ``input`` (``node.suspended`` may say only
        "suspended" where ``clarification.requested`` says what for); values already known stay.
        """
        if self.kind == "input" and other.kind != "input":
            self.kind = other.kind
            self.host_kind = other.host_kind or self.host_kind
        for name in _MERGED:
            if not getattr(self, name) and getattr(other, name):
                setattr(self, name, getattr(other, name))
        for name in ("confidence", "threshold", "timeout_ms", "turn_index", "decision"):
            if getattr(self, name) is None:
                setattr(self, name, getattr(other, name))
        if other.clarification_shape == "object":
            self.clarification_shape = "object"
        self.sources.extend(other.sources)


_MERGED = (
    "interrupt_id",
    "run_id",
    "host_kind",
    "key",
    "title",
    "description",
    "prompt",
    "questions",
    "actions",
    "reason",
    "agent_id",
    "conversation_id",
    "artifact_id",
    "artifact_type",
    "resume_schema",
    "token",
    "requested_at",
    "expires_at",
    "data",
)


# ------------------------------------------------------------------------------- reading


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _first(sources: Sequence[Mapping[str, Any]], *names: str) -> Any:
    """The first non-empty value of any of ``names`` in any of ``sources``, in order."""
    for source in sources:
        for name in names:
            value = source.get(name)
            if value is not None and value != "" and value != [] and value != {}:
                return value
    return None


def kind_of(host_kind: str | None, reason: str | None = None) -> InterruptKind:
    """The form for a host's ``kind`` (or, without one, ``node.suspended.reason``)."""
    for name in (host_kind, reason):
        if not name:
            continue
        if name in ("approval", "clarification", "low-confidence"):
            return name  # type: ignore[return-value]  # one of the literals, checked above
        if name.startswith("conversation"):
            return "conversation"
    return "input"


def _choices(value: Any) -> tuple[Choice, ...]:
    """Choices from ``enum`` values, ``oneOf[{const, title}]``, or ``[{value, label}]`` lists."""
    if not isinstance(value, list):
        return ()
    found: list[Choice] = []
    for entry in value[:200]:
        if isinstance(entry, Mapping):
            raw = entry.get("const", entry.get("value", entry.get("id")))
            if raw is None:
                continue
            label = _text(entry.get("title")) or _text(entry.get("label")) or str(raw)
            found.append(Choice(raw, label))
        elif isinstance(entry, str | int | float | bool):
            found.append(Choice(entry, str(entry)))
    return tuple(found)


def read_questions(value: Any) -> tuple[Question, ...]:
    """Questions from a host's ``questions[]``: ``{id, question, schema?}`` and its aliases
    (``text``/``prompt``/``label``, ``choices``/``options``, ``answerSchema``)."""
    if not isinstance(value, list):
        return ()
    questions: list[Question] = []
    for index, entry in enumerate(value[:100]):
        if isinstance(entry, str):
            entry = {"question": entry}
        if not isinstance(entry, Mapping):
            continue
        schema = entry.get("schema", entry.get("answerSchema"))
        schema = schema if isinstance(schema, Mapping) else None
        choices = _choices(entry.get("choices") or entry.get("options"))
        if not choices and schema is not None:
            choices = _choices(schema.get("enum")) or _choices(schema.get("oneOf"))
        text = _first([entry], "question", "text", "prompt", "label")
        required = entry.get("required")
        questions.append(
            Question(
                id=_text(entry.get("id")) or f"q{index + 1}",
                text=str(text) if text is not None else "",
                choices=choices,
                schema=schema,
                required=required is not False,
            )
        )
    return tuple(questions)


def _token_from(url: Any) -> str | None:
    """The token of a signed-token URL (``…/interrupts/{token}``), never the URL itself: the
    client posts the token to its own host, wherever the URL points."""
    if not isinstance(url, str):
        return None
    match = re.search(r"/interrupts/([^/?#]+)", url)
    return match.group(1) if match else None


def _expiry(expires: Any, requested: str | None, timeout_ms: float | None) -> str | None:
    if _parse_time(expires) is not None:
        return str(expires)
    start = _parse_time(requested)
    if start is None or timeout_ms is None or timeout_ms <= 0:
        return None
    try:
        return (start + timedelta(milliseconds=timeout_ms)).isoformat()
    except OverflowError:  # a timeout past the year 9999: no deadline worth showing
        return None


def _parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def read_request(
    event_type: str,
    payload: Mapping[str, Any],
    *,
    node_id: str | None = None,
    run_id: str | None = None,
    timestamp: str | None = None,
) -> InterruptRequest:
    """One interrupt from one event (``REQUEST_TYPES``) or a snapshot's ``interrupt``.

    Fields are looked up in the interrupt's ``data`` (spec), then its ``config`` (reference hosts),
    then the payload itself (legacy events, the Postgres low-confidence pause).

    Args:
        event_type: The event's type (``interrupt.requested``, ``approval.requested``…); it names
            the kind when the payload does not.
        payload: The event's payload, or the snapshot's ``interrupt``.
        node_id: The event's node id, used when the payload names none; None when unknown.
        run_id: The event's run id, used when the payload names none; None when unknown.
        timestamp: The event's time, used when the payload has no ``requestedAt``; None when
            unknown.
    """
    data = mapping(payload.get("data"))
    config = mapping(payload.get("config"))
    inner = mapping(data.get("payload")) if data.get("customKind") else {}
    sources = [data, config, payload, inner]
    host_kind = _text(payload.get("kind")) or _text(data.get("kind"))
    if host_kind is None and event_type in ("clarification.requested", "approval.requested"):
        host_kind = event_type.split(".", 1)[0]
    reason = _text(payload.get("reason"))
    if host_kind is None and reason in ("low-confidence", "approval", "clarification"):
        host_kind = reason  # the `suspend` alias: `reason` is the kind
    questions = read_questions(_first(sources, "questions"))
    raw_actions = _first(sources, "actions")
    actions = tuple(str(a) for a in raw_actions[:20]) if isinstance(raw_actions, list) else ()
    kind = kind_of(host_kind, reason)
    if kind == "input" and host_kind is None:
        kind = "clarification" if questions else "approval" if actions else "input"
    schema = _first(sources, "resumeSchema", "answerSchema", "outcomeSchema")
    requested = _text(_first(sources, "requestedAt")) or timestamp
    timeout = number(_first(sources, "timeoutMs"))
    turn = _first(sources, "turnIndex")
    prompt = _first(sources, "prompt", "initialPrompt", "message")
    request = InterruptRequest(
        kind=kind,
        node_id=_text(payload.get("nodeId")) or node_id,
        interrupt_id=_text(payload.get("interruptId")) or _text(data.get("interruptId")),
        run_id=_text(payload.get("runId")) or run_id,
        host_kind=host_kind,
        key=_text(_first(sources, "key", "resumeKey")),
        title=_text(_first(sources, "title")),
        description=_text(_first(sources, "description")),
        prompt=prompt if isinstance(prompt, str) else None,
        questions=questions,
        actions=actions,
        reason=reason,
        agent_id=_text(_first(sources, "agentId")),
        confidence=number(_first(sources, "observed", "confidence")),
        threshold=number(_first(sources, "threshold")),
        decision=_first(sources, "decision"),
        conversation_id=_text(_first(sources, "conversationId")),
        turn_index=turn if isinstance(turn, int) and not isinstance(turn, bool) else None,
        artifact_id=_text(_first(sources, "artifactId")),
        artifact_type=_text(_first(sources, "artifactType")),
        resume_schema=schema if isinstance(schema, Mapping) else None,
        token=_text(_first(sources, "interruptToken", "token", "resumeToken"))
        or _token_from(_first(sources, "callbackUrl", "resumeUrl", "resolveUrl")),
        requested_at=requested,
        timeout_ms=timeout,
        expires_at=_expiry(_first(sources, "expiresAt"), requested, timeout),
        # The reference hosts describe their gates under `config` and take answers keyed by id.
        clarification_shape="object" if event_type == "node.suspended" and config else "list",
        data=data or config,
        sources=[event_type],
    )
    return request


def request_from_snapshot(snapshot: Mapping[str, Any]) -> InterruptRequest | None:
    """The open interrupt of a ``GET …/runs/{runId}`` snapshot (for attaching to a waiting run),
    or ``None``. The Postgres host sends ``interrupt {kind, nodeId, payload, interruptToken?}``."""
    found = snapshot.get("interrupt")
    if not isinstance(found, Mapping):
        return None
    inner = mapping(found.get("payload"))
    merged: dict[str, Any] = {**inner, **{k: v for k, v in found.items() if k != "payload"}}
    node = _text(found.get("nodeId")) or _text(snapshot.get("currentNodeId"))
    request = read_request(
        "node.suspended", merged, node_id=node, run_id=_text(snapshot.get("runId"))
    )
    request.sources = ["snapshot"]
    return request


def resolve_routes(request: InterruptRequest) -> tuple[Route, ...]:
    """Where an answer can go, best first: the run-scoped route when the run and node are known
    (the client is authenticated), then the signed-token route when the host gave a token."""
    routes: list[Route] = []
    if request.run_id and request.node_id:
        routes.append(Route("run", run_id=request.run_id, node_id=request.node_id))
    if request.token:
        routes.append(Route("token", token=request.token))
    return tuple(routes)


def summarize(request: InterruptRequest) -> list[str]:
    """The parts of the one-line summary of a pending interrupt (the transcript's text)."""
    where = f" at node {request.node_id}" if request.node_id else ""
    parts: list[str] = []
    if request.kind == "clarification":
        parts.append(f"the run asks{where}")
        parts += [f"{q.id}: {q.text}" if q.text else q.id for q in request.questions]
    elif request.kind == "approval":
        parts.append(f"the run waits for approval{where}")
        parts += [p for p in (request.title, request.description) if p]
        parts.append(" / ".join(request.offered_actions))
    elif request.kind == "low-confidence":
        parts.append(f"the run paused for low confidence{where}")
        if request.agent_id:
            parts.append(request.agent_id)
        if request.confidence is not None and request.threshold is not None:
            parts.append(f"confidence {request.confidence:g} below {request.threshold:g}")
        elif request.confidence is not None:
            parts.append(f"confidence {request.confidence:g}")
        parts.append(request.unanswerable_reason or " / ".join(request.offered_actions))
    elif request.kind == "conversation":
        parts.append(f"the conversation waits for your turn{where}")
        parts += [p for p in (request.title, request.prompt) if p]
    else:
        what = request.host_kind or request.reason or "input"
        parts.append(f"the run waits for {what}{where}")
        parts += [p for p in (request.title, request.description, request.prompt) if p]
    return parts


def describe_value(value: Any, limit: int = 120) -> str:
    """A short line for a resume value (what was answered), for the transcript."""
    if isinstance(value, str):
        return _short(value, limit)
    if isinstance(value, Mapping):
        action = value.get("action")
        if isinstance(action, str):
            feedback = mapping(value.get("refineFeedback")).get("text") or value.get("feedback")
            return action + (f" · {_short(str(feedback), limit)}" if feedback else "")
        answers = value.get("answers")
        if isinstance(answers, Mapping):
            pairs: Iterable[tuple[Any, Any]] = answers.items()
            return _short(", ".join(f"{k}={v}" for k, v in pairs), limit)
        if isinstance(answers, list):
            items = [mapping(a) for a in answers]
            return _short(", ".join(f"{a.get('id')}={a.get('answer')}" for a in items), limit)
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return _short(text, limit)
