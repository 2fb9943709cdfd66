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


class _Timers:
    """A widget's `set_timer`, kept: the delays asked for, and the callback waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def set_timer(self, delay: float, callback: Any) -> Any:
        self.delays.append(delay)
        return self  # (its `stop`, below)

    def stop(self) -> None:
        pass


def test_a_flood_is_drawn_four_times_a_second_and_a_reply_read_as_written_at_its_pace() -> None:
    """Pieces past `FLOOD_PIECES_PER_SECOND` between two redraws space the next out to
    `FLOOD_REDRAW_SECONDS`; pieces at a reading pace, or the first after a pause (a new reply),
    keep `STREAM_REDRAW_SECONDS`. The clock is the test's: each redraw takes no time."""
    now = [0.0]
    timers = _Timers()
    redraws = streaming.Redraws(timers, lambda pending: None)  # type: ignore[arg-type]
    redraws.clock = lambda: now[0]

    def pieces(count: int, seconds: float) -> float:
        """``count`` pieces over ``seconds``, then the timer fires; the delay it was set to."""
        for _ in range(count):
            redraws.schedule(0)
        now[0] += seconds
        redraws.flush()
        return timers.delays[-1]

    pace, flood = streaming.STREAM_REDRAW_SECONDS, streaming.FLOOD_REDRAW_SECONDS
    assert pieces(5, 0.04) == pace  # the first redraw: nothing to pace it by
    assert pieces(5, 0.04) == pace  # 125 a second: a model read as it writes
    fast = streaming.FLOOD_PIECES_PER_SECOND
    assert pieces(int(fast * 0.05) + 1, 0.04) == pace  # past the line: the *next* waits
    assert redraws.flooding
    assert pieces(2_500, 0.25) == flood  # 10,000 a second
    assert pieces(int(fast * 0.25) - 1, 0.25) == flood  # under the line: the next is paced
    assert not redraws.flooding
    assert pieces(3, 0.04) == pace
    pieces(5_000, 0.25)  # a flood again, then it stops
    now[0] += 30.0  # the next reply comes half a minute later: drawn at the usual pace
    assert pieces(5, 0.04) == pace
    assert pieces(5, 0.04) == pace
    redraws.schedule(0)
    redraws.clear()
    assert not redraws.flooding
