"""The chat app when things go wrong: a failed run, a dead host, a rejected API key, an unknown
workflow, and Escape (cancelling a streaming run, or saying there is none). Each is a sentence in
the transcript or a notification, never a traceback, and the app keeps running.

Every wait is `app_support.settle`, never a fixed sleep.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from app_support import (
    NO_AUDIO,
    SIZE,
    builtin_renderers_loaded,  # noqa: F401  (an autouse fixture: importing it applies it here)
    connected,
    demo_app,
    items_of,
    notices,
    record_notifications,
    run_over,
    send,
    settle,
    turn,
)
from textual.widgets import OptionList

from openwop_tui.config import Config
from openwop_tui.core.fold import Added, AssistantTurn, Notice, Updated, UserTurn
from openwop_tui.demo_host import DemoHost, chat
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.screens.workflows import WorkflowPicker
from openwop_tui.ui.widgets.prompt import PromptInput


@pytest.fixture
def host() -> Iterator[DemoHost]:
    """A demo host the test starts and stops itself (for apps given ``Config(host=...)``)."""
    with DemoHost(pace=0, deterministic=True) as running:
        yield running


# ---------------------------------------------------------------------- failed run


async def test_a_failed_run_is_a_notice_not_a_traceback() -> None:
    app = demo_app()
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "please fail")

        (error,) = notices(app, "error")[-1:]
        assert error.text.startswith("run failed at node explode · demo_failure")
        assert "node explode failed · demo_failure" in [n.text.split(":")[0] for n in notices(app)]
        assert app.transcript.status == "failed"
        assert app.status.run_status == "failed"
        assert app.status.connection == "connected"
        assert not [n for n in notices(app) if "unexpected error" in n.text]
        assert app.is_running and app._exception is None
        (reply,) = items_of(app, AssistantTurn)
        assert reply.final and "demo_failure" in reply.text
        assert seen == []  # a failed run is a transcript line; only client errors pop up


# ---------------------------------------------------------------- host problems


async def test_a_dead_host_is_explained_and_the_app_keeps_running() -> None:
    app = ChatApp(Config(host="http://127.0.0.1:9"), audio_support=NO_AUDIO)
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, lambda: bool(notices(app, "error")), what="an error notice")
        (first,) = notices(app, "error")
        assert "Cannot reach http://127.0.0.1:9" in first.text
        assert "Is the host running?" in first.text
        assert app.status.connection == "disconnected"
        assert app.status.host == "http://127.0.0.1:9"

        await send(pilot, app, "hello?")
        await settle(pilot, app, lambda: len(notices(app, "error")) == 2, what="a second error")
        second = notices(app, "error")[-1]
        assert "Cannot reach http://127.0.0.1:9" in second.text
        assert [type(item) for item in app.transcript.items] == [Notice, UserTurn, Notice]
        assert seen == [("error", first.text), ("error", second.text)]
        assert app.status.connection == "disconnected"
        assert app.is_running and app._exception is None
        assert not [n for n in notices(app) if "unexpected error" in n.text]
        assert app.query_one(PromptInput).value == ""


async def test_a_wrong_api_key_is_named_at_connect(host: DemoHost) -> None:
    # Discovery is public, so after it the client makes one authenticated read: a rejected key
    # is reported at connect, before the first message (issue 7, item 9).
    app = ChatApp(Config(host=host.url, api_key="wrong"), audio_support=NO_AUDIO)
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, lambda: bool(notices(app, "error")), what="an error notice")
        (error,) = notices(app, "error")
        assert "rejected the API key" in error.text
        # The app's advice is its settings screen, where a key applies at once (issue 27).
        assert "401" in error.text and "Press F10 (Settings) to enter another key" in error.text
        assert "wrong" not in error.text  # the key itself is never shown
        assert app.status.connection != "connected"
        assert app.session is not None and app.conversation.history == []
        assert seen == [("error", error.text)]
        assert app.is_running and app._exception is None
    assert host.url  # the app leaves a host it did not start running; the fixture stops it


async def test_an_unknown_workflow_offers_the_hosts_workflows(host: DemoHost) -> None:
    """A workflow the host does not have: say so and offer its workflows before any message;
    a message typed meanwhile waits, then runs the one picked (issue 7, item 4)."""
    config = Config(host=host.url, api_key=host.api_key, workflow="nope")
    app = ChatApp(config, audio_support=NO_AUDIO)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await settle(pilot, app, lambda: isinstance(app.screen, WorkflowPicker), what="picker")
        assert any("no workflow 'nope'" in n.text for n in notices(app))
        await pilot.press("escape")  # nothing picked: nothing sent, and it says how to pick
        await settle(pilot, app, lambda: not isinstance(app.screen, WorkflowPicker), what="gone")
        assert any("Pick a workflow" in n.text for n in notices(app, "warning"))
        await send(pilot, app, "hello")  # waits for a workflow instead of meeting a 404
        await settle(pilot, app, lambda: bool(app.chat.parts.queued.pending), what="queued")
        assert not notices(app, "error")
        assert app.conversation.history == []


async def test_the_picked_workflow_runs_the_waiting_message(host: DemoHost) -> None:
    config = Config(host=host.url, api_key=host.api_key, workflow="nope")
    app = ChatApp(config, audio_support=NO_AUDIO)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await settle(pilot, app, lambda: isinstance(app.screen, WorkflowPicker), what="picker")
        picker = app.screen
        assert isinstance(picker, WorkflowPicker)
        options = picker.query_one(OptionList)
        options.highlighted = [c.id for c in picker.choices].index("conformance-noop")
        await pilot.press("enter")
        await settle(pilot, app, lambda: app.status.workflow == "conformance-noop", what="used")
        await send(pilot, app, "hello")
        await settle(pilot, app, lambda: app.transcript.status == "completed", what="completed")


# -------------------------------------------------------------------------- cancel


async def test_escape_cancels_a_streaming_run() -> None:
    app = ChatApp(Config(), demo_host=DemoHost(pace=1, deterministic=True), audio_support=NO_AUDIO)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await send(pilot, app, "something slow")

        def streaming() -> bool:
            replies = items_of(app, AssistantTurn)
            return app.status.connection == "streaming" and bool(replies and replies[0].text)

        await settle(pilot, app, streaming, what="the reply streaming", workers=False)
        await pilot.press("escape")
        await settle(pilot, app, lambda: run_over(app), what="the run cancelled")

        assert app.transcript.status == "cancelled"
        assert app.status.run_status == "cancelled"
        assert app.status.connection == "connected"
        cancelled = notices(app, "warning")[-1]
        assert cancelled.text.startswith("run cancelled")
        (reply,) = items_of(app, AssistantTurn)
        assert reply.final
        assert reply.text != chat.compose_reply("something slow", ["slow"])  # cut short
        # No completion replaced the streamed text: what is drawn is exactly the deltas, once.
        block = app.view.block_for(reply.id)
        assert block is not None
        assert block.reply_markdown(reply).text == reply.text
        assert app.session is not None and app.session.current_run is None
        assert app.is_running and app._exception is None


async def test_escape_with_no_run_is_not_offered_and_does_nothing() -> None:
    """With no run, the footer does not offer Esc (issue 27: it said "Cancel run" with none),
    and Esc leaves everything as it was: no run to cancel, nothing said."""
    app = demo_app()
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await pilot.press("escape")
        await pilot.pause()
        assert "escape" not in app.screen.active_bindings
        assert seen == []


async def test_a_second_enter_while_a_run_is_being_created_is_queued_then_sent() -> None:
    app = ChatApp(Config(), demo_host=DemoHost(pace=1, deterministic=True), audio_support=NO_AUDIO)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        prompt = app.query_one(PromptInput)
        prompt.value = "slow"
        await pilot.press("enter")
        prompt.value = "second"
        await pilot.press("enter")  # no await in between: the first run is not created yet
        assert app.chat.parts.queued.pending == ("second",)
        assert [u.text for u in items_of(app, UserTurn)] == ["slow"]
        await pilot.press("escape")
        await settle(
            pilot,
            app,
            lambda: len(items_of(app, UserTurn)) == 2 and run_over(app),
            what="the queued message sent after the slow run",
        )
        assert [u.text for u in items_of(app, UserTurn)] == ["slow", "second"]
        assert not app.chat.parts.queued.pending


async def test_host_text_with_markup_characters_is_shown_not_parsed() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        # A model name that would be a Textual/Rich markup error if parsed.
        turn_item = AssistantTurn("assistant-x", "n", text="hi", final=True, model="gpt[/x]")
        await app.view.apply([Added(turn_item), Updated(turn_item)])
        await pilot.pause()
        assert app.is_running and app._exception is None


async def test_an_unknown_theme_is_a_warning_not_a_crash() -> None:
    app = ChatApp(
        Config(theme="no-such-theme"),
        demo_host=DemoHost(pace=0, deterministic=True),
        audio_support=NO_AUDIO,
    )
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        assert any("unknown theme 'no-such-theme'" in n.text for n in notices(app, "warning"))


async def test_a_host_url_the_client_cannot_use_is_a_notice() -> None:
    app = ChatApp(Config(host="http://127.0.0.1:notaport"), audio_support=NO_AUDIO)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, lambda: bool(notices(app, "error")), what="an error notice")
        assert "is not a valid http:// or https:// address" in notices(app, "error")[0].text
        assert app.is_running and app._exception is None
