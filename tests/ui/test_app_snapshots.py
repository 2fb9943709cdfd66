"""SVG snapshots of the chat app on the deterministic embedded demo host (pytest-textual-snapshot).

Update them with ``pytest tests/ui/test_app_snapshots.py --snapshot-update`` after a deliberate
change to how the app looks, and look at every changed SVG before committing it.

What keeps them byte-stable: the demo host runs at pace 0 with deterministic ids, tokens and
timestamps; the audio line is fixed by an `AudioSupport` given to the app; the prompt's cursor
does not blink; the status line names the "embedded demo host", never its port. Two things the
demo host's deterministic mode leaves to chance are pinned here: the port (media blocks show
where to get an asset, ``http://127.0.0.1:<port>/…``), by binding the host to `SNAPSHOT_PORT`;
and the run and node durations, measured on the real clock, by the ``fixed_durations`` fixture.
"""

from __future__ import annotations

import fcntl
import os
import socket
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from app_support import (
    all_rendered,
    builtin_renderers_loaded,  # noqa: F401  (an autouse fixture: it applies here too)
    connected,
    draw_everything,
    envelope_views,
    notices,
    run_over,
    settle,
)
from textual.pilot import Pilot

from openwop_tui.config import Config
from openwop_tui.demo_host import DemoHost, chat, steps
from openwop_tui.devices.profile import Profile
from openwop_tui.renderers import AudioSupport
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.screens.help import HelpScreen
from openwop_tui.ui.widgets.interrupt_form import InterruptForm
from openwop_tui.ui.widgets.prompt import PromptInput

SIZE = (120, 50)
#: A fixed loopback port for the demo host (below Linux's ephemeral range, 32768-60999).
SNAPSHOT_PORT = 28817
Snap = Callable[..., bool]
RunBefore = Callable[[Pilot[Any]], Awaitable[None]]


@pytest.fixture(autouse=True)
def fixed_durations(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Pin the durations the demo host reports ("run completed in 0.14 s")."""
    monkeypatch.setattr(steps.WorkflowContext, "elapsed_ms", lambda self: 1234)
    monkeypatch.setattr(steps, "since", lambda started: 5)
    monkeypatch.setattr(chat, "since", lambda started: 5)
    yield


#: One worker runs every snapshot (``--dist loadgroup``): they share `SNAPSHOT_PORT`.
pytestmark = pytest.mark.xdist_group("snapshots")


@pytest.fixture(autouse=True)
def free_port() -> Iterator[None]:
    """Hold `SNAPSHOT_PORT` for this test across every checkout on this machine.

    The goldens show the host URL, so the port is fixed; two test runs (a worktree beside the
    main checkout, a second session) would otherwise collide on it. A lock file next to the
    system's temporary folder serialises them: a run waits its turn instead of skipping (a
    skipped snapshot under ``--snapshot-update`` deletes its golden). Whatever else holds the
    port (not a test run) still skips, or fails under CI, where nothing else may.
    """
    lock_path = Path(tempfile.gettempdir()) / f"openwop-tui-snapshot-port-{SNAPSHOT_PORT}.lock"
    with lock_path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the host does
            try:
                probe.bind(("127.0.0.1", SNAPSHOT_PORT))
            except OSError as error:
                why = f"port {SNAPSHOT_PORT} is busy ({error}); the snapshots show the host URL"
                if os.environ.get("CI"):
                    pytest.fail(why)
                pytest.skip(why)
        yield


def snapshot_app(theme: str | None = None, workflow: str | None = None) -> ChatApp:
    return ChatApp(
        Config(images="halfblock", theme=theme, **({"workflow": workflow} if workflow else {})),
        demo_host=DemoHost(port=SNAPSHOT_PORT, pace=0, deterministic=True),
        audio_support=AudioSupport(False, "no audio device (snapshot)"),
    )


def app_of(pilot: Pilot[Any]) -> ChatApp:
    app = pilot.app
    assert isinstance(app, ChatApp)
    return app


async def ready(pilot: Pilot[Any]) -> ChatApp:
    """Connected, welcome line drawn, cursor steady."""
    app = app_of(pilot)
    app.query_one(PromptInput).cursor_blink = False
    await connected(pilot, app)
    await settle(pilot, app, lambda: bool(notices(app)), what="the welcome line")
    return app


async def ask(pilot: Pilot[Any], text: str) -> ChatApp:
    """Send ``text`` and wait until the run is over and every envelope drawn."""
    app = await ready(pilot)
    prompt = app.query_one(PromptInput)
    prompt.value = text
    await pilot.press("enter")
    await settle(pilot, app, lambda: run_over(app), what=f"the run for {text!r} ended")
    await pilot.pause()
    return app


def tour_at(name: str | None) -> RunBefore:
    """Ask for the tour, then scroll so the envelope whose title (or, without one, kind) is
    ``name`` is at the top; ``None``: the top of the transcript."""

    async def run_before(pilot: Pilot[Any]) -> None:
        app = await ask(pilot, "show me everything")
        # Every item measured once, so the scrollbar (the total height) is exact, not estimates
        # that depend on which items a paint happened to reach first.
        await draw_everything(pilot, app)
        view = app.view
        if name is None:
            view.action_first()
            view.cursor = None  # as the user sees it before entering the transcript
        else:
            (target,) = [
                v
                for v in envelope_views(app)
                if (v.item.envelope.rendering.title or v.item.envelope.kind) == name
            ]
            view.show_at_top(view.blocks().index(target))
        for _ in range(3):  # each paint may bring another envelope into view: until none does
            await pilot.pause()  # painted: the view asks for the envelopes it shows
            await settle(pilot, app, lambda: all_rendered(app), what="the envelopes shown drawn")
        await pilot.pause()

    return run_before


def test_welcome(snap_compare: Snap) -> None:
    assert snap_compare(snapshot_app(), terminal_size=SIZE, run_before=ready)


def test_tour_top(snap_compare: Snap) -> None:
    """The user turn, the streamed reply and the code envelope."""
    assert snap_compare(snapshot_app(), terminal_size=SIZE, run_before=tour_at(None))


def test_tour_image_by_url(snap_compare: Snap) -> None:
    """The chart fetched by URL, drawn in half-blocks, with its caption."""
    run_before = tour_at("Demo revenue by region")
    assert snap_compare(snapshot_app(), terminal_size=SIZE, run_before=run_before)


def test_tour_audio_and_file(snap_compare: Snap) -> None:
    """The audio player line (no device here, so it says why and offers save) and the file."""
    run_before = tour_at("Spoken greeting")
    assert snap_compare(snapshot_app(), terminal_size=SIZE, run_before=run_before)


def test_tour_json_fallbacks(snap_compare: Snap) -> None:
    """An unknown display value and an envelope with no rendering hint, as JSON."""
    run_before = tour_at("vendor.openwop-tui-demo.hologram")
    assert snap_compare(snapshot_app(), terminal_size=SIZE, run_before=run_before)


def test_tour_degraded(snap_compare: Snap) -> None:
    """Too large, undecodable, HTTP 404 and a refused file: URL, each saying why."""
    assert snap_compare(snapshot_app(), terminal_size=SIZE, run_before=tour_at("Oversized image"))


def test_help_screen(snap_compare: Snap) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = await ready(pilot)
        await pilot.press("f1")
        await settle(pilot, app, lambda: isinstance(app.screen, HelpScreen), what="help")

    assert snap_compare(snapshot_app(), terminal_size=SIZE, run_before=run_before)


def test_failed_run(snap_compare: Snap) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await ask(pilot, "please fail")

    assert snap_compare(snapshot_app(), terminal_size=SIZE, run_before=run_before)


def waiting_on_form(keys: tuple[str, ...] = ()) -> RunBefore:
    """Start the workflow, wait for its question's form, then press ``keys``."""

    async def run_before(pilot: Pilot[Any]) -> None:
        app = await ready(pilot)
        app.query_one(PromptInput).value = "go"
        await pilot.press("enter")
        await settle(
            pilot, app, lambda: bool(app.query(InterruptForm)), what="the form", workers=False
        )
        await pilot.pause()
        if keys:
            await pilot.press(*keys)
        await pilot.pause()

    return run_before


@pytest.mark.parametrize(
    ("workflow", "keys"),
    [
        ("demo.clarify", ()),
        ("demo.approve", ()),
        ("demo.approve", ("R", *"not yet")),
        ("demo.low-confidence", ()),
    ],
    ids=["clarification", "approval", "reject-with-reason", "low-confidence"],
)
def test_forms(snap_compare: Snap, workflow: str, keys: tuple[str, ...]) -> None:
    """Each kind of question as its form above the prompt, focused."""
    app = snapshot_app(workflow=workflow)
    assert snap_compare(app, terminal_size=(100, 36), run_before=waiting_on_form(keys))


#: The shipped themes besides the default (which every test above uses).
OTHER_THEMES = ["openwop-light", "openwop-high-contrast"]


@pytest.mark.parametrize("theme", OTHER_THEMES)
@pytest.mark.parametrize(
    "name",
    [None, "Demo revenue by region", "vendor.openwop-tui-demo.hologram", "Oversized image"],
    ids=["top", "image", "json", "degraded"],
)
def test_tour_in_theme(snap_compare: Snap, theme: str, name: str | None) -> None:
    """The tour in the light and the high-contrast theme: every item in the theme's colours
    (no black code or inline-code slabs on the light one, no dimmed text on high contrast)."""
    assert snap_compare(snapshot_app(theme), terminal_size=SIZE, run_before=tour_at(name))


#: The degradation lab's forced profiles (issue 8): each renderer and each degraded path of
#: the tour drawn under each. Set before the run, as the lab's switches would.
FORCED = {
    "no-images": Profile(images="none"),
    "16-colours": Profile(colours="16"),
    "no-audio": Profile(audio=False),
}
#: Where the tour is scrolled to: the card, the chart (an image by URL), the audio and file,
#: the undecodable and unsupported images, the animated GIF and the refused URLs.
STOPS = ["Deployment summary", "Demo revenue by region", "Spoken greeting", "Undecodable image"]


def under(profile: Profile, run_before: RunBefore) -> RunBefore:
    async def before(pilot: Pilot[Any]) -> None:
        app = app_of(pilot)
        app.lab.profile = profile
        app.view.set_profile(profile.colours, profile.width)
        await run_before(pilot)

    return before


@pytest.mark.parametrize("stop", STOPS)
@pytest.mark.parametrize("profile", list(FORCED))
def test_tour_under_forced_profiles(snap_compare: Snap, profile: str, stop: str) -> None:
    """Every renderer and degraded path under each forced profile, with its badge."""
    run_before = under(FORCED[profile], tour_at(stop))
    assert snap_compare(snapshot_app(), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("stop", [None, "Demo revenue by region", "Oversized image"])
def test_tour_at_80x24(snap_compare: Snap, stop: str | None) -> None:
    """The smallest common terminal: items, boxes and badges fit 80 columns."""
    assert snap_compare(snapshot_app(), terminal_size=(80, 24), run_before=tour_at(stop))


def test_openclaw_directives(snap_compare: Snap) -> None:
    """OpenClaw's directives: stripped text, media items, refusals, the embed, the reply line."""

    async def run_before(pilot: Pilot[Any]) -> None:
        app = await ask(pilot, "hello")
        await draw_everything(pilot, app)
        app.view.action_first()
        app.view.cursor = None
        for _ in range(3):
            await pilot.pause()
            await settle(pilot, app, lambda: all_rendered(app), what="the envelopes shown drawn")

    app = snapshot_app(workflow="demo.openclaw")
    assert snap_compare(app, terminal_size=(120, 60), run_before=run_before)
