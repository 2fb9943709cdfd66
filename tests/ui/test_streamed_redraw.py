"""A reply whose last tokens wait for the coalesced redraw is drawn whole when its run ends.

Streamed text is redrawn on a timer (`STREAM_REDRAW_SECONDS`, or six times the last redraw's
cost, which a loaded machine makes seconds). Left to that timer, a run could end, the status say
so and the user scroll up, and only then the reply's last lines appear, with "new output below"
on a run that had ended: what made snapshots of the top of the transcript differ under load.
Here the timer is made never to fire within the test, so the run's end is all that can draw it.
"""

from __future__ import annotations

import re

import pytest
from app_support import (
    SIZE,
    builtin_renderers_loaded,  # noqa: F401  (an autouse fixture: it applies here too)
    connected,
    demo_app,
    items_of,
    turn,
)
from patience import PATIENCE

from openwop_tui.core.fold import AssistantTurn
from openwop_tui.ui.transcript import streaming


async def test_a_run_that_ended_has_its_reply_drawn_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(streaming, "STREAM_REDRAW_SECONDS", 2 * PATIENCE)
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "a card")
        assert not app.view.redraws_pending  # drawn when the run ended, not by the timer
        (reply,) = items_of(app, AssistantTurn)
        drawn = " ".join(app.view.text_of(reply.id).split())
        for line in reply.text.splitlines():
            words = " ".join(re.sub(r"[*`]", "", line).strip("-# ").split())  # (its markdown)
            assert words in drawn, (words, drawn)
        app.view.action_first()  # scrolled up after the run: nothing new below
        await pilot.pause()
        assert not app.view.unseen
