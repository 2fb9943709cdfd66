"""``GET /runs`` (v2) and ``GET /v1/runs``: the caller's runs, newest first, a page at a time.

The v2 shape (spec/v2/core/runs.md §List, RFC 0182; gated on the ``runList`` family, which
discovery advertises): ``?limit=&cursor=&workflowId=&status=`` → ``{runs: [RunSnapshot],
nextCursor?}``. v1 has no list route in the spec; this host serves the same one under
``/v1`` so a v1 client can list too, with v1 ids and snapshots.

A cursor is opaque and minted here: the position after which the next page starts, with an
HMAC so a cursor this host did not mint is ``400 validation_error`` (as the SDK expects), never
a silent restart. Runs are only ever added, so a page boundary stays put while runs are
created: new runs appear on the first page, never twice.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import TYPE_CHECKING, Any

from openwop_tui.demo_host.discovery import MAX_RUN_PAGE
from openwop_tui.demo_host.routes import HttpError, Request, snapshot_body

if TYPE_CHECKING:
    from openwop_tui.demo_host.server import DemoRequestHandler

#: Page size when the request names none.
DEFAULT_PAGE = 50

#: The run statuses a filter may name (RunSnapshot.status).
STATUSES = (
    "pending",
    "running",
    "paused",
    "waiting-approval",
    "waiting-input",
    "waiting-external",
    "completed",
    "failed",
    "cancelling",
    "cancelled",
)


def _mac(key: bytes, position: int) -> str:
    digest = hmac.new(key, str(position).encode(), hashlib.sha256).digest()[:12]
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def mint_cursor(key: bytes, position: int) -> str:
    """The cursor for "runs created before the ``position``-th one"."""
    return f"{position}.{_mac(key, position)}"


def read_cursor(key: bytes, cursor: str) -> int:
    """The position a cursor this host minted names; 400 for any other string."""
    position, dot, mac = cursor.partition(".")
    valid = dot and position.isdigit() and len(position) < 12
    if valid and hmac.compare_digest(mac.encode(), _mac(key, int(position)).encode()):
        return int(position)
    raise HttpError(
        400,
        "validation_error",
        "'cursor' is not one this host handed out; start again without it",
        {"field": "cursor"},
    )


def _one(req: Request, name: str) -> str | None:
    values = req.query.get(name)
    if not values:
        return None
    if len(values) > 1:
        raise HttpError(400, "validation_error", f"give '{name}' once", {"field": name})
    return values[0]


def _limit(req: Request) -> int:
    raw = _one(req, "limit")
    if raw is None or not raw.strip():
        return DEFAULT_PAGE
    if not raw.strip().isdigit() or not 1 <= int(raw) <= MAX_RUN_PAGE:
        raise HttpError(
            400,
            "validation_error",
            f"'limit' must be a whole number from 1 to {MAX_RUN_PAGE}",
            {"field": "limit", "maximum": MAX_RUN_PAGE},
        )
    return int(raw)


def _statuses(req: Request) -> set[str] | None:
    raw = _one(req, "status")
    if raw is None or not raw.strip():
        return None
    wanted = {part.strip() for part in raw.split(",") if part.strip()}
    unknown = sorted(wanted - set(STATUSES))
    if unknown:
        raise HttpError(
            400,
            "validation_error",
            f"unknown run status {', '.join(map(repr, unknown))}",
            {"field": "status", "allowed": list(STATUSES)},
        )
    return wanted


def list_runs(h: DemoRequestHandler, req: Request) -> None:
    """``GET …/runs``: one page of runs, newest first, filtered by status and workflow id."""
    key = h.host.store.list_key
    limit = _limit(req)
    statuses = _statuses(req)
    workflow = _one(req, "workflowId")
    cursor = _one(req, "cursor")
    runs = h.host.store.all_runs()  # oldest first; position i is the i-th run created
    end = read_cursor(key, cursor) if cursor else len(runs)
    page: list[dict[str, Any]] = []
    position = min(end, len(runs))
    while position > 0 and len(page) < limit:
        position -= 1
        run = runs[position]
        if workflow and run.workflow_id != workflow:
            continue
        if statuses is not None and run.status not in statuses:
            continue
        page.append(snapshot_body(h, run))
    body: dict[str, Any] = {"runs": page}
    if position > 0 and len(page) == limit:
        body["nextCursor"] = mint_cursor(key, position)
    h.send_json(200, body)
