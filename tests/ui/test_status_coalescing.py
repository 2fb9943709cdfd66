"""What the status line is told coalesces in its queue (issue 24, item 3): a burst of messages
that say how something is now (`Latest`: loading, reading, connection, host, kept) costs it one
update, the newest, through Textual's ``can_replace``; messages that say something happened
(a run started, changed, ended) are each taken, in order. Counts, not timings."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult

from openwop_tui.ui.messages import (
    Connection,
    ConnectionChanged,
    LoadingChanged,
    ReadingChanged,
    RunChanged,
    RunPhase,
)
from openwop_tui.ui.widgets.status import StatusLine


class _Host(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusLine()


def _counted(monkeypatch: pytest.MonkeyPatch, handler: str) -> list[Any]:
    """Every message ``handler`` of the status line is given."""
    taken: list[Any] = []
    original = getattr(StatusLine, handler)

    def counted(self: StatusLine, message: Any) -> None:
        taken.append(message)
        original(self, message)

    monkeypatch.setattr(StatusLine, handler, counted)
    return taken


async def test_a_burst_of_states_is_taken_once_the_newest(monkeypatch: pytest.MonkeyPatch) -> None:
    loading = _counted(monkeypatch, "on_loading_changed")
    reading = _counted(monkeypatch, "on_reading_changed")
    app = _Host()
    async with app.run_test() as pilot:
        await pilot.pause()
        line = app.query_one(StatusLine)
        # Posted in one turn of the loop: all wait in the queue together.
        for count in range(50):
            line.post_message(LoadingChanged(count))
        for percent in range(20):
            line.post_message(ReadingChanged(f"reading 10 older turns… {percent}%"))
        await pilot.pause()
        assert [m.count for m in loading] == [49]
        assert line.items_loading == 49
        assert [m.text for m in reading] == ["reading 10 older turns… 19%"]


async def test_what_happened_is_taken_every_time(monkeypatch: pytest.MonkeyPatch) -> None:
    runs = _counted(monkeypatch, "on_run_changed")
    connections = _counted(monkeypatch, "on_connection_changed")
    app = _Host()
    async with app.run_test() as pilot:
        await pilot.pause()
        line = app.query_one(StatusLine)
        line.post_message(ConnectionChanged(Connection.CONNECTING))
        line.post_message(ConnectionChanged(Connection.CONNECTED))
        line.post_message(RunChanged(RunPhase.STARTED, "run_1", "running", "demo.chat"))
        line.post_message(RunChanged(RunPhase.STATUS, "run_1", "paused"))
        line.post_message(RunChanged(RunPhase.ENDED, "run_1", "completed"))
        line.post_message(ConnectionChanged(Connection.DISCONNECTED))
        await pilot.pause()
        # Two states in a row: the newer stands for both; a run between two is not skipped.
        assert [m.state for m in connections] == [Connection.CONNECTED, Connection.DISCONNECTED]
        assert [m.phase for m in runs] == [RunPhase.STARTED, RunPhase.STATUS, RunPhase.ENDED]
        assert line.run_status == "completed"
