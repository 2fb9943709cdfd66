"""The transcript keeps drawn lines for the blocks seen last only (issue 26, flat memory).

A block's lines are dropped once others were drawn after it past the budget
(`openwop_tui.ui.transcript.budget`), and drawn again, the same, when it is seen again; its
height stays, search still finds its text, Home still reaches it. The budget is made small
here so a few hundred items pass it; counting is by the lines the blocks actually hold.
"""

from __future__ import annotations

import gc
from types import FrameType
from typing import Any

from app_support import on_screen
from textual.app import App, ComposeResult
from textual.widgets import Input

from openwop_tui.core.fold import Added, AssistantTurn, Transcript, Updated
from openwop_tui.renderers import Registry
from openwop_tui.ui.transcript.blocks import Block
from openwop_tui.ui.transcript.view import TranscriptView

BUDGET = 60
KEPT = 4


class ViewHost(App[None]):
    """Just a transcript view, with a small budget of drawn lines."""

    def compose(self) -> ComposeResult:
        view = TranscriptView(id="transcript", registry=Registry().load())
        view.column.drawn.budget, view.column.drawn.blocks = BUDGET, KEPT
        yield view


def _reply(transcript: Transcript, n: int) -> Any:
    """A finished reply with markdown parts (a heading, a list, code): drawn in parts."""
    item = AssistantTurn(f"assistant-{n}", None)
    item.body.append(
        f"## Reply {n}\n\nSome **bold** words, a list:\n\n- one {n}\n- two\n\n"
        f"```python\nprint({n})\n```\n\nThe end of reply {n}.\n"
    )
    transcript.items.append(item)
    return Added(item)


def _held(view: TranscriptView) -> tuple[int, int]:
    """(blocks holding drawn lines, lines they hold), counted on the blocks themselves."""
    holding = [block for block in view.blocks() if block.cache]
    return len(holding), sum(len(lines) for b in holding for lines in b.cache.values())


def _segments(lines: list[Any]) -> list[list[tuple[str, Any]]]:
    return [[(segment.text, segment.style) for segment in strip] for strip in lines]


def _draw_every_block(view: TranscriptView) -> None:
    """Draw each block in turn (as scrolling through the whole transcript would)."""
    for block in view.blocks():
        view.text_of(block.item_id)


async def test_drawn_lines_stay_bounded_however_many_items() -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        for n in range(300):
            await view.apply([_reply(transcript, n)])
        await pilot.pause()
        _draw_every_block(view)
        blocks, lines = _held(view)
        tallest = max(block.height for block in view.blocks())
        assert blocks <= BUDGET  # (not one block a line: a reply is a dozen)
        assert lines <= BUDGET + KEPT * tallest
        assert view.column.drawn.lines == lines  # the count is what is held
        # The same again after going End and Home: still bounded.
        view.action_first()
        await pilot.pause()
        view.action_last()
        await pilot.pause()
        assert _held(view)[1] <= BUDGET + KEPT * tallest


async def test_a_block_seen_again_is_drawn_the_same_at_the_same_height() -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply([_reply(transcript, n) for n in range(200)])
        await pilot.pause()
        first = view.blocks()[0]
        width = view.column.width
        before = _segments(first.lines(app.console, width, view.palette))
        height = first.height
        _draw_every_block(view)
        assert not first.cache and not first.parts and first.markdown is None  # dropped
        assert first.height == height  # the scroll bar does not move
        view.action_first()
        await pilot.pause()
        assert "Reply 0" in on_screen(view)
        assert first.cache  # drawn again, being seen
        assert _segments(first.cache[width]) == before
        assert first.height == height


async def test_search_finds_text_in_a_dropped_block() -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply([_reply(transcript, n) for n in range(5)])
        needle = transcript.add_user("the needle is here")
        await view.apply([needle])
        await view.apply([_reply(transcript, n) for n in range(5, 200)])
        await pilot.pause()
        _draw_every_block(view)
        target = view.column.block_for(needle.item.id)
        assert isinstance(target, Block) and not target.cache  # dropped
        assert view.search("NEEDLE") == 1
        assert view.step_match(1) == (1, 1)
        await pilot.pause()
        assert "the needle is here" in on_screen(view)
        view.end_search()


async def test_a_resize_keeps_the_height_of_a_dropped_block_drawn_at_that_width() -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply([_reply(transcript, n) for n in range(100)])
        await pilot.pause()
        _draw_every_block(view)
        first = view.blocks()[0]
        height = first.height
        assert not first.cache and first.last_drawn == (view.column.width, height)
        await pilot.resize_terminal(60, 24)
        await pilot.pause()
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert first.height == height  # back at its width: its drawn height, not a guess
        view.action_first()
        await pilot.pause()
        assert first.cache and len(first.cache[view.column.width]) == height


class PromptHost(App[None]):
    """A transcript view under a prompt that has focus, as in the app (nothing selected)."""

    AUTO_FOCUS = "Input"

    def compose(self) -> ComposeResult:
        yield TranscriptView(id="transcript", registry=Registry().load())
        yield Input()


async def test_a_streamed_replys_old_drawings_are_not_kept_by_the_screen_lines(
    monkeypatch: Any,
) -> None:
    """The screen lines composed from a streamed reply (kept to be painted again) do not keep
    the drawings they were composed from: each redraw's lines are freed once a newer drawing
    replaces them (a flood's reply kept six or seven old drawings, thousands of lines each)."""
    app = PromptHost()
    transcript = Transcript()
    drawings: list[list[Any]] = []
    original = Block.lines

    def lines(self: Block, *args: Any, **kwargs: Any) -> Any:
        drawn = original(self, *args, **kwargs)
        if self.item_id == "assistant-x" and not any(d is drawn for d in drawings):
            drawings.append(drawn)
        return drawn

    monkeypatch.setattr(Block, "lines", lines)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        reply = AssistantTurn("assistant-x", None)
        transcript.items.append(reply)
        await view.apply([transcript.add_user("flood"), Added(reply)])
        for n in range(40):  # one paragraph growing past a screen, drawn and painted each time
            delta = f"word{n} " * 12
            reply.body.append(delta)
            await view.apply([Updated(reply, delta)])
            view.flush_streamed()
            await pilot.pause()
        block = view.column.block_for("assistant-x")
        assert view.cursor is None and block is not None and len(drawings) > 10
        current = block.cache[view.column.width]
        old = [drawn for drawn in drawings if drawn is not current]
        held = [
            type(holder).__name__
            for drawn in old
            for holder in gc.get_referrers(drawn)
            if holder is not drawings and holder is not old and not isinstance(holder, FrameType)
        ]
        assert held == []  # (before: each held by the screen lines composed from it, in a tuple)
