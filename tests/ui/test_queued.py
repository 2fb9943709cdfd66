"""Messages sent while a run streams wait, visibly, and go in order."""

from __future__ import annotations

from textual.app import App, ComposeResult

from openwop_tui.ui.widgets.prompt import InputArea
from openwop_tui.ui.widgets.queued import QueuedMessages


class QueueHost(App[None]):
    def compose(self) -> ComposeResult:
        yield InputArea(id="input-area")


async def test_the_queue_is_shown_with_a_count_and_released_in_order() -> None:
    app = QueueHost()
    async with app.run_test(size=(80, 24)) as pilot:
        queued = app.query_one(QueuedMessages)
        assert not queued.display  # nothing waiting: no line
        queued.add("first message")
        await pilot.pause()
        assert queued.display and queued.region.height == 1
        assert str(queued.describe()).startswith("queued: first message")
        queued.add("second\nwith two lines")
        queued.add("[bold]third[/]")
        await pilot.pause()
        line = str(queued.describe())
        assert line.startswith("queued (3): first message · second… · [bold]third[/]")
        assert queued.take() == "first message"
        assert str(queued.describe()).startswith("queued (2): second…")
        assert queued.take() == "second\nwith two lines"  # the whole text, not the preview
        assert queued.take() == "[bold]third[/]"
        assert queued.take() is None
        await pilot.pause()
        assert not queued.display


async def test_a_queued_line_is_cleaned_before_it_is_drawn() -> None:
    app = QueueHost()
    async with app.run_test():
        queued = app.query_one(QueuedMessages)
        queued.add("evil \x1b]52;c;AAAA\x07 text")
        assert "\x1b" not in str(queued.describe())
        assert queued.pending == ("evil \x1b]52;c;AAAA\x07 text",)  # sent as typed
        assert queued.clear() == 1 and not queued.pending
