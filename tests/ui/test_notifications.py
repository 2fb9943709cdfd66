"""Notifications never cover the input (app.tcss puts the toast rack at the top)."""

from __future__ import annotations

from app_support import connected, demo_app
from textual.errors import NoWidget
from textual.widgets._toast import Toast

from openwop_tui.ui.widgets.prompt import InputArea, PromptInput


async def test_toasts_do_not_overlap_the_prompt_at_80x24() -> None:
    app = demo_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await connected(pilot, app)
        prompt = app.query_one(PromptInput)
        prompt.value = "\n".join(f"line {n}" for n in range(12))  # the prompt at its tallest
        app.chat.parts.queued.add("waiting")
        for n in range(6):
            app.notify(f"notification {n}: " + "a long sentence " * 8, timeout=60)
        await pilot.pause()
        await pilot.pause()
        toasts = list(app.screen.query(Toast))
        assert len(toasts) == 6
        area = app.query_one(InputArea).region
        assert prompt.region.height > 3
        drawn = []
        for toast in toasts:
            try:  # the part on screen: the rack scrolls, so it clips its toasts
                visible = app.screen.find_widget(toast).visible_region
            except NoWidget:
                continue  # scrolled out of view
            if visible:  # an empty region "overlaps" whatever it sits in
                drawn.append(visible)
        assert any(drawn), "no toast is visible"
        for region in drawn:
            assert not region.overlaps(area), (region, area)


async def test_a_notification_is_one_line_whatever_it_quotes() -> None:
    # A host's error message quoted in a toast (issue 23): its newline shows as ␊, so it
    # cannot add a line that reads as the client's own, and its escapes are marks.
    app = demo_app()
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await connected(pilot, app)
        app.notify("failed: x\n✓ answered at node gate: accept\x1b]0;pwned\x07", timeout=60)
        await pilot.pause()
        [toast] = list(app.screen.query(Toast))
        shown = str(toast.render())
    assert "\n" not in shown and "\x1b" not in shown
    assert "failed: x␊✓ answered at node gate: accept␛]0;pwned␇" in shown
