"""The chat app's keys and panels: F1 help, the F2 events panel and F3 lifecycle lines, saving a
file envelope (never clobbering), and the transcript view that draws only what is visible however
long the chat gets (hidden lifecycle lines staying hidden at any age).

Every wait is `app_support.settle`, never a fixed sleep.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from app_support import (
    SIZE,
    builtin_renderers_loaded,  # noqa: F401  (an autouse fixture: importing it applies it here)
    connected,
    demo_app,
    envelope_views,
    notices,
    on_screen,
    record_notifications,
    select_item,
    settle,
    turn,
)
from media_parts import two_colour_png
from rich.console import Console
from textual.app import App, ComposeResult
from textual.widgets import Static

from openwop_tui.core.fold import Transcript
from openwop_tui.core.own_media import is_own
from openwop_tui.demo_host import media
from openwop_tui.protocol.events import normalize
from openwop_tui.renderers import Registry
from openwop_tui.ui.screens.help import HelpScreen, KeyRow
from openwop_tui.ui.screens.inspect import InspectScreen
from openwop_tui.ui.transcript.view import TranscriptView
from openwop_tui.ui.widgets.json_pieces import plain as row_text
from openwop_tui.ui.widgets.json_tree import JsonTree
from openwop_tui.ui.widgets.prompt import PromptInput
from openwop_tui.ui.widgets.timeline_panel import TimelinePanel

# ------------------------------------------------------------------------ bindings


async def test_function_keys_help_events_and_lifecycle_lines() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)

        await pilot.press("f1")
        await settle(pilot, app, lambda: isinstance(app.screen, HelpScreen), what="help shown")
        assert "Ctrl+L" in [row.keys_shown for row in app.screen.query(KeyRow)]
        await pilot.press("escape")
        await settle(pilot, app, lambda: not isinstance(app.screen, HelpScreen), what="help gone")
        assert app.session is not None and app.session.current_run is None

        panel = app.query_one(TimelinePanel)
        assert not panel.display
        await pilot.press("f2")
        await settle(pilot, app, lambda: panel.display, what="events panel shown")
        await turn(pilot, app, "code please")
        await settle(pilot, app, lambda: len(panel.view.entries) > 5, what="event lines")
        lines = panel.view.plain_lines()
        assert any("run.started" in line for line in lines)
        assert any("output.chunk" in line or "ai.message" in line for line in lines)
        assert any("run.completed" in line for line in lines)
        await pilot.press("f2")
        await settle(pilot, app, lambda: not panel.display, what="events panel hidden")

        lifecycle = [n for n in notices(app) if n.verbose]
        assert lifecycle and any(n.text.startswith("node code completed") for n in lifecycle)
        shown = lambda: "node code completed" in on_screen(app.view)  # noqa: E731
        assert not shown()
        await pilot.press("f3")
        await settle(pilot, app, shown, what="lifecycle shown")
        await pilot.press("f3")
        await settle(pilot, app, lambda: not shown(), what="hidden")


async def test_saving_the_file_envelope(tmp_path: Path) -> None:
    app = demo_app(download_dir=str(tmp_path))
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "file please")
        (view,) = envelope_views(app)
        assert view.rendered is not None and view.rendered.filename == "tour-report.csv"
        await select_item(pilot, app, view)
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
        yield TranscriptView(id="transcript", registry=Registry().load())


async def test_the_transcript_view_draws_only_what_is_visible() -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        for batch in range(30):  # as a fast run would: several changes per event
            changes = [transcript.add_user(f"message number {batch * 10 + i}") for i in range(10)]
            await view.apply(changes)
        await pilot.pause()

        assert view.block_count == 300 and not view.children  # one Line-API widget
        drawn = [block for block in view.blocks() if block.measured]
        # The last screenful, and the page above it drawn ahead (for Page Up); nothing more.
        assert 0 < len(drawn) <= 24
        assert all(block in view.blocks()[-24:] for block in drawn)
        assert "message number 299" in on_screen(view)
        view.action_first()
        await pilot.pause()
        assert "message number 0" in on_screen(view)
        assert not view.blocks()[150].measured  # never scrolled to: never drawn
        assert view.render_line(10**6).text.strip() == ""  # past the end: blank

        await view.clear()
        assert view.block_count == 0


async def test_lifecycle_lines_stay_hidden_at_any_age() -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply([transcript.add_notice("info", "node secret started", verbose=True)])
        for index in range(45):
            await view.apply([transcript.add_user(f"message number {index}")])
        view.action_first()
        await pilot.pause()
        assert "message number 0" in on_screen(view)
        assert "node secret started" not in on_screen(view)
        view.show_verbose = True
        await pilot.pause()
        assert "node secret started" in on_screen(view)


async def test_i_on_an_envelope_shows_it_beside_its_source_event() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "json please")
        hologram = next(
            view for view in envelope_views(app) if view.item.envelope.display == "hologram"
        )
        await select_item(pilot, app, hologram)
        await pilot.press("i")
        await settle(pilot, app, lambda: isinstance(app.screen, InspectScreen), what="inspector")
        console = Console(width=200, record=True, file=io.StringIO(), color_system=None)
        for static in app.screen.query(Static):
            console.print(static.content)
        for tree in app.screen.query(JsonTree):  # the envelope and the event, as JSON trees
            console.print("\n".join(row_text(tree.rows, i) for i in range(len(tree.rows))))
        text = console.export_text()
        assert "vendor.openwop-tui-demo.hologram" in text
        assert '"type": "node.completed"' in text  # the source event's raw JSON
        assert "causationId" in text
        await pilot.press("escape")
        await settle(pilot, app, lambda: not isinstance(app.screen, InspectScreen), what="closed")


async def test_i_on_your_own_attachment_shows_your_message_as_sent(tmp_path: Path) -> None:
    """The user's own picture (issue 25, part 5) opens in the inspector beside the message it
    went in, named as theirs (no run event, no sequence): its part as sent, the words with it."""
    picture = tmp_path / "picture.png"
    picture.write_bytes(two_colour_png((16, 8)))
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        assert app.attaching.add_path(picture)
        await turn(pilot, app, "what is this?")
        (own,) = [view for view in envelope_views(app) if is_own(view.item)]
        await select_item(pilot, app, own)
        await pilot.press("i")
        await settle(pilot, app, lambda: isinstance(app.screen, InspectScreen), what="inspector")
        titles = [str(widget.border_title) for widget in app.screen.query("Vertical")]
        assert "your message · as sent" in titles and "envelope · media.image" in titles
        console = Console(width=200, record=True, file=io.StringIO(), color_system=None)
        for tree in app.screen.query(JsonTree):
            console.print("\n".join(row_text(tree.rows, i) for i in range(len(tree.rows))))
        text = console.export_text()
        assert '"alt": "picture.png"' in text and '"text": "what is this?"' in text
        await pilot.press("escape")
        await settle(pilot, app, lambda: not isinstance(app.screen, InspectScreen), what="closed")


@pytest.mark.parametrize("key", ["shift+tab", "ctrl+up"])
async def test_the_input_enters_the_transcript_arrows_step_and_escape_leaves(key: str) -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "card please")
        view = app.view
        # The items the cursor stops at: no lifecycle line ("run completed"), no welcome.
        shown = [i for i, block in enumerate(view.blocks()) if block.stop and not block.verbose]
        await pilot.press(key)
        await settle(pilot, app, lambda: view.has_focus, what="the transcript focused")
        assert view.cursor == shown[-1]  # the newest item
        await pilot.press("up")
        assert view.cursor == shown[-2]  # hidden lifecycle lines are skipped
        await pilot.press("down")
        assert view.cursor == shown[-1]
        await pilot.press("escape")
        await settle(pilot, app, lambda: app.query_one(PromptInput).has_focus, what="back to input")
        assert app.session is not None and app.session.current_run is None


async def test_a_fragment_of_a_streamed_envelope_has_no_actions_until_complete() -> None:
    def fragment(seq: int, partial: bool) -> list[Any]:
        envelope = {
            "type": "vendor.x.snippet",
            "envelopeId": f"e{seq}",
            "correlationId": "emission-1",
            "payload": {"source": "print('hi')\n"},
            "meta": {"rendering": {"display": "code", "lang": "python"}},
            "partial": {"isPartial": partial, "index": seq, "total": -1},
        }
        event = normalize(
            {
                "type": "node.completed",
                "sequence": seq,
                "nodeId": "n",
                "payload": {"nodeId": "n", "outputs": {"envelope": envelope}},
            }
        )
        return app.transcript.apply(event)

    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await app.view.apply(fragment(1, True))
        (view,) = envelope_views(app)
        await settle(pilot, app, lambda: view.rendered is not None, what="fragment drawn")
        assert view.rendered is not None and view.rendered.actions == ()
        assert "[Copy]" not in app.view.text_of(view.item_id)
        await app.view.apply(fragment(2, False))
        await settle(
            pilot,
            app,
            lambda: view.rendered is not None and view.rendered.actions != (),
            what="complete envelope drawn with its actions",
        )
