"""Catching a cut run up checks what the host sends back (issue 23: a host answering with
another run's events had them drawn inside the cut reply and stored, "caught up 6 events", no
warning; a host ignoring ``Last-Event-ID`` left 15 duplicate frames in the log; a 10^15
sequence gap went unsaid).

The conversation (`Conversation.catch_up`, no app) catches a stored cut run up from a hostile
loopback host (`catch_up_host`): events of another run are refused, not drawn and not
logged, and said in one line; frames already kept are neither kept nor drawn twice; a jump in
the sequence is said with how many events are missing, between which sequences. A good host
gets no such line. Each fails without its check.
"""

from __future__ import annotations

import pytest
from catch_up_host import (
    FOREIGN_EVENTS,
    FOREIGN_TEXT,
    GAP,
    KEPT,
    KEY,
    OTHER,
    RUN,
    WORDS,
    CatchUpHost,
    Fault,
    cut_session,
    run_events,
)

from openwop_tui.core.fold import AssistantTurn, Notice
from openwop_tui.core.opening import stored
from openwop_tui.core.session import Session
from openwop_tui.core.updates import EventArrived, StreamNoticed, Update
from openwop_tui.protocol.client import HostClient
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store

REPLY = "".join(WORDS)


async def _catch_up(how: Fault) -> tuple[list[Update], list[Entry], list[str], list[str | None]]:
    """Catch the stored cut run up from a host with fault ``how``: the updates, the log after,
    the transcript's warnings, and the ``Last-Event-ID`` of each stream request."""
    with CatchUpHost(how) as host:
        store = Store()
        session_id = cut_session(store, host.url)
        async with HostClient(host.url, KEY) as client:
            chat = stored(
                store, session_id, session=Session(client, workflow_id="chat"), resume=True
            )
            assert chat.open_run is not None and chat.open_run.after == KEPT - 1
            snapshot = await client.get_run(RUN)
            updates = [update async for update in chat.catch_up(snapshot)]
        (reply,) = [i for i in chat.transcript.items if isinstance(i, AssistantTurn)]
        assert reply.full_text == REPLY  # whole, once, nothing of another run in it
        notices = [
            i.text for i in chat.transcript.items if isinstance(i, Notice) and i.level == "warning"
        ]
        entries = list(store.entries(session_id))
        store.close()
        return updates, entries, notices, host.resumed_after


def _arrived(updates: list[Update]) -> list[EventArrived]:
    return [u for u in updates if isinstance(u, EventArrived)]


def _frames(entries: list[Entry]) -> list[Entry]:
    return [e for e in entries if e.kind == "frame"]


async def test_events_of_another_run_are_refused_and_said_in_one_line() -> None:
    updates, entries, notices, _ = await _catch_up("foreign")
    arrived = _arrived(updates)
    assert arrived and all(u.event.run_id == RUN for u in arrived)
    assert len(arrived) == len(run_events()) - KEPT
    # Not logged as the cut run's: the next open does not draw them either.
    assert not [e for e in _frames(entries) if OTHER in e.data or FOREIGN_TEXT in e.data]
    said = (
        f"The host sent {FOREIGN_EVENTS} events of run {OTHER} while catching up run {RUN}; "
        "they were not shown or kept."
    )
    assert notices.count(said) == 1, notices
    assert [e.data for e in entries if e.kind == "notice"].count(said) == 1
    assert any(isinstance(u, StreamNoticed) and u.notice.level == "warning" for u in updates)


async def test_a_host_that_replays_from_the_start_leaves_no_duplicate() -> None:
    updates, entries, notices, resumed = await _catch_up("replay")
    assert resumed[0] == str(KEPT - 1)  # it was asked for what follows, and ignored it
    ids = [e.frame_id for e in _frames(entries)]
    assert ids == [str(doc["sequence"]) for doc in run_events()]  # each frame kept once
    assert [u.event.sequence for u in _arrived(updates)] == list(range(KEPT, len(WORDS) + 2))
    assert not notices


async def test_a_sequence_gap_is_said_with_how_many_and_where() -> None:
    updates, entries, notices, _ = await _catch_up("gap")
    (said,) = [n for n in notices if "missing" in n]
    assert "1,000,000,000,000,000 events are missing" in said
    assert f"between sequence {KEPT - 1:,} and {KEPT + GAP:,}" in said
    assert said in [e.data for e in entries if e.kind == "notice"]
    assert len(_arrived(updates)) == len(run_events()) - KEPT


async def test_a_good_host_is_caught_up_without_a_word_of_warning() -> None:
    updates, entries, notices, resumed = await _catch_up("fine")
    assert resumed == [str(KEPT - 1)]
    assert len(_arrived(updates)) == len(run_events()) - KEPT
    assert len(_frames(entries)) == len(run_events())
    assert not notices


@pytest.mark.parametrize("how", ["foreign", "replay", "gap"])
async def test_the_next_open_shows_what_the_catch_up_showed(how: Fault) -> None:
    """What was refused is not in the log, so reopening folds the same reply, once."""
    with CatchUpHost(how) as host:
        store = Store()
        session_id = cut_session(store, host.url)
        async with HostClient(host.url, KEY) as client:
            chat = stored(
                store, session_id, session=Session(client, workflow_id="chat"), resume=True
            )
            async for _ in chat.catch_up(await client.get_run(RUN)):
                pass
        again = stored(store, session_id)
        store.close()
    (reply,) = [i for i in again.transcript.items if isinstance(i, AssistantTurn)]
    assert reply.full_text == REPLY and again.cut is None
