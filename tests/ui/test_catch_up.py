"""A session cut off mid-run catches up from its host on reopen (issue 14: "reopening a
session whose run was cut catches up from the host … and says so").

The app killed with ``kill -9`` mid-reply leaves a log that ends inside the run: its ``run``
entry and the frames that had arrived, no ``end``. These tests store exactly that from a real
run of the demo host over loopback (the first 32 frames of its stream), then reopen it in the
app (``--session``, the sessions screen) connected to that host: the rest of the events come,
the reply is whole, the log holds every frame and the run's end, and the transcript says how
many events were caught up. When the host cannot give them (down, the run gone, another host),
a notice says which, and the session stays as it was kept.

Each fails without the catch-up: the reply stays cut, nothing is said.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from app_support import NO_AUDIO, SIZE, connected, items_of, settle
from cut_support import event_count, frames_until, run_frames, start_run, store_session

from openwop_tui.config import Config
from openwop_tui.core.fold import AssistantTurn, Notice
from openwop_tui.core.opening import stored
from openwop_tui.demo_host import DemoHost
from openwop_tui.protocol.sse import SSEFrame
from openwop_tui.store.sessions import Store
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.options import AppOptions
from openwop_tui.ui.screens.sessions import SessionsScreen

MESSAGE = "hello there"
KEPT = 32


def _reply(frames: list[SSEFrame]) -> str:
    """The reply's whole text, as the run's last node gave it."""
    for frame in reversed(frames):
        doc = json.loads(frame.data)
        completion = (doc.get("payload") or {}).get("outputs", {}).get("completion")
        if doc.get("type") == "node.completed" and doc.get("nodeId") == "reply" and completion:
            return str(completion)
    raise AssertionError("the run has no reply")


@pytest.fixture
def cut(host: DemoHost, client: httpx.Client) -> Iterator[tuple[str, str, list[SSEFrame]]]:
    """A stored session whose app was killed after the first `KEPT` frames of its run: its
    id, the run's id, and every frame the host holds."""
    run_id = start_run(client, MESSAGE)
    frames = run_frames(client, run_id)
    assert event_count(frames) > KEPT + 10
    store = Store()
    session_id = store_session(
        store, host=host.url, text=MESSAGE, run_id=run_id, frames=frames[:KEPT], ended=False
    )
    store.close()
    yield session_id, run_id, frames


def _app(host_url: str, key: str, options: AppOptions | None = None) -> ChatApp:
    config = Config(host=host_url, api_key=key, audio=False, images="none")
    return ChatApp(config, options, audio_support=NO_AUDIO)


def _notices(app: ChatApp) -> list[str]:
    return [n.text for n in items_of(app, Notice)]


async def test_continue_catches_the_cut_run_up_from_the_host(
    host: DemoHost, cut: tuple[str, str, list[SSEFrame]]
) -> None:
    session_id, run_id, frames = cut
    whole, missing = _reply(frames), event_count(frames) - KEPT

    # Offline first: the cut reply, as kept (what the catch-up has to complete).
    offline = stored(Store(), session_id)
    assert offline.cut is not None and offline.cut.run_id == run_id
    (kept_reply,) = [i for i in offline.transcript.items if isinstance(i, AssistantTurn)]
    assert kept_reply.text and kept_reply.text != whole and whole.startswith(kept_reply.text)

    app = _app(host.url, host.api_key, AppOptions(session_id=session_id))
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        said = f"caught up {missing} events from the host"
        await settle(pilot, app, lambda: any(said in t for t in _notices(app)), what=said)
        (reply,) = items_of(app, AssistantTurn)
        assert reply.text == whole and reply.final
        assert app.transcript.status == "completed"
        # Drawn whole too (the view's text of the reply: wrapped, so compared word by word).
        shown = " ".join(app.view.text_of(reply.id).split())
        tail = [w for w in whole.split() if w.isalpha()][-4:]
        assert tail and " ".join(tail) in shown, shown[-300:]

    # Kept: every frame after the first ones, and the run's end; the next open is whole.
    store = Store()
    entries = list(store.entries(session_id))
    logged = [e.frame_id for e in entries if e.kind == "frame"]
    assert logged == [f.id for f in frames]
    assert [e.kind for e in entries].count("end") == 1
    again = stored(store, session_id)
    assert again.cut is None
    (reply,) = [i for i in again.transcript.items if isinstance(i, AssistantTurn)]
    assert reply.text == whole


async def test_opening_it_from_the_sessions_screen_catches_it_up(
    host: DemoHost, cut: tuple[str, str, list[SSEFrame]]
) -> None:
    _session_id, _run_id, frames = cut
    app = _app(host.url, host.api_key)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await app.run_action("sessions")
        await settle(pilot, app, lambda: isinstance(app.screen, SessionsScreen), what="screen")
        await pilot.press("enter")  # the only (and latest) session
        said = f"caught up {event_count(frames) - KEPT} events from the host"
        await settle(pilot, app, lambda: any(said in t for t in _notices(app)), what=said)
        (reply,) = items_of(app, AssistantTurn)
        assert reply.text == _reply(frames)


async def test_a_host_that_is_down_is_named_and_the_session_stays_as_kept(
    cut: tuple[str, str, list[SSEFrame]],
) -> None:
    session_id, run_id, frames = cut
    app = _app(
        "http://127.0.0.1:9", "k", AppOptions(session_id=session_id)
    )  # nothing listens on port 9
    async with app.run_test(size=SIZE) as pilot:
        await settle(
            pilot,
            app,
            lambda: any("cannot be caught up now" in t for t in _notices(app)),
            what="the notice",
        )
        (said,) = [t for t in _notices(app) if "cannot be caught up" in t]
        assert run_id in said and "Reopen this session when the host answers" in said
        (reply,) = items_of(app, AssistantTurn)
        assert reply.text != _reply(frames)
    # Nothing ended it in the log: a later reopen, with the host up, can still catch it up.
    assert stored(Store(), session_id).cut is not None


async def test_a_run_the_host_no_longer_has_is_said_so(
    host: DemoHost, client: httpx.Client
) -> None:
    run_id = start_run(client, MESSAGE)
    frames = run_frames(client, run_id)
    gone = "run_" + "0" * 20  # a run this host never had (as after its restart)
    store = Store()
    session_id = store_session(
        store,
        host=host.url,
        text=MESSAGE,
        run_id=gone,
        frames=[SSEFrame(f.event, f.data.replace(run_id, gone), f.id) for f in frames[:KEPT]],
        ended=False,
    )
    store.close()
    app = _app(host.url, host.api_key, AppOptions(session_id=session_id))
    async with app.run_test(size=SIZE) as pilot:
        await settle(
            pilot,
            app,
            lambda: any("no longer has it" in t for t in _notices(app)),
            what="the notice",
        )
        assert any(gone in t for t in _notices(app))


async def test_a_session_from_another_host_names_the_host_that_ran_it(
    cut: tuple[str, str, list[SSEFrame]], host: DemoHost
) -> None:
    session_id, run_id, _frames = cut
    with DemoHost(pace=0) as other:
        app = _app(other.url, other.api_key, AppOptions(session_id=session_id))
        async with app.run_test(size=SIZE) as pilot:
            await settle(
                pilot,
                app,
                lambda: any(f"ran on {host.url}" in t for t in _notices(app)),
                what="the notice",
            )
            (said,) = [t for t in _notices(app) if "cannot be caught up" in t]
            assert run_id in said and f"--host {host.url}" in said


async def test_a_run_still_running_is_followed_live_from_where_the_log_stops(
    host: DemoHost, client: httpx.Client
) -> None:
    """Cut before the run asked its question: the question comes with the catch-up, the run
    is followed live (it waits for the answer), and answering it completes the run."""
    from openwop_tui.ui.widgets.interrupt_form import InterruptForm

    run_id = start_run(client, "go", workflow="demo.approve")
    frames = frames_until(client, run_id, lambda f: '"node.suspended"' in f.data)
    store = Store()
    session_id = store_session(
        store,
        host=host.url,
        text="go",
        run_id=run_id,
        frames=frames[:-2],  # the question and what just precedes it are not kept
        workflow="demo.approve",
        ended=False,
    )
    store.close()
    app = _app(host.url, host.api_key, AppOptions(session_id=session_id))
    async with app.run_test(size=SIZE) as pilot:
        await settle(
            pilot,
            app,
            lambda: bool(app.query(InterruptForm)),
            what="the question caught up",
            workers=False,
        )
        assert any("is still running on the host" in t for t in _notices(app))
        assert app.runs.busy and app.runs.following
        await pilot.pause()
        await pilot.press("a")  # accept
        await settle(
            pilot,
            app,
            lambda: any("caught up" in t for t in _notices(app)),
            what="the end of the catch-up",
        )
        assert app.transcript.status == "completed"
    entries = list(Store().entries(session_id))
    assert [e.kind for e in entries].count("end") == 1
