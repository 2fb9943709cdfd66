"""The sessions screen: open, rename, delete, each said with an app-wide message."""

from __future__ import annotations

from datetime import datetime

from textual.app import App
from textual.message import Message
from textual.widgets import DataTable, Input

from openwop_tui.ui.messages import SessionChosen, SessionDeleted, SessionRenamed
from openwop_tui.ui.screens.sessions import SessionsScreen, SessionSummary

ROWS = [
    SessionSummary("s1", "First chat", datetime(2025, 6, 1, 14, 3), 4, "embedded demo host"),
    SessionSummary("s2", "[bold]not markup[/]", datetime(2025, 6, 2, 9, 0), 12, "http://h:1"),
]


class SessionsHost(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[Message] = []

    def on_session_chosen(self, message: SessionChosen) -> None:
        self.seen.append(message)

    def on_session_renamed(self, message: SessionRenamed) -> None:
        self.seen.append(message)

    def on_session_deleted(self, message: SessionDeleted) -> None:
        self.seen.append(message)


async def test_enter_opens_the_highlighted_session_and_closes() -> None:
    app = SessionsHost()
    async with app.run_test(size=(80, 24)) as pilot:
        chosen: list[str | None] = []
        app.push_screen(SessionsScreen(lambda: ROWS), chosen.append)
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        assert table.row_count == 2
        assert str(table.get_cell("s2", "title")) == "[bold]not markup[/]"  # shown, not parsed
        await pilot.press("down", "down", "enter")  # to the list, the second, open
        await pilot.pause()
        assert app.seen == [SessionChosen("s2")]
        assert chosen == ["s2"]
        assert not isinstance(app.screen, SessionsScreen)


async def test_r_renames_in_a_line_and_esc_cancels_a_rename() -> None:
    app = SessionsHost()
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(SessionsScreen(ROWS))
        await pilot.pause()
        await pilot.press("down", "r")  # to the list: rename the first
        title = app.screen.query_one("#session-title", Input)
        assert title.has_focus and title.value == "First chat"
        await pilot.press("escape")
        assert isinstance(app.screen, SessionsScreen) and not title.has_focus
        await pilot.press("r")
        title.value = ""
        await pilot.press(*"  Trip  plans ", "enter")
        await pilot.pause()
        assert app.seen == [SessionRenamed("s1", "Trip plans")]
        assert str(app.screen.query_one(DataTable).get_cell("s1", "title")) == "Trip plans"
        await pilot.press("r")
        title.value = "   "
        await pilot.press("enter")  # an empty title is refused, the line stays open
        await pilot.pause()
        assert len(app.seen) == 1 and title.has_focus


async def test_d_asks_and_only_y_deletes() -> None:
    app = SessionsHost()
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(SessionsScreen(ROWS))
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        await pilot.press("down", "d", "n")  # to the list: delete the first? no
        await pilot.press("d", "escape")
        assert table.row_count == 2 and not app.seen
        assert isinstance(app.screen, SessionsScreen)  # Esc cancelled the delete, not the screen
        await pilot.press("y")  # nothing is being deleted: y does nothing
        assert table.row_count == 2
        await pilot.press("d", "y")
        await pilot.pause()
        assert app.seen == [SessionDeleted("s1")]
        assert table.row_count == 1
        await pilot.press("escape")
        assert not isinstance(app.screen, SessionsScreen)


async def test_no_sessions_says_so() -> None:
    app = SessionsHost()
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(SessionsScreen([]))
        await pilot.pause()
        note = app.screen.query_one("#session-note")
        assert "No saved sessions" in str(note.render())
        await pilot.press("enter", "r", "d")
        assert not app.seen
