"""The sessions screen filters as you type and archives beside delete (issue 27).

Typing into the list goes to the filter (by title and host, every word, case folded), the
highlighted session stays highlighted while it is still listed, Esc clears the filter before
it closes; ``a`` archives (out of the default list, said with `SessionArchived`), ``v`` lists
the archived ones too, and ``a`` on an archived one puts it back. In the app the archive is
kept in the store, and the CLI archives and unarchives too.
"""

from __future__ import annotations

from datetime import datetime

from app_support import SIZE, demo_app, settle
from textual.app import App
from textual.message import Message
from textual.widgets import DataTable, Input

from openwop_tui.store.sessions import Store
from openwop_tui.ui.messages import SessionArchived, SessionChosen
from openwop_tui.ui.screens.sessions import SessionsScreen, SessionSummary

ROWS = [
    SessionSummary("s1", "Trip plans", datetime(2025, 6, 1, 14, 3), 4, "embedded demo host"),
    SessionSummary("s2", "Budget review", datetime(2025, 6, 2, 9, 0), 12, "http://work:1"),
    SessionSummary("s3", "Trip photos", datetime(2025, 6, 3, 9, 0), 2, "http://work:1"),
    SessionSummary("s4", "Old trip", datetime(2025, 5, 3, 9, 0), 2, "http://h:1", archived=True),
]


class SessionsHost(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[Message] = []

    def on_session_chosen(self, message: SessionChosen) -> None:
        self.seen.append(message)

    def on_session_archived(self, message: SessionArchived) -> None:
        self.seen.append(message)


async def test_typing_filters_and_the_highlighted_session_stays() -> None:
    app = SessionsHost()
    async with app.run_test(size=(100, 30)) as pilot:
        app.push_screen(SessionsScreen(lambda: ROWS))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        assert screen.listed == ["s1", "s2", "s3"]  # the archived one is not
        await pilot.press("down", "down", "down")  # to the list, s3 highlighted
        await pilot.press(*"TRIP")  # (a key the list does not take: to the filter)
        await pilot.pause()
        assert screen.listed == ["s1", "s3"]
        table = screen.query_one(DataTable)
        assert table.cursor_row == 1  # still s3
        await pilot.press("space", *"work")  # every word: title or host
        await pilot.pause()
        assert screen.listed == ["s3"]
        await pilot.press(*"zz")
        await pilot.pause()
        assert screen.listed == []
        assert "No session matches" in str(screen.query_one("#session-note").render())
        await pilot.press("escape")  # clears the filter, keeps the screen
        await pilot.pause()
        assert screen.listed == ["s1", "s2", "s3"] and app.screen is screen
        assert screen.query_one("#session-filter", Input).value == ""
        # From the filter, Enter opens the highlighted session (a picker's Enter).
        await pilot.press(*"budget", "enter")
        await pilot.pause()
        assert app.seen == [SessionChosen("s2")]


async def test_a_archives_v_shows_the_archived_and_a_brings_one_back() -> None:
    app = SessionsHost()
    async with app.run_test(size=(100, 30)) as pilot:
        app.push_screen(SessionsScreen(lambda: ROWS))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        await pilot.press("down", "a")  # to the list; the first: archived
        await pilot.pause()
        assert screen.listed == ["s2", "s3"]
        assert app.seen == [SessionArchived("s1", True)]
        await pilot.press("v")
        await pilot.pause()
        assert screen.listed == ["s1", "s2", "s3", "s4"]
        table = screen.query_one(DataTable)
        assert "(archived)" in str(table.get_cell("s4", "title"))
        assert table.cursor_row == 1  # s2 still highlighted
        await pilot.press("down", "down", "a")  # s4 back
        await pilot.pause()
        assert app.seen[-1] == SessionArchived("s4", False)
        await pilot.press("v")
        await pilot.pause()
        assert screen.listed == ["s2", "s3", "s4"]


async def test_the_app_keeps_the_archive_in_the_store() -> None:
    with Store() as store:
        kept = store.create(host="h", workflow="w", title="keep me")
        gone = store.create(host="h", workflow="w", title="put me away")
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+o")
        await settle(pilot, app, lambda: isinstance(app.screen, SessionsScreen))
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        assert screen.listed[:2] == [gone, kept]
        await pilot.press("down", "a")
        await settle(pilot, app, lambda: Store().info(gone).archived, what="archived")
        assert screen.listed[:1] == [kept]
    with Store() as store:
        assert store.info(gone).archived and not store.info(kept).archived
        store.archive(gone, False)
        assert not store.info(gone).archived


async def test_a_first_letter_is_typed_into_the_filter_never_carried_out() -> None:
    """The screen opens on its filter: "daily", "api" or "ruby" typed at once filter the list;
    none asks to delete, archives or renames the highlighted session (its keys act from the
    list only)."""
    app = SessionsHost()
    async with app.run_test(size=(100, 30)) as pilot:
        app.push_screen(SessionsScreen(lambda: ROWS))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        field = screen.query_one("#session-filter", Input)
        for word in ("daily", "api", "ruby", "vy"):
            await pilot.press(*word)
            await pilot.pause()
            assert field.value == word and field.has_focus
            await pilot.press("escape")  # clears the filter
        assert app.seen == [] and screen.listed == ["s1", "s2", "s3"]
        assert app.screen is screen
