"""Interrupts: the requests that ask a person (``interrupt.requested``,
``clarification.requested``, ``approval.requested``, ``node.suspended``…) folded into one
`Interrupt` per node, and what answers or closes them (``node.resumed``,
``interrupt.resolved`` and its kin, the RFC 0051 ``approval.*`` gates), with the one-line
summary each is drawn as."""

from __future__ import annotations

from typing import TYPE_CHECKING

from openwop_tui.core.fold._common import TERMINAL_STATUSES, made_line, text_of
from openwop_tui.core.items import Change, Interrupt, Level, Updated
from openwop_tui.protocol.events import RunEvent
from openwop_tui.protocol.interrupts import (
    InterruptRequest,
    InterruptState,
    describe_value,
    read_request,
    summarize,
)
from openwop_tui.text.sanitize import HostLine, clean_own, one_line
from openwop_tui.text.value_words import words

if TYPE_CHECKING:
    from openwop_tui.core.fold.transcript import Transcript

#: Events after which a node's next request is a new question (see `Transcript._moved_on`).
MOVES_ON = frozenset({"node.resumed", "node.completed", "node.failed"})


def interrupt_text(item: Interrupt) -> HostLine:
    """The one-line summary of an interrupt, as it stands: the request's cleaned fields, and
    the outcome, which may be the user's own answer (`describe_value` of what they typed)."""
    request = item.request
    if request is None:
        return item.text
    if item.state == "pending":
        return made_line(" · ".join(summarize(request)))
    where = f" at node {request.node_id}" if request.node_id else ""
    what = {
        "clarification": "the question",
        "approval": "the approval",
        "low-confidence": "the low-confidence pause",
        "conversation": "the conversation turn",
    }.get(request.kind, "the wait")
    how = item.state
    by = " here" if item.answered_by == "you" else ""
    if item.state == "answered" and item.answered_by not in (None, "you", "elsewhere"):
        by = f" by {item.answered_by}"
    return one_line(
        clean_own(f"{what}{where} {how}{by}" + (f" · {item.outcome}" if item.outcome else ""))
    )


def settle(
    fold: Transcript,
    item: Interrupt,
    state: InterruptState,
    by: str | None,
    outcome: str | None,
) -> list[Change]:
    """The interrupt is no longer pending: answered, expired or closed.

    Args:
        fold: The transcript the interrupt is in.
        item: The interrupt to settle.
        state: What became of it.
        by: Who answered it (``you``, ``elsewhere``, a principal), if it was answered.
        outcome: The answer or the reason, in a few words.
    """
    node = item.request.node_id if item.request else None
    if fold._interrupts.get(node) is item:
        del fold._interrupts[node]
    fold._settled_interrupts[node] = item
    if item.state != "pending":
        return []
    item.state, item.answered_by, item.outcome = state, by, outcome
    item.level = "info" if state == "answered" else "warning"
    item.text = interrupt_text(item)
    return [Updated(item)]


# --------------------------------------------------------------- requests


def on_request(fold: Transcript, event: RunEvent) -> list[Change]:
    request = read_request(
        event.type,
        event.payload,
        node_id=event.node_id,
        run_id=event.run_id,
        timestamp=event.timestamp,
    )
    if fold.status not in TERMINAL_STATUSES:
        fold.status = "waiting"
    return take_request(fold, request, event)


def take_request(
    fold: Transcript, request: InterruptRequest, event: RunEvent | None
) -> list[Change]:
    """One pending item per node: a second event about it fills the first in."""
    changes: list[Change] = []
    settled = fold._settled_interrupts.get(request.node_id)
    if (
        settled is not None
        and settled.request is not None
        and (
            (request.interrupt_id and settled.request.interrupt_id == request.interrupt_id)
            or (
                not request.interrupt_id
                and settled.answered_by == "you"
                and request.node_id not in fold._moved_on
            )
        )
    ):
        # A late event about an interrupt already answered (the host's answer to ours
        # named it, or it names none and the node has not moved on since): not a new
        # question.
        settled.request.merge(request)
        return []
    current = fold._interrupts.get(request.node_id)
    if current is not None and current.request is not None:
        if current.request.same_as(request):
            current.request.merge(request)
            current.text = interrupt_text(current)
            return [Updated(current)]
        # A new interrupt at the same node (the next conversation turn): the old one was
        # answered, even if no event said so.
        changes += settle(fold, current, "answered", "elsewhere", "superseded")
    # A conversation turn is answered from the prompt, and its turns are drawn as turns:
    # the interrupt itself is bookkeeping, shown only with the verbose lines.
    quiet = request.kind == "conversation"
    item = Interrupt(fold._next_id("interrupt"), "warning", made_line(""), quiet, request=request)
    item.text = interrupt_text(item)
    fold._interrupts[request.node_id] = item
    changes.append(fold._add(item))
    return changes


# ---------------------------------------------------------------- answers


def _resolved_at(
    fold: Transcript, node_id: str | None, interrupt_id: str | None
) -> Interrupt | None:
    """The interrupt an answer event is about: pending first, else already settled."""
    for known in (fold._interrupts, fold._settled_interrupts):
        item = known.get(node_id)
        if item is None and interrupt_id:
            item = next(
                (i for i in known.values() if i.request and i.request.interrupt_id == interrupt_id),
                None,
            )
        if item is not None:
            return item
    return None


def on_node_resumed(fold: Transcript, event: RunEvent) -> list[Change]:
    fold.status = "running"
    p = event.payload
    value = p.get("resumeValue", p.get("action"))
    changes: list[Change] = []
    item = _resolved_at(fold, event.node_id, text_of(p.get("interruptId")))
    if item is not None:
        outcome = describe_value(value) if value is not None else None
        changes += settle(fold, item, "answered", "elsewhere", outcome)
    suffix = f" · {describe_value(value)}" if value is not None else ""
    quiet = item is not None and item.request is not None and item.request.kind == "conversation"
    text = f"node {event.node_id or '?'} resumed{suffix}"
    changes.append(fold._notice("info", text, verbose=quiet))
    return changes


def on_resolved(fold: Transcript, event: RunEvent) -> list[Change]:
    """``interrupt.resolved``, ``clarification.resolved``, ``approval.received``: answered
    (a ``timeout`` action: expired). Says so in a line only for an interrupt not seen."""
    p = event.payload
    action = text_of(p.get("action"))
    value = p.get("resumeValue")
    if value is None:
        value = {"answers": p["answers"]} if "answers" in p else action
    outcome = describe_value(value) if value is not None else None
    feedback = text_of(p.get("feedback")) or text_of(p.get("comment"))
    if feedback and outcome and "·" not in outcome:
        outcome += f" · {feedback}"
    item = _resolved_at(fold, event.node_id, text_of(p.get("interruptId")))
    by = text_of(p.get("resolvedBy")) or text_of(p.get("decidedBy")) or text_of(p.get("answeredBy"))
    if item is not None:
        if action == "timeout":
            return settle(fold, item, "expired", None, "timed out")
        return settle(fold, item, "answered", by or "elsewhere", outcome)
    level: Level = "warning" if action in ("reject", "timeout") else "info"
    text = f"the question at node {event.node_id or '?'} was answered"
    parts = [text, outcome, f"by {by}" if by else None]
    return [fold._notice(level, " · ".join(x for x in parts if x))]


def on_gate(fold: Transcript, event: RunEvent) -> list[Change]:
    """RFC 0051 gates: ``approval.granted`` / ``.rejected`` / ``.overridden``."""
    p = event.payload
    verdict = event.type.split(".", 1)[1]
    gate = text_of(p.get("gateId")) or event.node_id or "?"
    parts = [f"approval {gate} {verdict}"]
    principal = text_of(p.get("principal"))
    parts += [f"by {principal}" if principal else "", text_of(p.get("reason")) or ""]
    progress = p.get("quorumProgress")
    if progress is not None:
        parts.append(f"quorum {words(progress, 60)}")
    level: Level = "warning" if verdict == "rejected" else "info"
    changes: list[Change] = []
    item = _resolved_at(fold, event.node_id or text_of(p.get("gateId")), None)
    if item is not None and (verdict != "granted" or progress is None):
        changes += settle(fold, item, "answered", principal or "elsewhere", verdict)
    changes.append(fold._notice(level, " · ".join(x for x in parts if x)))
    return changes
