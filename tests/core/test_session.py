"""The chat session against the embedded demo host over real loopback HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from openwop_tui.core.conversation import Conversation
from openwop_tui.core.fold import EnvelopeItem, Transcript
from openwop_tui.core.session import Session
from openwop_tui.core.updates import EventArrived, RunStarted
from openwop_tui.demo_host import DemoHost
from openwop_tui.protocol.client import HostClient, HostError
from openwop_tui.protocol.events import RunEvent


@pytest.fixture
def demo() -> Iterator[DemoHost]:
    with DemoHost(pace=0, deterministic=True) as host:
        yield host


async def test_a_turn_streams_to_the_end_and_joins_the_history(demo: DemoHost) -> None:
    async with HostClient(demo.url, demo.api_key) as client:
        session = Session(client, workflow_id="demo.chat")
        await session.connect()
        chat = Conversation(session)
        transcript = chat.transcript
        items = [item async for item in chat.send("code please")]
        assert any(isinstance(item, RunStarted) for item in items)
        assert transcript.status == "completed"
        assert any(
            isinstance(i, EnvelopeItem) and i.envelope.display == "code" for i in transcript.items
        )
        assert [m["role"] for m in chat.history] == ["user", "assistant"]
        assert chat.history[0]["content"] == "code please"
        assert session.current_run is None

        # The next turn carries the history to the host in inputs.messages.
        second = [i.event async for i in chat.send("and a card") if isinstance(i, EventArrived)]
        started = next(i for i in second if i.type == "run.started")
        sent = started.payload["inputs"]["messages"]
        assert [m["content"] for m in sent[:1]] == ["code please"]
        assert sent[-1] == {"role": "user", "content": "and a card"}


async def test_a_send_the_host_refused_does_not_join_the_history(demo: DemoHost) -> None:
    async with HostClient(demo.url, demo.api_key) as client:
        session = Session(client, workflow_id="no.such.workflow")
        chat = Conversation(session)
        with pytest.raises(HostError) as raised:
            _ = [item async for item in chat.send("hello")]
        assert "no.such.workflow" in raised.value.message
        assert chat.history == []


async def test_assets_are_fetched_once_and_cached(demo: DemoHost) -> None:
    async with HostClient(demo.url, demo.api_key) as client:
        session = Session(client, workflow_id="demo.chat")
        transcript = Transcript()
        inputs = {"messages": [{"role": "user", "content": "image please"}]}
        async for item in session.start(inputs):
            if isinstance(item, RunEvent):
                transcript.apply(item)
        [image] = [
            i.envelope
            for i in transcript.items
            if isinstance(i, EnvelopeItem) and i.envelope.display == "image"
        ]
        first = await session.asset_for(image)
        assert first is not None and first.data is not None and first.data[:4] == b"\x89PNG"
        assert await session.asset_for(image) is first


async def test_the_run_is_no_longer_in_flight_once_its_end_is_handed_on(demo: DemoHost) -> None:
    # What the consumer does with the terminal event (draws "run completed", stores the fold)
    # happens with the run over on the host: a quit pressed then must not ask about a run in
    # flight (a pty test met the quit dialog under an end already drawn).
    async with HostClient(demo.url, demo.api_key) as client:
        session = Session(client, workflow_id="demo.chat")
        await session.connect()
        chat = Conversation(session)
        seen: list[tuple[str, bool]] = []
        async for item in chat.send("hello"):
            if isinstance(item, EventArrived):
                seen.append((item.event.type, session.current_run is not None))
        assert seen[-1] == ("run.completed", False)
        assert all(in_flight for _, in_flight in seen[:-1])


async def test_an_ended_run_attached_to_is_never_in_flight(demo: DemoHost) -> None:
    # Its snapshot says it is over: the status line says so at once, while its history is
    # still being read; a quit pressed then asked about "a run still in flight on the host" (a
    # pty test met the dialog under "run completed", its history still streaming).
    async with HostClient(demo.url, demo.api_key) as client:
        session = Session(client, workflow_id="demo.chat")
        await session.connect()
        started = Conversation(session)
        [run_id] = [i.run_id async for i in started.send("hello") if isinstance(i, RunStarted)]
        attached = Conversation(session)
        seen = []
        async for item in attached.attach(run_id):
            if isinstance(item, RunStarted):
                assert item.status == "completed"
            if isinstance(item, EventArrived):
                seen.append(session.current_run)
        assert len(seen) > 3 and seen == [None] * len(seen)
