"""The interrupt form in a tiny host app: what each kind draws, what Enter and the action keys
post, what is refused in the form, and how the host's verdict closes it or keeps it open.

The items are the fold's own (`Transcript.apply`), from a recorded SQLite-host stream and from
events shaped as the demo host sends them (`openwop_tui.demo_host.hitl`).
"""

from __future__ import annotations

from typing import Any

from paths import TESTS
from textual.app import App, ComposeResult
from textual.message import Message
from textual.widgets import Button, Input, OptionList, Static

from openwop_tui.core.fold import Transcript
from openwop_tui.core.items import Interrupt
from openwop_tui.demo_host.hitl import DEMO_QUESTIONS
from openwop_tui.protocol.events import RunEvent, normalize
from openwop_tui.protocol.frames import events_from_frame
from openwop_tui.protocol.hostdata import host_value
from openwop_tui.protocol.interrupts import read_request
from openwop_tui.protocol.sse import parse_sse_text
from openwop_tui.text.sanitize import HostText
from openwop_tui.ui.messages import (
    InterruptAnswered,
    InterruptFormClosed,
    InterruptFormLeft,
    RunCancelRequested,
)
from openwop_tui.ui.widgets.interrupt_form import InterruptForm

CAPTURES = TESTS / "data" / "captures"


def folded(events: list[RunEvent]) -> Interrupt:
    """The (last) interrupt the fold makes of ``events``."""
    transcript = Transcript()
    for event in events:
        transcript.apply(event)
    found = [item for item in transcript.items if isinstance(item, Interrupt)]
    assert found, "the fold made no interrupt"
    return found[-1]


def ev(type_: str, payload: dict[str, Any], node: str = "ask", seq: int = 1) -> RunEvent:
    return normalize(
        {"type": type_, "payload": payload, "sequence": seq, "runId": "run-1", "nodeId": node}
    )


def captured(name: str) -> Interrupt:
    events: list[RunEvent] = []
    for frame in parse_sse_text((CAPTURES / name).read_text(encoding="utf-8")):
        events.extend(events_from_frame(frame.event, frame.data, frame.id).events)
    until = next(i for i, e in enumerate(events) if e.type == "node.suspended")
    return folded(events[: until + 1])


def demo_clarify() -> Interrupt:
    """`demo.clarify`'s interrupt: a choice (colour) and a bounded free-text question."""
    return folded(
        [
            ev(
                "interrupt.requested",
                {
                    "kind": "clarification",
                    "interruptId": "i1",
                    "key": "k1",
                    "data": {"questions": DEMO_QUESTIONS},
                },
            )
        ]
    )


def demo_approve() -> Interrupt:
    return folded(
        [
            ev(
                "interrupt.requested",
                {
                    "kind": "approval",
                    "interruptId": "i2",
                    "key": "k2",
                    "data": {
                        "title": "Publish the release notes?",
                        "description": "Accept to publish, reject to stop, or refine.",
                        "actions": ["accept", "reject", "refine"],
                    },
                },
                node="review",
            )
        ]
    )


LOW = {"reason": "low-confidence", "agentId": "agent:unsure", "threshold": 0.7, "observed": 0.4}


def postgres_low_confidence() -> Interrupt:
    """The Postgres host's pause: ``node.suspended`` only, no interrupt behind it."""
    return folded([ev("node.suspended", LOW, node="decide")])


def demo_low_confidence() -> Interrupt:
    """The demo host's: the same pause with an ``interrupt.requested`` to resolve."""
    return folded(
        [
            ev("node.suspended", LOW, node="decide"),
            ev(
                "interrupt.requested",
                {
                    "kind": "low-confidence",
                    "interruptId": "i3",
                    "key": "k3",
                    "data": {**LOW, "actions": ["accept", "reject"]},
                },
                node="decide",
                seq=2,
            ),
        ]
    )


class FormHost(App[None]):
    """The form above a stand-in prompt, as the chat screen has it."""

    def __init__(self, interrupt: Interrupt) -> None:
        super().__init__()
        self.interrupt = interrupt
        self.seen: list[Message] = []

    def compose(self) -> ComposeResult:
        yield InterruptForm(self.interrupt)
        yield Input(id="prompt")

    def on_interrupt_answered(self, message: InterruptAnswered) -> None:
        self.seen.append(message)

    def on_interrupt_form_left(self, message: InterruptFormLeft) -> None:
        self.seen.append(message)
        self.query_one("#prompt").focus()

    def on_interrupt_form_closed(self, message: InterruptFormClosed) -> None:
        self.seen.append(message)

    def on_run_cancel_requested(self, message: RunCancelRequested) -> None:
        self.seen.append(message)

    def answers(self) -> list[Any]:
        return [m.value for m in self.seen if isinstance(m, InterruptAnswered)]


def shown(app: App[None]) -> str:
    """Every line of text and every button label the form draws."""
    form = app.query_one(InterruptForm)
    parts = [str(s.render()) for s in form.query(Static) if s.display]
    parts += [str(b.label) for b in form.query(Button)]
    return "\n".join(parts)


async def test_typing_an_answer_and_enter_posts_the_hosts_shape() -> None:
    item = captured("sqlite-host-clarification-answer.sse")
    app = FormHost(item)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert "What is your favorite color?" in shown(app)
        field = app.query_one(InterruptForm).query_one(Input)
        assert field.has_focus  # the form takes focus
        await pilot.press(*"blue", "enter")
        await pilot.pause()
        # The SQLite host's node.suspended {config}: answers keyed by question id.
        assert app.seen == [InterruptAnswered(item.id, {"answers": {"q1": "blue"}})]


async def test_an_empty_required_answer_is_refused_in_the_form() -> None:
    app = FormHost(captured("sqlite-host-clarification-answer.sse"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert app.answers() == []
        assert "needs an answer" in shown(app)


async def test_an_answer_outside_the_enum_is_refused_and_a_listed_one_is_sent() -> None:
    item = demo_clarify()
    app = FormHost(item)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        form = app.query_one(InterruptForm)
        colour, name = form.query(Input).results()
        # A choice question has its list, and only its list, as the control.
        assert not colour.display and form.query_one(OptionList).has_focus
        colour.value = "teal"  # what a host's stale default could put there
        name.focus()
        await pilot.press(*"Ann", "enter")
        await pilot.pause()
        assert app.answers() == []
        assert "takes one of: red, green, blue, purple" in shown(app)
        assert form.query_one(OptionList).has_focus
        await pilot.press("down", "enter")  # red, green
        await pilot.pause()
        assert app.answers() == [
            {"answers": [{"id": "colour", "answer": "green"}, {"id": "name", "answer": "Ann"}]}
        ]


async def test_a_choice_can_be_taken_from_its_list() -> None:
    app = FormHost(demo_clarify())
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        form = app.query_one(InterruptForm)
        assert form.query_one(OptionList).has_focus
        await pilot.press("down", "down", "enter")  # red, green, blue
        await pilot.pause()
        colour, name = form.query(Input).results()
        assert colour.value == "blue" and name.has_focus
        await pilot.press(*"Ann", "enter")
        await pilot.pause()
        assert app.answers()[0]["answers"][0] == {"id": "colour", "answer": "blue"}


async def test_approval_shows_title_and_keys_on_buttons_and_a_accepts() -> None:
    item = demo_approve()
    app = FormHost(item)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        text = shown(app)
        assert "Publish the release notes?" in text
        assert "Accept to publish, reject to stop, or refine." in text
        assert "Accept (a)" in text and "Reject (r)" in text and "Refine with feedback (f)" in text
        await pilot.press("a")
        await pilot.pause()
        [value] = app.answers()
        assert value["action"] == "accept"


async def test_r_rejects() -> None:
    app = FormHost(demo_approve())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        assert [v["action"] for v in app.answers()] == ["reject"]


async def test_f_opens_feedback_and_enter_sends_it_and_empty_feedback_is_refused() -> None:
    app = FormHost(demo_approve())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f")
        await pilot.pause()
        feedback = app.query_one(".form-feedback", Input)
        assert feedback.has_focus and feedback.display
        assert app.answers() == []
        await pilot.press("enter")  # no feedback: refused in the form
        await pilot.pause()
        assert app.answers() == [] and "refining needs feedback" in shown(app)
        await pilot.press(*"shorter, and a date", "enter")
        await pilot.pause()
        [value] = app.answers()
        assert value["action"] == "refine"
        assert value["refineFeedback"] == {"scope": "whole", "text": "shorter, and a date"}


async def test_an_action_the_host_does_not_offer_has_no_key() -> None:
    app = FormHost(captured("sqlite-host-approval-accept.sse"))  # accept / reject only
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert "Conformance approval" in shown(app)
        await pilot.press("f")
        await pilot.pause()
        assert app.answers() == []
        await pilot.press("a")
        await pilot.pause()
        assert [v["action"] for v in app.answers()] == ["accept"]


async def test_low_confidence_shows_reason_confidence_threshold_and_actions() -> None:
    app = FormHost(demo_low_confidence())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        text = shown(app)
        assert "low-confidence" in text and "agent:unsure" in text
        assert "confidence 0.40" in text and "threshold 0.70" in text
        assert "Accept (a)" in text and "Cancel run" not in text
        await pilot.press("a")
        await pilot.pause()
        assert [v["action"] for v in app.answers()] == ["accept"]


async def test_an_unanswerable_pause_says_why_and_offers_cancel() -> None:
    item = postgres_low_confidence()
    app = FormHost(item)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        text = shown(app)
        assert "confidence 0.40" in text and "threshold 0.70" in text
        assert "offers no interrupt to resolve" in text
        assert "Accept (a)" not in text
        await pilot.press("a")  # nothing to accept: no answer is made up
        await pilot.pause()
        assert app.answers() == []
        await pilot.click("Button")
        await pilot.pause()
        assert app.seen == [RunCancelRequested(item.id, "run-1")]


async def test_conversation_takes_one_line() -> None:
    item = folded(
        [
            ev(
                "interrupt.requested",
                {
                    "kind": "conversation.exchange",
                    "interruptId": "c1",
                    "key": "kc",
                    "data": {"prompt": "Your turn", "resumeSchema": {"type": "string"}},
                },
                node="chat",
            )
        ]
    )
    app = FormHost(item)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert "Your turn" in shown(app)
        await pilot.press(*"hello there", "enter")
        await pilot.pause()
        assert app.answers() == ["hello there"]


async def test_a_refused_answer_stays_open_for_a_retry() -> None:
    item = captured("sqlite-host-clarification-answer.sse")
    app = FormHost(item)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        form = app.query_one(InterruptForm)
        await pilot.press(*"blue", "enter")
        await pilot.pause()
        assert form.sending
        await pilot.press("enter")  # no second answer while the first is out
        await pilot.pause()
        assert len(app.answers()) == 1
        form.show_outcome("The host refused the answer: q1 is odd", retry=True, close=False)
        await pilot.pause()
        assert form.is_mounted and not form.sending
        assert "The host refused the answer: q1 is odd" in shown(app)
        await pilot.press("enter")  # the retry goes out
        await pilot.pause()
        assert len(app.answers()) == 2


async def test_a_closing_verdict_closes_the_form_with_its_message() -> None:
    item = captured("sqlite-host-clarification-answer.sse")
    app = FormHost(item)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        form = app.query_one(InterruptForm)
        await pilot.press(*"blue", "enter")
        await pilot.pause()
        form.show_outcome("This was answered elsewhere first.", retry=False, close=True)
        await pilot.pause()
        assert not app.query(InterruptForm)
        assert app.seen[-1] == InterruptFormClosed(item.id, "This was answered elsewhere first.")


async def test_sync_closes_a_form_answered_elsewhere() -> None:
    item = captured("sqlite-host-clarification-answer.sse")
    app = FormHost(item)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        form = app.query_one(InterruptForm)
        form.sync()  # still pending: stays
        await pilot.pause()
        assert form.is_mounted
        item.state, item.outcome = "answered", "answered elsewhere first"
        form.sync()
        await pilot.pause()
        assert not app.query(InterruptForm)
        assert isinstance(app.seen[-1], InterruptFormClosed)
        assert "answered elsewhere first" in (app.seen[-1].message or "")


async def test_esc_returns_to_the_prompt_and_the_form_stays() -> None:
    item = demo_approve()
    app = FormHost(item)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.seen == [InterruptFormLeft(item.id)]
        assert app.query_one("#prompt").has_focus
        assert app.query_one(InterruptForm).is_mounted
        await pilot.press("a")  # typed into the prompt: not an answer
        await pilot.pause()
        assert app.answers() == []


async def test_host_text_is_shown_literally() -> None:
    """A request read from a payload the boundary cleaned (`host_value`, as `normalize` does for
    the fold): the form draws it literally, markup and all, and cleans nothing again."""
    payload = {
        "kind": "approval",
        "interruptId": "i9",
        "key": "k9",
        "data": {
            "title": "[bold]Ship[/] now",
            "description": "evil\u202etxt.exe",
            "actions": ["accept"],
        },
    }
    request = read_request("interrupt.requested", host_value(payload), node_id="n", run_id="run-1")
    app = FormHost(Interrupt("i9", "warning", HostText("waiting"), request=request))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        text = shown(app)
        assert "[bold]Ship[/] now" in text  # not parsed as markup
        assert "\u202e" not in text and "<U+202E>" in text  # a reordering mark made visible
