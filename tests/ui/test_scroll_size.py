"""A view that grows as a run streams lays the screen out only when a scroll bar comes or goes
(`openwop_tui.ui.scroll_size`): the transcript as a reply grows, the timeline a row an event.

A layout places every widget of the screen again and draws it: done at every frame of a flood
(Textual's `virtual_size` asks for one at every change), it was about a tenth of the event
loop's time. Each test counts the screen's layouts while the view grows past its height and
checks what the layout used to do is still done: the bar's thumb, the view at its end.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from app_support import (
    builtin_renderers_loaded,  # noqa: F401  (an autouse fixture)
    on_screen,
)
from patience import PATIENCE
from test_timeline_spill import log_entry
from test_transcript_view import ViewHost
from textual.app import App, ComposeResult
from textual.geometry import Size
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget

from openwop_tui.core.fold import Added, AssistantTurn, Transcript, Updated
from openwop_tui.ui.scroll_size import bars_kept, set_virtual_size
from openwop_tui.ui.transcript.view import TranscriptView
from openwop_tui.ui.widgets.timeline_view import TimelineView


@contextmanager
def layouts_counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Count the screen's layouts from here on (one element each)."""
    counted: list[int] = []
    original = Screen._refresh_layout

    def counting(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
        counted.append(1)
        original(self, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", counting)
    yield counted


async def laid_out(pilot: Pilot[Any], layouts: list[int]) -> None:
    """Pause until a pause lays nothing out (a bar that came takes a column: the view is laid
    out again at the width it leaves), then forget the layouts counted so far. Each pause runs
    the screen's update itself, so this is a count of steps, not a wait."""
    for _ in range(10):
        before = len(layouts)
        await pilot.pause()
        if len(layouts) == before:
            break
    layouts.clear()


async def test_a_streamed_reply_past_the_screen_lays_it_out_only_when_the_bar_comes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = ViewHost()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        reply = AssistantTurn("assistant-x", None)
        transcript = Transcript()
        transcript.items.append(reply)
        await view.apply([Added(reply)])
        await pilot.pause()
        with layouts_counted(monkeypatch) as layouts:
            n = 0
            while not view.show_vertical_scrollbar:  # the reply reaches past the screen
                delta = f"Paragraph {n} says something.\n\n"
                reply.body.append(delta)
                await view.apply([Updated(reply, delta)])
                await pilot.pause()
                n += 1
            assert layouts, "the bar that came was laid out"
            await laid_out(pilot, layouts)
            for m in range(n, n + 40):
                delta = f"Paragraph {m} says something.\n\n"
                reply.body.append(delta)
                await view.apply([Updated(reply, delta)])
                await pilot.pause()
            # Streamed redraws are coalesced (one per 40 ms): the last paragraph once drawn.
            deadline = time.monotonic() + PATIENCE  # a guard against a hang, not the wait
            while f"Paragraph {n + 39} " not in on_screen(view) and time.monotonic() < deadline:
                await pilot.pause(0.01)
            assert f"Paragraph {n + 39} " in on_screen(view)
            assert layouts == [], f"{len(layouts)} layouts while the reply grew"
        # What the layout did is still done: the view at its end, the bar's thumb with it.
        bar = view.vertical_scrollbar
        assert view.virtual_size.height > 24 * 2
        assert bar.window_virtual_size == view.virtual_size.height
        assert view.scroll_y == view.max_scroll_y == bar.position


class TimelineHost(App[None]):
    def compose(self) -> ComposeResult:
        yield TimelineView(id="events")


async def test_timeline_rows_past_the_screen_lay_it_out_only_when_the_bar_comes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = TimelineHost()
    async with app.run_test(size=(100, 20)) as pilot:
        view = app.query_one(TimelineView)
        with layouts_counted(monkeypatch) as layouts:
            sequence = 0
            while not view.show_vertical_scrollbar:
                view.extend([log_entry(sequence)])
                sequence += 1
                await pilot.pause()
            assert layouts, "the bar that came was laid out"
            await laid_out(pilot, layouts)
            for _ in range(50):  # batches of rows, as frames of a run bring them
                view.extend([log_entry(sequence + k) for k in range(7)])
                sequence += 7
                await pilot.pause()
            assert layouts == [], f"{len(layouts)} layouts while the rows came"
        bar = view.vertical_scrollbar
        assert view.virtual_size.height == sequence * view.lines_per_row
        assert bar.window_virtual_size == view.virtual_size.height
        assert view.scroll_y == view.max_scroll_y == bar.position
        assert f"{sequence - 1}" in "\n".join(
            view.render_line(y).text for y in range(view.size.height)
        )


class Sized(App[None]):
    CSS = "#auto { height: 10; } #scroll { height: 10; overflow-y: scroll; }"

    def compose(self) -> ComposeResult:
        from textual.scroll_view import ScrollView

        yield ScrollView(id="auto")
        yield ScrollView(id="scroll")


async def test_a_layout_is_asked_for_whenever_a_bar_may_come_or_go() -> None:
    app = Sized()
    async with app.run_test(size=(60, 24)) as pilot:
        auto = app.query_one("#auto", Widget)
        set_virtual_size(auto, Size(50, 5))
        await pilot.pause()
        assert not auto.show_vertical_scrollbar
        assert not bars_kept(auto, Size(50, 8)), "no bar: growing may bring one"
        assert not bars_kept(auto, Size(50, 30)), "it would come"
        set_virtual_size(auto, Size(50, 30))
        await pilot.pause()
        assert auto.show_vertical_scrollbar, "laid out: the bar came"
        assert bars_kept(auto, Size(50, 40)), "taller still: the bar stays"
        assert bars_kept(auto, Size(50, 11)), "shorter but still past the view"
        assert not bars_kept(auto, Size(50, 10)), "it would go"
        assert not bars_kept(auto, Size(49, 40)), "another width: the other bar may change"
        set_virtual_size(auto, Size(50, 4))
        await pilot.pause()
        assert not auto.show_vertical_scrollbar, "laid out: the bar went"
        scroll = app.query_one("#scroll", Widget)
        assert bars_kept(scroll, Size(0, 3)) and bars_kept(scroll, Size(0, 300))


async def test_many_changes_between_two_frames_tell_the_bars_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Items put in the view one by one (a session's turns, a replay) change its size at each:
    # the bars are told once the work at hand is done, not at every change (that cost more
    # than the layout it replaced: 10,000 items, 0.7 -> 0.9 s).
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply([transcript.add_user(f"message {n}") for n in range(40)])
        await pilot.pause()
        assert view.show_vertical_scrollbar
        told: list[Size] = []
        original = TranscriptView._scroll_update

        def counted(self: TranscriptView, size: Size) -> None:
            told.append(size)
            original(self, size)

        monkeypatch.setattr(TranscriptView, "_scroll_update", counted)
        for n in range(40, 240):
            await view.apply([transcript.add_user(f"message {n}")])
        await pilot.pause()
        assert 1 <= len(told) <= 3, len(told)
        bar = view.vertical_scrollbar
        assert bar.window_virtual_size == view.virtual_size.height
        assert view.scroll_y == view.max_scroll_y == bar.position
        assert "message 239" in on_screen(view)
