"""``POST …/runs/{runId}:pause`` and ``:resume`` (runs.md §Pause and resume; v1
rest-endpoints.md ``:pause``/``:resume``): the routes; the run's side is `Run.pause` and
`Run.resume` in `openwop_tui.demo_host.runs`.

Both answer ``202``: pause ``{runId, status: "paused", pausedAt}`` (the pause takes effect at
the running node's end, ``drain-current-node``, or at once between nodes and while the run
waits for an answer), resume ``{runId, status: "running", resumedAt}``. A pause of a paused or
ended run, and a resume of a run that is not paused, are ``409``: ``run_terminal`` when the run
has ended, else ``run_state_conflict``, with ``details.runStatus``. A retried request with the
same ``Idempotency-Key`` and body gets its first answer again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from openwop_tui.demo_host.routes import HttpError, Request, json_body, run_named
from openwop_tui.demo_host.runs import DRAIN_POLICY, Run, RunConflict

if TYPE_CHECKING:
    from openwop_tui.demo_host.server import DemoRequestHandler

#: Longest ``reason`` kept on ``run.paused`` / ``run.resumed`` (as cancel keeps its reason).
MAX_REASON = 500


def pause(h: DemoRequestHandler, req: Request) -> None:
    """``POST …/runs/{runId}:pause {reason?, drainPolicy?}``."""
    doc = json_body(req, required=False)
    policy = doc.get("drainPolicy", DRAIN_POLICY)
    if policy != DRAIN_POLICY:
        raise HttpError(
            400,
            "validation_error",
            f"this host pauses a run when its running node ends: drainPolicy {DRAIN_POLICY!r}"
            + ("" if policy == "immediate" else f", not {str(policy)[:40]!r}"),
            {"field": "drainPolicy", "supported": [DRAIN_POLICY]},
        )
    _answer(
        h,
        req,
        doc,
        "pause",
        lambda run, reason: {"status": "paused", "pausedAt": run.pause(reason)},
    )


def resume(h: DemoRequestHandler, req: Request) -> None:
    """``POST …/runs/{runId}:resume {reason?}``."""
    doc = json_body(req, required=False)
    _answer(
        h,
        req,
        doc,
        "resume",
        lambda run, reason: {"status": "running", "resumedAt": run.resume(reason)},
    )


def _answer(
    h: DemoRequestHandler,
    req: Request,
    doc: dict[str, Any],
    op: str,
    act: Callable[[Run, str | None], dict[str, Any]],
) -> None:
    """Carry out a pause or resume once, and answer it; a repeat with the same ``Idempotency-Key``
    gets the first answer.

    Args:
        h: The request's handler, which sends the answer.
        req: The request, naming the run.
        doc: The request's JSON body; its ``reason`` is passed on.
        op: ``pause`` or ``resume``, keeping the replies of each apart.
        act: Changes the run, given it and the reason, and returns the answer's body.
    """
    run = run_named(h, req.run_id or "")
    reason = doc.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise HttpError(400, "validation_error", "'reason' must be a string", {"field": "reason"})
    key = h.headers.get("Idempotency-Key")
    if key is not None and not 0 < len(key) <= 255:
        raise HttpError(400, "validation_error", "Idempotency-Key must be 1 to 255 characters")
    fingerprint = hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()
    with run.cond:  # the replay check and the change as one step
        seen = run.replies.get(f"{op}:{key}") if key is not None else None
        if seen is not None:
            if seen[0] != fingerprint:
                raise HttpError(
                    409,
                    "idempotency_key_mismatch",
                    "this Idempotency-Key was already used with a different body",
                )
            body = seen[1]
        else:
            try:
                body = {"runId": run.run_id, **act(run, reason[:MAX_REASON] if reason else None)}
            except RunConflict as conflict:
                raise _conflict(op, conflict) from None
            if key is not None:
                run.replies[f"{op}:{key}"] = (fingerprint, body)
    h.send_json(202, {**body, "runId": h.wire.run_id(body["runId"])})


def _conflict(op: str, conflict: RunConflict) -> HttpError:
    details: dict[str, Any] = {"runStatus": conflict.status}
    if conflict.paused_at is not None:
        details["pausedAt"] = conflict.paused_at
    if conflict.terminal:
        return HttpError(409, "run_terminal", f"the run is already {conflict.status}", details)
    if op == "pause":
        message = "the run is already paused"
    else:
        message = f"the run is {conflict.status}, not paused: there is nothing to resume"
    return HttpError(409, "run_state_conflict", message, details)
