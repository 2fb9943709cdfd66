"""The form of a waiting run: answer a clarification, decide an approval, ratify a low-confidence
decision or take a conversation turn, without leaving the keyboard.

`InterruptForm` is given one `~openwop_tui.core.items.Interrupt` (the transcript item the fold made
for
it) and draws what its `~openwop_tui.protocol.interrupts.InterruptRequest` asks for:

* clarification: one control per question: a line for a free answer, checked with
  `Question.check` as it is entered (the reason shown under it), or, for a question with choices,
  only the list of them (Up/Down move, Enter takes one: its choices are the only answers it
  takes, so a text line beside it would be a second way to give the same answer). Enter on the
  last question, or on any once every other one is answered, submits;
* approval: title, description and one button per action the host offers, each with its key
  (``a`` accept, ``r`` reject, ``f`` refine: a feedback line opens, Enter sends it; ``R``
  rejects with a reason: the same line opens, Enter sends the rejection with it);
* low confidence: the reason, the agent, its confidence and the threshold, and the actions; when
  the host offers nothing to resolve (`InterruptRequest.answerable` false), the reason and a
  "Cancel run" button (`RunCancelRequested`);
* conversation and any other input: one line, Enter sends.

It never sends anything itself: it builds the resume value with
`~openwop_tui.protocol.interrupts.build_answer` (an `AnswerError` is shown in the form and
nothing is posted) and posts `InterruptAnswered`. Checks run in a thread, off the event loop: a
host's ``pattern`` is matched in linear time and bounded (`openwop_tui.protocol.patterns`), and
even so a keypress never waits behind one. A pattern that cannot be checked here says so under
its line (the host checks it); the app sends it and reports the host's verdict
with `show_outcome`. Esc posts `InterruptFormLeft` (the app focuses the prompt; the form stays).
A form that closes (answered, elsewhere, expired) removes itself and posts `InterruptFormClosed`.
Everything the host wrote was cleaned where it entered (`normalize`) and is shown literally.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.button import ButtonVariant
from textual.widgets.option_list import Option

from openwop_tui.core.items import Interrupt
from openwop_tui.protocol.interrupt_answers import AnswerError, build_answer
from openwop_tui.protocol.interrupts import (
    ACTION_KEYS,
    ACTION_LABELS,
    InterruptRequest,
    Question,
)
from openwop_tui.protocol.resume_schema import pattern_notes
from openwop_tui.text.sanitize import clean_label, clean_own
from openwop_tui.ui.messages import (
    InterruptAnswered,
    InterruptFormClosed,
    InterruptFormLeft,
    RunCancelRequested,
)

_VARIANTS: dict[str, ButtonVariant] = {"accept": "success", "reject": "error"}

#: The button name of "Cancel run" (never an action name: those come from the host).
CANCEL = "\x00cancel"


def _line(text: str, limit: int = 2_000) -> str:
    """Clean text for one form line, whitespace folded, bounded: the request's fields (cleaned
    by `normalize`: `read_request` reads the event's payload) or the form's own notes
    (cleaned by `_say`)."""
    folded = " ".join(text.split())
    return folded if len(folded) <= limit else folded[: limit - 1] + "…"


def action_label(action: str) -> str:
    """The button text for ``action``: its label and, for the known ones, its key."""
    key = ACTION_KEYS.get(action)
    label = ACTION_LABELS.get(action) or clean_label(action)
    return f"{label} ({key})" if key else label


@dataclass(slots=True)
class _Field:
    """One question's control and the note under it. For a question with choices the control is
    its list; ``input`` then holds the choice taken and is never shown."""

    question: Question
    input: Input
    note: Static
    options: OptionList | None = None


class InterruptForm(Vertical):
    """The form for one waiting interrupt; see the module docstring."""

    DEFAULT_CSS = """
    InterruptForm {
        height: auto; max-height: 24; overflow-y: auto;
        margin: 0 1; padding: 0 1;
        border: round $warning; background: $panel;
    }
    InterruptForm:focus-within { border: round $accent; }
    InterruptForm .form-title { text-style: bold; }
    InterruptForm .form-text { color: $text; }
    InterruptForm .form-muted { color: $text-muted; }
    InterruptForm .form-field-note { color: $error; height: auto; }
    InterruptForm .form-field-note.-empty { display: none; }
    InterruptForm .form-field-note.-note { color: $text-muted; }
    InterruptForm .form-note { height: auto; }
    InterruptForm .form-note.-error { color: $error; }
    InterruptForm .form-note.-empty { display: none; }
    InterruptForm OptionList { height: auto; max-height: 8; }
    InterruptForm Input { margin: 0; }
    InterruptForm .form-buttons { height: auto; }
    InterruptForm .form-buttons Button { margin-right: 1; }
    InterruptForm .form-feedback { display: none; }
    InterruptForm .form-feedback.-open { display: block; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "leave", "Back to the prompt", tooltip="back to the input"),
        *(
            Binding(
                key,
                f"choose({action!r})",
                ACTION_LABELS[action],
                show=False,
                tooltip=f"on an approval: {ACTION_LABELS[action].lower()}",
            )
            for action, key in ACTION_KEYS.items()
        ),
        Binding(
            "R",
            "reject_with_reason",
            "Reject with a reason",
            show=False,
            tooltip="on an approval: reject, and say why",
        ),
    ]

    def __init__(self, interrupt: Interrupt, *, id: str | None = None) -> None:
        super().__init__(id=id)
        if interrupt.request is None:
            raise ValueError("an Interrupt without a request has no form")
        self.interrupt = interrupt
        self.request: InterruptRequest = interrupt.request
        self._fields: list[_Field] = []
        self._text: Input | None = None
        self._feedback: Input | None = None
        self._feedback_for = "refine"
        """What Enter on the feedback line sends: ``refine``, or ``reject`` with a reason."""
        self._note = Static("", classes="form-note -empty", markup=False)
        self._sending = False
        self._done = False

    @property
    def item_id(self) -> str:
        """The id of the transcript item this form answers."""
        return self.interrupt.id

    @property
    def closing(self) -> bool:
        """The form closed (answered, elsewhere, expired) and is being removed."""
        return self._done

    @property
    def sending(self) -> bool:
        """An answer was posted and its verdict (`show_outcome`) has not come yet."""
        return self._sending

    # ----------------------------------------------------------------- drawing

    def compose(self) -> ComposeResult:
        request = self.request
        where = f" at node {clean_label(request.node_id)}" if request.node_id else ""
        kind = request.kind
        if kind == "clarification":
            yield self._title(request.title or f"The run asks{where}")
            if request.description:
                yield self._text_line(request.description)
            yield from self._questions()
        elif kind == "approval":
            yield self._title(request.title or f"The run waits for approval{where}")
            if request.description:
                yield self._text_line(request.description)
            yield from self._decision()
        elif kind == "low-confidence":
            yield self._title(f"The run paused for low confidence{where}")
            yield from self._confidence()
            if request.answerable:
                yield from self._decision()
            else:
                yield self._text_line(request.unanswerable_reason or "", muted=True)
                with Horizontal(classes="form-buttons"):
                    yield Button(Text("Cancel run"), name=CANCEL, variant="error")
        else:
            yield from self._single_line(where)
        yield self._note
        yield Static(self._hint(), classes="form-muted", markup=False)

    def _title(self, text: str) -> Static:
        return Static(Text(_line(text, 200)), classes="form-title", markup=False)

    def _text_line(self, text: str, *, muted: bool = False) -> Static:
        classes = "form-muted" if muted else "form-text"
        return Static(Text(_line(text)), classes=classes, markup=False)

    def _questions(self) -> ComposeResult:
        if not self.request.questions:
            yield self._text_line("This question came without anything to answer.", muted=True)
        for question in self.request.questions:
            text = question.text or question.id
            optional = "" if question.required else " (optional)"
            yield Static(Text(_line(text) + optional), classes="form-text", markup=False)
            choices = [clean_label(c.label) for c in question.choices]
            placeholder = "one of: " + ", ".join(choices) if choices else "your answer"
            field = _Field(
                question,
                Input(placeholder=_line(placeholder, 200)),
                Static("", classes="form-field-note -empty", markup=False),
            )
            if choices:
                field.input.display = False  # the answer's holder; the list is the control
                field.options = OptionList(*(Option(Text(c)) for c in choices))
                yield field.options
            yield field.input
            yield field.note
            self._fields.append(field)

    def _decision(self) -> ComposeResult:
        actions = self.request.offered_actions
        with Horizontal(classes="form-buttons"):
            for action in actions:
                variant = _VARIANTS.get(action, "default")
                yield Button(Text(action_label(action)), name=action, variant=variant)
        if "refine" in actions or "reject" in actions:
            self._feedback = Input(
                placeholder="what to change — Enter sends, Esc leaves", classes="form-feedback"
            )
            yield self._feedback

    def _confidence(self) -> ComposeResult:
        request = self.request
        if request.reason:
            yield self._text_line(f"Reason: {request.reason}")
        if request.agent_id:
            yield self._text_line(f"Agent: {request.agent_id}")
        figures = []
        if request.confidence is not None:
            figures.append(f"confidence {request.confidence:.2f}")
        if request.threshold is not None:
            figures.append(f"threshold {request.threshold:.2f}")
        if figures:
            yield self._text_line(" · ".join(figures))
        if request.decision is not None:
            try:
                decision = json.dumps(request.decision, ensure_ascii=False, default=str)
            except (TypeError, ValueError, RecursionError):
                decision = repr(request.decision)
            yield self._text_line(f"Decision: {_line(decision, 300)}", muted=True)

    def _single_line(self, where: str) -> ComposeResult:
        request = self.request
        if request.kind == "conversation":
            yield self._title(request.title or f"The conversation waits for your turn{where}")
        else:
            what = request.host_kind or request.reason or "input"
            yield self._title(request.title or f"The run waits for {what}{where}")
        for text in (request.description, request.prompt):
            if text:
                yield self._text_line(text)
        placeholder = "your turn" if request.kind == "conversation" else "a value (JSON or text)"
        self._text = Input(placeholder=placeholder)
        yield self._text

    def _hint(self) -> str:
        request = self.request
        if request.kind == "clarification":
            if any(question.choices for question in request.questions):
                return "↑ ↓ choose · Enter takes it · Esc back to the prompt"
            return "Enter submits · Esc back to the prompt"
        if request.kind in ("approval", "low-confidence") and request.offered_actions:
            keys = [f"{ACTION_KEYS[a]} {a}" for a in request.offered_actions if a in ACTION_KEYS]
            if "reject" in request.offered_actions:
                keys.append("R reject with a reason")
            return " · ".join([*keys, "Esc back to the prompt"])
        if request.kind == "low-confidence":
            return "Esc back to the prompt"
        return "Enter sends · Esc back to the prompt"

    def on_mount(self) -> None:
        if self.interrupt.settled:
            self.sync()
            return
        self.focus_first()

    def focus_first(self) -> None:
        """Focus the first thing to answer (a line, else a button)."""
        for widget in self.query("Input, OptionList, Button").results():
            if widget.display and widget.focusable:
                widget.focus()
                return

    def _say(self, text: str | None, *, error: bool = False) -> None:
        self._note.set_class(not text, "-empty")
        self._note.set_class(error, "-error")
        # The form's own notes, around what the user typed and the host's patterns.
        self._note.update(Text(_line(clean_own(text or ""))))

    @staticmethod
    def _field_say(field: _Field, text: str | None, *, note: bool = False) -> None:
        field.note.set_class(not text, "-empty")
        field.note.set_class(note, "-note")
        field.note.update(Text(_line(clean_own(text or ""))))  # the form's own notes

    # ----------------------------------------------------------------- answering

    async def _check(self, field: _Field) -> bool:
        """Check one question's line (in a thread), showing why it does not fit under it, or
        that the host's pattern for it is not checked here."""
        try:
            notes = await asyncio.to_thread(_checked, field.question, field.input.value)
        except AnswerError as error:
            self._field_say(field, str(error))
            return False
        self._field_say(field, "; ".join(notes) or None, note=True)
        return True

    @staticmethod
    def _focus(field: _Field) -> None:
        """Focus a question's control: its list when it has choices, else its line."""
        if field.options is not None:
            field.options.focus()
            if field.options.highlighted is None:
                field.options.highlighted = 0
        else:
            field.input.focus()

    async def _entered(self, field: _Field) -> None:
        """Enter on a question's line: check it; then go to the next line that still needs an
        answer, or submit when none does."""
        if not await self._check(field):
            self._focus(field)
            return
        for other in self._fields:
            if other is field:
                continue
            if not other.input.value.strip():
                if other.question.required:
                    self._focus(other)
                    return
                continue
            if not await self._check(other):
                self._focus(other)
                return
        answers = {f.question.id: f.input.value for f in self._fields if f.input.value.strip()}
        await self._submit(answers=answers)

    async def _submit(self, **given: Any) -> None:
        """Build the resume value (in a thread) and post it; an answer that does not fit is
        shown instead."""
        if self._sending or self._done:
            return
        self._sending = True  # a second Enter while this one is checked is not a second answer
        try:
            value = await asyncio.to_thread(
                build_answer, self.request, now=datetime.now(UTC), **given
            )
        except AnswerError as error:
            self._sending = False
            self._say(str(error), error=True)
            return
        if self._done:
            return
        self.add_class("-sending")
        self._say("Sending…")
        self.post_message(InterruptAnswered(self.item_id, value))

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input is self._feedback:
            if self._feedback_for == "reject" and not event.value.strip():
                self._say("Type why you reject it, then Enter (r rejects without a reason).")
                return
            await self._submit(action=self._feedback_for, feedback=event.value)
        elif event.input is self._text:
            await self._submit(text=event.value)
        else:
            field = next((f for f in self._fields if f.input is event.input), None)
            if field is not None:
                await self._entered(field)

    async def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """A choice taken from a question's list: it becomes that line's answer."""
        event.stop()
        field = next((f for f in self._fields if f.options is event.option_list), None)
        if field is None:
            return
        field.input.value = field.question.choices[event.option_index].label
        await self._entered(field)

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        name = event.button.name
        if name == CANCEL:
            self.post_message(RunCancelRequested(self.item_id, self.request.run_id))
        elif name is not None:
            await self.action_choose(name)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The action keys work only for actions this interrupt offers."""
        if action == "choose":
            return bool(parameters) and parameters[0] in self.request.offered_actions
        if action == "reject_with_reason":
            return "reject" in self.request.offered_actions and self._feedback is not None
        return True

    async def action_choose(self, action: str) -> None:
        """A decision: ``refine`` opens the feedback line first; the others are sent."""
        if action == "refine" and self._feedback is not None:
            self._open_feedback("refine", "what to change", "Type what to change, then Enter.")
            return
        await self._submit(action=action)

    def action_reject_with_reason(self) -> None:
        """Open the feedback line for a rejection: Enter sends ``reject`` with the reason."""
        self._open_feedback("reject", "why you reject it", "Type why you reject it, then Enter.")

    def _open_feedback(self, action: str, what: str, note: str) -> None:
        if self._feedback is None:
            return
        self._feedback_for = action
        self._feedback.placeholder = f"{what} — Enter sends, Esc leaves"
        self._feedback.add_class("-open")
        self._feedback.focus()
        self._say(note)

    def action_leave(self) -> None:
        self.post_message(InterruptFormLeft(self.item_id))

    # ----------------------------------------------------------------- the verdict

    def show_outcome(self, message: str, *, retry: bool, close: bool) -> None:
        """The host's verdict on the answer posted last (`openwop_tui.core.hitl.Submitted`): a
        closing one (answered, elsewhere, expired, nothing to resolve) closes the form with
        ``message``; otherwise ``message`` is shown and the form takes input again, focused on
        what to fix when ``retry``."""
        self._sending = False
        self.remove_class("-sending")
        if close:
            self.close(message)
            return
        self._say(message, error=True)
        if retry:
            self.focus_first()

    def sync(self) -> None:
        """Call when the fold updated this form's item: a settled interrupt (answered
        elsewhere, expired, the run ended) closes the form, saying what became of it."""
        if self.interrupt.settled and not self._done:
            outcome = self.interrupt.outcome or self.interrupt.state
            # The outcome may be the user's own answer (`describe_value`).
            self.close(f"The question is closed: {clean_own(outcome)}.")

    def close(self, message: str | None = None) -> None:
        """Remove the form and post `InterruptFormClosed` (once)."""
        if self._done:
            return
        self._done = True
        self.display = False
        self.post_message(InterruptFormClosed(self.item_id, message))
        self.remove()


def _checked(question: Question, text: str) -> list[str]:
    """`Question.check` of ``text`` (raises `AnswerError`), then the notes on the host patterns
    of this question that cannot be checked here. Run in a thread."""
    question.check(text)
    return pattern_notes(question.schema, "this answer") if text.strip() else []
