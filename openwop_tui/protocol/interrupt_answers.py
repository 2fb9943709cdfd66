"""The answers to interrupts: the ``resumeValue`` a person's input becomes.

The builders (`answer_clarification`, `answer_approval`, `answer_low_confidence`,
`answer_conversation`, `answer_input`, or `build_answer` for all of them) shape the value by the
interrupt's ``resumeSchema`` when the host gave one and by what the host is known to accept
otherwise (the SQLite host's ``{"answers": {"q1": "blue"}}`` against the spec's list), check it
with `openwop_tui.protocol.resume_schema`, and raise `AnswerError` with a sentence a person can
act on when the input does not fit.

Pure: no I/O, no clock (the builders take ``now``).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from openwop_tui.protocol.interrupts import NO_INTERRUPT, ClarificationShape, InterruptRequest
from openwop_tui.protocol.resume_schema import (
    AnswerError,
    mapping,
    parse_json,
    pattern_notes,
    schema_problem,
    schema_property,
)

__all__ = [
    "AnswerError",
    "answer_approval",
    "answer_clarification",
    "answer_conversation",
    "answer_input",
    "answer_low_confidence",
    "build_answer",
    "unchecked_patterns",
]


def unchecked_patterns(request: InterruptRequest) -> list[str]:
    """A sentence for each host ``pattern`` of ``request`` (its questions' schemas and its
    ``resumeSchema``) that cannot be checked here: an answer is sent unchecked against it and
    the host decides (`openwop_tui.protocol.resume_schema.pattern_notes`)."""
    notes: list[str] = []
    for question in request.questions:
        notes += pattern_notes(question.schema, f"the answer to {question.id}")
    return notes + pattern_notes(request.resume_schema, "the answer")


def _iso(now: datetime | None) -> str:
    moment = now if now is not None else datetime.fromtimestamp(0, UTC)
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _closed_to(schema: Mapping[str, Any] | None, value: dict[str, Any]) -> dict[str, Any]:
    """``value`` without the optional keys a closed ``resumeSchema`` does not list."""
    if schema is None or schema.get("additionalProperties") is not False:
        return value
    allowed = mapping(schema.get("properties"))
    required = schema.get("required")
    must = set(required) if isinstance(required, list) else set()
    return {k: v for k, v in value.items() if k in allowed or k in must}


def _checked(schema: Mapping[str, Any] | None, value: Any) -> Any:
    if schema is not None:
        problem = schema_problem(schema, value, "the answer")
        if problem:
            raise AnswerError(f"{problem} (the host's resumeSchema)")
    return value


def answer_clarification(
    request: InterruptRequest,
    answers: Mapping[str, str],
    *,
    shape: ClarificationShape | None = None,
) -> dict[str, Any]:
    """``{"answers": …}`` for typed ``answers`` (question id → text), each checked against its
    question. The shape follows the ``resumeSchema`` (``answers`` an array or an object), else
    ``shape``, else the one the host is known to take (`InterruptRequest.clarification_shape`).
    A clarification with one question also takes its answer under the id ``""``.
    """
    questions = request.questions
    if not questions:
        raise AnswerError("this clarification came without questions: nothing to answer")
    given = dict(answers)
    if "" in given and len(questions) == 1:
        given.setdefault(questions[0].id, given.pop(""))
    known = {q.id for q in questions}
    unknown = [key for key in given if key not in known]
    if unknown:
        ids = ", ".join(sorted(known))
        raise AnswerError(f"no question {unknown[0]!r} here; the questions are: {ids}")
    values: dict[str, Any] = {}
    for question in questions:
        raw = given.get(question.id)
        if raw is None:
            if question.required:
                question.check("")  # raises: the question needs an answer
            continue
        values[question.id] = question.check(raw)
    kind = schema_property(request.resume_schema, "answers").get("type")
    chosen: ClarificationShape
    if kind == "array":
        chosen = "list"
    elif kind == "object":
        chosen = "object"
    else:
        chosen = shape or request.clarification_shape
    body: Any = (
        {"answers": values}
        if chosen == "object"
        else {"answers": [{"id": key, "answer": value} for key, value in values.items()]}
    )
    return dict(_checked(request.resume_schema, body))


def answer_approval(
    request: InterruptRequest,
    action: str,
    *,
    feedback: str | None = None,
    edited: Any = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """An approval's resume: ``{action, decidedAt, feedback?}``.

    ``refine`` carries ``refineFeedback {scope: "whole", text}`` and needs feedback; ``edit-accept``
    carries ``editedArtifactData``.

    Args:
        request: The approval interrupt being answered.
        action: The chosen action; it must be one the host offers (``edit`` is read as
            ``edit-accept``).
        feedback: The person's words; required for ``refine``; None for none.
        edited: The edited artifact, required for ``edit-accept``; None otherwise.
        now: The decision time for ``decidedAt``; None means the epoch.
    """
    offered = request.offered_actions
    if action == "edit":  # interrupt.md's gate vocabulary names the resume action edit-accept
        action = "edit-accept"
    allowed = {"edit-accept" if a == "edit" else a for a in offered}
    if action not in allowed:
        names = ", ".join(offered) or "nothing"
        raise AnswerError(f"this approval does not offer {action!r}; it offers: {names}")
    feedback = feedback.strip() if feedback else None
    value: dict[str, Any] = {"action": action}
    if action == "refine":
        if not feedback:
            raise AnswerError("refining needs feedback text: say what to change")
        value["refineFeedback"] = {"scope": "whole", "text": feedback}
    elif action == "edit-accept":
        if edited is None:
            raise AnswerError("edit and accept needs the edited artifact")
        value["editedArtifactData"] = edited
    elif feedback:
        value["feedback"] = feedback
    value["decidedAt"] = _iso(now)
    return dict(_checked(request.resume_schema, _closed_to(request.resume_schema, value)))


def answer_low_confidence(
    request: InterruptRequest,
    action: str,
    *,
    feedback: str | None = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """A low-confidence ratification: the approval shape, with the held ``decision`` when the host
    sent one (interrupt.md: the resume is the operator-ratified decision).

    Args:
        request: The low-confidence interrupt being answered.
        action: The chosen action; ``accept`` carries the held decision.
        feedback: The person's words; None for none.
        now: The decision time for ``decidedAt``; None means the epoch.
    """
    if not request.answerable:
        raise AnswerError(NO_INTERRUPT)
    value = answer_approval(request, action, feedback=feedback, now=now)
    if request.decision is not None and action == "accept":
        value = _closed_to(request.resume_schema, {**value, "decision": request.decision})
    return dict(_checked(request.resume_schema, value))


def answer_conversation(
    request: InterruptRequest,
    text: str | None,
    *,
    close: bool = False,
    now: datetime | None = None,
    message_id: str | None = None,
) -> Any:
    """A conversation turn's resume (protocol.md §5 B).

    ``conversation.start`` and ``.close`` interrupts resume with nothing (``None``). An exchange
    follows its ``outcomeSchema``/``resumeSchema`` when it has one (a string schema takes the text;
    an object with one string property takes ``{that: text}``), else RFC 0005 §E's
    ``{operation: "exchange", turn: ConversationTurn}``.

    Args:
        request: The conversation interrupt being answered.
        text: The typed message; None or blank is refused unless closing.
        close: True to end the conversation with ``{operation: "close"}`` instead.
        now: The turn's time for its ``ts``; None means the epoch.
        message_id: The turn's ``messageId``; None makes a fresh UUID.
    """
    if request.conversation_op in ("start", "close"):
        return None
    if close:
        return _checked(request.resume_schema, {"operation": "close"})
    body = (text or "").strip()
    if not body:
        raise AnswerError("type a message to send")
    schema = request.resume_schema
    if schema is not None:
        if schema.get("type") == "string":
            return _checked(schema, body)
        props = mapping(schema.get("properties"))
        if "turn" not in props and "operation" not in props:
            strings = [k for k, v in props.items() if mapping(v).get("type") == "string"]
            if len(strings) == 1:
                return _checked(schema, {strings[0]: body})
            value = parse_json(body)
            return _checked(schema, value)
    moment = now if now is not None else datetime.fromtimestamp(0, UTC)
    turn: dict[str, Any] = {
        "messageId": message_id or str(uuid.uuid4()),
        "from": "user",
        "role": "user",
        "content": body,
        "ts": int(moment.timestamp() * 1000),
    }
    if request.turn_index is not None:
        turn["turnIndex"] = request.turn_index
    if request.conversation_id:
        turn["conversationId"] = request.conversation_id
    return _checked(schema, {"operation": "exchange", "turn": turn})


def answer_input(request: InterruptRequest, text: str) -> Any:
    """A value for any other interrupt: the text as JSON when it parses, else as a string;
    ``external-event`` wraps it as ``{eventPayload}``. Checked against the ``resumeSchema``."""
    value = parse_json(text.strip())
    schema = request.resume_schema
    if schema is not None and schema.get("type") == "string" and not isinstance(value, str):
        value = text.strip()
    if request.host_kind == "external-event":
        value = {"eventPayload": value}
    return _checked(schema, value)


def build_answer(
    request: InterruptRequest,
    *,
    answers: Mapping[str, str] | None = None,
    action: str | None = None,
    feedback: str | None = None,
    text: str | None = None,
    now: datetime | None = None,
) -> Any:
    """The resume value from what a person gave, whatever the interrupt's kind.

    Raises `AnswerError` naming what this interrupt wants when the input does not fit.

    Args:
        request: The interrupt being answered.
        answers: Answers by question id (``--answer ID=VALUE``); None for none.
        action: ``accept`` or ``reject`` (``--approve``/``--reject``); None for none.
        feedback: The person's words (``--feedback``); alone on an approval it means refine; None
            for none.
        text: A typed line; None for none.
        now: The answer's time (``decidedAt``, a turn's ``ts``); None means the epoch.
    """
    kind = request.kind
    if kind == "clarification":
        given = dict(answers or {})
        if text is not None and not given:
            given[""] = text
        if action is not None or (not given and feedback is None):
            ids = ", ".join(q.id for q in request.questions) or "ID"
            raise AnswerError(f"this run asks a question: answer it with --answer {ids}=VALUE")
        return answer_clarification(request, given)
    if kind in ("approval", "low-confidence"):
        if answers:
            raise AnswerError("this run asks for a decision: use --approve, --reject or --feedback")
        chosen = action or ("refine" if feedback else None)
        if chosen is None:
            raise AnswerError("this run asks for a decision: use --approve, --reject or --feedback")
        if kind == "low-confidence":
            return answer_low_confidence(request, chosen, feedback=feedback, now=now)
        return answer_approval(request, chosen, feedback=feedback, now=now)
    line = text if text is not None else feedback
    if line is None and answers and len(answers) == 1:
        line = next(iter(answers.values()))
    if kind == "conversation":
        return answer_conversation(request, line, now=now)
    if line is None:
        raise AnswerError("this run waits for a value: answer it with --answer VALUE")
    return answer_input(request, line)
