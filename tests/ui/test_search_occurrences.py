"""Search counts occurrences, not items (issue 15, Build 2): "3 of 17" is over every time the
query occurs, next and previous move one occurrence at a time (two on one line are two steps),
the current one stands out from the others, and the find bar's toggles (Alt+C case-sensitive,
Alt+W whole words) show their state and change what is found.

Without `Finder` counting per occurrence with its toggles the counts below are per item or
ignore the toggles; without `_current_on` every match looks the same.
"""

from __future__ import annotations

from app_support import SIZE, connected, demo_app, turn
from textual.app import App, ComposeResult

from openwop_tui.core.fold import Transcript
from openwop_tui.renderers import Registry
from openwop_tui.ui.transcript.finder import Finder
from openwop_tui.ui.transcript.view import TranscriptView
from openwop_tui.ui.widgets.search_bar import SearchBar

TEXTS = ["code Code code", "a codec", "nothing here", "CODE!"]


def test_the_finder_counts_occurrences_with_its_toggles() -> None:
    text = " ".join(TEXTS)
    assert Finder("code").count(text) == 5
    assert Finder("code", case=True).count(text) == 3
    assert Finder("code", whole_word=True).count(text) == 4
    assert Finder("code", case=True, whole_word=True).count(text) == 2
    assert Finder("").count(text) == 0 and not Finder("")
    assert Finder("a.b").count("a.b axb") == 1  # the query is text, not a pattern
    assert Finder("c++", whole_word=True).count("c++ and c++x") == 1
    # Cells, not characters: a wide character before the match takes two.
    assert Finder("x").cells("界x") == [(2, 3)]


class _Host(App[None]):
    def compose(self) -> ComposeResult:
        yield TranscriptView(id="transcript", registry=Registry().load())


def _underlined(view: TranscriptView) -> list[str]:
    """The text drawn as the current match (the match style swapped and underlined)."""
    found = []
    for y in range(view.size.height):
        for segment in view.render_line(y):
            style = segment.style
            if style is not None and style.underline and style.reverse:
                found.append(segment.text)
    return found


async def test_steps_go_by_occurrence_and_the_current_one_stands_out() -> None:
    app = _Host()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply([transcript.add_user(text) for text in TEXTS])
        await pilot.pause()
        assert view.search("code") == 5  # in three items
        positions = []
        for _ in range(5):
            positions.append((view.step_match(1), view.cursor))
            await pilot.pause()
            if len(positions) == 2:
                assert _underlined(view) == ["Code"]  # the second, on the first line
        assert positions == [((1, 5), 0), ((2, 5), 0), ((3, 5), 0), ((4, 5), 1), ((5, 5), 3)]
        assert _underlined(view) == ["CODE"]
        assert view.step_match(-1) == (4, 5)
        assert view.search("code", case=True) == 3
        assert view.search("code", whole_word=True) == 4
        assert view.search("code", case=True, whole_word=True) == 2


async def test_the_bar_shows_and_applies_its_toggles() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "code please")
        await pilot.press("ctrl+f")
        bar = app.query_one(SearchBar)
        await pilot.press(*"fib")
        await pilot.pause()
        assert bar.toggles_text == "case: off (Alt+C) word: off (Alt+W)"
        total = app.view.match_position[1]
        assert total > 0 and bar.count_text == f"{total} matches"
        await pilot.press("alt+w")  # fib is in fib_iter and fib(n) …
        await pilot.pause()
        assert bar.toggles_text == "case: off (Alt+C) word: on (Alt+W)"
        words = app.view.match_position[1]
        assert 0 < words < total
        await pilot.press("alt+c", "alt+w")
        await pilot.pause()
        assert bar.toggles_text == "case: on (Alt+C) word: off (Alt+W)"
        assert app.view.finder == Finder("fib", case=True)
        await pilot.press("enter")
        await pilot.pause()
        current, shown = app.view.match_position
        assert bar.count_text == f"{current} of {shown}" == f"1 of {shown}"
