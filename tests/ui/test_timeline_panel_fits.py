"""F2's events panel beside the transcript at 120 columns (issue 27: "cuts its node and summary
columns at 120 columns and covers the status bar").

Each row takes two lines where one cannot hold every column: the node and the summary are on
screen, the summary ended with ``…`` only when it is longer than the line (Enter shows the
event whole); and the status line above the panel is whole. Fails with one line per row (the
node and summary cropped at the panel's edge) or without the panel's top margin (its filter
line drawn over the status line).
"""

from __future__ import annotations

from app_support import connected, demo_app, settle, turn

from openwop_tui.ui.widgets.status import StatusLine
from openwop_tui.ui.widgets.timeline_view import TimelineView, mark_cell


async def test_at_120_columns_every_column_shows_and_the_status_line_is_whole() -> None:
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "code please")
        await pilot.press("f2")
        panel = app.chat.parts.events
        await settle(pilot, app, lambda: panel.display and panel.size.width > 0, what="panel")
        await pilot.pause()
        view = panel.query_one(TimelineView)
        assert view.lines_per_row == 2
        # The status line is above the panel, not under it, across the whole width.
        assert all(
            isinstance(app.screen.get_widget_at(x, 0)[0], StatusLine) for x in range(0, 120, 7)
        )
        assert panel.region.y >= 1
        lines = [view.render_line(y).text.rstrip() for y in range(view.size.height)]
        top, _ = divmod(view.scroll_offset.y, 2)
        for shown in range(min(len(lines) // 2, len(view.entries) - top)):
            entry = view.entries[top + shown]
            first, second = lines[2 * shown], lines[2 * shown + 1]
            assert first.endswith(entry.row.type)  # the type in full
            row = entry.row
            whole = " " * 6 + " ".join(
                p for p in (mark_cell(row), row.node or "", row.summary) if p
            )
            # The node in full, and the summary in full or ended with … at the line's end.
            assert second == whole or (
                second.endswith("…")
                and whole.startswith(second[:-1])
                and len(second) == view.scrollable_content_region.width
                and len(row.node or "") + 6 < len(second)
            ), (second, whole)
