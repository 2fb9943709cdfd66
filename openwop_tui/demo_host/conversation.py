"""``demo.conversation``: one run that holds a conversation open (protocol.md §5 B, RFC 0005).

The ``conversation`` node suspends once (``node.suspended``, ``reason: conversation-input``)
and records ``conversation.opened`` with the agent's greeting as turn 0, caused by that
suspension. Each user turn is the answer to a ``conversation.exchange`` interrupt: the host
records the user's turn and the agent's reply as ``conversation.exchanged`` events (the reply
also streamed as ``output.chunk``) and asks again. A closing word (``bye``) or ``{"operation":
"close"}`` records ``conversation.closed`` and the run completes.
"""

from __future__ import annotations

import re
import time
from collections.abc import Generator, Iterator
from typing import Any

from openwop_tui.demo_host.answers import CONVERSATION_SCHEMA, conversation_turn
from openwop_tui.demo_host.hitl import timeout_ms
from openwop_tui.demo_host.interrupts import Ask
from openwop_tui.demo_host.steps import MODEL, Emit, Pause, Step, WorkflowContext, split_words

AGENT = "agent:demo"
NODE = "conversation"

#: Turns a conversation may hold before the host closes it (a bound on one run's log).
MAX_TURNS = 200

GREETING = (
    "Hello! This is one run holding a **conversation** open: every message you send answers "
    "a `conversation.exchange` interrupt, and I reply in the same run. Say `bye` to close it."
)


def _turn(ctx: WorkflowContext, index: int, role: str, content: str) -> dict[str, Any]:
    """One ConversationTurn of the demo conversation.

    Args:
        ctx: The run's context; its conversation id names the turn.
        index: The turn's ``turnIndex``.
        role: ``user`` or ``agent``; an agent turn names the agent and its model.
        content: What the turn says.
    """
    cid = conversation_id(ctx)
    turn: dict[str, Any] = {
        "messageId": f"{cid}:{index}:{role}",
        "from": "user" if role == "user" else AGENT,
        "content": content,
        "ts": int(time.time() * 1000),
        "role": role,
        "turnIndex": index,
    }
    if role == "agent":
        turn["agent"] = {"agentId": AGENT, "model": {"provider": "demo", "model": MODEL}}
        turn["speakerId"] = AGENT
    return turn


def conversation_id(ctx: WorkflowContext) -> str:
    """Deterministic for the run, as RFC 0005 §B suggests: ``<runId>:<nodeId>:<attempt>``."""
    return f"{ctx.run_id}:{NODE}:0"


def reply_to(text: str, turn: int) -> str:
    """The pretend agent's answer to one user turn."""
    words = len(re.findall(r"\S+", text))
    short = text if len(text) <= 120 else text[:119] + "…"
    asked = "Good question. I am a demo, so I can only reflect it back"
    opener = asked if "?" in text else "Noted"
    return (
        f"{opener}: *{short}* ({words} word{'s' if words != 1 else ''}). "
        f"This is turn {turn} of the same run; the conversation stays open until you say `bye`."
    )


def _ask(ctx: WorkflowContext, index: int, prompt: str, reply: dict[str, Any] | None) -> Ask:
    """The interrupt for turn ``index``; ``reply`` or, for the first, ``conversation.opened`` is
    recorded once it is registered.

    Args:
        ctx: The run's context.
        index: The turn the person is asked for.
        prompt: The interrupt's prompt.
        reply: The agent's last turn; None for the first turn, which opens the conversation with the
            greeting.
    """
    cid = conversation_id(ctx)
    before: list[tuple[str, dict[str, Any]]]
    if reply is None:
        initial = _turn(ctx, 0, "agent", GREETING)
        before = [
            (
                "conversation.opened",
                {"conversationId": cid, "openedBy": AGENT, "initialTurn": initial},
            )
        ]
    else:
        turn_index = reply["turnIndex"]
        before = [
            (
                "conversation.exchanged",
                {"conversationId": cid, "turnIndex": turn_index, "turn": reply},
            )
        ]
    return Ask(
        NODE,
        "conversation.exchange",
        {
            "conversationId": cid,
            "prompt": prompt,
            "outcomeSchema": CONVERSATION_SCHEMA,
            "turnIndex": index,
        },
        conversation_turn,
        waiting_status="waiting-approval",  # interrupt.md: no new status for conversations
        resume_schema=CONVERSATION_SCHEMA,
        timeout_ms=timeout_ms(ctx),
        suspended={"reason": "conversation-input", "conversationId": cid},
        announce_suspend=reply is None,
        after_suspend=before,
    )


def _stream(ctx: WorkflowContext, text: str) -> Iterator[Step]:
    pieces = split_words(text)
    for index, piece in enumerate(pieces):
        yield Pause(0.03)
        chunk = {"nodeId": NODE, "runId": ctx.run_id, "chunk": piece}
        yield Emit("output.chunk", {**chunk, "isLast": index == len(pieces) - 1}, NODE)


def demo_conversation(ctx: WorkflowContext) -> Generator[Step, None, None]:
    """The ``demo.conversation`` workflow."""
    cid = conversation_id(ctx)
    yield Emit(
        "node.started", {"nodeId": NODE, "typeId": "core.conversationGate", "attempt": 0}, NODE
    )
    index = 1  # turn 0 is the greeting on conversation.opened
    ask = _ask(ctx, index, GREETING, None)
    while True:
        yield ask
        if ask.outcome != "resolved":
            error = {"code": "interrupt_expired", "message": "the conversation timed out"}
            final = _turn(ctx, index, "system", "The conversation timed out.")
            closed = {"conversationId": cid, "reason": "timeout", "turnCount": index}
            yield Emit("conversation.closed", {**closed, "finalTurn": final, "outcome": None})
            yield Emit("node.failed", {"nodeId": NODE, "error": error, "attempts": 1}, NODE)
            yield Emit("run.failed", {"error": error, "failedNodeId": NODE})
            return
        operation, text = ask.value
        if operation == "close" or index + 2 > MAX_TURNS:
            break
        yield Emit(
            "conversation.exchanged",
            {"conversationId": cid, "turnIndex": index, "turn": _turn(ctx, index, "user", text)},
            NODE,
        )
        reply = reply_to(text, index + 1)
        yield from _stream(ctx, reply)
        agent_turn = _turn(ctx, index + 1, "agent", reply)
        index += 2
        ask = _ask(ctx, index, reply, agent_turn)
    goodbye = "Goodbye! The conversation is closed and the run completes now."
    yield from _stream(ctx, goodbye)
    yield Emit(
        "conversation.closed",
        {
            "conversationId": cid,
            "reason": "closed by the user",
            "turnCount": index + 1,
            "finalTurn": _turn(ctx, index, "agent", goodbye),
            "outcome": {"turns": index + 1},
        },
        NODE,
    )
    interrupt_id = ask.interrupt.interrupt_id if ask.interrupt else None
    resumed = {"nodeId": NODE, "interruptId": interrupt_id, "resumeValue": ask.raw}
    yield Emit("node.resumed", resumed, NODE)
    yield Emit(
        "node.completed",
        {"nodeId": NODE, "outputs": {"conversationId": cid, "turnCount": index + 1}},
        NODE,
    )
    outputs = {"conversationId": cid, "turnCount": index + 1}
    yield Emit("run.completed", {"outputs": outputs, "durationMs": ctx.elapsed_ms()})
