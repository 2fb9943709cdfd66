"""Validating resume values: what the demo host accepts for each interrupt kind, and the
schemas it advertises for them.

Hosts differ (protocol.md §10): the spec's clarification answer is a list ``{"answers": [{"id",
"answer"}]}``, the SQLite host's an object ``{"answers": {"q1": "blue"}}``; both are accepted
here. An approval takes ``{action, feedback?, refineFeedback?}`` and the legacy ``decision``
vocabulary (interrupt.md §Backward-compat mapping). Every refusal names what was wrong, so a
client can show it as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from openwop_tui.demo_host.interrupts import ResolveError

#: Longest free-text answer or feedback accepted (characters).
MAX_TEXT = 2000


def invalid(message: str, **details: Any) -> ResolveError:
    """A ``400 validation_error`` with ``details`` (the offending field, the allowed values)."""
    return ResolveError(400, "validation_error", message, details or None)


def _text(value: Any, what: str, *, required: bool = True) -> str:
    if not isinstance(value, str) or (required and not value.strip()):
        raise invalid(f"{what} must be a non-empty string")
    if len(value) > MAX_TEXT:
        raise invalid(f"{what} is longer than {MAX_TEXT} characters")
    return value


def _object(value: Any, what: str = "resumeValue") -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise invalid(f"{what} must be a JSON object")
    return value


def _check_answer(question: Mapping[str, Any], answer: Any) -> Any:
    qid = question["id"]
    schema = question.get("schema")
    schema = schema if isinstance(schema, Mapping) else {"type": "string"}
    choices = schema.get("enum")
    if isinstance(choices, list):
        if answer not in choices:
            raise invalid(
                f"the answer to '{qid}' must be one of: {', '.join(map(str, choices))}",
                field=f"answers.{qid}",
                allowed=choices,
            )
        return answer
    text = _text(answer, f"the answer to '{qid}'")
    if len(text) > int(schema.get("maxLength", MAX_TEXT)):
        raise invalid(
            f"the answer to '{qid}' is longer than {schema['maxLength']} characters",
            field=f"answers.{qid}",
        )
    return text


def clarification_validator(
    questions: Sequence[Mapping[str, Any]],
) -> Callable[[Any], dict[str, Any]]:
    """Answers for every question, as ``{id: answer}``, from either accepted shape."""
    by_id = {q["id"]: q for q in questions}

    def validate(value: Any) -> dict[str, Any]:
        raw = _object(value).get("answers")
        pairs: dict[str, Any] = {}
        if isinstance(raw, Mapping):  # the SQLite host's shape
            pairs = dict(raw)
        elif isinstance(raw, list):  # the spec's ClarificationResume
            for item in raw:
                if not isinstance(item, Mapping) or not isinstance(item.get("id"), str):
                    raise invalid("each answer must be an object with an 'id' and an 'answer'")
                if "answer" not in item:
                    raise invalid(f"the answer to '{item['id']}' has no 'answer'")
                pairs[item["id"]] = item["answer"]
        else:
            raise invalid(
                "resumeValue.answers must be a list of {id, answer} "
                "(or an object keyed by question id)",
                field="answers",
            )
        unknown = sorted(set(pairs) - set(by_id))
        if unknown:
            raise invalid(
                f"no question with id {', '.join(map(repr, unknown))}",
                field="answers",
                questions=list(by_id),
            )
        missing = [qid for qid in by_id if qid not in pairs]
        if missing:
            raise invalid(
                f"unanswered: {', '.join(map(repr, missing))}", field="answers", missing=missing
            )
        return {qid: _check_answer(by_id[qid], pairs[qid]) for qid in by_id}

    return validate


def clarification_schema(questions: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The advertised ``resumeSchema``: the spec's list form."""
    return {
        "type": "object",
        "required": ["answers"],
        "properties": {
            "answers": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["id", "answer"],
                    "properties": {
                        "id": {"type": "string", "enum": [q["id"] for q in questions]},
                        "answer": {},
                    },
                },
            }
        },
    }


_LEGACY_DECISIONS = {"approved": "accept", "rejected": "reject"}


def approval_validator(actions: Sequence[str]) -> Callable[[Any], dict[str, Any]]:
    """``{action, feedback?, refineFeedback?}``, the action one the gate allows."""
    allowed = list(actions)

    def validate(value: Any) -> dict[str, Any]:
        doc = _object(value)
        action = doc.get("action")
        feedback = doc.get("feedback")
        if action is None and isinstance(doc.get("decision"), str):
            action = _LEGACY_DECISIONS.get(doc["decision"], doc["decision"])
            if action == "reject" and isinstance(feedback, str) and feedback.strip():
                action = "refine"  # legacy "rejected with feedback" means refine
        if action not in allowed:
            raise invalid(
                f"'action' must be one of: {', '.join(allowed)}", field="action", allowed=allowed
            )
        result: dict[str, Any] = {"action": action}
        if feedback is not None:
            result["feedback"] = _text(feedback, "'feedback'", required=False)
        refine = doc.get("refineFeedback")
        if refine is not None:
            refine = _object(refine, "'refineFeedback'")
            text = refine.get("text")
            result["refineFeedback"] = {
                "scope": refine.get("scope", "whole"),
                **({"text": _text(text, "'refineFeedback.text'")} if text is not None else {}),
            }
        if action == "refine":
            text = result.get("refineFeedback", {}).get("text") or result.get("feedback")
            if not text:
                raise invalid(
                    "'refine' needs feedback: refineFeedback.text (or feedback)",
                    field="refineFeedback",
                )
            result["refineFeedback"] = {"scope": "whole", **result.get("refineFeedback", {})}
            result["refineFeedback"]["text"] = text
        for name in ("decidedBy", "decidedAt"):
            if doc.get(name) is not None:
                result[name] = _text(doc[name], f"'{name}'")
        return result

    return validate


def approval_schema(actions: Sequence[str]) -> dict[str, Any]:
    """The advertised ``resumeSchema`` of an approval."""
    return {
        "type": "object",
        "required": ["action"],
        "properties": {
            "action": {"type": "string", "enum": list(actions)},
            "feedback": {"type": "string"},
            "refineFeedback": {
                "type": "object",
                "properties": {"scope": {"enum": ["whole"]}, "text": {"type": "string"}},
            },
            "decidedBy": {"type": "string"},
            "decidedAt": {"type": "string"},
        },
    }


#: Words that close a conversation when sent as the whole turn.
CLOSING_WORDS = frozenset({"bye", "goodbye", "close", "/close", "exit", "quit", "done"})


def conversation_turn(value: Any) -> tuple[str, str]:
    """A user turn as ``(operation, text)``.

    Accepted: RFC 0005 §E ``{operation, turn: {content}}``, ``{content}``, ``{text}``,
    ``{message}``, or a bare string. A closing word (``bye``) closes the conversation.
    """
    operation = "exchange"
    content: Any = value
    if isinstance(value, Mapping):
        op = value.get("operation", "exchange")
        if op not in ("exchange", "close"):
            raise invalid("'operation' must be 'exchange' or 'close'", field="operation")
        operation = op
        turn = value.get("turn")
        if isinstance(turn, Mapping):
            content = turn.get("content")
        else:
            content = next(
                (value[k] for k in ("content", "text", "message") if k in value),
                "" if operation == "close" else None,
            )
        if isinstance(content, list):  # text parts
            content = "\n".join(p.get("text", "") for p in content if isinstance(p, Mapping))
        if operation == "close" and content in (None, ""):
            return "close", ""
    text = _text(content, "the turn's content")
    if text.strip().lower() in CLOSING_WORDS:
        operation = "close"
    return operation, text


CONVERSATION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["operation", "turn"],
    "properties": {
        "operation": {"enum": ["exchange", "close"]},
        "turn": {
            "type": "object",
            "required": ["content"],
            "properties": {"role": {"const": "user"}, "content": {"type": "string"}},
        },
    },
}
"""The advertised ``outcomeSchema``/``resumeSchema`` of a conversation turn (RFC 0005 §E)."""


def ratification_validator(actions: Sequence[str]) -> Callable[[Any], dict[str, Any]]:
    """A low-confidence decision ratified or not: ``{action, decision?, feedback?}``."""
    check = approval_validator(actions)

    def validate(value: Any) -> dict[str, Any]:
        result = check(value)
        decision = _object(value).get("decision")
        if decision is not None:
            result["decision"] = decision
        return result

    return validate
