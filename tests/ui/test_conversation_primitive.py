"""The conversation primitive on the client (issue 7, item 7; protocol.md §5 B, RFC 0005).

A run that holds a conversation open is chatted through its ``conversation.exchange``
interrupts: the message that started the run is its first turn, every later message answers
the open interrupt (no new run), ``conversation.*`` events are drawn as turns, a user turn this
client sent is not drawn twice, and a reply that chunks streamed is not drawn again from its
``conversation.exchanged`` event. Real demo host over loopback, the fold on constructed events,
and the app with Pilot keys.
"""

from __future__ import annotations

from typing import Any

from app_support import SIZE, connected, demo_app, send, settle

from openwop_tui.core.conversation import Conversation
from openwop_tui.core.fold import Transcript
from openwop_tui.core.items import AssistantTurn, Interrupt, Notice, UserTurn
from openwop_tui.core.session import Session
from openwop_tui.demo_host import DemoHost
from openwop_tui.protocol.client import HostClient
from openwop_tui.protocol.events import normalize
from openwop_tui.ui.widgets.interrupt_form import InterruptForm


def turns(transcript: Transcript, *, verbose: bool = False) -> list[tuple[str, str]]:
    """The conversation as drawn: (who, text) for turns, notices that are not verbose."""
    shown: list[tuple[str, str]] = []
    for item in transcript.items:
        if isinstance(item, UserTurn):
            shown.append(("you", item.text))
        elif isinstance(item, AssistantTurn):
            shown.append(("agent", item.text))
        elif isinstance(item, Notice) and (verbose or not item.verbose):
            shown.append(("line", item.text))
    return shown


async def test_a_conversation_run_is_chatted_through_its_interrupts() -> None:
    with DemoHost(pace=0, deterministic=True) as demo:
        async with HostClient(demo.url, demo.api_key) as client:
            conversation = Conversation(Session(client, workflow_id="demo.conversation"))
            runs: set[str] = set()
            said: list[str] = []
            following = iter(["what is this?", "bye"])
            async for update in conversation.send("hello there"):
                run_id = getattr(update, "run_id", None)
                if run_id:
                    runs.add(run_id)
                talking = conversation.open_conversation()
                if talking is not None and talking.id not in said:
                    said.append(talking.id)
                    text = next(following)
                    answered = await conversation.say(talking, text)
                    assert answered.submitted.outcome == "answered", answered.submitted.message
    assert len(runs) == 1  # one run held the whole conversation
    assert conversation.transcript.status == "completed"
    shown = [(who, text) for who, text in turns(conversation.transcript) if who != "line"]
    assert [who for who, _ in shown] == [
        "you",
        "agent",  # the greeting, from conversation.opened
        "agent",  # the reply to the first turn: the message that started the run
        "you",
        "agent",
        "you",
        "agent",  # the goodbye
    ]
    assert shown[0] == ("you", "hello there")
    assert shown[1][1].startswith("Hello! This is one run holding")
    assert "hello there" in shown[2][1]
    assert shown[3] == ("you", "what is this?")
    assert "what is this?" in shown[4][1]
    assert shown[5] == ("you", "bye")
    assert shown[6][1].startswith("Goodbye!")
    lines = [text for who, text in turns(conversation.transcript) if who == "line"]
    assert any("closed" in line and "closed by the user" in line for line in lines), lines
    # The interrupts are bookkeeping: none is drawn as a line of JSON.
    assert not any("{" in line for line in lines), lines
    answered = [i for i in conversation.transcript.items if isinstance(i, Interrupt)]
    assert answered and all(i.verbose for i in answered)


def _event(seq: int, type_: str, payload: dict[str, Any], node: str = "talk") -> Any:
    return normalize(
        {
            "eventId": f"e{seq}",
            "runId": "r1",
            "sequence": seq,
            "type": type_,
            "nodeId": node,
            "timestamp": "2026-12-01T00:00:00Z",
            "payload": payload,
        }
    )


def _turn(role: str, content: Any, index: int) -> dict[str, Any]:
    return {"messageId": f"m{index}", "role": role, "content": content, "turnIndex": index}


def test_conversation_events_fold_into_turns_without_repeats() -> None:
    transcript = Transcript()
    apply = transcript.apply
    apply(_event(1, "run.started", {"workflowId": "w"}))
    apply(
        _event(
            2,
            "conversation.opened",
            {"conversationId": "c", "initialTurn": _turn("agent", "Hi", 0)},
        )
    )
    transcript.add_user("one\n")  # this client's own turn (the host echoes it trimmed)
    apply(
        _event(
            3, "conversation.exchanged", {"conversationId": "c", "turn": _turn("user", "one", 1)}
        )
    )
    # The reply streams, then its exchanged event comes: one reply, not two.
    apply(_event(4, "output.chunk", {"chunk": "Re: "}))
    apply(_event(5, "output.chunk", {"chunk": "one"}))
    apply(
        _event(
            6,
            "conversation.exchanged",
            {"conversationId": "c", "turn": _turn("agent", "Re: one", 2)},
        )
    )
    # Someone else's turn (another client) is drawn as a user turn.
    apply(
        _event(
            7, "conversation.exchanged", {"conversationId": "c", "turn": _turn("user", "two", 3)}
        )
    )
    # A reply that comes first as an event and then again as chunks is drawn once.
    apply(
        _event(
            8,
            "conversation.exchanged",
            {"conversationId": "c", "turn": _turn("agent", "Re: two", 4)},
        )
    )
    apply(_event(9, "output.chunk", {"chunk": "Re: "}))
    apply(_event(10, "output.chunk", {"chunk": "two"}))
    assert [text for who, text in turns(transcript) if who == "agent"][-1:] == ["Re: two"]
    assert sum(text == "Re: two" for _, text in turns(transcript)) == 1
    # Text parts and non-text content.
    apply(
        _event(
            11,
            "conversation.exchanged",
            {"conversationId": "c", "turn": _turn("agent", [{"type": "text", "text": "part"}], 5)},
        )
    )
    closed = {
        "conversationId": "c",
        "reason": "done",
        "turnCount": 6,
        "finalTurn": _turn("agent", "Bye", 6),
    }
    apply(_event(12, "conversation.closed", closed))
    shown = [(who, text) for who, text in turns(transcript) if who != "line"]
    assert shown == [
        ("agent", "Hi"),
        ("you", "one\n"),
        ("agent", "Re: one"),
        ("you", "two"),
        ("agent", "Re: two"),
        ("agent", "part"),
        ("agent", "Bye"),
    ]
    assert all(
        isinstance(i, AssistantTurn) and i.final
        for i in transcript.items
        if isinstance(i, AssistantTurn)
    )


def test_chunks_that_differ_from_a_reply_already_shown_are_drawn() -> None:
    transcript = Transcript()
    transcript.apply(_event(1, "conversation.exchanged", {"turn": _turn("agent", "Re: x", 1)}))
    transcript.apply(_event(2, "output.chunk", {"chunk": "Something else"}))
    shown = [text for who, text in turns(transcript) if who == "agent"]
    assert shown == ["Re: x", "Something else"]


async def test_the_app_chats_through_the_conversation_from_its_prompt() -> None:
    app = demo_app(workflow="demo.conversation")
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await send(pilot, app, "hello there")

        def replies() -> int:
            return sum(isinstance(i, AssistantTurn) for i in app.transcript.items)

        def waiting() -> bool:
            return app.conversation.open_conversation() is not None

        await settle(
            pilot, app, lambda: replies() >= 2 and waiting(), what="first reply", workers=False
        )
        assert not app.query(InterruptForm)  # the prompt answers a conversation, not a form
        await send(pilot, app, "what is this?")
        await settle(
            pilot, app, lambda: replies() >= 3 and waiting(), what="second reply", workers=False
        )
        assert not app.chat.parts.queued.pending  # the turn went to the run, it was not queued
        await send(pilot, app, "bye")
        await settle(pilot, app, lambda: app.transcript.status == "completed", what="completed")
        you = [i.text for i in app.transcript.items if isinstance(i, UserTurn)]
        assert you == ["hello there", "what is this?", "bye"]
        assert len({i.id for i in app.transcript.items}) == len(app.transcript.items)
