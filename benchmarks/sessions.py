"""Stored sessions of real-shaped turns for the reopen and continue figures.

A turn is recorded once from the demo host over a socket (the user's message, the run's
creation, its ~75 frames of streamed reply, its end: what the app writes), then written again
``turns`` times with its run id, event ids and message made unique, so a 3,000-turn session
costs seconds to make, not the 3,000 runs it stands for.
"""

from __future__ import annotations

import json
from pathlib import Path

from openwop_tui.core import opening
from openwop_tui.core.session import Session
from openwop_tui.demo_host import DemoHost
from openwop_tui.protocol.client import HostClient
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store


async def recorded_turn(text: str = "tell me about the weather") -> list[Entry]:
    """One real ``demo.chat`` turn as the log keeps it, recorded from a demo host."""
    with DemoHost(pace=0) as demo, Store(Path(demo_folder()) / "turn.db") as store:
        async with HostClient(demo.url, demo.api_key) as client:
            chat = opening.stored(store, None, session=Session(client, workflow_id="demo.chat"))
            await chat.connect()
            async for _ in chat.send(text):
                pass
            session_id = chat.logs[0].session_id  # type: ignore[attr-defined]
            assert isinstance(session_id, str)
            return list(store.entries(session_id))


def demo_folder() -> str:
    import tempfile

    return tempfile.mkdtemp(prefix="openwop-bench-")


def write_session(store: Store, turn: list[Entry], turns: int) -> str:
    """A session of ``turns`` copies of ``turn``, each with its own run id and message."""
    run = next(e.run for e in turn if e.kind == "run")
    assert run is not None
    user = next(e.data for e in turn if e.kind == "user")
    session_id = store.create(host="http://127.0.0.1:1", workflow="demo.chat")
    for n in range(turns):
        mine = f"run_{n:020d}"
        for entry in turn:
            data = entry.data.replace(run, mine).replace("evt_", f"evt_{n}_")
            if entry.kind == "user":
                data = f"{user} ({n})"
            elif entry.kind == "frame":
                data = data.replace(json.dumps(user)[1:-1], f"{user} ({n})")
            store.append(
                session_id,
                Entry(
                    entry.kind,
                    data,
                    run=mine if entry.run else None,
                    label=entry.label,
                    frame_id=entry.frame_id,
                    meta=entry.meta,
                ),
            )
    store.flush()
    return session_id
