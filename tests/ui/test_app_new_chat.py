"""Chats as people expect them (issue 15, Build 1; issue 27: tabs): Ctrl+N starts a new chat in
a tab of its own, the old one stays open (and in the sessions list); the session's title is in
the status line and can be renamed, bounded.

Real demo host over loopback, Pilot keys. Without `TabsController.new_tab` Ctrl+N does nothing
(it toggled lifecycle lines before); without `TitleShown` the status line has no title; without
`check_title` an over-long title is kept (or cut silently).
"""

from __future__ import annotations

from app_support import (
    SIZE,
    as_if_running,
    connected,
    demo_app,
    items_of,
    notices,
    record_notifications,
    settle,
    turn,
)
from textual.widgets import Input

from openwop_tui.core.fold import UserTurn
from openwop_tui.store.sessions import Store
from openwop_tui.store.writer import TITLE_CHARS
from openwop_tui.ui.screens.ask import AskScreen


async def test_ctrl_n_starts_a_new_chat_in_a_tab_and_the_old_one_stays_open() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "code please")
        first = app.sessions.kept_session_id()
        first_tab = app.tabs.current
        assert first is not None
        await pilot.press("ctrl+n")
        await settle(pilot, app, lambda: len(app.tabs.tabs) == 2, what="a second tab")
        assert app.tabs.current is not first_tab
        await connected(pilot, app)
        assert not items_of(app, UserTurn)
        assert app.conversation.history == []
        assert not app.view.show_verbose  # Ctrl+N no longer toggles lifecycle lines
        assert app.status.title == "new chat" and app.status.run_id == ""
        # The first chat is still open, as it was.
        assert first_tab.chat.kept_session_id() == first
        assert [m["content"] for m in first_tab.chat.conversation.history if m["role"] == "user"]
        await turn(pilot, app, "a card please")
        second = app.sessions.kept_session_id()
        assert second is not None and second != first
        # The new chat's history starts afresh: the host is not sent the old chat.
        assert [m["content"] for m in app.conversation.history if m["role"] == "user"] == [
            "a card please"
        ]
    titles = {info.id: info.title for info in Store().sessions()}
    assert titles == {first: "code please", second: "a card please"}


async def test_a_new_chat_says_the_first_start_hint_again() -> None:
    """The demo host's welcome ("Try “show me everything” … F1 lists the keys.") is in a new
    chat as it was in the first one."""
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "code please")
        await pilot.press("ctrl+n")
        await settle(pilot, app, lambda: len(app.tabs.tabs) == 2, what="a second tab")
        await settle(
            pilot,
            app,
            lambda: any("show me everything" in note.text for note in notices(app, "info")),
            what="the welcome hint in the new chat",
        )


async def test_the_title_is_in_the_status_line_and_renamed_from_the_palette() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "hello there")
        await settle(pilot, app, lambda: app.status.title == "hello there", what="title shown")
        assert "“hello there”" in str(app.status.render())
        await app.run_action("rename_chat")
        await settle(
            pilot,
            app,
            lambda: isinstance(app.screen, AskScreen) and bool(app.screen.query(Input)),
            what="ask screen",
        )
        answer = app.screen.query_one(Input)
        assert answer.value == "hello there"  # starts from the current title
        answer.value = "Release notes"
        await pilot.press("enter")
        await settle(pilot, app, lambda: app.status.title == "Release notes", what="renamed")
        session_id = app.sessions.kept_session_id()
        assert session_id is not None
    assert Store().info(session_id).title == "Release notes"


async def test_an_over_long_title_is_refused_with_its_length() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "hello there")
        notes = record_notifications(app)
        app.chats.rename("x" * (TITLE_CHARS + 5))
        await pilot.pause()
        assert (
            "error",
            f"a title is at most {TITLE_CHARS} characters (this one has {TITLE_CHARS + 5}): "
            "not renamed",
        ) in notes
        assert app.status.title == "hello there"
        assert len(items_of(app, UserTurn)) == 1


async def test_a_new_chat_while_a_run_is_going_opens_beside_it() -> None:
    """A run no longer stops a new chat: it opens in a tab of its own, the run's goes on."""
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        notes = record_notifications(app)
        with as_if_running():
            await pilot.press("ctrl+n")
            await settle(pilot, app, lambda: len(app.tabs.tabs) == 2, what="a second tab")
        assert not any("run is in progress" in text for _, text in notes)
