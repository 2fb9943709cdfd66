"""Sending an answer to a waiting run, and what the host's reply means for the form.

`submit` posts a resume value along the interrupt's routes (run-scoped first, the signed-token
route when the run-scoped one is refused for want of a key or scope, or when it is the only
one) and turns the host's answer into a `Submitted`: whether it landed, the state the form
should take, a sentence to show, and whether trying again makes sense (protocol.md §5 C,
interrupt.md §"Error responses"):

* ``400``/``422 validation_error``: the answer was refused; the form stays open to fix it. A
  clarification sent in one shape is retried once in the other (hosts differ: the SQLite host
  takes ``{"answers": {"q1": …}}``, the spec ``{"answers": [{"id": "q1", "answer": …}]}``);
* ``404``: nothing to resolve there any more (answered, or never resolvable: the Postgres
  host's low-confidence pause);
* ``409``: answered elsewhere first (or the run was cancelled before the answer landed);
* ``410``: expired; ``422 interrupt_cancelled``: the run was cancelled while waiting;
* an id the client refuses to put in a URL (``invalid_id``: a dot segment, a ``/``): that
  sentence, and no retry (nothing was sent);
* anything else (429, 5xx, no connection): the host's own sentence, and a retry.

The transcript records the outcome: `openwop_tui.core.fold.Transcript.interrupt_answered` on
success, `~openwop_tui.core.fold.Transcript.interrupt_closed` for a form the host closed.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from openwop_tui.protocol.errors import HostError
from openwop_tui.protocol.interrupts import NO_INTERRUPT, InterruptRequest, Route

Outcome = Literal["answered", "invalid", "elsewhere", "expired", "closed", "failed"]


class Resolver(Protocol):
    """The two resolve calls of `openwop_tui.protocol.client.HostClient`."""

    async def resolve_interrupt(
        self,
        run_id: str,
        node_id: str,
        resume_value: Any,
        *,
        idempotency_key: str | None = None,
    ) -> dict[str, Any]:
        """Resolve the interrupt at ``node_id`` of ``run_id`` (the run-scoped route).

        Args:
            run_id: The waiting run.
            node_id: The node whose interrupt is answered.
            resume_value: The answer, as the interrupt's resume schema wants it.
            idempotency_key: Sent as ``Idempotency-Key`` so a retry is not answered twice; None
                for none.
        """

    async def resolve_interrupt_by_token(
        self, token: str, resume_value: Any, *, idempotency_key: str | None = None
    ) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class Submitted:
    """What became of an answer.

    ``outcome``: ``answered`` (the host took it), ``invalid`` (refused: fix and resend),
    ``elsewhere`` (resolved by someone else first), ``expired``, ``closed`` (nothing to resolve
    any more), ``failed`` (the request failed: ``retry`` says whether resending may work).
    ``message`` is a sentence to show; ``value`` the resume value that was sent last;
    ``response`` the host's reply on success.
    """

    outcome: Outcome
    message: str
    retry: bool = False
    value: Any = None
    route: Route | None = None
    status: int | None = None
    response: dict[str, Any] | None = None

    @property
    def closes_form(self) -> bool:
        """Whether the form is done with (answered here or elsewhere, expired, closed)."""
        return self.outcome in ("answered", "elsewhere", "expired", "closed")


def other_clarification_shape(value: Any) -> Any:
    """The same clarification answers in the other shape (object ↔ list), or ``None``."""
    if not isinstance(value, dict) or set(value) != {"answers"}:
        return None
    answers = value["answers"]
    if isinstance(answers, dict):
        return {"answers": [{"id": k, "answer": v} for k, v in answers.items()]}
    if isinstance(answers, list) and all(isinstance(a, dict) and "id" in a for a in answers):
        return {"answers": {str(a["id"]): a.get("answer") for a in answers}}
    return None


def _classify(error: HostError, request: InterruptRequest, value: Any, route: Route) -> Submitted:
    """What a refused answer means for the form, from the host's error.

    Args:
        error: The host's refusal.
        request: The interrupt that was answered; its node is named in the sentence.
        value: The resume value that was sent, kept on the result.
        route: The route it was sent along, kept on the result.
    """
    status, code = error.status, error.code or ""
    where = f" at node {request.node_id}" if request.node_id else ""

    def result(outcome: Outcome, message: str, retry: bool = False) -> Submitted:
        return Submitted(outcome, message, retry, value, route, status)

    if code == "invalid_id":
        return result("failed", error.message)
    if status in (400, 422) and code != "interrupt_cancelled":
        return result("invalid", f"The host refused the answer: {error.message}", retry=True)
    if status == 404:
        if not request.answerable:
            return result("closed", f"The host has nothing to resolve: {NO_INTERRUPT}.")
        return result("closed", f"The host has no open question{where} any more: {error.message}")
    if status == 409:
        if code == "run_no_longer_resumable":
            return result("closed", f"The run was cancelled before the answer landed{where}.")
        return result("elsewhere", f"This was answered elsewhere first{where}.")
    if status == 410:
        return result("expired", f"The question{where} expired before it was answered.")
    if code == "interrupt_cancelled":
        return result("closed", f"The run was cancelled while it waited{where}.")
    return result("failed", error.message, retry=error.status is None or error.status >= 429)


async def _post(client: Resolver, route: Route, value: Any, key: str) -> dict[str, Any]:
    """Send one resume value along one route: the signed-token route or the run-scoped one.

    Args:
        client: The host client that resolves.
        route: Where to send it; a ``token`` route needs its token, a run-scoped one its run and
            node ids.
        value: The resume value.
        key: The idempotency key, the same on every attempt of one answer.
    """
    if route.kind == "token":
        assert route.token is not None
        return await client.resolve_interrupt_by_token(route.token, value, idempotency_key=key)
    assert route.run_id is not None and route.node_id is not None
    return await client.resolve_interrupt(route.run_id, route.node_id, value, idempotency_key=key)


async def submit(client: Resolver, request: InterruptRequest, value: Any) -> Submitted:
    """Send ``value`` for ``request`` and say what became of it. Never raises `HostError`."""
    routes = request.routes()
    if not routes:
        return Submitted(
            "failed",
            "This question names neither its run and node nor a token: it cannot be answered "
            "from here.",
            value=value,
        )
    alternate = (
        other_clarification_shape(value)
        if request.kind == "clarification" and request.resume_schema is None
        else None
    )
    last: Submitted | None = None
    for index, route in enumerate(routes):
        attempts = [value] if alternate is None else [value, alternate]
        for attempt in attempts:
            # One key per answer sent: a retry of the same answer replays, a new shape is new.
            key = str(uuid.uuid4())
            try:
                response = await _post(client, route, attempt, key)
            except HostError as error:
                last = _classify(error, request, attempt, route)
                if last.outcome == "invalid" and attempt is not attempts[-1]:
                    continue  # the other clarification shape may be the one this host takes
                break
            return Submitted("answered", "Answer sent.", False, attempt, route, 200, response)
        assert last is not None
        more = index + 1 < len(routes)
        # The token route needs no key: worth trying when the run-scoped one was refused for
        # authentication or scope; every other answer is the host's last word.
        if not (more and last.status in (401, 403)):
            return last
    assert last is not None
    return last
