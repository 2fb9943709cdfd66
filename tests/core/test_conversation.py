"""The conversation pipeline against the embedded demo host over real loopback HTTP: a stored
session reopens without the host as it was live, and the next send carries its history."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from openwop_tui.core.conversation import Conversation
from openwop_tui.core.fold import (
    AssistantTurn,
    EnvelopeItem,
    Item,
    Notice,
    Reasoning,
    ToolCall,
    UserTurn,
)
from openwop_tui.core.opening import stored
from openwop_tui.core.session import Session
from openwop_tui.core.updates import EventArrived, RunEnded, RunStarted
from openwop_tui.demo_host import DemoHost
from openwop_tui.protocol.client import HostClient
from openwop_tui.protocol.sse import parse_sse_text
from openwop_tui.renderers import Registry
from openwop_tui.store.record import Recorder, read_recording
from openwop_tui.store.sessions import Store


def described(item: Item) -> tuple[Any, ...]:
    """What an item says, comparable across two folds (ids and objects aside)."""
    if isinstance(item, UserTurn):
        return ("user", item.text)
    if isinstance(item, AssistantTurn):
        return ("assistant", item.full_text, item.final, item.model)
    if isinstance(item, Reasoning):
        return ("reasoning", item.full_text, item.done)
    if isinstance(item, ToolCall):
        return ("tool", item.tool_name, item.inputs_json, item.outcome_json, item.done)
    if isinstance(item, Notice):
        return ("notice", item.level, item.text)
    assert isinstance(item, EnvelopeItem)
    envelope = item.envelope
    return ("envelope", envelope.kind, envelope.key, repr(envelope.payload), envelope.partial)


def items_of(conversation: Conversation) -> list[tuple[Any, ...]]:
    return [described(item) for item in conversation.transcript.items]


async def chat(conversation: Conversation, *texts: str) -> list[Any]:
    updates: list[Any] = []
    for text in texts:
        async for update in conversation.send(text):
            updates.append(update)
    return updates


async def test_reopened_without_the_host_it_is_as_it_was_and_continues(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    registry = Registry().load()
    with DemoHost(pace=0) as demo:
        async with HostClient(demo.url, demo.api_key) as client:
            live = stored(
                Store(path, secrets=[demo.api_key]),
                session=Session(client, workflow_id="demo.chat"),
                host=demo.url,
                workflow="demo.chat",
            )
            updates = await chat(live, "code please", "show me everything")
            # Media are drawn while live: their bytes are kept for the offline reopen.
            for item in live.transcript.items:
                if isinstance(item, EnvelopeItem):
                    await live.asset_for(item.envelope, registry.needs_bytes)
    assert [type(u) for u in updates if isinstance(u, RunStarted | RunEnded)] == [
        RunStarted,
        RunEnded,
    ] * 2
    expected_items = items_of(live)
    expected_history = list(live.history)
    assert [m["role"] for m in expected_history] == ["user", "assistant"] * 2

    # The host is gone. A fresh store (a new process) reopens the session from its log.
    again = Store(path)
    [info] = again.sessions()
    assert info.messages == 2 and info.title == "code please"
    reopened = stored(again, info.id)
    assert items_of(reopened) == expected_items
    assert reopened.history == expected_history
    images = [
        i.envelope
        for i in reopened.transcript.items
        if isinstance(i, EnvelopeItem) and i.envelope.display == "image" and i.envelope.media
    ]
    assert images
    asset = await reopened.asset_for(images[0], registry.needs_bytes)
    assert asset is not None and asset.data is not None and asset.data[:4] == b"\x89PNG"

    # Sending again (a new host) carries the whole stored history in inputs.messages.
    with DemoHost(pace=0) as demo:
        async with HostClient(demo.url, demo.api_key) as client:
            reopened.session = Session(client, workflow_id="demo.chat")
            second = await chat(reopened, "and a card")
    started = [
        u.event for u in second if isinstance(u, EventArrived) and u.event.type == "run.started"
    ]
    sent = started[0].payload["inputs"]["messages"]
    assert sent == [*expected_history, {"role": "user", "content": "and a card"}]
    # And that turn was appended to the same stored session.
    assert Store(path).info(info.id).messages == 3


async def test_a_refused_send_stays_on_screen_but_not_in_the_history(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    with DemoHost(pace=0) as demo:
        async with HostClient(demo.url, demo.api_key) as client:
            live = stored(Store(path), session=Session(client, workflow_id="no.such.workflow"))
            try:
                await chat(live, "hello")
            except Exception as error:
                assert "no.such.workflow" in str(getattr(error, "message", error))
            assert live.history == []
    [info] = Store(path).sessions()
    reopened = stored(Store(path), info.id)
    assert reopened.history == []
    assert [described(i) for i in reopened.transcript.items] == [("user", "hello")]


async def test_a_recording_folds_to_the_live_transcript(tmp_path: Path) -> None:
    record = tmp_path / "tour.sse"
    wires: list[str] = []
    with DemoHost(pace=0) as demo:
        async with HostClient(demo.url, demo.api_key) as client:
            recorder = Recorder(record, secrets=[demo.api_key])
            live = Conversation(Session(client, workflow_id="demo.tour"), logs=[recorder])
            async for update in live.start({}):
                if isinstance(update, EventArrived) and update.event.wire is not None:
                    wires.append(update.event.wire)
            recorder.close()
    text = record.read_text(encoding="utf-8")
    # A valid SSE file: any reader gets the frames' data back exactly as the host sent them.
    assert [frame.data for frame in parse_sse_text(text)] == wires
    replayed = Conversation.from_log(read_recording(text).entries)
    assert items_of(replayed) == items_of(live)
    assert replayed.transcript.status == live.transcript.status == "completed"
