"""Search everywhere, in the app (issue 27): "a word in a session from last week is found from
a new chat, and Enter opens that session at the word; the count reads occurrences".

The session of last week is written as the app writes one (turns sent to the demo host), then
dated a week back; the app starts on a new chat and the search is typed as a person types it.
Without the index the screen finds nothing; without opening at the match the transcript is
not that session, or no word is current, or the count is not the session's occurrences.
"""

from __future__ import annotations

import sqlite3
import time

from app_support import SIZE, connected, demo_app, settle
from session_support import chat_turns
from textual.widgets import Input, OptionList

from openwop_tui.demo_host import DemoHost
from openwop_tui.store.sessions import Store
from openwop_tui.ui.screens.search_all import SearchAllScreen, ago
from openwop_tui.ui.transcript.view import TranscriptView
from openwop_tui.ui.widgets.search_bar import SearchBar

WEEK = 7 * 86400
TEXTS = ["first about the kestrel", "nothing", "a kestrel and another kestrel"]


async def _last_weeks_session() -> str:
    with DemoHost(pace=0) as demo, Store() as store:
        session = await chat_turns(store, demo.url, demo.api_key, TEXTS)
    with Store() as store:
        path = store.path
    with sqlite3.connect(path) as db:
        db.execute("UPDATE sessions SET updated = updated - ?, created = created - ?", (WEEK, WEEK))
    return session


def _current_match(view: TranscriptView) -> list[str]:
    """The text drawn as the current match (the match style swapped and underlined)."""
    found = []
    for y in range(view.size.height):
        for segment in view.render_line(y):
            style = segment.style
            if style is not None and style.underline and style.reverse:
                found.append(segment.text)
    return found


async def test_a_word_from_last_week_opens_that_session_at_the_word() -> None:
    session = await _last_weeks_session()
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        assert app.chat.kept_session_id() != session  # a new chat
        await pilot.press("ctrl+shift+f")
        await settle(pilot, app, lambda: isinstance(app.screen, SearchAllScreen), what="opened")
        screen = app.screen
        assert isinstance(screen, SearchAllScreen)
        await pilot.press(*"kestrel")
        await settle(
            pilot,
            app,
            lambda: screen.found is not None and screen.found.query == "kestrel",
            what="the search answered",
        )
        found = screen.found
        assert found is not None
        # Three in the messages, three in the demo host's echoes of them: occurrences.
        assert found.occurrences == 6 and found.sessions == 1
        count = str(screen.query_one("#search-all-count").render())
        assert count.startswith("6 occurrences in 4 messages of 1 session"), count
        results = screen.query_one(OptionList)
        first = str(results.get_option_at_index(0).prompt)
        assert "first about the kestrel" in first and "a week ago" in first
        # The third result: the second message ("a kestrel and another kestrel"), twice.
        await pilot.press("down", "down")
        assert found.results[2].occurrences == 2
        await pilot.press("enter")
        await settle(
            pilot,
            app,
            lambda: (
                app.chat.kept_session_id() == session
                and app.query_one(SearchBar).count_text == "3 of 6"
            ),
            what="the session opened at the match",
        )
        view = app.query_one(TranscriptView)
        await pilot.pause()
        assert _current_match(view) == ["kestrel"]  # a word, not the whole item
        bar = app.query_one(SearchBar)
        assert bar.is_open and bar.query_one(Input).value == "kestrel"
        # Stepping goes on from there, by occurrence.
        await pilot.press("enter")
        await settle(pilot, app, lambda: bar.count_text == "4 of 6", what="the next one")


async def test_the_palette_offers_it_and_esc_closes() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("alt+s")
        await settle(pilot, app, lambda: isinstance(app.screen, SearchAllScreen), what="opened")
        await pilot.press(*"zzqx")
        screen = app.screen
        assert isinstance(screen, SearchAllScreen)
        await settle(pilot, app, lambda: screen.found is not None and screen.found.query == "zzqx")
        assert "No match" in str(screen.query_one("#search-all-count").render())
        await pilot.press("escape")
        await settle(pilot, app, lambda: not isinstance(app.screen, SearchAllScreen))
        # (A clock in the past would say "just now" for everything: time.time is the default.)
        assert app.search_all.now is time.time


def test_dates_are_said_by_the_time_elapsed() -> None:
    now = 1_750_000_000.0
    said = [
        ago(now - seconds, now)
        for seconds in (
            5,
            60,
            150,
            3600,
            7200,
            86400,
            2 * 86400,
            7 * 86400,
            15 * 86400,
            400 * 86400,
        )
    ]
    assert said == [
        "just now",
        "a minute ago",
        "2 minutes ago",
        "an hour ago",
        "2 hours ago",
        "yesterday",
        "2 days ago",
        "a week ago",
        "2 weeks ago",
        "a year ago",
    ]
    assert ago(now + 60, now) == "just now"  # (a clock set back: never "in the future")


async def test_an_older_store_is_indexed_after_the_first_screen_and_says_so() -> None:
    session = await _last_weeks_session()
    with Store() as store:
        path = store.path
    with sqlite3.connect(path) as db:  # as an openwop-tui before the index wrote it
        db.execute("DROP TABLE search_text")
        db.execute("DROP TABLE search_rows")
        db.execute("ALTER TABLE sessions DROP COLUMN indexed")
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        said = [getattr(item, "text", "") for item in app.transcript.items]
        assert any("now has a search index over every session" in text for text in said)

        def indexed() -> bool:
            with Store(path) as store:
                return session not in store.unindexed()

        await settle(pilot, app, indexed, what="the older session indexed in the background")
        await pilot.press("ctrl+shift+f", *"kestrel")
        screen = app.screen
        assert isinstance(screen, SearchAllScreen)
        await settle(pilot, app, lambda: screen.found is not None and screen.found.occurrences == 6)
