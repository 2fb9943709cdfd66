"""Resizing a long transcript (issue 26 part 6): lines kept per width, code highlighted once,
the block being read kept at the top, and lines drawn after a resize the lines a fresh drawing
at that width gives. Counted calls and compared lines, no timing."""

from __future__ import annotations

import io
from typing import Any

from app_support import builtin_renderers_loaded, settle
from rich.console import Console
from rich.syntax import Syntax
from textual.app import ComposeResult
from textual.strip import Strip

from openwop_tui.core.fold import Added, AssistantTurn, Transcript
from openwop_tui.draw.palette import Palette
from openwop_tui.renderers import Registry
from openwop_tui.ui.resizing import ResizeAtOnce
from openwop_tui.ui.transcript import blocks
from openwop_tui.ui.transcript.blocks import Block
from openwop_tui.ui.transcript.view import TranscriptView

__all__ = ["builtin_renderers_loaded"]

REPLY = (
    "Reply {n} with **some** markdown, `code`, and a paragraph long enough to wrap at the "
    "narrower widths of this test, so its height changes when the view is resized:\n\n"
    "- one\n- two\n\n```python\ndef answer_{n}(x):\n    return [x * {n} for _ in range(3)]\n```"
    "\n\nDone {n}."
)


class ViewHost(ResizeAtOnce):
    def compose(self) -> ComposeResult:
        yield TranscriptView(id="transcript", registry=Registry().load())


def _turns(transcript: Transcript, count: int) -> list[Any]:
    changes: list[Any] = []
    for n in range(count):
        changes.append(transcript.add_user(f"question {n}"))
        turn = AssistantTurn(f"reply-{n}", None, REPLY.format(n=n), final=True)
        transcript.items.append(turn)
        changes.append(Added(turn))
        changes.append(transcript.add_notice("info", f"run completed {n}"))
    return changes


def _count(monkeypatch: Any, owner: Any, name: str) -> list[Any]:
    """Record every call of ``owner.name`` (its first argument) from here on."""
    calls: list[Any] = []
    original = getattr(owner, name)

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


async def _resized(pilot: Any, view: TranscriptView, columns: int) -> None:
    """Resize the terminal, and let the view draw ahead until it has nothing left to do."""
    await pilot.resize_terminal(columns, 24)
    app = pilot.app
    # (A size within a burst waits for Textual's timer: wait for the view to be laid at it.)
    await settle(pilot, app, lambda: view.column.width == view.content_width, workers=False)
    idle = 0
    for _ in range(400):
        await pilot.pause()
        idle = 0 if view.drawing_ahead else idle + 1
        if idle == 3:
            return
    raise AssertionError("the view never finished drawing ahead")


def _same(drawn: list[Strip], fresh: list[Strip]) -> bool:
    """Whether two drawings are the same lines: text and styles, segment by segment."""
    return [list(line) for line in drawn] == [list(line) for line in fresh]


async def test_a_resize_back_to_a_width_seen_draws_nothing_again(monkeypatch: Any) -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(100, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply(_turns(transcript, 40))
        await _resized(pilot, view, 100)
        view.show_at_top(60)
        await _resized(pilot, view, 100)
        await _resized(pilot, view, 70)
        drawn = _count(monkeypatch, Block, "_draw")
        await _resized(pilot, view, 100)
        assert drawn == []  # every block on and around the screen kept its lines at 100
        await _resized(pilot, view, 70)
        assert drawn == []  # and at 70: two widths are kept
        await _resized(pilot, view, 100)
        await _resized(pilot, view, 85)
        assert drawn  # a width never seen: drawn again
        drawn.clear()
        # The width used last is kept (not the one drawn first): back to it, nothing drawn.
        await _resized(pilot, view, 100)
        assert drawn == []


def test_code_is_highlighted_once_whatever_the_width(monkeypatch: Any) -> None:
    highlighted = _count(monkeypatch, Syntax, "highlight")
    console = Console(width=120, file=io.StringIO(), color_system="truecolor")
    palette = Palette.default()
    block = Block(AssistantTurn("reply", None, REPLY.format(n=7), final=True))
    first = block.lines(console, 100, palette)
    assert len(highlighted) == 1
    for width in (60, 45, 100, 37):
        block.lines(console, width, palette)
    assert len(highlighted) == 1  # wrapped again at each width, highlighted once
    assert _same(block.lines(console, 100, palette), first)


def test_a_block_keeps_the_finished_parts_of_the_widths_it_keeps_only() -> None:
    console = Console(width=120, file=io.StringIO(), color_system="truecolor")
    palette = Palette.default()
    block = Block(AssistantTurn("reply", None, REPLY.format(n=7), final=True))
    for width in range(40, 100, 3):
        block.lines(console, width, palette)
    assert len(block.cache) == blocks.KEPT_WIDTHS
    assert set(block.parts) <= set(block.cache)


async def test_the_block_read_stays_at_the_top_through_resizes() -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(100, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply(_turns(transcript, 60))
        await _resized(pilot, view, 100)
        read = 91  # a reply far up, never drawn yet
        assert isinstance(view.column[read].item, AssistantTurn)
        view.show_at_top(read)
        await _resized(pilot, view, 100)
        for columns in (70, 120, 45, 100, 83):
            await _resized(pilot, view, columns)
            tops = view.column.tops
            top = round(view.scroll_y)
            # The same block at the top, from its first line, whatever was drawn above it
            # (estimates corrected) as the view drew ahead.
            assert view.column.block_at(top) == read
            assert top == tops[read]
            first_line = view.render_line(0).text
            assert "Assistant" in first_line


async def test_lines_drawn_after_resizes_are_a_fresh_drawing_at_that_width() -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(100, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply(_turns(transcript, 30))
        await _resized(pilot, view, 100)
        for columns in (70, 100, 58, 70, 91):
            await _resized(pilot, view, columns)
            view.action_page(-1)
            await _resized(pilot, view, columns)
        width = view.content_width
        console = app.console
        kept = [block for block in view.blocks() if width in block.cache]
        assert len(kept) > 10
        for block in kept:
            fresh = Block(block.item).lines(console, width, view.palette, view.colours)
            assert _same(block.cache[width], fresh), block.item_id
            assert block.height == len(fresh)
        # And the offsets: every kept block starts where the heights above it say.
        tops = view.column.tops
        assert tops[-1] == sum(view.column.height_of(i) for i in range(len(view.column)))
