"""Reopening a long session (issue 13): its items go to the view in one batch that looks the
content width up once (Textual computes it on every call: 2.7 of 4.1 s for 24,000 items), with
the collector paused, and what the chat keeps is frozen out of later collections."""

from __future__ import annotations

import gc

import pytest
from app_support import connected, demo_app, turn
from textual.app import App, ComposeResult

from openwop_tui.core.fold import Transcript
from openwop_tui.renderers import Registry
from openwop_tui.ui.heap import settled_heap
from openwop_tui.ui.transcript.view import TranscriptView


class ViewHost(App[None]):
    def compose(self) -> ComposeResult:
        yield TranscriptView(id="transcript", registry=Registry().load())


async def test_a_batch_of_items_looks_the_width_up_once(monkeypatch: pytest.MonkeyPatch) -> None:
    app = ViewHost()
    transcript = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.query_one(TranscriptView)
        calls = 0
        original = TranscriptView.content_width.fget
        assert original is not None

        def counted(self: TranscriptView) -> int:
            nonlocal calls
            calls += 1
            return original(self)

        monkeypatch.setattr(TranscriptView, "content_width", property(counted))
        view.apply_changes([transcript.add_user(f"message {n}") for n in range(500)])
        assert calls <= 3  # once for the batch (and the layout's own), not once an item
        assert view.block_count == 500


def test_a_reopened_session_is_drawn_with_the_collector_paused_and_then_frozen() -> None:
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    kept = [[n] for n in range(1000)]  # what the chat keeps
    try:
        with settled_heap():
            assert not gc.isenabled()
        assert gc.isenabled()
        assert gc.get_freeze_count() >= frozen + len(kept)
    finally:
        gc.unfreeze()


async def test_what_opening_made_is_frozen_after_the_first_screen() -> None:
    # Unfrozen, every full collection while a reply streams walked the modules, styles and
    # widgets the app opened with, and held the event loop for 25-45 ms each time. (Nothing
    # is frozen when a test starts: conftest gives it back after each.)
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await connected(pilot, app)
        assert gc.get_freeze_count() > 10_000


async def test_a_finished_run_is_frozen_and_closing_its_tab_gives_it_all_back() -> None:
    # Every full collection walked the whole chat so far: a turn 500 messages in took half as
    # long again as the first. Frozen after each run; a chat closed hands its objects back to
    # the collector (its cycles would otherwise be kept for good). A new chat opens beside it
    # (a tab of its own: the old one still lives, frozen).
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await connected(pilot, app)
        gc.unfreeze()  # (what the first screen froze)
        await turn(pilot, app, "hello")
        assert gc.get_freeze_count() > 10_000
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert gc.get_freeze_count() > 10_000
        await pilot.press("ctrl+pageup", "ctrl+f4")  # the first chat's tab closed
        await pilot.pause()
        assert len(app.tabs.tabs) == 1
        assert gc.get_freeze_count() == 0
