"""The status line fits any width by dropping its least important parts first, never the
connection state or the run status, and shows the workflow in use (issue 7, item 9)."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from openwop_tui.ui.widgets.status import StatusLine


class _Host(App[None]):
    def compose(self) -> ComposeResult:
        line = StatusLine()
        line.connection = "connected"
        line.run_status = "completed"
        line.run_id = "run_0123456789abcdef0123"
        line.workflow = "conformance-clarification"
        line.host = "http://127.0.0.1:3801"
        line.implementation = "openwop-host-sqlite"
        line.protocol = "1.0"
        yield line


@pytest.mark.parametrize("width", [30, 60, 80, 120, 200])
async def test_the_status_line_fits_and_keeps_the_essentials(width: int) -> None:
    app = _Host()
    async with app.run_test(size=(width, 5)) as pilot:
        await pilot.pause()
        text = app.query_one(StatusLine).render().plain
    assert text.startswith("● connected · run completed")
    assert len(text) <= width - 2 or width < 32  # padding 0 1
    if width >= 80:
        assert "conformance-clarification" in text and "protocol 1.0" in text
    if width >= 200:
        assert "run_0123456789abcdef0123" in text and "openwop-host-sqlite" in text
    if width == 60:  # the workflow outranks the host, the run id and the implementation
        assert "conformance-clarification" in text and "sqlite" not in text
