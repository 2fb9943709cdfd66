"""A run the app was killed in, read back with ``resume``, stays open until it is caught up or
settled (issue 24: the catch-up read the whole session a second time to have it open).

`Conversation.settle_cut` settles it as a reopen without ``resume`` would have, and a message
sent first settles it before its own run begins (the log then orders the new run after the cut
one, as a reopen reads it). Each fails without its part: a settle that differs from the reopen's
(items, history), or a send that begins a run over the open one (the cut reply never final, the
new run's events folded into it).
"""

from __future__ import annotations

import httpx
from cut_support import run_frames, start_run, store_session

from openwop_tui.core.fold import AssistantTurn, UserTurn
from openwop_tui.core.opening import stored
from openwop_tui.core.reopen import same_items
from openwop_tui.core.session import Session
from openwop_tui.core.updates import RunStarted, Updated
from openwop_tui.demo_host import DemoHost
from openwop_tui.protocol.client import HostClient
from openwop_tui.store.sessions import Store

KEPT = 32


def _cut_session(store: Store, host: DemoHost, client: httpx.Client) -> str:
    """A stored session whose app was killed after the first `KEPT` frames of its run."""
    run_id = start_run(client, "hello there")
    frames = run_frames(client, run_id)
    return store_session(
        store, host=host.url, text="hello there", run_id=run_id, frames=frames[:KEPT], ended=False
    )


def test_settling_it_gives_what_a_reopen_without_resume_gives(
    host: DemoHost, client: httpx.Client
) -> None:
    with Store() as store:
        session_id = _cut_session(store, host, client)
        left_open = stored(store, session_id, resume=True)
        assert left_open.cut is not None and left_open.open_run == left_open.cut
        (reply,) = [i for i in left_open.transcript.items if isinstance(i, AssistantTurn)]
        assert not reply.final
        updates = left_open.settle_cut()
        assert any(isinstance(u, Updated) and u.item is reply for u in updates) and reply.final
        assert left_open.cut is None and left_open.open_run is None
        assert left_open.settle_cut() == []  # (once)
        settled = stored(store, session_id)
        assert same_items(left_open.transcript.items, settled.transcript.items)
        assert left_open.history == settled.history


async def test_a_message_sent_first_settles_it_before_its_run(
    host: DemoHost, client: httpx.Client
) -> None:
    with Store() as store:
        session_id = _cut_session(store, host, client)
        async with HostClient(host.url, host.api_key) as http:
            chat = stored(
                store, session_id, session=Session(http, workflow_id="demo.chat"), resume=True
            )
            cut = chat.cut
            assert cut is not None
            (kept,) = [i for i in chat.transcript.items if isinstance(i, AssistantTurn)]
            await chat.connect()
            updates = [update async for update in chat.send("and then?")]
        settled = next(
            i for i, u in enumerate(updates) if isinstance(u, Updated) and u.item is kept
        )
        started = next(i for i, u in enumerate(updates) if isinstance(u, RunStarted))
        assert settled < started and kept.final and chat.cut is None
        replies = [i for i in chat.transcript.items if isinstance(i, AssistantTurn)]
        assert len(replies) == 2 and replies[0] is kept and replies[1].final
        # The log reads back the same: the cut run settled by the next one.
        again = stored(store, session_id)
        assert same_items(chat.transcript.items, again.transcript.items)
        assert [t.text for t in again.transcript.items if isinstance(t, UserTurn)] == [
            "hello there",
            "and then?",
        ]
