"""The app keeps its conversation (issue 6, parts 2-5): every event is written to the session
store as it arrives; a session reopens at once without its host and continues with its history;
``record`` writes the raw stream; ``replay`` plays a recording through the app; export and the
sessions screen work from the app.

Each test fails without its wiring: the app not using the conversation's stored log (nothing
kept), not drawing a reopened session before connecting, not passing the recorder on, not playing
the replay.
"""

from __future__ import annotations

from pathlib import Path

from app_support import NO_AUDIO, SIZE, connected, demo_app, items_of, settle, turn

from openwop_tui.config import Config
from openwop_tui.core.fold import AssistantTurn, UserTurn
from openwop_tui.store.record import read_recording
from openwop_tui.store.sessions import Store
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.options import AppOptions, Replay
from openwop_tui.ui.screens.sessions import SessionsScreen


async def _chat(app: ChatApp, *messages: str) -> str | None:
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        for message in messages:
            await turn(pilot, app, message)
        return app.sessions.kept_session_id()


async def test_a_session_is_kept_and_reopens_at_once_without_its_host() -> None:
    session_id = await _chat(demo_app(), "code please")
    assert session_id is not None
    (info,) = Store().sessions()
    assert info.id == session_id and info.title == "code please"

    # A host that is not there: the transcript must show before any answer from it.
    dead = Config(host="http://127.0.0.1:9", audio=False, images="none")
    app = ChatApp(dead, AppOptions(session_id=session_id), audio_support=NO_AUDIO)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert [u.text for u in items_of(app, UserTurn)] == ["code please"]
        (reply,) = items_of(app, AssistantTurn)
        assert reply.text and reply.final
        assert any("code please" in app.view.text_of(b.item.id) for b in app.view.blocks())
        assert app.conversation.history[0] == {"role": "user", "content": "code please"}


async def test_sending_after_reopening_continues_the_conversation() -> None:
    session_id = await _chat(demo_app(), "hello there")
    app2 = demo_app(session_id=session_id)
    async with app2.run_test(size=SIZE) as pilot:
        await connected(pilot, app2)
        await turn(pilot, app2, "hello again")
        history = app2.conversation.history
    assert [m["content"] for m in history if m["role"] == "user"] == [
        "hello there",
        "hello again",
    ]
    assert len(list(Store().sessions())) == 1  # the same session, continued


async def test_record_writes_the_raw_stream_and_replay_plays_it(tmp_path: Path) -> None:
    path = tmp_path / "chat.sse"
    live = demo_app()
    live = ChatApp(
        live.config,
        AppOptions(record=path),
        demo_host=live.connection.demo_host,
        audio_support=NO_AUDIO,
    )
    await _chat(live, "a card please")
    live_items = [type(item).__name__ for item in live.transcript.items]
    recording = read_recording(path.read_text())
    assert recording.marked and any(e.kind == "frame" for e in recording.entries)

    replay = ChatApp(
        Config(audio=False, images="none"),
        AppOptions(replay=Replay(path=path, speed=0)),
        audio_support=NO_AUDIO,
    )
    async with replay.run_test(size=SIZE) as pilot:
        await settle(pilot, replay, lambda: replay.status.connection == "replayed", what="end")
        replayed = [type(item).__name__ for item in replay.transcript.items]
        assert replay.session is None  # no host was contacted
    # The same items, plus the closing line the replay adds.
    assert replayed[: len(live_items) - 1] == live_items[1 : len(live_items)] or set(
        live_items[1:]
    ) <= set(replayed)
    assert "AssistantTurn" in replayed and "EnvelopeItem" in replayed


async def test_export_and_the_sessions_screen_from_the_app(tmp_path: Path) -> None:
    app = demo_app(download_dir=str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "a file please")
        await app.run_action("export")
        exported = list(tmp_path.glob("*.md"))
        assert len(exported) == 1 and "a file please" in exported[0].read_text()
        assert list(tmp_path.glob("*/tour-report.csv")) or list(tmp_path.rglob("*.csv"))
        await app.run_action("sessions")
        await settle(pilot, app, lambda: isinstance(app.screen, SessionsScreen), what="screen")
        await pilot.press("escape")
        await settle(pilot, app, lambda: not isinstance(app.screen, SessionsScreen), what="closed")


async def test_attach_follows_a_run_started_elsewhere() -> None:
    """``--attach RUN_ID``: the app follows a run it did not start, to its end."""
    import httpx

    from openwop_tui.demo_host import DemoHost

    with DemoHost(pace=0, deterministic=True) as host:
        created = httpx.post(
            f"{host.url}/v1/runs",
            json={"workflowId": "demo.tour", "inputs": {}},
            headers={"Authorization": f"Bearer {host.api_key}"},
        ).json()
        config = Config(host=host.url, api_key=host.api_key, audio=False, images="none")
        app = ChatApp(config, AppOptions(attach=created["runId"]), audio_support=NO_AUDIO)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app, lambda: app.transcript.status == "completed", what="end")
            assert app.status.run_id == created["runId"]
            assert not items_of(app, UserTurn)
            assert len([i for i in app.transcript.items if type(i).__name__ == "EnvelopeItem"]) > 5
