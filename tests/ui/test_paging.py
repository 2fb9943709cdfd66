"""Paging the transcript (issue 13): no scroll animation (each of its frames drew every visible
line again), and the page above and below the viewport drawn ahead once a frame is out, so a
Page Up finds its lines drawn. Counts, not timings."""

from __future__ import annotations

from typing import Any

from app_support import builtin_renderers_loaded, connected, demo_app
from textual.app import App, ComposeResult

from openwop_tui.core.fold import Transcript
from openwop_tui.renderers import Registry
from openwop_tui.ui.transcript.view import TranscriptView
from openwop_tui.ui.widgets.prompt import PromptInput

__all__ = ["builtin_renderers_loaded"]


class ViewHost(App[None]):
    def compose(self) -> ComposeResult:
        yield TranscriptView(id="transcript", registry=Registry().load())


async def test_page_keys_from_the_prompt_page_without_animation() -> None:
    app = demo_app()
    calls: list[tuple[str, Any]] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await connected(pilot, app)
        view = app.query_one(TranscriptView)
        view.scroll_page_up = lambda **kw: calls.append(("up", kw.get("animate")))  # type: ignore[method-assign]
        view.scroll_page_down = lambda **kw: calls.append(("down", kw.get("animate")))  # type: ignore[method-assign]
        await pilot.press("pageup", "pagedown")
    assert calls == [("up", False), ("down", False)]


async def test_end_from_the_prompt_at_its_text_s_end_follows_the_transcript_again() -> None:
    """Paged up from the prompt, new output comes ("new output below ↓ (End)"): End there goes
    to the transcript's end and follows it, the prompt keeping focus; End with text after the
    cursor moves the cursor, as in any input."""
    app = demo_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await connected(pilot, app)
        view = app.query_one(TranscriptView)
        transcript = Transcript()
        await view.apply([transcript.add_user(f"message number {n}") for n in range(60)])
        await pilot.pause()
        await pilot.press("pageup", "pageup")
        await pilot.pause()
        await view.apply([transcript.add_user("something new")])
        await pilot.pause()
        assert view.unseen and view.scroll_y < view.max_scroll_y
        prompt = app.query_one(PromptInput)
        prompt.value = "draft"
        prompt.move_cursor((0, 2))
        await pilot.press("end")  # (text after the cursor: the cursor moves)
        await pilot.pause()
        assert prompt.cursor_location == (0, 5) and view.unseen
        await pilot.press("end")  # (nothing past it now: the transcript's end)
        await pilot.pause()
        assert not view.unseen and view.scroll_y == view.max_scroll_y
        assert prompt.has_focus and prompt.value == "draft"


async def test_the_page_above_is_drawn_ahead_and_nothing_further() -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await view.apply([transcript.add_user(f"message number {n}") for n in range(300)])
        await pilot.pause()
        await pilot.pause()  # the frame is out: what is drawn ahead is drawn after it
        blocks = view.blocks()
        # Each message is 3 lines: a screen of 24 holds 8; the 8 above it are drawn ahead.
        assert all(block.measured for block in blocks[-16:])
        assert not any(block.measured for block in blocks[:-24])
        view.scroll_page_up(animate=False)
        await pilot.pause()
        await pilot.pause()
        assert all(block.measured for block in blocks[-24:])  # the next page up, ahead again
        assert not any(block.measured for block in blocks[:-40])
