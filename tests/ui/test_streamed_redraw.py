"""A reply whose last tokens wait for the coalesced redraw is drawn whole when its run ends.

Streamed text is redrawn on a timer (`STREAM_REDRAW_SECONDS`, or six times the last redraw's
cost, which a loaded machine makes seconds). Left to that timer, a run could end, the status say
so and the user scroll up, and only then the reply's last lines appear, with "new output below"
on a run that had ended: what made snapshots of the top of the transcript differ under load.
Here the timer is made never to fire within the test, so the run's end is all that can draw it.

An emptied view (a new chat: `TranscriptView.clear`) has nothing waiting: the timer scheduled for
the old chat's reply is stopped, and the old reply's redraw cost does not space out the new one's.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

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
from textual.app import App, ComposeResult

from openwop_tui.core.fold import AssistantTurn, Transcript
from openwop_tui.protocol.events import RunEvent, normalize
from openwop_tui.renderers import Registry
from openwop_tui.ui.transcript import streaming
from openwop_tui.ui.transcript.view import TranscriptView


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


class ViewHost(App[None]):
    def compose(self) -> ComposeResult:
        yield TranscriptView(id="transcript", registry=Registry().load())


def chunk(text: str, seq: int) -> RunEvent:
    payload = {"chunk": text, "nodeId": "n"}
    return normalize({"type": "output.chunk", "sequence": seq, "nodeId": "n", "payload": payload})


async def test_an_emptied_view_has_no_redraw_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    """`clear` stopped nothing: the old reply's timer stayed scheduled (``redraws_pending`` said
    a redraw waited in an empty view until it fired), and the old reply's last redraw cost set
    the new reply's first wait. The redraw clock is a counter: each redraw "takes" `PATIENCE`,
    so the old reply's timer waits six times that (it never fires within the test)."""
    app = ViewHost()
    async with app.run_test(size=(65, 24)):
        view = app.query_one(TranscriptView)
        ticks = itertools.count()
        view.redraws.clock = lambda: PATIENCE * next(ticks)
        delays: list[float] = []
        set_timer = view.set_timer

        def recorded(delay: float, callback: Any) -> Any:
            delays.append(delay)
            return set_timer(delay, callback)

        monkeypatch.setattr(view, "set_timer", recorded)
        transcript = Transcript()
        await view.apply(transcript.apply(chunk("a long reply", 1)))
        view.flush_streamed()  # a redraw that took PATIENCE
        await view.apply(transcript.apply(chunk(" goes on", 2)))
        assert view.redraws_pending
        await view.clear()
        assert not view.redraws_pending  # nothing waits in an empty view
        transcript = Transcript()  # a new chat (its items have the old one's ids)
        await view.apply(transcript.apply(chunk("new", 1)))
        # Its first redraw waits the usual pace, not six times the old reply's last redraw.
        pace = streaming.STREAM_REDRAW_SECONDS
        assert delays == [pace, streaming.STREAM_REDRAW_SHARE * PATIENCE, pace]
        view.flush_streamed()
        [reply] = transcript.items
        assert "new" in view.text_of(reply.id)
