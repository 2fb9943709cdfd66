"""The app catching a reopened session's cut run up checks what the host sends back (issue 23:
"caught up 6 events" of another run, drawn inside the cut reply and stored, no warning; 15
duplicate frames in the log from a host that ignored ``Last-Event-ID``; a 10^15 gap unsaid).

The app reopens (``--session``) a session cut mid-reply, connected to a hostile loopback host
(`catch_up_host`); once caught up, the transcript and the screen hold the reply once and
nothing of another run, the count of events caught up is the run's own, the warning is on
screen, and the store holds each frame once and no other run's. Each fails without its check.
"""

from __future__ import annotations

from app_support import NO_AUDIO, SIZE, items_of, settle
from catch_up_host import (
    FOREIGN_EVENTS,
    FOREIGN_TEXT,
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

from openwop_tui.config import Config
from openwop_tui.core.fold import AssistantTurn, Notice
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.options import AppOptions

REPLY = "".join(WORDS)
CAUGHT = f"caught up {len(run_events()) - KEPT} events from the host"


async def _reopen(how: Fault) -> tuple[list[str], str, list[Entry]]:
    """Reopen the cut session in the app against a host with fault ``how``, to the end of the
    catch-up: the transcript's notices, the reply as drawn, and the log after."""
    with CatchUpHost(how) as host:
        store = Store()
        session_id = cut_session(store, host.url)
        store.close()
        config = Config(host=host.url, api_key=KEY, audio=False, images="none")
        app = ChatApp(config, AppOptions(session_id=session_id), audio_support=NO_AUDIO)
        async with app.run_test(size=SIZE) as pilot:

            def notices() -> list[str]:
                return [n.text for n in items_of(app, Notice)]

            await settle(pilot, app, lambda: any("caught up" in t for t in notices()), what=CAUGHT)
            (reply,) = items_of(app, AssistantTurn)
            assert reply.full_text == REPLY
            drawn = " ".join(app.view.text_of(reply.id).split())
            said = notices()
            on_screen = " ".join(
                " ".join(app.view.text_of(n.id).split()) for n in items_of(app, Notice)
            )
    with Store() as store:
        entries = list(store.entries(session_id))
    assert CAUGHT in " ".join(said), said  # the run's own events, counted
    assert drawn.count("word11") == 1 and FOREIGN_TEXT.strip() not in drawn
    return said, on_screen, entries


def _frames(entries: list[Entry]) -> list[Entry]:
    return [e for e in entries if e.kind == "frame"]


async def test_another_runs_events_are_not_drawn_nor_kept_and_the_screen_says_so() -> None:
    said, on_screen, entries = await _reopen("foreign")
    line = (
        f"The host sent {FOREIGN_EVENTS} events of run {OTHER} while catching up run {RUN}; "
        "they were not shown or kept."
    )
    assert said.count(line) == 1
    assert f"{FOREIGN_EVENTS} events of run {OTHER}" in on_screen
    assert not [e for e in _frames(entries) if OTHER in e.data]


async def test_a_replay_from_the_start_keeps_each_frame_once() -> None:
    said, _, entries = await _reopen("replay")
    assert [e.frame_id for e in _frames(entries)] == [str(d["sequence"]) for d in run_events()]
    assert not [t for t in said if "missing" in t or "The host sent" in t]


async def test_a_gap_is_said_on_screen() -> None:
    said, on_screen, _ = await _reopen("gap")
    (line,) = [t for t in said if "missing" in t]
    assert "1,000,000,000,000,000 events are missing between sequence 4 and" in line
    assert "1,000,000,000,000,000 events are missing" in on_screen
