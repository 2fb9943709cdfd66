"""The routes beyond runs: resolving interrupts (run-scoped and signed-token) and the
workflow and agent catalogs.

Paths here are relative to the version root (``/runs/…``, ``/interrupts/…``, ``/workflows``,
``/agents``), so the same table serves ``/v1/…`` and a bare-path major. `server.py` calls
`dispatch_public` before the Bearer check (a signed token is its own authorisation,
rest-endpoints.md §HITL) and `dispatch` after it.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from openwop_tui.demo_host import catalog, routes
from openwop_tui.demo_host.interrupts import Interrupt, ResolveError, read_token, resolve
from openwop_tui.demo_host.routes import HttpError
from openwop_tui.demo_host.wire import RUN_ID_SEGMENT

if TYPE_CHECKING:
    from openwop_tui.demo_host.runs import Run
    from openwop_tui.demo_host.server import DemoRequestHandler

_RUN_INTERRUPT = re.compile(rf"^/runs/{RUN_ID_SEGMENT}/interrupts/([^/]{{1,256}})$")
_TOKEN = re.compile(r"^/interrupts/([^/]{1,2048})$")
_WORKFLOWS = re.compile(r"^/workflows$")
_WORKFLOW = re.compile(r"^/workflows/([^/]{1,256})$")
_AGENTS = re.compile(r"^/agents$")
_AGENT = re.compile(r"^/agents/([^/]{1,256})$")


def _allow(method: str, *allowed: str) -> None:
    if method not in allowed:
        raise HttpError(
            405,
            "method_not_allowed",
            f"{method} is not allowed here",
            headers={"Allow": ", ".join(allowed)},
        )


def _refused(error: ResolveError) -> HttpError:
    return HttpError(error.status, error.code, error.message, error.details)


def _resume_value(body: bytes) -> Any:
    try:
        doc = json.loads(body) if body.strip() else None
    except (ValueError, UnicodeDecodeError):
        raise HttpError(400, "validation_error", "the body is not valid JSON") from None
    if not isinstance(doc, dict) or "resumeValue" not in doc:
        raise HttpError(
            400,
            "validation_error",
            'the body must be a JSON object {"resumeValue": …}',
            {"field": "resumeValue"},
        )
    return doc["resumeValue"]


def _idempotency_key(h: DemoRequestHandler) -> str | None:
    key = h.headers.get("Idempotency-Key")
    if key is not None and not 0 < len(key) <= 255:
        raise HttpError(400, "validation_error", "Idempotency-Key must be 1 to 255 characters")
    return key


def dispatch_public(h: DemoRequestHandler, method: str, path: str, body: bytes) -> bool:
    """``GET``/``POST /interrupts/{token}``; False when ``path`` is not that route.

    Args:
        h: The request's handler, which sends the answer.
        method: The request's HTTP method.
        path: The request's path, without the version prefix.
        body: The request's body.
    """
    match = _TOKEN.match(path)
    if match is None:
        return False
    _allow(method, "GET", "HEAD", "POST")
    run, interrupt = _by_token(h, unquote(match.group(1)))
    if method == "POST":
        value = _resume_value(body)
        try:
            reply = resolve(
                run,
                interrupt,
                value,
                via_token=True,
                idempotency_key=_idempotency_key(h),
            )
        except ResolveError as error:
            raise _refused(error) from None
        h.send_json(200, _bound(h, reply))
        return True
    with run.cond:
        if interrupt.state == "expired" or interrupt.past_deadline(via_token=True):
            raise HttpError(410, "interrupt_expired", "this interrupt's token has expired")
        if interrupt.state != "open" or run.terminal:
            raise HttpError(
                409,
                "interrupt_already_resolved",
                "this interrupt has already been answered or its run has ended",
            )
        inspection = interrupt.inspection()
    h.send_json(200, _bound(h, inspection))  # outside the lock: a slow reader must not stall
    return True


def _bound(h: DemoRequestHandler, body: dict[str, Any]) -> dict[str, Any]:
    """A reply naming its run as the request's major does (v2: ``demo/run_…``)."""
    return {**body, "runId": h.wire.run_id(body["runId"])} if "runId" in body else body


def _by_token(h: DemoRequestHandler, token: str) -> tuple[Run, Interrupt]:
    claims = read_token(token)
    run = h.host.store.get(str(claims.get("runId", ""))) if claims else None
    interrupt = None
    if run is not None and claims is not None:
        with run.cond:
            interrupt = run.interrupts.by_id.get(str(claims.get("interruptId", "")))
    if run is None or interrupt is None:
        # One answer for forged, malformed and unknown tokens: nothing to learn from it.
        raise HttpError(404, "interrupt_not_found", "unknown or invalid interrupt token")
    return run, interrupt


def dispatch(h: DemoRequestHandler, method: str, path: str, body: bytes) -> bool:
    """The authenticated routes of this module; False when ``path`` is none of them.

    Args:
        h: The request's handler, which sends the answer.
        method: The request's HTTP method.
        path: The request's path, without the version prefix.
        body: The request's body.
    """
    if match := _RUN_INTERRUPT.match(path):
        _allow(method, "POST")
        _resolve_run_scoped(h, match.group(1), unquote(match.group(2)), body)
    elif _WORKFLOWS.match(path):
        _allow(method, "GET", "HEAD")
        h.send_json(200, {"workflows": [catalog.summary(w) for w in h.host.store.workflows]})
    elif match := _WORKFLOW.match(path):
        _allow(method, "GET", "HEAD")
        workflow_id = unquote(match.group(1))
        if workflow_id not in h.host.store.workflows:
            raise HttpError(
                404, "workflow_not_found", f"no workflow '{workflow_id[:100]}' on this host"
            )
        h.send_json(200, catalog.definition(workflow_id))
    elif _AGENTS.match(path):
        _allow(method, "GET", "HEAD")
        h.send_json(200, {"agents": catalog.agents()})
    elif match := _AGENT.match(path):
        _allow(method, "GET", "HEAD")
        agent_id = unquote(match.group(1))
        entry = next((a for a in catalog.agents() if a["agentId"] == agent_id), None)
        if entry is None:
            raise HttpError(404, "agent_not_found", f"no agent '{agent_id[:100]}' on this host")
        h.send_json(200, entry)
    else:
        return False
    return True


def _resolve_run_scoped(h: DemoRequestHandler, run_id: str, node_id: str, body: bytes) -> None:
    """``POST /runs/{runId}/interrupts/{nodeId} {resumeValue}``.

    Args:
        h: The request's handler, which sends the answer.
        run_id: The run named in the path.
        node_id: The node named in the path, whose interrupt is resolved.
        body: The request's body, holding ``resumeValue``.
    """
    run = routes.run_named(h, run_id)
    with run.cond:
        interrupt = run.interrupts.by_node.get(node_id)
    if interrupt is None:
        raise HttpError(
            404,
            "interrupt_not_found",
            f"node '{node_id[:100]}' of run '{run_id}' has no interrupt",
        )
    value = _resume_value(body)
    try:
        reply = resolve(run, interrupt, value, idempotency_key=_idempotency_key(h))
    except ResolveError as error:
        raise _refused(error) from None
    h.send_json(200, _bound(h, reply))
