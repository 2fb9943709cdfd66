"""The event timeline in the app (issue 16): F2 beside the transcript and a screen of its own,
filtered by a kept filter line, Enter showing an event's JSON tree, links from an event to the
item it made and back, lint marks in rows, badges and the inspector, and the statistics and
doctor screens. The app runs against the real demo host over loopback."""

from __future__ import annotations

from typing import Any

from app_support import (
    SIZE,
    builtin_renderers_loaded,  # noqa: F401  (an autouse fixture: importing it applies it here)
    connected,
    demo_app,
    envelope_views,
    on_screen,
    settle,
    turn,
)
from rich.text import Text
from textual.pilot import Pilot

from openwop_tui.core.updates import EventArrived
from openwop_tui.protocol.events import normalize
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.screens.doctor import DoctorScreen
from openwop_tui.ui.screens.event import EventScreen
from openwop_tui.ui.screens.inspect import InspectScreen
from openwop_tui.ui.screens.stats import StatsBody, StatsScreen
from openwop_tui.ui.screens.timeline import TimelineScreen
from openwop_tui.ui.widgets.json_pieces import plain as tree_row_text
from openwop_tui.ui.widgets.json_tree import JsonTree
from openwop_tui.ui.widgets.timeline_panel import TimelinePanel
from openwop_tui.ui.widgets.timeline_view import TimelineView


def docked(app: ChatApp) -> TimelinePanel:
    return app.chat.parts.events


async def type_filter(pilot: Pilot[Any], panel: TimelinePanel, text: str) -> None:
    panel.filter_input.focus()
    panel.filter_input.value = ""
    await pilot.press(*text)


async def opened_timeline(
    pilot: Pilot[Any], app: ChatApp, message: str
) -> tuple[TimelineScreen, TimelineView]:
    """The app connected, ``message`` answered, and the timeline screen (F9) showing rows."""
    await connected(pilot, app)
    await turn(pilot, app, message)
    await pilot.press("f9")
    await settle(pilot, app, lambda: isinstance(app.screen, TimelineScreen), what="screen")
    screen = app.screen
    assert isinstance(screen, TimelineScreen)
    view = screen.panel.view
    await settle(pilot, app, lambda: bool(view.entries), what="rows")
    return screen, view


async def test_f2_filter_keeps_only_node_completed_and_is_kept_for_the_chat() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        panel = docked(app)
        assert not panel.display
        await pilot.press("f2")
        await settle(pilot, app, lambda: panel.display, what="timeline shown")
        await turn(pilot, app, "code please")
        rows = lambda: panel.view.plain_lines()  # noqa: E731
        await settle(pilot, app, lambda: any("run.completed" in r for r in rows()), what="rows")
        assert any("run.started" in r for r in rows())
        total = len(rows())
        await type_filter(pilot, panel, "node.completed")
        await settle(pilot, app, lambda: len(rows()) < total, what="filtered")
        kept = [entry.row.type for entry in panel.view.entries]
        assert kept and set(kept) == {"node.completed"}
        # Kept for the chat: hidden and shown again, and on the timeline screen (F9).
        await pilot.press("f2")
        await pilot.press("f2")
        await pilot.pause()
        assert panel.filter_input.value == "node.completed"
        await pilot.press("f9")
        await settle(pilot, app, lambda: isinstance(app.screen, TimelineScreen), what="screen")
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        await settle(pilot, app, lambda: bool(screen.panel.view.entries), what="screen rows")
        assert screen.panel.filter_input.value == "node.completed"
        assert {e.row.type for e in screen.panel.view.entries} == {"node.completed"}


async def test_typing_on_the_opened_timeline_screen_filters_it() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        screen, view = await opened_timeline(pilot, app, "code please")
        # Straight away, no click and no key first: the letters go to the filter line (a
        # "t" or "q" in the rows would leave the screen).
        await pilot.press(*"node.completed")
        await settle(pilot, app, lambda: {e.row.type for e in view.entries} == {"node.completed"})
        assert app.screen is screen and screen.panel.filter_input.value == "node.completed"
        await pilot.press("enter")  # to the rows; Enter again opens the selected event
        assert view.has_focus
        await pilot.press("enter")
        await settle(pilot, app, lambda: isinstance(app.screen, EventScreen), what="the event")


async def test_a_following_timeline_opens_on_the_newest_rows_with_aligned_columns() -> None:
    app = demo_app()
    async with app.run_test(size=(120, 30)) as pilot:
        _, view = await opened_timeline(pilot, app, "show me everything")
        await pilot.pause()
        assert view.following
        # More rows than lines: the newest (run.completed) is on screen, not the first.
        shown = on_screen(view)
        assert "run.completed" in shown and "run.started" not in shown, shown
        # A row with lint marks keeps its type, node and summary in the same columns.
        lines = [line for line in shown.splitlines() if "node.completed" in line]
        marked = [line for line in lines if "OW" in line]
        assert marked and len(marked) < len(lines)
        assert len({line.index("node.completed") for line in lines}) == 1, lines


async def test_enter_on_a_row_shows_its_event_as_a_json_tree() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        screen, view = await opened_timeline(pilot, app, "code please")
        await type_filter(pilot, screen.panel, "run.started")
        await settle(pilot, app, lambda: len(view.entries) == 1, what="one row")
        view.focus()
        await pilot.press("enter")
        await settle(pilot, app, lambda: isinstance(app.screen, EventScreen), what="the event")
        tree = app.screen.query_one(JsonTree)
        shown = "\n".join(tree_row_text(tree.rows, i) for i in range(len(tree.rows)))
        assert "run.started" in shown
        assert "sequence" in shown


async def test_t_goes_from_an_event_to_its_item_and_e_back_to_its_events() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "code please")
        (block,) = envelope_views(app)
        await pilot.press("f2")
        panel = docked(app)
        await settle(pilot, app, lambda: bool(panel.view.entries), what="rows")
        await type_filter(pilot, panel, "node.completed")
        await settle(
            pilot, app, lambda: {e.row.type for e in panel.view.entries} == {"node.completed"}
        )
        made = [e for e in panel.view.entries if e.row.node == "code"]
        assert made, panel.view.plain_lines()
        panel.view.focus()
        panel.view.select_entry(made[0])
        await pilot.press("t")
        await settle(pilot, app, lambda: app.view.has_focus, what="the transcript focused")
        assert app.view.cursor == app.view.blocks().index(block)
        # And back: e on the item opens the timeline filtered to its events.
        await pilot.press("e")
        await settle(pilot, app, lambda: isinstance(app.screen, TimelineScreen), what="screen")
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        await settle(pilot, app, lambda: bool(screen.panel.view.entries), what="its rows")
        assert screen.panel.filter_input.value == f"item:{block.item_id}"
        shown = [e.row for e in screen.panel.view.entries]
        assert made[0].row in shown
        everything = app.timeline.kept.entries
        assert len(shown) < len(everything)
        assert not any(row.type == "run.started" for row in shown)


async def test_lint_marks_in_rows_badges_and_the_inspector() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "show me everything")
        await pilot.press("f2")
        panel = docked(app)
        await settle(pilot, app, lambda: bool(panel.view.entries), what="rows")
        await type_filter(pilot, panel, "has:warnings")
        await settle(pilot, app, lambda: all(e.row.marks for e in panel.view.entries))
        flagged = panel.view.entries
        assert flagged
        code = flagged[0].row.marks[0]
        assert any(f"⚠ {code}" in line or f"✖ {code}" in line for line in panel.view.plain_lines())
        marked = [b for b in envelope_views(app) if b.lint]
        assert marked, "no envelope badge carries a lint mark"
        block = marked[0]
        app.view.focus()
        app.view.select(app.view.blocks().index(block))
        await pilot.pause()
        assert block.lint in on_screen(app.view)
        await pilot.press("i")
        await settle(pilot, app, lambda: isinstance(app.screen, InspectScreen), what="inspector")
        screen = app.screen
        assert isinstance(screen, InspectScreen)
        summary = screen._summary().inner
        assert isinstance(summary, Text)
        assert f"\nlint {block.lint.split()[0]} {block.lint.split()[1]} " in summary.plain


async def test_the_lint_knows_the_connected_host_so_its_own_media_are_not_flagged() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "show me everything")
        refused = [f for f in app.timeline.kept.inspector.linter.findings if f.code == "OW216"]
        # The tour's two foreign URLs, not the demo host's own (loopback) images and clips.
        assert len(refused) == 2, [f.message for f in refused]
        assert not any("loopback" in f.message for f in refused)
        badges = [b.lint for b in envelope_views(app) if "OW216" in b.lint]
        assert len(badges) == 2, badges


async def test_rows_reach_the_panel_in_batches_not_one_redraw_per_event() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await pilot.press("f2")
        view = docked(app).view
        calls: list[int] = []
        extend = view.extend

        def counted(entries: Any) -> None:
            batch = list(entries)
            calls.append(len(batch))
            extend(batch)

        view.extend = counted  # type: ignore[method-assign]
        events = [
            EventArrived(normalize({"type": "log.appended", "runId": "r", "sequence": n}))
            for n in range(3000)
        ]
        await app.feed.show(events)
        await settle(pilot, app, lambda: sum(calls) == 3000, what="the batches drawn")
        # In batches: the show lets the event loop run every few milliseconds (keys first), and
        # the panel may draw what is folded by then, but never a redraw per event.
        assert len(calls) <= 3000 // 10, calls  # (a batch per frame: ten times fewer, at least)
        assert len(view.entries) == 3000


async def test_statistics_and_doctor_screens() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "code please")
        await pilot.press("f8")
        await settle(pilot, app, lambda: isinstance(app.screen, StatsScreen), what="stats")
        body = app.screen.query_one(StatsBody)
        text = "\n".join(line.plain for line in body.lines_now())
        assert "run " in text and "events" in text and "█" in text
        await pilot.press("escape")
        await app.run_action("doctor")
        await settle(pilot, app, lambda: isinstance(app.screen, DoctorScreen), what="doctor")
        screen = app.screen
        assert isinstance(screen, DoctorScreen)
        await settle(pilot, app, lambda: hasattr(screen, "checks"), what="the checks")
        names = [check.name for check in screen.checks]
        assert "images" in names and "session store" in names and "host" in names


async def test_a_row_waiting_for_its_batch_as_a_panel_is_shown_is_drawn_once() -> None:
    """A panel shown between an event's arrival and the batch that draws it is filled with
    that row already: the batch must not add it again (seen on a loaded machine: F2 pressed
    just after a run's last events, every one of them twice)."""
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        timeline = app.timeline
        panel = app.query_one(TimelinePanel)
        for n in range(3):
            timeline.arrived(normalize({"type": "log.appended", "runId": "r", "sequence": n}))
        assert len(timeline.kept.queued) == 3  # (no batch yet: nothing awaited)
        timeline.attach(panel)  # shown now: the three rows with it (inspected for it)
        timeline.flush()  # the batch they were waiting for
        assert [e.row.sequence for e in panel.view.entries] == [0, 1, 2]
        timeline.arrived(normalize({"type": "log.appended", "runId": "r", "sequence": 3}))
        timeline.flush()  # a later batch still draws its rows
        assert [e.row.sequence for e in panel.view.entries] == [0, 1, 2, 3]
