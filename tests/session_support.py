"""Stored sessions made the way the app makes them: chat turns sent to a real host, each
run's events logged and its fold kept (`openwop_tui.core.opening.stored`)."""

from __future__ import annotations

from collections.abc import Iterable

from openwop_tui.core import opening
from openwop_tui.core.session import Session
from openwop_tui.protocol.client import HostClient
from openwop_tui.store.sessions import Store


async def chat_turns(
    store: Store, url: str, key: str, texts: Iterable[str], workflow: str = "demo.chat"
) -> str:
    """Send each of ``texts`` as a turn of one new session of ``store``; its id."""
    async with HostClient(url, key) as client:
        chat = opening.stored(store, None, session=Session(client, workflow_id=workflow))
        await chat.connect()
        for text in texts:
            async for _ in chat.send(text):
                pass
        session_id = chat.logs[0].session_id  # type: ignore[attr-defined]
    assert isinstance(session_id, str)
    return session_id
