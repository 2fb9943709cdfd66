"""The one transcript view: lazy drawing, a position that holds, a cursor with keys, actions at
any age, mouse selection, search and themes (issue 6 items 1, 6 and 8).

Most tests use the view alone in a tiny app, fed fold changes directly; the ones about the whole
app (25 turns, an envelope far up, Ctrl+F) use the deterministic demo host. No sleeps: every
wait is a Pilot pause or `app_support.settle`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from app_support import (
    SIZE,
    builtin_renderers_loaded,  # noqa: F401  (an autouse fixture: importing it applies it here)
    connected,
    demo_app,
    envelope_views,
    on_screen,
    record_notifications,
    settle,
    turn,
)
from patience import PATIENCE
from textual.app import App, ComposeResult
from textual.geometry import Offset, Region
from textual.selection import Selection
from textual.widgets import Input

from openwop_tui.core.fold import AssistantTurn, Transcript, Updated
from openwop_tui.renderers import Registry
from openwop_tui.ui import theme_palette, warming
from openwop_tui.ui.messages import ActionRequested, EnvelopeRenderRequested, TranscriptLeft
from openwop_tui.ui.transcript import blocks
from openwop_tui.ui.transcript.composed import NEW_OUTPUT, ComposedLines
from openwop_tui.ui.transcript.view import TranscriptView
from openwop_tui.ui.widgets.prompt import PromptInput
from openwop_tui.ui.widgets.search_bar import SearchBar


class ViewHost(App[None]):
    """Just a transcript view, recording the messages it posts."""

    def __init__(self) -> None:
        super().__init__()
        self.posted: list[Any] = []

    def compose(self) -> ComposeResult:
        yield TranscriptView(id="transcript", registry=Registry().load())

    def on_action_requested(self, message: ActionRequested) -> None:
        self.posted.append(message)

    def on_envelope_render_requested(self, message: EnvelopeRenderRequested) -> None:
        self.posted.append(message)

    def on_transcript_left(self, message: TranscriptLeft) -> None:
        self.posted.append(message)


def users(transcript: Transcript, count: int, start: int = 0) -> list[Any]:
    return [transcript.add_user(f"message number {n}") for n in range(start, start + count)]


def count_draws(monkeypatch: Any) -> list[str]:
    """Record the id of every item drawn from here on."""
    drawn: list[str] = []
    original = blocks.Block._draw

    def draw(self: blocks.Block, *args: Any) -> Any:
        drawn.append(self.item_id)
        return original(self, *args)

    monkeypatch.setattr(blocks.Block, "_draw", draw)
    return drawn


async def test_a_new_item_draws_only_itself(monkeypatch: Any) -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply(users(transcript, 200))
        for _ in range(4):  # the page above is drawn ahead, 4 blocks a turn of the loop
            await pilot.pause()
        drawn = count_draws(monkeypatch)
        await view.apply(users(transcript, 1, 200))
        for _ in range(4):
            await pilot.pause()
        # The new item, and the one block the page above the viewport gained: nothing else.
        assert drawn[0] == transcript.items[-1].id
        assert len(drawn) <= 2 and len(set(drawn)) == len(drawn)
        assert "message number 200" in on_screen(view)


async def test_a_streamed_reply_redraws_its_open_tail_only(monkeypatch: Any) -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        turn_ = AssistantTurn("assistant-x", None)
        transcript.items.append(turn_)
        from openwop_tui.core.fold import Added

        await view.apply([Added(turn_)])
        parts: list[str] = []
        original = blocks.render_lines

        def part(console: Any, renderable: Any, width: int) -> Any:
            lines = original(console, renderable, width)
            parts.append("\n".join(line.text.strip() for line in lines))
            return lines

        monkeypatch.setattr(blocks, "render_lines", part)
        for n in range(30):
            delta = f"Paragraph {n} says something.\n\n"
            turn_.body.append(delta)
            await view.apply([Updated(turn_, delta)])
            await pilot.pause()
        # Each finished paragraph was drawn once; only the open tail is drawn again.
        finished = [p for p in parts if "Paragraph 3 " in p]
        assert len(finished) <= 2, parts
        # Redraws of a streamed item are coalesced (one per 40 ms): wait for the last one.
        deadline = time.monotonic() + PATIENCE  # a guard against a hang, not the wait
        while "Paragraph 29" not in on_screen(view) and time.monotonic() < deadline:
            await pilot.pause(0.01)
        assert "Paragraph 29" in on_screen(view)


class PromptHost(ViewHost):
    """The view with a prompt that has the focus, as in the app while a reply streams: no item
    is selected, so the view keeps the lines it composes."""

    def compose(self) -> ComposeResult:
        yield from super().compose()
        yield Input(id="prompt")


async def test_a_streamed_reply_composes_only_the_screen_lines_its_redraw_changed(
    monkeypatch: Any,
) -> None:
    # A flood's reply is one paragraph drawn again several times a second; its drawing keeps
    # the lines the new words do not reach, and the screen lines composed from those are
    # painted again, not composed again (the whole screen was, at every redraw).
    app = PromptHost()
    async with app.run_test(size=(80, 24)) as pilot:
        app.query_one(Input).focus()
        await pilot.pause()
        view = app.query_one(TranscriptView)
        reply = AssistantTurn("assistant-x", None)
        Transcript().items.append(reply)
        from openwop_tui.core.fold import Added

        await view.apply([Added(reply)])
        composed: list[int] = []
        original = ComposedLines.keep

        def counted(
            self: ComposedLines, block: blocks.Block, row: int, key: Any, line: Any, strip: Any
        ) -> None:
            composed.append(row)
            original(self, block, row, key, line, strip)

        monkeypatch.setattr(ComposedLines, "keep", counted)
        before: list[Any] = []
        n = 0
        kept_lines = 0
        for _ in range(12):
            changes = []
            for _ in range(60):
                reply.body.append(f"w{n} ")
                changes.append(Updated(reply, f"w{n} "))
                n += 1
            composed.clear()
            await view.apply(changes)
            view.redraws.now()
            await pilot.pause()
            assert view.cursor is None
            lines = view.column[0].cache[view.column.width]
            top = round(view.scroll_y)
            shown = range(top, min(top + 24, len(lines)))
            redrawn = {row for row in shown if row >= len(before) or before[row] is not lines[row]}
            # Composed: the lines the redraw changed, and the first (its buttons); no other.
            assert set(composed) <= redrawn | {0}, (sorted(composed), sorted(redrawn))
            kept_lines += len(shown) - len(set(composed))
            # What is painted is what is drawn now, composed or kept.
            painted = [view.render_line(y).text[2:].rstrip() for y in range(len(shown))]
            drawn = [lines[row].text.rstrip() for row in shown]
            assert painted[1:] == drawn[1:]  # (the first line has its buttons beside it)
            before = list(lines)
        assert kept_lines > 12 * 10, kept_lines  # (a frame's new words fill a few lines)
        assert f"w{n - 1}" in on_screen(view)


async def test_scrolled_up_new_output_does_not_move_the_view_and_says_so() -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply(users(transcript, 100))
        await pilot.pause()
        view.focus()
        await pilot.press("pageup", "pageup")
        await pilot.pause()
        before = on_screen(view)
        top = view.scroll_y
        await view.apply(users(transcript, 20, 100))
        await pilot.pause()
        assert view.scroll_y == top
        assert on_screen(view).splitlines()[:-1] == before.splitlines()[:-1]
        assert NEW_OUTPUT.strip() in on_screen(view)  # the marker
        await pilot.press("end")
        await pilot.pause()
        assert "message number 119" in on_screen(view)
        assert NEW_OUTPUT.strip() not in on_screen(view)


async def test_the_position_holds_on_resize_and_only_the_visible_is_drawn(
    monkeypatch: Any,
) -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply(users(transcript, 300))
        await pilot.pause()
        view.select(150)
        await pilot.pause()
        assert "message number 150" in on_screen(view).splitlines()[0] + on_screen(view)
        first_line = next(line for line in on_screen(view).splitlines() if "message number" in line)
        drawn = count_draws(monkeypatch)
        await pilot.resize_terminal(60, 24)
        await pilot.pause()
        await pilot.pause()
        assert first_line.strip() in on_screen(view)  # the same item still at the top
        # A screenful, and the pages above and below it drawn ahead: not 300 items.
        assert 0 < len(set(drawn)) <= 3 * 12


async def test_the_scroll_bar_shows_where_the_view_is_when_it_moves_itself() -> None:
    # Following new output, and jumping to an item, move the view without a scroll by hand:
    # the bar's thumb moves with it (it stayed at the top).
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply(users(transcript, 60))
        await pilot.pause()
        bar = view.vertical_scrollbar
        assert view.scroll_y == view.max_scroll_y > 0
        assert bar.position == view.scroll_y
        view.select(10)
        await pilot.pause()
        assert 0 < view.scroll_y < view.max_scroll_y
        assert bar.position == view.scroll_y


async def test_the_offsets_a_resize_lays_are_those_laid_from_scratch() -> None:
    # A resize lays the line offsets in its own pass over every block: hidden verbose lines
    # take no room in it, drawn blocks their lines, the rest their estimates.
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        for n in range(40):
            await view.apply(users(transcript, 1, n))
            await view.apply([transcript.add_notice("info", f"lifecycle {n}", verbose=True)])
        await pilot.pause()
        for size, verbose in [((61, 24), False), ((90, 24), True), ((61, 24), True)]:
            view.show_verbose = verbose
            await pilot.resize_terminal(*size)
            await pilot.pause()
            laid = list(view.column.tops)
            view.column.changed_from(0)  # laid again from scratch as it is read
            assert laid == view.column.tops
            assert laid[-1] == sum(view.column.height_of(i) for i in range(len(view.column)))


async def test_lifecycle_lines_added_hidden_take_their_room_once_shown() -> None:
    # Added hidden, a lifecycle line is not estimated (a reopened session's are most of its
    # blocks); shown, each one off screen is, so a long one wraps into its lines.
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply(users(transcript, 1))
        await pilot.pause()  # laid out at its width: what comes now is added, not re-estimated
        changes = []
        for n in range(1, 30):
            changes += users(transcript, 1, n)
            changes.append(transcript.add_notice("info", f"usage {n} " + "x" * 300, verbose=True))
        await view.apply(changes)
        await pilot.pause()
        view.show_verbose = True
        await pilot.pause()
        first = view.column[2]  # off screen, never drawn
        assert first.verbose and not first.cache
        assert first.height == first.estimate(view.content_width) > 1
        assert view.column.total == sum(view.column.height_of(i) for i in range(len(view.column)))
        # Resized while hidden (not estimated then), shown again: at the new width.
        view.show_verbose = False
        await pilot.resize_terminal(50, 24)
        await pilot.pause()
        view.show_verbose = True
        await pilot.pause()
        assert first.height == first.estimate(view.content_width) > 6
        assert view.column.total == sum(view.column.height_of(i) for i in range(len(view.column)))


async def test_keys_move_between_items_skip_hidden_lines_and_escape_leaves() -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply(users(transcript, 3))
        await view.apply([transcript.add_notice("info", "lifecycle", verbose=True)])
        await view.apply(users(transcript, 1, 3))
        view.focus()
        view.select_last()  # as Shift+Tab from the input does
        await pilot.pause()
        assert view.cursor == 4
        await pilot.press("up")
        assert view.cursor == 2  # the hidden lifecycle line is skipped
        await pilot.press("home")
        assert view.cursor == 0
        await pilot.press("end")
        assert view.cursor == 4
        view.show_verbose = True
        await pilot.press("up")
        assert view.cursor == 2  # a lifecycle line is no stop, shown or not (issue 27)
        await pilot.press("c")
        await pilot.press("escape")
        await pilot.pause()
        assert [type(m) for m in app.posted] == [ActionRequested, TranscriptLeft]
        assert app.posted[0].item_id == transcript.items[2].id
        assert app.posted[0].action == "copy"


async def test_a_key_that_moves_nothing_repaints_nothing(monkeypatch: Any) -> None:
    """Home on the first item, Up on it, End on the last: nothing changes, nothing is painted
    (the view's repaint is 10 ms of a long session's screen: Home pressed again and again
    while a session's older turns were read took it from the reading, issue 26). A key that
    does move the cursor or the view repaints."""
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply(users(transcript, 60))
        view.focus()
        await pilot.pause()
        refreshes: list[int] = []
        refresh = view.refresh

        def counted(
            *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False
        ) -> Any:
            refreshes.append(1)
            return refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

        monkeypatch.setattr(view, "refresh", counted)
        await pilot.press("home")
        assert view.cursor == 0 and round(view.scroll_y) == 0 and refreshes
        assert "message number 0" in on_screen(view)
        refreshes.clear()
        await pilot.press("home", "up", "home")
        assert view.cursor == 0 and refreshes == []
        await pilot.press("down")
        assert view.cursor == 1 and refreshes  # (the cursor moved: its highlight did)
        refreshes.clear()
        await pilot.press("end")
        await pilot.pause()
        assert "message number 59" in on_screen(view) and refreshes


async def test_a_button_click_requests_its_action() -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply(users(transcript, 1))
        await pilot.pause()
        heading = view.render_line(0).text
        x = heading.index("[Copy]") + 2
        await pilot.click(TranscriptView, offset=(x, 0))
        await pilot.pause()
        assert [(m.item_id, m.action) for m in app.posted] == [(transcript.items[0].id, "copy")]


async def test_mouse_selection_extracts_the_text_under_it() -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply(users(transcript, 2))
        await pilot.pause()
        lines = on_screen(view).splitlines()
        row = next(n for n, line in enumerate(lines) if "message number 1" in line)
        start = lines[row].index("message")
        # Offsets as the strips carry them (virtual line, cell), gutter included.
        selected = view.get_selection(
            Selection(Offset(start, row), Offset(start + len("message number 1"), row))
        )
        assert selected == ("message number 1", "\n")
        both = view.get_selection(Selection(Offset(0, 0), Offset(80, row)))
        assert both is not None and "message number 0" in both[0] and "You" in both[0]


async def test_search_finds_an_item_never_drawn_and_steps_to_it() -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply(users(transcript, 300))
        await view.apply([transcript.add_user("the needle is here")])
        await view.apply(users(transcript, 100, 300))
        await pilot.pause()
        target = view.blocks()[300]
        assert not target.measured  # never scrolled to
        assert view.search("NEEDLE") == 1
        assert view.step_match(1) == (1, 1)
        await pilot.pause()
        assert view.cursor == 300
        assert "the needle is here" in on_screen(view)
        view.end_search()


async def test_a_theme_change_redraws_in_the_new_palette() -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply(users(transcript, 1))
        await pilot.pause()
        dark = theme_palette.from_theme(app.current_theme)
        app.theme = "textual-light"
        await pilot.pause()
        light = theme_palette.from_theme(app.current_theme)
        assert view.palette == light != dark
        heading = view.render_line(0)
        you = next(segment for segment in heading if "You" in segment.text)
        assert you.style is not None and you.style.color is not None
        assert you.style.color.triplet is not None
        assert you.style.color.triplet.hex.upper() == light.user.split()[-1].upper()


# ------------------------------------------------------------------------- in the app


async def test_after_25_turns_home_shows_the_first_turn_with_its_actions_in_theme_colours() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        for n in range(25):
            await turn(pilot, app, f"turn {n}")
        await pilot.press("shift+tab")
        await settle(pilot, app, lambda: app.view.has_focus, what="transcript focused")
        await pilot.press("home")
        await pilot.pause()
        screen = on_screen(app.view)
        assert "turn 0" in screen and "[Copy]" in screen
        lines = [app.view.render_line(y) for y in range(app.view.size.height)]
        you = next(s for line in lines for s in line if s.text.strip() == "You")
        palette = app.view.palette
        assert you.style is not None and you.style.color is not None
        assert you.style.color.triplet is not None
        assert you.style.color.triplet.hex.upper() == palette.user.split()[-1].upper()
        await pilot.press("escape")
        await settle(pilot, app, lambda: app.query_one(PromptInput).has_focus, what="input")


async def test_an_envelope_far_up_keeps_its_actions(tmp_path: Path) -> None:
    app = demo_app(download_dir=str(tmp_path))
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "file please")
        (block,) = envelope_views(app)
        for n in range(8):
            await turn(pilot, app, f"more {n}")
        assert "tour-report.csv" not in on_screen(app.view)
        app.view.focus()
        index = app.view.blocks().index(block)
        await pilot.press("home")
        for _ in range(index):  # Down steps over hidden lifecycle lines: at most index presses
            if app.view.cursor == index:
                break
            await pilot.press("down")
        assert app.view.cursor == index
        await settle(pilot, app, lambda: block.rendered is not None, what="drawn")
        assert "[Save]" in on_screen(app.view)
        await pilot.press("s")
        await settle(pilot, app, lambda: bool(seen), what="saved")
        assert seen[-1][1] == f"saved to {tmp_path / 'tour-report.csv'}"


async def test_ctrl_f_searches_steps_and_says_where() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "code please")
        await turn(pilot, app, "code again")
        await pilot.press("ctrl+f")
        bar = app.query_one(SearchBar)
        assert bar.is_open
        await pilot.press(*"fib_iter")
        await pilot.pause()
        assert bar.count_text.endswith("matches")
        total = int(bar.count_text.split()[0])
        await pilot.press("enter")
        await pilot.pause()
        assert bar.count_text == f"1 of {total}"
        await pilot.press("shift+enter")
        await pilot.pause()
        assert bar.count_text == f"{total} of {total}"
        assert "fib_iter" in on_screen(app.view)
        await pilot.press("escape")
        await pilot.pause()
        assert not bar.is_open and app.query_one(PromptInput).has_focus


def _three_line_users(transcript: Transcript, count: int) -> list[Any]:
    return [
        transcript.add_user(f"message number {n}\nsecond line of {n}\nthird line of {n}")
        for n in range(count)
    ]


async def _prefetched(pilot: Any, view: TranscriptView) -> None:
    """Let the view draw and compose ahead until it has nothing left to do (and no frame
    painted since asks for more)."""
    idle = 0
    for _ in range(400):
        await pilot.pause()
        idle = 0 if view.drawing_ahead else idle + 1
        if idle == 3:
            return
    raise AssertionError("the view never finished drawing ahead")


def _painting() -> bool:
    """Whether the caller's caller runs under the view's ``render_line`` (the frame being
    painted), not under its drawing ahead."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_name == "render_line":
            return True
        frame = frame.f_back
    return False


@asynccontextmanager
async def _drawn_ahead(count: int) -> AsyncIterator[tuple[Any, TranscriptView]]:
    """(the pilot, the view) of ``count`` three-line messages at 80x24, the view done drawing
    and composing ahead."""
    app = ViewHost()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply(_three_line_users(Transcript(), count))
        await _prefetched(pilot, view)
        yield pilot, view


async def test_page_up_paints_lines_composed_ahead(monkeypatch: Any) -> None:
    async with _drawn_ahead(200) as (pilot, view):
        composed: list[tuple[int, int]] = []  # (block, row) of each line composed to paint
        original = ComposedLines.keep

        def counted(
            self: ComposedLines, block: blocks.Block, row: int, key: Any, line: Any, strip: Any
        ) -> None:
            if _painting():  # (not composed ahead)
                composed.append((view.column.index_of(block.item_id), row))
            original(self, block, row, key, line, strip)

        monkeypatch.setattr(ComposedLines, "keep", counted)

        def shown() -> range:
            top = round(view.scroll_y)
            return range(view.column.block_at(top), view.column.block_at(top + 23) + 1)

        def body_lines() -> set[tuple[int, int]]:
            """The lines of the blocks shown that were composed to be painted."""
            return {(index, row) for index, row in composed if index in shown()}

        async def page_up() -> set[tuple[int, int]]:
            """The lines composed as the page was painted."""
            composed.clear()
            view.action_page(-1)
            view.refresh()
            await pilot.pause()
            return body_lines()

        # None is composed as it is painted: the lines around the view were, ahead.
        assert await page_up() == set()
        assert "message number" in on_screen(view)
        # At another width every line is another: composed ahead again (and done).
        await pilot.resize_terminal(60, 24)
        await _prefetched(pilot, view)
        assert await page_up() == set()
        # The page above drawn after the page moved everything below it (its estimates
        # corrected): the lines kept are still painted, at their new places.
        await _prefetched(pilot, view)
        composed.clear()
        view.refresh()
        await pilot.pause()
        assert body_lines() == set()


async def test_drawing_ahead_repaints_nothing_when_its_heights_were_estimated_right(
    monkeypatch: Any,
) -> None:
    """Off screen, a block drawn ahead changes nothing painted: the view is laid out (and
    repainted whole) again only when a drawing corrects a height. A Page Up sent its screenful
    twice, the second copy some 30 ms after the first, when it was not."""
    async with _drawn_ahead(200) as (pilot, view):
        relayouts: list[int] = []
        drawn: list[tuple[int, int]] = []  # (height before, after) of each block drawn ahead
        relayout, lines = view._relayout, blocks.Block.lines

        def counted_relayout() -> None:
            relayouts.append(1)
            relayout()

        def counted_lines(block: blocks.Block, *args: Any, **kwargs: Any) -> Any:
            before = block.height
            result = lines(block, *args, **kwargs)
            if not _painting():
                drawn.append((before, block.height))
            return result

        monkeypatch.setattr(view, "_relayout", counted_relayout)
        monkeypatch.setattr(blocks.Block, "lines", counted_lines)
        view.action_page(-1)
        await _prefetched(pilot, view)
        assert drawn, "the page above was not drawn ahead"
        assert all(before == after for before, after in drawn)  # (estimated right)
        assert relayouts == []
        # A height corrected by a drawing ahead does lay the view out again.
        for block in view.column:  # (each drawn again, from a wrong estimate)
            block.cache.clear()
            block.height = 1
        view.column.changed_from(0)
        drawn.clear()
        view._prefetch()
        assert any(before != after for before, after in drawn)
        assert relayouts


async def test_nothing_is_drawn_ahead_while_a_session_is_read_then_it_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A long session's older turns read beside the loop hold the warming back; drawing the
    # pages around the viewport waits for them too (76 ms of the loop in a traced reading).
    monkeypatch.setattr(warming, "QUIET", 0.001)  # (looked at again soon)
    reading = object()
    warming.hold(reading)
    try:
        app = ViewHost()
        async with app.run_test(size=(80, 24)) as pilot:
            view = app.query_one(TranscriptView)
            await view.apply(_three_line_users(Transcript(), 30))
            await pilot.pause()

            def drawn() -> set[int]:
                width = view.column.width
                return {n for n, block in enumerate(view.column) if block.drawn_at(width)}

            shown = drawn()
            assert 29 in shown
            view._prefetch()
            await pilot.pause()
            assert drawn() == shown
            assert view.drawing_ahead  # (to be looked at again)
            warming.release(reading)
            await _prefetched(pilot, view)
            assert min(drawn()) < min(shown)  # the page above, once the reading is over
    finally:
        warming.release(reading)


async def test_a_kept_screen_line_shows_what_changed_under_it() -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply(_three_line_users(transcript, 30))
        await _prefetched(pilot, view)
        screen = on_screen(view)
        line = next(row for row in screen.splitlines() if "second line of 28" in row)
        assert not line.startswith("▎")
        # Selected: its gutter shows the bar, on its kept lines too.
        view.select(28)
        await pilot.pause()
        selected = next(row for row in on_screen(view).splitlines() if "second line of 28" in row)
        assert selected.startswith(("▎", "▌"))
        view.select(None)
        await pilot.pause()
        # Searched: the match is marked on a kept line.
        assert view.search("line of 27") == 2
        await pilot.pause()
        row = next(y for y in range(24) if "second line of 27" in view.render_line(y).text)
        styles = {segment.style for segment in view.render_line(row) if "27" in segment.text}
        assert any(style is not None and style.bgcolor is not None for style in styles)
        view.end_search()
        # Its block drawn again with other text: the new text, not the kept line.
        item = transcript.items[29]
        item.text = "message number 29\nsecond line changed\nthird line of 29"  # type: ignore[union-attr]
        view.redraw(item.id)
        view.refresh()
        await pilot.pause()
        assert "second line changed" in on_screen(view)
        # The last message's heading offers Edit; once another is sent, it no longer does.

        def heading_of_29() -> str:
            rows = on_screen(view).splitlines()
            return rows[next(n for n, row in enumerate(rows) if "message number 29" in row) - 1]

        assert "Edit" in heading_of_29()
        await view.apply([transcript.add_user("a newer message")])
        await pilot.pause()
        assert "Edit" not in heading_of_29() and "Copy" in heading_of_29()
