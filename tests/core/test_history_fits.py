"""Continuing any session: the history a message carries fits what the host advertises
(``limits.maxRequestBodyBytes``) and the user's ``[chat]`` caps, newest turns first, with a
visible note of what was left out; a request refused for its size says why in one line."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from limited_host import LimitedHost

from openwop_tui.config import Config, ConfigError
from openwop_tui.core.chat_history import ChatHistory, body_size
from openwop_tui.core.conversation import Conversation
from openwop_tui.core.items import Limits, Notice
from openwop_tui.core.session import Session
from openwop_tui.protocol.client import HostClient
from openwop_tui.protocol.discovery import Discovery
from openwop_tui.protocol.errors import HostError

LIMITS = {"clarificationRounds": 3, "schemaRounds": 3, "envelopesPerTurn": 8}


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        ({"limits": {**LIMITS, "maxRequestBodyBytes": 1_000_000}}, 1_000_000),
        ({"capabilities": {"limits": {**LIMITS, "maxRequestBodyBytes": 4096}}}, 4096),
        (
            {
                "protocolVersions": ["1.0", "2.0"],
                "limits": {**LIMITS, "maxRequestBodyBytes": 2048},
                "capabilities": {"limits": {"maxRequestBodyBytes": 9}},
            },
            2048,  # the root wins over the legacy wrapper
        ),
        ({"limits": LIMITS}, None),
        ({"limits": {"maxRequestBodyBytes": "big"}}, None),
        ({"limits": {"maxRequestBodyBytes": -5}}, None),
        ({"limits": {"maxRequestBodyBytes": True}}, None),
        ({"limits": "nonsense"}, None),
    ],
)
def test_discovery_reads_the_request_limit(doc: dict[str, Any], expected: int | None) -> None:
    found = Discovery.from_document({"protocolVersion": "1.0", **doc}, version_header="2.0")
    assert found.max_request_body_bytes == expected


def _history(turns: int, size: int = 300) -> ChatHistory:
    chat = ChatHistory()
    for n in range(turns):
        chat.messages.append({"role": "user", "content": f"question {n} " + "q" * size})
        chat.messages.append({"role": "assistant", "content": f"answer {n} " + "é" * size})
    return chat


def test_the_newest_whole_turns_that_fit_are_sent() -> None:
    chat = _history(100)
    limit = 20_000
    fitted = chat.fitted("the next one", workflow_id="demo.chat", max_body_bytes=limit)
    body = {"workflowId": "demo.chat", "inputs": fitted.inputs}
    sent = fitted.inputs["messages"]
    assert body_size(body) <= limit
    # Any more would not have fit: the limit is used, not guessed at.
    one_more = chat.messages[-len(sent) - 1 - 1 : -len(sent) + 1]
    assert body_size({**body, "inputs": {"messages": one_more + sent}}) > limit
    assert sent[-1] == {"role": "user", "content": "the next one"}
    assert sent[:-1] == chat.messages[-(len(sent) - 1) :]  # the newest, in order
    assert sent[0]["role"] == "user"  # whole turns: never a reply without its question
    assert fitted.left_out == 100 - (len(sent) - 1) // 2 > 0
    assert fitted.note is not None and f"{fitted.left_out:,} earlier turns" in fitted.note
    assert "maxRequestBodyBytes" in fitted.note and "20.0 KB" in fitted.note


def test_the_users_caps_bound_it_too() -> None:
    chat = _history(10)
    by_turns = chat.fitted("x", max_turns=3)
    assert len(by_turns.inputs["messages"]) == 7 and by_turns.left_out == 7
    assert by_turns.note is not None and "history_turns = 3" in by_turns.note
    by_bytes = chat.fitted("x", max_history_bytes=2_000)
    sent = by_bytes.inputs["messages"][:-1]
    assert sum(body_size(m) + 1 for m in sent) <= 2_000 and by_bytes.left_out > 0
    assert by_bytes.note is not None and "history_bytes = 2,000" in by_bytes.note
    everything = chat.fitted("x")
    assert everything.left_out == 0 and everything.note is None
    assert everything.inputs == chat.inputs("x")


def test_a_message_alone_over_the_limit_still_goes() -> None:
    fitted = _history(3).fitted("y" * 5_000, max_body_bytes=1_000)
    assert fitted.inputs["messages"] == [{"role": "user", "content": "y" * 5_000}]
    assert fitted.left_out == 3


def test_the_chat_table_configures_the_caps() -> None:
    config = Config().merged({"chat": {"history_turns": 40, "history_bytes": 100_000}}, source="f")
    assert (config.limits.history_turns, config.limits.history_bytes) == (40, 100_000)
    for bad in ({"history_turns": 0}, {"history_bytes": "lots"}, {"turns": 3}):
        with pytest.raises(ConfigError, match=r"chat\."):
            Config().merged({"chat": bad}, source="f")


def _long_chat(session: Session, turns: int) -> Conversation:
    chat = Conversation(session, limits=Limits())
    chat.chat.messages.extend(_history(turns, size=2_000).messages)
    return chat


async def _send(chat: Conversation, text: str) -> list[Any]:
    return [update async for update in chat.send(text)]


@pytest.mark.parametrize("wrapped", [False, True])
def test_a_long_session_continues_on_a_host_with_a_request_limit(wrapped: bool) -> None:
    limit = 64_000

    async def scenario(url: str) -> tuple[Conversation, list[Any]]:
        async with HostClient(url, "key") as client:
            chat = _long_chat(Session(client, workflow_id="chat"), 400)  # about 1.6 MB
            await chat.connect()
            return chat, await _send(chat, "and one more thing")

    with LimitedHost(limit, wrapped=wrapped) as host:
        chat, updates = asyncio.run(scenario(host.url))
    assert host.bodies and host.bodies[-1] <= limit
    assert chat.transcript.status == "completed"
    notes = [
        u.item.text
        for u in updates
        if isinstance(getattr(u, "item", None), Notice) and "left out" in u.item.text
    ]
    assert len(notes) == 1 and "64.0 KB" in notes[0]
    assert host.messages[-1] < 801 and host.messages[-1] % 2 == 1


@pytest.mark.parametrize("cut", [False, True])
def test_a_request_refused_for_its_size_says_why_in_one_line(
    cut: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A history sent whole (the fitting switched off): the host refuses it.
    monkeypatch.setattr(
        ChatHistory,
        "fitted",
        lambda self, text, **_: type("F", (), {"inputs": self.inputs(text), "note": None})(),
    )

    async def scenario(url: str) -> HostError:
        async with HostClient(url, "key") as client:
            chat = _long_chat(Session(client, workflow_id="chat"), 100)
            await chat.connect()
            with pytest.raises(HostError) as refused:
                await _send(chat, "again")
            return refused.value

    with LimitedHost(10_000, cut=cut) as host:
        error = asyncio.run(scenario(host.url))
    message = str(error)
    assert "\n" not in message
    assert "for its size" in message and "takes at most 10.0 KB" in message
    assert re.search(r"it is 6\d\d\.\d KB", message), message
    assert "history_turns" in message
