"""Human in the loop in the app (issue 7, item 1): a run's question becomes a form above the
prompt that takes focus; the answer goes through the pipeline; the run completes (or fails with
the host's reason on a rejection). Real demo host over loopback, Pilot keys.

Without the wiring (`openwop_tui.ui.controllers.interrupts`) no form appears and the runs stay
waiting.
"""

from __future__ import annotations

from app_support import SIZE, connected, demo_app, send, settle

from openwop_tui.core.items import Interrupt
from openwop_tui.ui.widgets.interrupt_form import InterruptForm


async def _form(pilot, app) -> InterruptForm:  # type: ignore[no-untyped-def]
    await settle(pilot, app, lambda: bool(app.query(InterruptForm)), what="the form")
    (form,) = app.query(InterruptForm)
    await pilot.pause()
    return form


async def test_a_clarification_is_answered_from_its_form_and_the_run_completes() -> None:
    app = demo_app(workflow="demo.clarify")
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await send(pilot, app, "go")
        await _form(pilot, app)
        await pilot.press("down", "down", "enter")  # red, green, blue: the list is the control
        await pilot.press(*"Ada", "enter")
        await settle(pilot, app, lambda: app.transcript.status == "completed", what="completed")
        (question,) = [i for i in app.transcript.items if isinstance(i, Interrupt)]
        assert question.state == "answered" and question.answered_by == "you"
        assert not app.query(InterruptForm)
        reply = "".join(getattr(i, "text", "") for i in app.transcript.items)
        assert "blue" in reply.lower() and "Ada" in reply


async def test_an_approval_is_accepted_with_a() -> None:
    app = demo_app(workflow="demo.approve")
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await send(pilot, app, "go")
        await _form(pilot, app)
        await pilot.press("a")
        await settle(pilot, app, lambda: app.transcript.status == "completed", what="completed")


async def test_an_approval_rejected_with_r_fails_with_the_reason() -> None:
    app = demo_app(workflow="demo.approve")
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await send(pilot, app, "go")
        await _form(pilot, app)
        await pilot.press("r")
        await settle(pilot, app, lambda: app.transcript.status == "failed", what="failed")
        assert any("reject" in getattr(i, "text", "").lower() for i in app.transcript.items)


async def test_the_hosts_own_reports_of_an_answer_add_no_lines() -> None:
    """The demo host tells of one answer in several events (interrupt.resolved,
    clarification.resolved, node.resumed); once the form's answer settled the question, they
    are not news: no "was answered" line repeats it."""
    app = demo_app(workflow="demo.clarify")
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await send(pilot, app, "go")
        await _form(pilot, app)
        await pilot.press(*"blue", "enter")
        await pilot.press(*"Ada", "enter")
        await settle(pilot, app, lambda: app.transcript.status == "completed", what="completed")
        lines = [getattr(i, "text", "") for i in app.transcript.items]
        assert not [line for line in lines if "was answered" in line], lines


async def test_an_approval_rejected_with_a_reason_sends_it_and_fails_with_it() -> None:
    app = demo_app(workflow="demo.approve")
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await send(pilot, app, "go")
        form = await _form(pilot, app)
        await pilot.press("R")
        await pilot.pause()
        await pilot.press("enter")  # no reason yet: nothing is sent, the form says why
        await pilot.pause()
        assert not form.sending and app.transcript.status == "waiting"
        await pilot.press(*"too vague", "enter")
        await settle(pilot, app, lambda: app.transcript.status == "failed", what="failed")
        (decision,) = [i for i in app.transcript.items if isinstance(i, Interrupt)]
        assert decision.state == "answered" and "too vague" in (decision.outcome or "")
        texts = " ".join(getattr(i, "text", "") for i in app.transcript.items)
        assert "too vague" in texts
