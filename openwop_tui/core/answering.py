"""What an answer to a run's question did, recorded in the transcript.

A `Conversation` sends the answers to the questions a run asks (approvals, clarifications, the
turns of a conversation it opened) through `openwop_tui.core.hitl.submit`; `answer` records
what became of one: answered here, or closed (answered elsewhere first, expired, nothing left
to resolve). `open_conversation` finds the conversation turn a run waits for, `carried_turn`
whether the message that started a run is the first turn of the conversation it opened, and
`turn_value` builds a typed turn into the value its ``outcomeSchema`` asks for.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from openwop_tui.core.fold import Added, Change, Interrupt, Transcript, UserTurn
from openwop_tui.core.hitl import Resolver, Submitted, submit
from openwop_tui.core.updates import Answered
from openwop_tui.protocol.interrupt_answers import AnswerError, build_answer
from openwop_tui.protocol.interrupts import InterruptRequest, InterruptState

__all__ = ["answer", "carried_turn", "open_conversation", "turn_value"]

#: How a closing outcome settles the interrupt: its new state, and the words for it.
_CLOSING: dict[str, tuple[InterruptState, str]] = {
    "elsewhere": ("answered", "answered elsewhere first"),
    "expired": ("expired", "expired"),
    "closed": ("closed", "nothing left to resolve"),
}


async def answer(
    transcript: Transcript,
    resolver: Resolver,
    interrupt: Interrupt,
    value: Any,
    *,
    run_id: str | None,
) -> Answered:
    """Send ``value`` as the answer to ``interrupt`` and record what became of it in
    ``transcript``. Never raises `HostError`: the `Submitted` says what the host answered and
    whether another try makes sense.

    Args:
        transcript: The fold the interrupt is an item of.
        resolver: The host's client (its resolve calls).
        interrupt: The question answered.
        value: The answer (from `openwop_tui.protocol.interrupt_answers.build_answer`).
        run_id: The run being followed now: a host whose events do not name their run asked
            the question in it.
    """
    request = interrupt.request
    if request is None:
        failed = Submitted("failed", "This item is not a question that can be answered.")
        return Answered(failed, [])
    if request.run_id is None and run_id is not None:
        request = replace(request, run_id=run_id)
    submitted = await submit(resolver, request, value)
    changes: list[Change] = []
    if submitted.outcome == "answered":
        named = submitted.response.get("interruptId") if submitted.response else None
        changes = transcript.interrupt_answered(
            interrupt, submitted.value, named if isinstance(named, str) else None
        )
    elif submitted.outcome in _CLOSING:
        state, outcome = _CLOSING[submitted.outcome]
        by = "elsewhere" if submitted.outcome == "elsewhere" else None
        changes = transcript.interrupt_closed(interrupt, state, outcome, by=by)
    return Answered(submitted, changes)


def carried_turn(
    transcript: Transcript, carry: str, changes: list[Change]
) -> tuple[Interrupt | None, bool]:
    """Whether ``carry``, the message that started the run, goes as the first turn of a
    conversation these ``changes`` opened: the conversation to say it to (``None``: none), and
    whether the message is settled (said now, or not to be: someone's turn came first, or the
    host echoed it, having taken it from the run's inputs). Unsettled, the next changes are
    asked again."""
    added = [c.item for c in changes if isinstance(c, Added)]
    if any(isinstance(item, UserTurn) for item in added):
        return None, True  # someone's turn came first: the conversation is under way
    asked = [item for item in added if isinstance(item, Interrupt)]
    if not asked:  # (most events, every chunk of a reply: no transcript walk for them)
        return None, False
    waiting = open_conversation(transcript)
    opened = next((item for item in asked if item is waiting), None)
    if opened is None:
        return None, False
    if carry.strip() not in transcript.own_turns:
        return None, True  # the host echoed it already: it took the message from the inputs
    return opened, True


def open_conversation(transcript: Transcript) -> Interrupt | None:
    """The conversation turn the run waits for (RFC 0005, protocol.md §5 B), if any: while
    there is one, a message is a turn of that conversation, not a new run."""
    for item in reversed(transcript.pending_interrupts()):
        request = item.request
        if (
            request is not None
            and request.kind == "conversation"
            and request.conversation_op in (None, "exchange")
        ):
            return item
    return None


async def turn_value(request: InterruptRequest | None, text: str) -> Any:
    """``text`` as the answer a conversation turn's ``outcomeSchema`` asks for. Raises
    `AnswerError` when it cannot be one (or ``request`` is no conversation turn)."""
    if request is None:
        raise AnswerError("this item is not a conversation turn")
    # In a thread: a host's outcomeSchema pattern is checked off the event loop.
    return await asyncio.to_thread(build_answer, request, text=text, now=datetime.now(UTC))
