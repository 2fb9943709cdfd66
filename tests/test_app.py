"""The chat app end to end: `ChatApp` under `App.run_test`, talking to a real demo host over
loopback HTTP.

Nothing here sleeps for a fixed time to let something happen: every wait is `settle`, a bounded
loop of ``pilot.pause()`` (and, where the run may finish, ``app.workers.wait_for_complete()``)
that stops as soon as a condition on the app's state holds and fails with the transcript when it
never does.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from ctypes.util import find_library
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Input, Markdown

from openwop_tui.app import ChatApp
from openwop_tui.config import Config
from openwop_tui.demo_host import DemoHost, chat, media
from openwop_tui.renderers import AudioSupport, registered
from openwop_tui.screens.help import HelpScreen
from openwop_tui.transcript import AssistantTurn, EnvelopeItem, Notice, Transcript, UserTurn
from openwop_tui.widgets.envelope_view import EnvelopeView
from openwop_tui.widgets.events_panel import EventsPanel
from openwop_tui.widgets.items import AssistantMessage, ItemStatic
from openwop_tui.widgets.transcript_view import TranscriptView

NO_AUDIO = AudioSupport(False, "no audio device (test)")
SIZE = (120, 50)
#: Upper bound for one `wait_for_complete` call: a guard against a hang, not a synchronisation.
WORKER_WAIT = 15.0

Notes = list[tuple[str, str]]


# ----------------------------------------------------------------------------- helpers


def describe(app: ChatApp) -> str:
    """The transcript and status, for failure messages."""
    try:
        lines = [f"status: {app.status.connection} / run {app.status.run_status}"]
    except Exception as error:  # the app is gone: its widgets with it
        lines = [f"status: unavailable ({type(error).__name__})"]
    for item in app.transcript.items:
        text = getattr(item, "text", "") or getattr(getattr(item, "envelope", None), "kind", "")
        lines.append(f"  {type(item).__name__}: {str(text)[:100]!r}")
    return "\n".join(lines)


async def settle(
    pilot: Pilot[Any],
    app: ChatApp,
    condition: Callable[[], bool],
    rounds: int = 200,
    *,
    what: str = "",
    workers: bool = True,
) -> None:
    """Let the app work until ``condition()`` holds; fail clearly if it never does.

    ``workers=False`` does not wait for the workers (use it while a run is meant to keep going,
    as ``wait_for_complete`` would wait for its end).
    """
    for _ in range(rounds):
        if condition():
            return
        if not app.is_running:
            pytest.fail(f"the app stopped while waiting for: {what or condition}\n{describe(app)}")
        await pilot.pause()
        if workers:
            await asyncio.wait_for(app.workers.wait_for_complete(), WORKER_WAIT)
    if not condition():
        pytest.fail(f"never happened: {what or condition}\n{describe(app)}")


def record_notifications(app: App[Any]) -> Notes:
    """Collect every ``(severity, message)`` the app (or a widget) notifies from now on."""
    seen: Notes = []
    original = app.notify

    def notify(message: str, **kwargs: Any) -> None:
        seen.append((str(kwargs.get("severity", "information")), str(message)))
        original(message, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    return seen


def envelope_views(app: ChatApp) -> list[EnvelopeView]:
    return list(app.query(EnvelopeView))


def all_rendered(app: ChatApp) -> bool:
    return all(view.rendered is not None for view in envelope_views(app))


def run_over(app: ChatApp) -> bool:
    """No run in progress and every envelope drawn."""
    session = app.session
    return (
        session is not None
        and session.current_run is None
        and app.transcript.status is not None
        and app.transcript.status != "running"
        and all_rendered(app)
    )


def notices(app: ChatApp, level: str | None = None) -> list[Notice]:
    return [
        item
        for item in app.transcript.items
        if isinstance(item, Notice) and (level is None or item.level == level)
    ]


def items_of(app: ChatApp, kind: type[Any]) -> list[Any]:
    return [item for item in app.transcript.items if isinstance(item, kind)]


def plain(renderable: Any, width: int = 100) -> str:
    """What a Rich renderable looks like as text."""
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def demo_app(**config: Any) -> ChatApp:
    """The app on a fast, deterministic embedded demo host."""
    return ChatApp(
        Config(**config),
        demo_host=DemoHost(pace=0, deterministic=True),
        audio_support=NO_AUDIO,
    )


async def connected(pilot: Pilot[Any], app: ChatApp) -> None:
    await settle(
        pilot,
        app,
        lambda: app.session is not None and app.session.discovery is not None,
        what="connected to the host",
    )


async def send(pilot: Pilot[Any], app: ChatApp, text: str) -> None:
    """Type ``text`` into the prompt and press Enter."""
    prompt = app.query_one(Input)
    prompt.focus()
    prompt.value = text
    await pilot.press("enter")


async def turn(pilot: Pilot[Any], app: ChatApp, text: str) -> None:
    """Send ``text`` and wait until its run is over and every envelope is drawn."""
    runs = len(items_of(app, UserTurn))
    await send(pilot, app, text)
    await settle(
        pilot,
        app,
        lambda: len(items_of(app, UserTurn)) == runs + 1 and run_over(app),
        what=f"the run for {text!r} ended",
    )


@pytest.fixture(autouse=True)
def builtin_renderers_loaded() -> None:
    """Load the built-in renderers before the app renders anything.

    Works around an app bug (see `test_the_renderer_registry_loads_safely_from_two_threads`):
    the first renders of a process run in threads, concurrently, and the registry's lazy
    loading is not thread-safe, so a fresh process could fail its first tour with KeyError.
    """
    registered()


@pytest.fixture
def host() -> Iterator[DemoHost]:
    """A demo host the test starts and stops itself (for apps given ``Config(host=...)``)."""
    with DemoHost(pace=0, deterministic=True) as running:
        yield running


# ------------------------------------------------------------------------ chat turns


async def test_a_chat_turn_draws_the_reply_once_and_the_code_envelope() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        assert app.status.connection == "connected"
        assert app.status.host == "embedded demo host"
        assert app.query_one(Input).has_focus
        await pilot.press(*"code please", "enter")
        await settle(pilot, app, lambda: run_over(app), what="the run ended")

        (user,) = items_of(app, UserTurn)
        assert user.text == "code please"
        (reply,) = items_of(app, AssistantTurn)
        assert reply.final
        assert reply.text == chat.compose_reply("code please", ["code"])
        # Regression: the first streamed delta used to be drawn twice.
        message = app.view.widget_for(reply)
        assert isinstance(message, AssistantMessage)
        assert message.query_one(Markdown).source == reply.text
        assert not message.has_class("-streaming")

        (envelope,) = items_of(app, EnvelopeItem)
        assert envelope.envelope.display == "code"
        view = app.view.widget_for(envelope)
        assert isinstance(view, EnvelopeView)
        assert view.rendered is not None
        assert view.rendered.degraded is None
        assert not view.has_class("-degraded")
        assert "fib.py" in view.rendered.title
        assert "def fib(n: int) -> int:" in plain(view.rendered.body)

        order = [type(item) for item in app.transcript.items if not getattr(item, "verbose", 0)]
        assert order == [Notice, UserTurn, AssistantTurn, EnvelopeItem, Notice]
        assert notices(app)[-1].text.startswith("run completed")
        assert not notices(app, "error")

        status = app.status
        assert status.connection == "connected"
        assert status.run_status == "completed"
        assert status.run_id == "run_00000000000000000001"
        line = str(status.render())
        assert "run completed" in line and "disconnected" not in line

        assert app.session is not None
        assert app.session.history == [
            {"role": "user", "content": "code please"},
            {"role": "assistant", "content": reply.text},
        ]
        assert not app.query_one(Input).value  # the prompt was cleared


async def test_everything_draws_every_family_and_says_why_when_it_cannot() -> None:
    app = demo_app(images="halfblock")
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "show me everything")

        # By title, or by kind for the two JSON fallbacks, which have none.
        views = {
            v.item.envelope.rendering.title or v.item.envelope.kind: v for v in envelope_views(app)
        }
        assert len(views) == 13 == len(items_of(app, EnvelopeItem))

        def rendered(key: str) -> Any:
            result = views[key].rendered
            assert result is not None, key
            return result

        displays = [view.item.envelope.display for view in envelope_views(app)]
        assert displays == [
            "code", "card", "card", "image", "image", "audio", "file", "hologram", None,
            "image", "image", "audio", "image",
        ]  # fmt: skip

        shown = [
            "fib.py", "Deployment summary", "Host status", "Demo revenue by region",
            "Inline image", "tour-report.csv",
            "vendor.openwop-tui-demo.hologram", "vendor.openwop-tui-demo.metrics",
        ]  # fmt: skip
        for key in shown:
            assert rendered(key).degraded is None, key
            assert not views[key].has_class("-degraded"), key

        # The image by URL is drawn in half-block pixels, with its alt text as the caption.
        chart = views["Demo revenue by region"]
        assert chart.item.envelope.media is not None
        assert chart.item.envelope.media.url is not None
        assert chart.item.envelope.media.base64 is None
        chart_text = plain(rendered("Demo revenue by region").body)
        assert chart_text.count("▄") > 100
        assert "Bar chart of demo revenue by region" in chart_text
        assert [a.name for a in rendered("Demo revenue by region").actions] == ["save", "open"]
        assert "▄" in plain(rendered("Inline image").body)

        card_text = plain(rendered("Deployment summary").body)
        assert "Deploy succeeded" in card_text
        assert "uptimeSeconds" in plain(rendered("Host status").body)
        assert rendered("tour-report.csv").data == media.report_csv()

        # JSON fallbacks: an unknown display value, and no rendering hint at all.
        assert 'unknown display "hologram"' in rendered("vendor.openwop-tui-demo.hologram").title
        assert "no rendering hint" in rendered("vendor.openwop-tui-demo.metrics").title
        assert "p95" in plain(rendered("vendor.openwop-tui-demo.metrics").body)

        # Degraded: each with its specific reason, drawn with the warning border.
        reasons = {
            "Spoken greeting": "no audio device (test)",
            "Oversized image": "too large",
            "Undecodable image": "cannot decode",
            "Missing audio": "HTTP 404",
            "Unsafe URL": "refused: file:",
        }
        for key, reason in reasons.items():
            degraded = rendered(key).degraded
            assert degraded is not None and reason in degraded, (key, degraded)
            assert views[key].has_class("-degraded"), key
            assert reason in plain(rendered(key).body), key
        # The clip that is here keeps its player line and says why it cannot play; the rest
        # are the "not shown here" block, with where to get them.
        speech = plain(rendered("Spoken greeting").body)
        assert "cannot play here: no audio device (test)" in speech
        assert [a.name for a in rendered("Spoken greeting").actions] == ["save"]
        for key in ("Oversized image", "Undecodable image", "Missing audio", "Unsafe URL"):
            assert "not shown here" in plain(rendered(key).body), key
        assert "http" in plain(rendered("Missing audio").body)
        assert "file:///etc/passwd" in plain(rendered("Unsafe URL").body)
        assert app.status.run_status == "completed"
        assert not notices(app, "error")


async def test_a_second_turn_carries_the_history() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "code please")
        await turn(pilot, app, "and a card")

        first, second = items_of(app, AssistantTurn)
        assert second.text == chat.compose_reply("and a card", ["card"])
        expected = [
            {"role": "user", "content": "code please"},
            {"role": "assistant", "content": first.text},
            {"role": "user", "content": "and a card"},
        ]
        assert app.session is not None
        assert app.session.history == [*expected, {"role": "assistant", "content": second.text}]

        # What the host was sent: the second run.started carries the whole history.
        started = [n.event for n in notices(app) if n.text.startswith("run started")]
        assert len(started) == 2 and all(event is not None for event in started)
        assert started[0].payload["inputs"] == {"messages": expected[:1]}  # type: ignore[union-attr]
        assert started[1].payload["inputs"] == {"messages": expected}  # type: ignore[union-attr]
        assert app.status.run_id == "run_00000000000000000002"
        # Both replies are still drawn, each once.
        for reply in (first, second):
            widget = app.view.widget_for(reply)
            assert isinstance(widget, AssistantMessage)
            assert widget.query_one(Markdown).source == reply.text


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
        assert app.query_one(Input).value == ""


async def test_a_wrong_api_key_is_named(host: DemoHost) -> None:
    app = ChatApp(Config(host=host.url, api_key="wrong"), audio_support=NO_AUDIO)
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)  # discovery is public: the key is only checked on a run
        assert app.status.connection == "connected"
        assert app.status.host == host.url
        await send(pilot, app, "hello")
        await settle(pilot, app, lambda: bool(notices(app, "error")), what="an error notice")
        (error,) = notices(app, "error")
        assert "rejected the API key" in error.text
        assert "401" in error.text and "OPENWOP_API_KEY" in error.text
        assert "wrong" not in error.text  # the key itself is never shown
        assert app.status.run_status == "error"
        assert app.session is not None and app.session.history == []  # nothing to replay
        assert seen == [("error", error.text)]
        assert app.is_running and app._exception is None
    assert host.url  # the app leaves a host it did not start running; the fixture stops it


async def test_an_unknown_workflow_lists_the_available_ones(host: DemoHost) -> None:
    config = Config(host=host.url, api_key=host.api_key, workflow="nope")
    app = ChatApp(config, audio_support=NO_AUDIO)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await send(pilot, app, "hello")
        await settle(pilot, app, lambda: bool(notices(app, "error")), what="an error notice")
        (error,) = notices(app, "error")
        assert "workflow 'nope'" in error.text
        assert "demo.chat" in error.text and "demo.tour" in error.text
        assert app.status.run_status == "error"
        assert app.session is not None and app.session.history == []


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
        message = app.view.widget_for(reply)
        assert isinstance(message, AssistantMessage)
        assert message.query_one(Markdown).source == reply.text
        assert app.session is not None and app.session.current_run is None
        assert app.is_running and app._exception is None


async def test_escape_with_no_run_says_so() -> None:
    app = demo_app()
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await pilot.press("escape")
        await settle(pilot, app, lambda: bool(seen), what="a notification")
        assert seen == [("information", "No run to cancel.")]


# ------------------------------------------------------------------------ bindings


async def test_function_keys_help_events_and_lifecycle_lines() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)

        await pilot.press("f1")
        await settle(pilot, app, lambda: isinstance(app.screen, HelpScreen), what="help shown")
        assert "Ctrl+L" in app.screen.query_one(Markdown).source
        await pilot.press("escape")
        await settle(pilot, app, lambda: not isinstance(app.screen, HelpScreen), what="help gone")
        assert app.session is not None and app.session.current_run is None

        panel = app.query_one(EventsPanel)
        assert not panel.display
        await pilot.press("f2")
        await settle(pilot, app, lambda: panel.display, what="events panel shown")
        await turn(pilot, app, "code please")
        await settle(pilot, app, lambda: len(panel.lines) > 5, what="event lines")
        lines = [strip.text for strip in panel.lines]
        assert any("run.started" in line for line in lines)
        assert any("output.chunk" in line or "ai.message" in line for line in lines)
        assert any("run.completed" in line for line in lines)
        await pilot.press("f2")
        await settle(pilot, app, lambda: not panel.display, what="events panel hidden")

        lifecycle = [n for n in notices(app) if n.verbose]
        assert lifecycle and any(n.text.startswith("node code completed") for n in lifecycle)
        widgets = [app.view.widget_for(n) for n in lifecycle]
        assert all(isinstance(w, ItemStatic) and not w.display for w in widgets)
        await pilot.press("f3")
        await settle(pilot, app, lambda: all(w.display for w in widgets), what="lifecycle shown")  # type: ignore[union-attr]
        await pilot.press("f3")
        await settle(pilot, app, lambda: not any(w.display for w in widgets), what="hidden")  # type: ignore[union-attr]


async def test_saving_the_file_envelope(tmp_path: Path) -> None:
    app = demo_app(download_dir=str(tmp_path))
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "file please")
        (view,) = envelope_views(app)
        assert view.rendered is not None and view.rendered.filename == "tour-report.csv"
        view.focus()
        await settle(pilot, app, lambda: view.has_focus, what="the envelope focused")
        await pilot.press("s")
        saved = tmp_path / "tour-report.csv"
        await settle(pilot, app, lambda: bool(seen), what="a notification")
        assert seen == [("information", f"saved to {saved}")]
        assert saved.read_bytes() == media.report_csv()

        # Saving again never clobbers the first file.
        await pilot.press("s")
        await settle(pilot, app, lambda: len(seen) == 2, what="a second notification")
        assert (tmp_path / "tour-report-1.csv").read_bytes() == media.report_csv()

        # An action the envelope does not have is refused with a warning.
        await pilot.press("p")
        await settle(pilot, app, lambda: len(seen) == 3, what="a third notification")
        assert seen[-1] == ("warning", "nothing to play here")


# ------------------------------------------------------------------ bounded view


class ViewHost(App[None]):
    """Just a transcript view."""

    def compose(self) -> ComposeResult:
        yield TranscriptView(id="transcript")


async def test_the_transcript_view_stays_bounded() -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        for batch in range(30):  # as a fast run would: several changes per event
            changes = [transcript.add_user(f"message number {batch * 10 + i}") for i in range(10)]
            await view.apply(changes)
            assert view.live_count <= view.live_limit
        await pilot.pause()

        assert view.live_count <= view.live_limit == 40
        assert view.history.block_count >= 300 - view.live_limit
        assert view.history.block_count + view.live_count == 300
        assert len(view.children) == view.live_count + 1  # the live widgets and the history
        # The oldest items are in the history, the newest still live.
        assert view.widget_for(transcript.items[0]) is None
        assert view.widget_for(transcript.items[-1]) is not None

        history = view.history
        assert history.size.height > 0 and history.virtual_size.height > 0
        head = "\n".join(history.render_line(y).text for y in range(3))
        assert "You" in head and "message number 0" in head
        last = history.render_line(history.size.height - 1)
        assert last.cell_length == history.size.width
        assert history.render_line(10**6).text.strip() == ""  # past the end: blank

        await view.clear()
        assert view.live_count == 0 and view.history.block_count == 0


async def test_retired_lifecycle_lines_stay_hidden() -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply([transcript.add_notice("info", "node secret started", verbose=True)])
        for index in range(view.live_limit + 5):
            await view.apply([transcript.add_user(f"message number {index}")])
        await pilot.pause()
        assert view.widget_for(transcript.items[0]) is None  # retired
        lines = [view.history.render_line(y).text for y in range(view.history.size.height)]
        assert not any("node secret started" in line for line in lines)


# ------------------------------------------------------------- renderer registry

#: In a fresh interpreter: while one thread is loading the built-in renderers, another asks for
#: one (what happens when the first envelopes of a run are rendered in `asyncio.to_thread`).
REGISTRY_RACE_SCRIPT = """
import json, threading
import openwop_tui.renderers as registry

real_import = registry.import_module
outcome = {}

def other_thread():
    try:
        outcome["other"] = registry.resolve("card").__name__
    except Exception as error:
        outcome["other"] = f"{type(error).__name__}: {error}"

threads = []

def import_module(name):
    if name.endswith(".markdown"):  # the first built-in: the registry is still empty
        thread = threading.Thread(target=other_thread)
        thread.start()
        threads.append(thread)
    return real_import(name)

registry.import_module = import_module
outcome["first"] = registry.resolve("image").__name__
for thread in threads:
    thread.join(timeout=30)
print(json.dumps(outcome))
"""


def test_the_renderer_registry_loads_safely_from_two_threads() -> None:
    done = subprocess.run(
        [sys.executable, "-c", REGISTRY_RACE_SCRIPT],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome == {"first": "render_image", "other": "render_card"}


# ------------------------------------------------------------------------- audio


class StubPlayer:
    """Stands in for `openwop_tui.audio.Player`: "plays" until stopped, no sound card."""

    def __init__(self) -> None:
        self.playing = False
        self.played: list[bytes] = []
        self.checks = 0
        """How often the app asked whether it is playing (its playback timer does, each tick)."""

    @property
    def is_playing(self) -> bool:
        self.checks += 1
        return self.playing

    position = 1.5
    duration = 5.0

    def play(self, data: bytes) -> float:
        self.played.append(data)
        self.playing = True
        return self.duration

    def stop(self) -> None:
        self.playing = False

    def wait(self, timeout: float | None = None) -> bool:
        return True


async def playing_app(pilot: Pilot[Any], app: ChatApp, seen: Notes) -> EnvelopeView:
    """Ask for audio, focus its envelope, press p; return the view once playback started."""
    await connected(pilot, app)
    await turn(pilot, app, "audio please")
    (view,) = envelope_views(app)
    assert view.rendered is not None
    assert [a.name for a in view.rendered.actions] == ["play", "stop", "save"]
    view.focus()
    await settle(pilot, app, lambda: view.has_focus, what="the envelope focused")
    await pilot.press("p")
    await settle(pilot, app, lambda: bool(seen), what="a notification")
    return view


def app_with_stub_player() -> tuple[ChatApp, StubPlayer]:
    app = ChatApp(
        Config(),
        demo_host=DemoHost(pace=0, deterministic=True),
        audio_support=AudioSupport(True),
    )
    player = StubPlayer()
    app._player = player  # type: ignore[assignment]  # the app reuses a player it already has
    return app, player


async def test_play_shows_the_position_and_x_stops() -> None:
    app, player = app_with_stub_player()
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        view = await playing_app(pilot, app, seen)
        assert seen == [("information", "playing 5.0 s")]
        assert player.played == [media.audio_ogg()]
        line = view.query_one(".playback")
        assert line.has_class("-active")
        assert "▶ playing" in str(line.render())
        await pilot.press("x")
        await settle(pilot, app, lambda: not line.has_class("-active"), what="playback hidden")
        assert not player.playing
        assert app.is_running and app._exception is None


async def test_clearing_during_playback_does_not_crash() -> None:
    app, player = app_with_stub_player()
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await playing_app(pilot, app, seen)
        await pilot.press("ctrl+l")
        await settle(pilot, app, lambda: app.view.live_count == 0, what="the view cleared")
        # The stub never stops playing, so the playback timer only ends because a tick found
        # its view gone: that tick is the one that used to crash.
        await settle(
            pilot, app, lambda: app._playback_timer is None, what="the playback timer stopped"
        )
        assert player.playing
        assert app.is_running and app._exception is None


needs_portaudio = pytest.mark.skipif(
    find_library("portaudio") is None,
    reason="libportaudio2 is not installed (Debian package libportaudio2)",
)

#: Runs in a fresh interpreter: PortAudio reads the ALSA configuration once, when sounddevice is
#: first imported, so the null device must be configured before anything in the process loads it.
AUDIO_SCRIPT = """
import asyncio, json

from openwop_tui.app import ChatApp
from openwop_tui.config import Config
from openwop_tui.demo_host import DemoHost
from openwop_tui.renderers import registered
from openwop_tui.widgets.envelope_view import EnvelopeView
from textual.widgets import Input


async def main():
    registered()  # see builtin_renderers_loaded
    app = ChatApp(Config(), demo_host=DemoHost(pace=0, deterministic=True), audio_support=None)
    seen = []
    original = app.notify

    def notify(message, **kwargs):
        seen.append([kwargs.get("severity", "information"), str(message)])
        original(message, **kwargs)

    app.notify = notify
    async with app.run_test(size=(120, 50)) as pilot:
        async def settle(condition):
            for _ in range(300):
                if condition():
                    return True
                await pilot.pause()
                await asyncio.wait_for(app.workers.wait_for_complete(), 15)
            return condition()

        ok = await settle(lambda: app.session is not None and app.session.discovery is not None)
        app.query_one(Input).value = "audio please"
        await pilot.press("enter")
        views = lambda: list(app.query(EnvelopeView))
        ok = ok and await settle(
            lambda: app.transcript.status == "completed" and views()
            and all(v.rendered for v in views())
        )
        view = views()[0]
        view.focus()
        await pilot.pause()
        # The app follows playback with an interval timer; note when each one is stopped, so
        # the app is not shut down while one still runs (see test_clearing_during_playback...).
        timers = []
        set_interval = app.set_interval

        def tracked(*args, **kwargs):
            timer = set_interval(*args, **kwargs)
            record = {"stopped": False}
            stop = timer.stop

            def stopped():
                record["stopped"] = True
                stop()

            timer.stop = stopped
            timers.append(record)
            return timer

        app.set_interval = tracked
        await pilot.press("p")
        ok = ok and await settle(lambda: bool(seen))
        player = app._player
        finished = player.wait(30) if player is not None else False
        ok = ok and await settle(lambda: bool(timers) and all(t["stopped"] for t in timers))
        result = {
            "ok": ok,
            "support": [app._audio_support.available, app._audio_support.reason],
            "degraded": view.rendered.degraded,
            "actions": [a.name for a in view.rendered.actions],
            "seen": seen,
            "finished": finished,
            "playback_line": view.query_one(".playback").has_class("-active"),
        }
    print(json.dumps(result))


asyncio.run(main())
"""


@needs_portaudio
def test_play_audio_through_a_null_alsa_device(tmp_path: Path) -> None:
    conf = tmp_path / "asound.conf"
    conf.write_text("pcm.!default { type null }\n")
    env = {**os.environ, "ALSA_CONFIG_PATH": str(conf)}
    env.pop("OPENWOP_TUI_AUDIO", None)
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(AUDIO_SCRIPT)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["ok"], result
    assert result["support"] == [True, None]
    assert result["degraded"] is None
    assert result["actions"][:2] == ["play", "stop"]
    (severity, message), *_ = result["seen"]
    assert severity == "information"
    assert message.startswith("playing ") and message.endswith(" s"), message
    assert float(message.removeprefix("playing ").removesuffix(" s")) > 0
    assert result["finished"] is True
    assert result["playback_line"] is False  # hidden again once the clip ended
