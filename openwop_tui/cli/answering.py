"""Answering a run's questions from the command line (``run`` and ``attach``).

When a followed run asks (a pending `openwop_tui.core.fold.Interrupt`), an `Asker` answers it:

* from the flags, when they fit (``--answer ID=VALUE`` for a clarification, ``--approve`` /
  ``--reject`` / ``--feedback TEXT`` for a decision; each set of flags answers one interrupt,
  so a run that asks again after a refine is not answered in a loop). Flags that cannot
  answer what the run asks (``--approve`` on a question, refine on an approval that offers
  none, an unknown question id, any answer to a pause with nothing to resolve) are the
  user's mistake: the reason and how to answer are printed, nothing is sent, and `refused`
  is set (the command exits 2 at once; the run waits at the host);
* else, on a terminal (stdin and stdout both ttys), at a prompt: one question at a time,
  choices listed and checked, Enter for the schema's default, ``[a]ccept / [r]eject /
  re[f]ine`` for a decision; a refused answer (400) is asked again;
* else it prints the question and exactly how to answer it (these flags on ``attach``, or the
  run-scoped and signed-token routes with curl) and the run is left to wait: it may be
  answered from anywhere, and an interrupt answered elsewhere is reported.

One line says what was sent and what the host made of it; each refusal (400, 404, 409, 410)
gets the sentence of `openwop_tui.core.hitl`. Answers go through `Conversation.answer`, the path
the app uses too. The prompt reads stdin without blocking the event loop, so the run's events
keep printing and a prompt whose question was answered elsewhere is withdrawn.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from rich.console import Console
from rich.text import Text

from openwop_tui.core.conversation import Conversation
from openwop_tui.core.fold import Added, Interrupt, Updated
from openwop_tui.core.updates import Answered, Update
from openwop_tui.protocol.errors import HostError
from openwop_tui.protocol.interrupt_answers import (
    AnswerError,
    build_answer,
    unchecked_patterns,
)
from openwop_tui.protocol.interrupts import (
    ACTION_KEYS,
    ACTION_LABELS,
    InterruptRequest,
    Question,
    describe_value,
)
from openwop_tui.text.sanitize import HostLine, clean_own, one_line

#: The decisions a prompt offers (the rest need an edited artifact or a conversation).
PROMPT_ACTIONS = ("accept", "reject", "refine")


class FlagError(ValueError):
    """An ``--answer`` that is not ``ID=VALUE`` (or a lone ``VALUE``)."""


@dataclass(slots=True)
class AnswerFlags:
    """``--answer ID=VALUE`` (repeatable), ``--approve`` / ``--reject``, ``--feedback TEXT``."""

    answers: dict[str, str] = field(default_factory=dict)
    action: str | None = None
    feedback: str | None = None

    @classmethod
    def parse(
        cls,
        answers: Sequence[str] | None,
        *,
        approve: bool = False,
        reject: bool = False,
        feedback: str | None = None,
    ) -> AnswerFlags:
        """The flags as given; raises `FlagError` for an ``--answer`` without an id where one is
        needed (two lone values) or an empty id.

        Args:
            answers: The ``--answer`` values, ``ID=VALUE`` or a lone ``VALUE`` (the answer to a
                one-question clarification); None when there were none.
            approve: True for ``--approve`` (the ``accept`` action).
            reject: True for ``--reject``; ``--approve`` wins when both are given.
            feedback: The ``--feedback`` text; None when not given.
        """
        parsed: dict[str, str] = {}
        for raw in answers or ():
            key, sep, value = raw.partition("=")
            if not sep:
                key, value = "", raw  # a lone VALUE: the answer to a one-question clarification
            elif not key.strip():
                raise FlagError(f"--answer {raw!r} names no question: use --answer ID=VALUE")
            if key in parsed:
                what = f"question {key!r}" if key else "the question"
                raise FlagError(f"--answer gives {what} twice")
            parsed[key.strip()] = value
        action = "accept" if approve else "reject" if reject else None
        return cls(parsed, action, feedback)

    @property
    def given(self) -> bool:
        """Whether any flag is still unused."""
        return bool(self.answers) or self.action is not None or self.feedback is not None


class LineReader:
    """Lines typed at the terminal, read without blocking the event loop (and cancellable, so
    a prompt can be withdrawn when its question was answered elsewhere)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._buffer = b""
        self._eof = False

    async def readline(self) -> str | None:
        """The next line without its line end; ``None`` at the end of input."""
        while b"\n" not in self._buffer and not self._eof:
            chunk = await self._read()
            if not chunk:
                self._eof = True
            self._buffer += chunk
        if not self._buffer and self._eof:
            return None
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", errors="replace").rstrip("\r")

    async def _read(self) -> bytes:
        loop = asyncio.get_running_loop()
        try:
            fd = self._stream.fileno()
        except (OSError, ValueError, AttributeError):
            return (await asyncio.to_thread(self._stream.readline)).encode()
        ready: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            if not ready.done():
                ready.set_result(None)

        try:
            loop.add_reader(fd, wake)
        except (NotImplementedError, RuntimeError, ValueError, OSError):
            # No readers on this loop (Windows): a thread, which a withdrawn prompt leaves
            # blocked until the next Enter.
            return await asyncio.to_thread(os.read, fd, 4096)
        try:
            await ready
        finally:
            loop.remove_reader(fd)
        return os.read(fd, 4096)


@dataclass(frozen=True, slots=True)
class HowTo:
    """What the "how to answer it" text needs to know about where the run lives."""

    host: str
    """The host's base URL as shown (no credentials, no trailing ``/v1``)."""
    interrupt_url: Callable[[str, str], str]
    """The run-scoped route for (run id, node id)."""
    token_url: Callable[[str], str]
    """The signed-token route for a token."""
    keyed: bool
    """Whether the host needs the API key (so the commands name ``$OPENWOP_API_KEY``)."""


class Asker:
    """Answers the interrupts of the run a command follows; see the module docstring."""

    def __init__(
        self,
        conversation: Conversation,
        flags: AnswerFlags,
        console: Console,
        *,
        interactive: bool,
        howto: HowTo,
        reader: LineReader | None = None,
        err: TextIO | None = None,
        on_refused: Callable[[], object] | None = None,
    ) -> None:
        """Answer the interrupts of ``conversation``'s run from ``flags``, a prompt, or not at all.

        Args:
            conversation: The conversation following the run; answers go through
                `Conversation.answer`.
            flags: The answer flags the command was given.
            console: Where questions and prompts are printed.
            interactive: True when stdin and stdout are both terminals, so questions are asked at a
                prompt.
            howto: Where the run lives, for the "how to answer it" text.
            reader: Reads the typed lines; None reads stdin.
            err: Where notes and refusals are written; None for stderr.
            on_refused: Called once when the flags cannot answer the run's question (`refused` says
                why): the command stops following and exits 2. None calls nothing.
        """
        self.conversation = conversation
        self.flags = flags
        self.console = console
        self.interactive = interactive
        self.howto = howto
        self.reader = reader or LineReader(sys.stdin)
        self._err = err
        self._tasks: dict[str, asyncio.Task[None]] = {}
        """The task answering each pending interrupt, by item id."""
        self._turn = asyncio.Lock()
        """One prompt at a time: two questions never share the terminal."""
        self._sending: set[str] = set()
        """Interrupts whose answer is on its way: the host's events may settle them first."""
        self.refused: str | None = None
        """Why the flags could not answer the run's question, once they could not."""
        self._on_refused = on_refused

    # ------------------------------------------------------------------ events

    async def handle(self, update: Update) -> None:
        """Take one update of the followed run: answer what it asks, report what closed.

        A new question is taken up in a task of its own, so the events after it (the same
        interrupt told again, with its schema and token) are folded in first and the run's
        stream keeps flowing while a person types."""
        await self.landed()
        if isinstance(update, Added) and isinstance(update.item, Interrupt):
            item = update.item
            if item.state == "pending" and item.request is not None:
                self._tasks[item.id] = asyncio.ensure_future(self._answer(item))
        elif isinstance(update, Updated) and isinstance(update.item, Interrupt):
            item = update.item
            if item.settled and item.id not in self._sending:
                task = self._tasks.pop(item.id, None)
                if task is not None:
                    task.cancel()
                if item.answered_by != "you":
                    self._say(f"• {item.text}", "dim")  # the fold's, cleaned

    async def landed(self) -> None:
        """Wait for the answers on their way to the host. The command calls this before it
        prints the next update, so the line saying what was sent comes before the host's
        events about it, and a run that ends on the answer (a rejection) still gets it."""
        while sending := [self._tasks[i] for i in self._sending if i in self._tasks]:
            await asyncio.wait(sending)

    async def close(self) -> None:
        """Let the answers on their way land, then withdraw every open prompt (the run
        ended, or the command is stopping)."""
        await self.landed()
        tasks = list(self._tasks.values())
        self._tasks.clear()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    # --------------------------------------------------------------- answering

    async def _answer(self, item: Interrupt) -> None:
        try:
            await asyncio.sleep(0)  # let the events already received fill the request in
            request = item.request
            if request is None or item.state != "pending":
                return
            if not request.answerable:
                reason = f"{request.unanswerable_reason}; the run is left waiting"
                if self.flags.given:
                    self._refuse(f"the answer flags cannot apply: {reason}", None)
                else:
                    self._error(reason)
                return
            if self.flags.given:
                value = self._from_flags(request)
                if self.refused is not None:
                    return  # the flags do not fit: the command stops
                submitted = (await self._send(item, value)).submitted
                if submitted.outcome == "answered" or submitted.closes_form:
                    return
            if self.interactive:
                await self._prompt(item, request)
            else:
                self._explain(request)
        finally:
            if self._tasks.get(item.id) is asyncio.current_task():
                del self._tasks[item.id]

    def _from_flags(self, request: InterruptRequest) -> Any:
        """The answer the unused flags give for ``request`` (and mark them used); when they do
        not fit, `refused` is set (after saying why) and ``None`` returned."""
        flags = self.flags
        parts: dict[str, Any]
        if request.kind == "clarification":
            parts = (
                {"answers": flags.answers}
                if flags.answers
                else {"action": flags.action, "feedback": flags.feedback}
            )
        elif request.kind in ("approval", "low-confidence"):
            decided = flags.action is not None or flags.feedback is not None
            parts = (
                {"action": flags.action, "feedback": flags.feedback}
                if decided
                else {"answers": flags.answers}
            )
        else:
            parts = {"answers": flags.answers, "feedback": flags.feedback}
        try:
            value = build_answer(request, **parts)
        except AnswerError as error:
            self._refuse(str(error), request)
            return None
        for note in unchecked_patterns(request):
            self._error(f"note: {note}")
        # Used once: a run that asks again (after a refine) is asked, not answered in a loop.
        flags.answers = {} if "answers" in parts else flags.answers
        flags.action = None if "action" in parts else flags.action
        flags.feedback = None if "feedback" in parts else flags.feedback
        return value

    async def _send(self, item: Interrupt, value: Any) -> Answered:
        self._sending.add(item.id)
        try:
            answered = await self.conversation.answer(item, value)
        finally:
            self._sending.discard(item.id)
        submitted = answered.submitted
        where = f" at node {item.request.node_id}" if item.request and item.request.node_id else ""
        # What the user answered, and the client's sentence about the host's answer.
        sent = clean_own(describe_value(submitted.value if submitted.value is not None else value))
        if submitted.outcome == "answered":
            self._say(f"✓ answered{where}: {sent} · the host accepted it", "green")
        else:
            self._error(f"sent {sent}{where}. {clean_own(submitted.message)}")
        return answered

    # ------------------------------------------------------------------ prompt

    async def _prompt(self, item: Interrupt, request: InterruptRequest) -> None:
        async with self._turn:
            while item.state == "pending":
                value = await self._ask(request)
                if value is None:  # end of input: nobody is there to ask
                    self._explain(request)
                    return
                submitted = (await self._send(item, value)).submitted
                if submitted.closes_form or not submitted.retry:
                    return

    async def _line(self, prompt: str) -> str | None:
        # A question's text is the host's: one line, so it cannot print a line of the client's.
        self.console.print(Text(one_line(clean_own(prompt)), style="bold"), end="")
        self.console.file.flush()
        return await self.reader.readline()

    async def _ask(self, request: InterruptRequest) -> Any | None:
        """One answer typed at the prompt, checked; ``None`` at the end of input."""
        self._say(self._heading(request), "bold yellow")
        while True:
            try:
                if request.kind == "clarification":
                    texts = await self._ask_questions(request.questions)
                    return None if texts is None else build_answer(request, answers=texts)
                if request.kind in ("approval", "low-confidence"):
                    return await self._ask_decision(request)
                line = await self._line("  your answer > ")
                return None if line is None else build_answer(request, text=line)
            except AnswerError as error:
                self._error(str(error))

    def _heading(self, request: InterruptRequest) -> str:
        # The request's fields were cleaned by `normalize` (`read_request` reads the payload).
        where = f" at node {request.node_id}" if request.node_id else ""
        if request.kind == "clarification":
            return f"? the run asks{where}:"
        if request.kind in ("approval", "low-confidence"):
            title = request.title or (
                "low confidence" if request.kind == "low-confidence" else "approval"
            )
            parts = [f"? {title}{where}"]
            if request.description:
                parts.append(request.description)
            if request.confidence is not None and request.threshold is not None:
                parts.append(f"confidence {request.confidence:g} below {request.threshold:g}")
            return " · ".join(parts)
        what = request.prompt or request.title or "the run waits for input"
        return f"? {what}{where}"

    async def _ask_questions(self, questions: Sequence[Question]) -> dict[str, str] | None:
        texts: dict[str, str] = {}
        for question in questions:
            default = (question.schema or {}).get("default")
            # The question's fields and schema are the payload's, cleaned by `normalize`.
            hint = " / ".join(c.label for c in question.choices)
            prompt = f"  {question.id}: {question.text or 'answer'}"
            if hint:
                prompt += f" ({hint})"
            if default is not None:
                prompt += f" [Enter: {default}]"
            while True:
                line = await self._line(prompt + " > ")
                if line is None:
                    return None
                if not line.strip() and default is not None:
                    line = str(default)
                try:
                    question.check(line)
                except AnswerError as error:
                    self._error(str(error))
                    continue
                texts[question.id] = line
                break
        return texts

    async def _ask_decision(self, request: InterruptRequest) -> Any | None:
        offered = [a for a in request.offered_actions if a in PROMPT_ACTIONS] or ["accept"]
        keys = {ACTION_KEYS[a]: a for a in offered}
        menu = " / ".join(_keyed_label(a) for a in offered)
        while True:
            line = await self._line(f"  {menu} > ")
            if line is None:
                return None
            typed = line.strip().casefold()
            action = keys.get(typed) or next(
                (a for a in offered if typed in (a, ACTION_LABELS[a].casefold())), None
            )
            if action is None:
                self._error(f"type one of: {', '.join(keys)}")
                continue
            feedback: str | None = None
            if action == "refine":
                feedback = await self._line("  what should change? > ")
                if feedback is None:
                    return None
            elif action == "reject":
                feedback = await self._line("  why? (Enter to give no reason) > ")
                if feedback is None:
                    return None
            return build_answer(request, action=action, feedback=(feedback or "").strip() or None)

    # ------------------------------------------------------------------ how-to

    def _refuse(self, reason: str, request: InterruptRequest | None) -> None:
        """The flags cannot answer ``request``: say why (and how to answer it), send nothing,
        and stop the command."""
        if self.refused is not None:
            return
        self.refused = reason
        self._error(reason)
        if request is not None:
            self._explain(request, waiting=False)
        if self._on_refused is not None:
            self._on_refused()

    def _explain(self, request: InterruptRequest, *, waiting: bool = True) -> None:
        """Print the question and exactly how to answer it, for a reader who cannot be asked
        (``waiting``: the command goes on waiting for the answer, else it stops here)."""
        run_id = request.run_id or self.conversation.run_id or "RUN_ID"
        lines = [f"run {run_id} waits for an answer. " + self._heading(request)]
        for question in request.questions:
            line = f"  {question.id}: {question.text}" if question.text else f"  {question.id}"
            if question.choices:
                line += f" (one of: {', '.join(c.label for c in question.choices)})"
            lines.append(line)
        flags = _flags_for(request)
        key = ' --api-key "$OPENWOP_API_KEY"' if self.howto.keyed else ""
        host = shlex.quote(self.howto.host)
        lines.append("To answer it, run:")
        lines.append(f"  openwop-tui attach {shlex.quote(run_id)} --host {host}{key} {flags}")
        body = shlex.quote(json.dumps({"resumeValue": _example(request)}, ensure_ascii=False))
        auth = " -H 'Authorization: Bearer '\"$OPENWOP_API_KEY\"" if self.howto.keyed else ""
        json_header = " -H 'Content-Type: application/json'"
        if run_id != "RUN_ID" and request.node_id:
            with contextlib.suppress(HostError):  # an id no URL can hold: no curl line
                url = shlex.quote(self.howto.interrupt_url(run_id, request.node_id))
                lines.append("or post the answer (change the values):")
                lines.append(f"  curl -X POST {url}{auth}{json_header} -d {body}")
        if request.token:
            with contextlib.suppress(HostError):
                url = shlex.quote(self.howto.token_url(request.token))
                lines.append("or with its signed token (no key needed):")
                lines.append(f"  curl -X POST {url}{json_header} -d {body}")
        lines.append(
            "Waiting for the answer; it may come from anywhere."
            if waiting
            else "Nothing was sent; the run waits at the host for an answer from anywhere."
        )
        stream = self._err or sys.stderr
        # One block, the first line marked as the program's: the rest is to be copied.
        print(
            # The client's own lines around the request's values and the user's host URL.
            # Each line one line: a request's value holding a newline shows it as ␊.
            "\n".join(["openwop-tui: " + _one(lines[0]), *map(_one, lines[1:])]),
            file=stream,
            flush=True,
        )

    # ------------------------------------------------------------------ output

    def _say(self, line: str, style: str) -> None:
        # A line of the client's around the request's (cleaned) values: kept one line, so a
        # newline in a title or an answer's message cannot print a line of its own.
        self.console.print(Text(_one(line), style=style), soft_wrap=True)
        self.console.file.flush()

    def _error(self, line: str) -> None:
        stream = self._err or sys.stderr
        print(f"openwop-tui: {_one(line)}", file=stream, flush=True)


def _one(line: str) -> HostLine:
    """One line the prompt prints: the client's words around cleaned values, one line."""
    return one_line(clean_own(line))


def _keyed_label(action: str) -> str:
    """``[a]ccept``, ``[r]eject``, ``re[f]ine``: the key marked where it falls in the word."""
    key = ACTION_KEYS[action]
    at = action.find(key)
    if at < 0:
        return f"[{key}] {action}"
    return f"{action[:at]}[{key}]{action[at + 1 :]}"


def _flags_for(request: InterruptRequest) -> str:
    """The ``attach`` flags that answer ``request`` (with placeholders)."""
    if request.kind == "clarification":
        return " ".join(f"--answer {shlex.quote(q.id)}=VALUE" for q in request.questions)
    if request.kind in ("approval", "low-confidence"):
        return "--approve | --reject [--feedback WHY] | --feedback 'WHAT TO CHANGE'"
    return "--answer VALUE"


def _example(request: InterruptRequest) -> Any:
    """A resume value of the right shape for the how-to's curl line (placeholders filled with
    the first choice, or ``VALUE``), built as the client would send it when that is possible."""
    try:
        if request.kind == "clarification":
            texts = {
                q.id: str(q.choices[0].value) if q.choices else "VALUE" for q in request.questions
            }
            return build_answer(request, answers=texts)
        if request.kind in ("approval", "low-confidence"):
            return build_answer(request, action="accept")
        return build_answer(request, text="VALUE")
    except AnswerError:
        return "VALUE"
