"""Workflows that ask a human: clarification, approval and a low-confidence pause.

Each node suspends the way the reference hosts do (``node.suspended`` with ``kind`` and the
gate's ``config``; the Postgres host's ``reason``/``threshold``/``observed`` for low confidence)
and the way the spec does (``interrupt.requested`` with ``interruptId``, ``data`` and a
``resumeSchema``, plus the legacy ``clarification.requested``/``approval.requested``). The node
generators return the validated answer (``None`` once the run has failed because the interrupt
expired), so ``demo.chat`` can ask inside a chat turn with the same code.

``inputs.timeoutMs`` (a positive integer) gives every interrupt of the run a deadline; past it
the interrupt answers ``410`` and the run fails with ``interrupt_expired``.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Iterator
from typing import Any

from openwop_tui.demo_host.answers import (
    approval_schema,
    approval_validator,
    clarification_schema,
    clarification_validator,
    ratification_validator,
)
from openwop_tui.demo_host.interrupts import Ask, Interrupt
from openwop_tui.demo_host.steps import Emit, Step, WorkflowContext, since, text_node

#: Longest interrupt deadline ``inputs.timeoutMs`` may ask for (a day).
MAX_TIMEOUT_MS = 86_400_000

#: The escalation threshold when a run names none (interrupt.md §low-confidence).
DEFAULT_THRESHOLD = 0.7

COLOURS = ["red", "green", "blue", "purple"]

DEMO_QUESTIONS: list[dict[str, Any]] = [
    {
        "id": "colour",
        "question": "Which colour should the summary card use?",
        "schema": {"type": "string", "enum": COLOURS},
    },
    {
        "id": "name",
        "question": "What should I call you?",
        "schema": {"type": "string", "minLength": 1, "maxLength": 80},
    },
]

CONFORMANCE_QUESTIONS: list[dict[str, Any]] = [
    {"id": "q1", "question": "What is your favorite color?"},
]

DRAFT = "Release notes v2.1: faster start-up, a new dark theme, and three bug fixes."


def timeout_ms(ctx: WorkflowContext) -> int | None:
    """The run's interrupt deadline from ``inputs.timeoutMs``, if it names a sane one."""
    value = ctx.inputs.get("timeoutMs")
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_TIMEOUT_MS:
        return value
    return None


def _started(node_id: str, type_id: str) -> Emit:
    return Emit("node.started", {"nodeId": node_id, "typeId": type_id, "attempt": 0}, node_id)


def _expired(ctx: WorkflowContext, ask: Ask) -> Iterator[Step]:
    error = {
        "code": "interrupt_expired",
        "message": f"nobody answered node '{ask.node_id}' within {ask.timeout_ms} ms",
    }
    yield Emit("node.failed", {"nodeId": ask.node_id, "error": error, "attempts": 1}, ask.node_id)
    yield Emit(
        "run.failed",
        {"error": error, "failedNodeId": ask.node_id, "durationMs": ctx.elapsed_ms()},
    )


def _resumed(ask: Ask, **extra: Any) -> Emit:
    interrupt_id = ask.interrupt.interrupt_id if ask.interrupt else None
    payload = {"nodeId": ask.node_id, "interruptId": interrupt_id, "resumeValue": ask.raw}
    return Emit("node.resumed", {**payload, **extra}, ask.node_id)


def clarify_node(
    ctx: WorkflowContext, node_id: str, questions: list[dict[str, Any]]
) -> Generator[Step, None, dict[str, Any] | None]:
    """Ask ``questions``; return ``{id: answer}`` (``None``: expired, the run has failed)."""
    started = time.monotonic()
    yield _started(node_id, "core.clarificationGate")

    def requested(interrupt: Interrupt) -> list[tuple[str, dict[str, Any]]]:
        ids = {"nodeId": node_id, "interruptId": interrupt.interrupt_id}
        return [("clarification.requested", {**ids, "questions": questions})]

    def resolved(interrupt: Interrupt, answers: Any) -> list[tuple[str, dict[str, Any]]]:
        ids = {"nodeId": node_id, "interruptId": interrupt.interrupt_id}
        return [("clarification.resolved", {**ids, "answers": answers, "answeredBy": "user"})]

    ask = Ask(
        node_id,
        "clarification",
        {"questions": questions},
        clarification_validator(questions),
        waiting_status="waiting-input",
        resume_schema=clarification_schema(questions),
        timeout_ms=timeout_ms(ctx),
        suspended={"config": {"questions": questions}},
        requested=requested,
        resolved=resolved,
    )
    yield ask
    if ask.outcome != "resolved":
        yield from _expired(ctx, ask)
        return None
    answers: dict[str, Any] = ask.value
    yield _resumed(ask, action="resolve")
    yield Emit(
        "node.completed",
        {"nodeId": node_id, "durationMs": since(started), "outputs": {"answers": answers}},
        node_id,
    )
    return answers


def approval_node(
    ctx: WorkflowContext,
    node_id: str,
    *,
    title: str,
    description: str,
    actions: list[str],
    artifact: str | None = None,
) -> Generator[Step, None, dict[str, Any] | None]:
    """Ask for approval; return the decision ``{action, feedback?, refineFeedback?}``.

    Args:
        ctx: The run's context.
        node_id: The gate's node.
        title: The approval's title.
        description: What is to be approved.
        actions: The actions offered (``accept``, ``reject``, ``refine``…).
        artifact: The text under review, sent as ``artifactData``; None for none.
    """
    started = time.monotonic()
    yield _started(node_id, "core.approvalGate")
    artifact_id = f"art_{node_id}_{ctx.run_id}"
    config = {"actions": actions, "title": title, "description": description}

    def requested(interrupt: Interrupt) -> list[tuple[str, dict[str, Any]]]:
        legacy = {
            "nodeId": node_id,
            "interruptId": interrupt.interrupt_id,
            "artifactId": artifact_id,
            "artifactType": "text",
            "actions": actions,
            "title": title,
            "description": description,
            "requiredApprovals": 1,
        }
        return [("approval.requested", legacy)]

    def resolved(interrupt: Interrupt, decision: Any) -> list[tuple[str, dict[str, Any]]]:
        received = {
            "nodeId": node_id,
            "interruptId": interrupt.interrupt_id,
            "decidedBy": "user",
            "decidedAt": ctx.identity.now(),
            **decision,
        }
        return [("approval.received", received)]

    ask = Ask(
        node_id,
        "approval",
        {
            "artifactId": artifact_id,
            "artifactType": "text",
            "artifactData": artifact,
            **config,
            "requiredApprovals": 1,
        },
        approval_validator(actions),
        waiting_status="waiting-approval",
        resume_schema=approval_schema(actions),
        timeout_ms=timeout_ms(ctx),
        suspended={"config": config},
        requested=requested,
        resolved=resolved,
    )
    yield ask
    if ask.outcome != "resolved":
        yield from _expired(ctx, ask)
        return None
    decision: dict[str, Any] = ask.value
    yield _resumed(ask, action=decision["action"])
    outcome = {"accept": "accepted", "reject": "rejected"}.get(decision["action"], "refine")
    yield Emit(
        "node.completed",
        {
            "nodeId": node_id,
            "durationMs": since(started),
            "outputs": {"outcome": outcome, "decision": decision},
        },
        node_id,
    )
    return decision


def low_confidence_node(
    ctx: WorkflowContext,
    node_id: str,
    *,
    agent_id: str,
    confidence: float,
    decision: dict[str, Any],
    threshold: float = DEFAULT_THRESHOLD,
) -> Generator[Step, None, dict[str, Any] | None]:
    """An agent decides with ``confidence`` below ``threshold`` and waits for ratification.

    Args:
        ctx: The run's context.
        node_id: The agent's node.
        agent_id: The agent that decided.
        confidence: How sure it was, 0 to 1.
        decision: The decision held for ratification.
        threshold: The confidence below which a decision waits.
    """
    started = time.monotonic()
    yield _started(node_id, "core.conformance.mock-agent")
    yield Emit(
        "agent.decided",
        {"agentId": agent_id, "decision": decision, "confidence": confidence},
        node_id,
    )
    actions = ["accept", "reject"]
    ask = Ask(
        node_id,
        "low-confidence",
        {
            "agentId": agent_id,
            "threshold": threshold,
            "observed": confidence,
            "decision": decision,
            "actions": actions,
        },
        ratification_validator(actions),
        waiting_status="waiting-approval",
        resume_schema=approval_schema(actions),
        timeout_ms=timeout_ms(ctx),
        # The Postgres host's shape (its `data`, here the payload).
        suspended={
            "reason": "low-confidence",
            "agentId": agent_id,
            "threshold": threshold,
            "observed": confidence,
        },
    )
    yield ask
    if ask.outcome != "resolved":
        yield from _expired(ctx, ask)
        return None
    ratified: dict[str, Any] = ask.value
    yield _resumed(ask, action=ratified["action"])
    yield Emit(
        "node.completed",
        {"nodeId": node_id, "durationMs": since(started), "outputs": {"ratification": ratified}},
        node_id,
    )
    return ratified


def reject(ctx: WorkflowContext, node_id: str, decision: dict[str, Any], what: str) -> Emit:
    """``run.failed`` for a rejected gate, with the approver's reason when they gave one.

    Args:
        ctx: The run's context.
        node_id: The gate's node, named as the failed one.
        decision: The resume value; its ``feedback`` is the reason.
        what: What was rejected, starting the message (``The agent's decision``).
    """
    reason = decision.get("feedback")
    message = f"{what} was rejected" + (f": {reason}" if reason else ".")
    return Emit(
        "run.failed",
        {
            "error": {"code": "interrupt_rejected", "message": message},
            "failedNodeId": node_id,
            "durationMs": ctx.elapsed_ms(),
        },
    )


def _complete(ctx: WorkflowContext, outputs: dict[str, Any]) -> Emit:
    return Emit("run.completed", {"outputs": outputs, "durationMs": ctx.elapsed_ms()})


def after_answers(
    ctx: WorkflowContext, answers: dict[str, Any], node_id: str = "reply"
) -> Iterator[Step]:
    """The reply that uses a clarification's answers."""
    if "colour" in answers:
        text = (
            f"Thanks, **{answers['name']}**. The summary card will be **{answers['colour']}**."
            "\n\nYour answers travelled back as the interrupt's resume value."
        )
    else:
        text = "Thanks. You answered:\n\n" + "\n".join(
            f"- `{qid}`: {value}" for qid, value in answers.items()
        )
    yield from text_node(ctx, node_id, text)


def after_approval(
    ctx: WorkflowContext, decision: dict[str, Any], node_id: str = "publish"
) -> Iterator[Step]:
    """The reply after an accepted or refined draft (a rejection is `reject`)."""
    if decision["action"] == "refine":
        feedback = decision["refineFeedback"]["text"]
        quoted = "\n".join("> " + line for line in feedback.splitlines())
        text = f"Revised the draft with your feedback:\n\n{quoted}\n\nNew draft: {DRAFT} (revised)"
    else:
        text = f"Approved and published:\n\n> {DRAFT}"
    yield from text_node(ctx, node_id, text)


def demo_clarify(ctx: WorkflowContext) -> Generator[Step, None, None]:
    """``demo.clarify``: two questions (a choice and free text), then a reply using them."""
    answers = yield from clarify_node(ctx, "ask", DEMO_QUESTIONS)
    if answers is None:
        return
    yield from after_answers(ctx, answers)
    yield _complete(ctx, {"answers": answers})


def conformance_clarification(ctx: WorkflowContext) -> Generator[Step, None, None]:
    """``conformance-clarification``: the reference fixture's one question."""
    answers = yield from clarify_node(ctx, "ask", CONFORMANCE_QUESTIONS)
    if answers is None:
        return
    yield _complete(ctx, {"answers": answers})


def demo_approve(ctx: WorkflowContext) -> Generator[Step, None, None]:
    """``demo.approve``: a draft to accept, reject (the run fails) or refine with feedback."""
    yield from text_node(ctx, "draft", f"Here is the draft I would publish:\n\n> {DRAFT}")
    decision = yield from approval_node(
        ctx,
        "review",
        title="Publish the release notes?",
        description="Accept to publish, reject to stop, or refine with feedback.",
        actions=["accept", "reject", "refine"],
        artifact=DRAFT,
    )
    if decision is None:
        return
    if decision["action"] == "reject":
        yield reject(ctx, "review", decision, "The draft")
        return
    yield from after_approval(ctx, decision)
    yield _complete(ctx, {"decision": decision})


def conformance_approval(ctx: WorkflowContext) -> Generator[Step, None, None]:
    """``conformance-approval``: the reference fixture's gate (accept or reject)."""
    decision = yield from approval_node(
        ctx,
        "gate",
        title="Conformance approval",
        description="Conformance suite — please accept to complete the run.",
        actions=["accept", "reject"],
    )
    if decision is None:
        return
    if decision["action"] == "reject":
        yield reject(ctx, "gate", decision, "The approval gate")
        return
    yield _complete(ctx, {"decision": decision})


#: The decision the unsure agents propose.
PROPOSED = {"kind": "next-worker", "nextWorkerIds": ["summarise"]}


def _low_confidence(
    ctx: WorkflowContext, node_id: str, agent_id: str, confidence: float
) -> Iterator[Step]:
    """A low-confidence pause on the proposed decision, then the run completes or fails.

    Args:
        ctx: The run's context.
        node_id: The agent's node.
        agent_id: The agent that decided.
        confidence: How sure it was, 0 to 1.
    """
    ratified = yield from low_confidence_node(
        ctx, node_id, agent_id=agent_id, confidence=confidence, decision=PROPOSED
    )
    if ratified is None:
        return
    if ratified["action"] == "reject":
        yield reject(ctx, node_id, ratified, "The agent's decision")
        return
    yield _complete(ctx, {"ratified": ratified.get("decision", PROPOSED)})


def demo_low_confidence(ctx: WorkflowContext) -> Generator[Step, None, None]:
    """``demo.low-confidence``: a decision at 0.4 against 0.7, as the Postgres host's fixture."""
    yield from _low_confidence(ctx, "decider", "agent:local-unsure", 0.4)


def conformance_low_confidence(ctx: WorkflowContext) -> Generator[Step, None, None]:
    """``conformance-agent-low-confidence``: the reference fixture (mock confidence 0.5)."""
    yield from _low_confidence(ctx, "low-conf-decider", "core.conformance.low-conf-decider", 0.5)
