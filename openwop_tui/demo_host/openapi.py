"""``GET /openapi.json`` (and ``/v1/openapi.json``): an OpenAPI 3.1 description of the routes
this host serves, public like discovery (rest-endpoints.md §Headers: no Bearer key on
discovery and openapi), as the reference hosts and the SDK's ``discovery_openapi`` expect.

Built from one table of operations, so the description names exactly what `server` and
`extra_routes` route: the v1 paths under ``/v1``, and on a dual-stack host (``--protocol 2``)
the same operations on the bare paths, where ``OpenWOP-Version: 2`` selects v2. The media
upload is a host route outside both (`uploads`), listed once at its own path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from openwop_tui.demo_host.discovery import host_version
from openwop_tui.demo_host.mediatypes import UPLOAD_ROUTE

if TYPE_CHECKING:
    from openwop_tui.demo_host.server import DemoRequestHandler

#: (method, path under the version root, operationId, summary, needs the Bearer key).
OPERATIONS: tuple[tuple[str, str, str, str, bool], ...] = (
    ("post", "/runs", "createRun", "Start a run", True),
    ("get", "/runs", "listRuns", "List runs, newest first (filters: workflowId, status)", True),
    ("get", "/runs/{runId}", "getRun", "A run's snapshot", True),
    ("get", "/runs/{runId}/events", "streamRunEvents", "A run's events (SSE, or JSON)", True),
    ("get", "/runs/{runId}/events/poll", "pollRunEvents", "Long-poll for a run's events", True),
    ("post", "/runs/{runId}/cancel", "cancelRun", "Cancel a run", True),
    ("post", "/runs/{runId}:pause", "pauseRun", "Pause a run at its next node boundary", True),
    ("post", "/runs/{runId}:resume", "resumeRun", "Resume a paused run", True),
    ("post", "/runs/{runId}/interrupts/{nodeId}", "resolveInterrupt", "Answer a question", True),
    ("get", "/interrupts/{token}", "inspectInterruptByToken", "Inspect by signed token", False),
    ("post", "/interrupts/{token}", "resolveInterruptByToken", "Answer by signed token", False),
    ("get", "/workflows", "listWorkflows", "The workflows this host runs", True),
    ("get", "/workflows/{workflowId}", "getWorkflow", "One workflow's definition", True),
    ("get", "/agents", "listAgents", "The agent inventory", True),
    ("get", "/agents/{agentId}", "getAgent", "One agent", True),
)

_ERROR = {
    "type": "object",
    "required": ["error", "message"],
    "properties": {
        "error": {"type": "string"},
        "message": {"type": "string"},
        "details": {"type": "object"},
    },
    "additionalProperties": False,
}


def _operation(prefix: str, op_id: str, summary: str, keyed: bool) -> dict[str, Any]:
    """One operation of the OpenAPI document.

    Args:
        prefix: The path prefix it is served under: ``/v1``, or empty for v2 (whose ids carry no
            ``V1``).
        op_id: The operation's id.
        summary: Its one-line summary.
        keyed: True when it needs the API key; False when it is open (the signed token is its own
            authorisation).
    """
    operation: dict[str, Any] = {
        "operationId": f"{op_id}V1" if prefix else op_id,
        "summary": summary,
        "responses": {
            "200": {"description": "OK"},
            "default": {
                "description": "The error envelope",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
            },
        },
    }
    if not keyed:
        operation["security"] = []  # the signed token is its own authorisation
    return operation


def document(protocol: int) -> dict[str, Any]:
    """The description of a host started with ``protocol`` (1: v1 only; 2: v1 and v2)."""
    prefixes = ["/v1"] + ([""] if protocol == 2 else [])
    paths: dict[str, dict[str, Any]] = {
        "/.well-known/openwop": {
            "get": {
                "operationId": "getDiscovery",
                "summary": "The discovery document",
                "security": [],
                "responses": {"200": {"description": "OK"}},
            }
        }
    }
    for prefix in prefixes:
        for method, path, op_id, summary, keyed in OPERATIONS:
            entry = paths.setdefault(prefix + path, {})
            entry[method] = _operation(prefix, op_id, summary, keyed)
    upload = _operation("", "uploadMedia", "Upload an attachment too big to go inline", True)
    upload["responses"] = {"201": {"description": "Stored"}, **upload["responses"]}
    del upload["responses"]["200"]
    paths[UPLOAD_ROUTE] = {"post": upload}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "openwop-tui demo host",
            "version": host_version(),
            "description": "The OpenWOP host embedded in openwop-tui, on loopback.",
        },
        "security": [{"bearer": []}],
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {"Error": _ERROR},
        },
        "paths": paths,
    }


def serve(h: DemoRequestHandler, path: str) -> None:
    """Answer ``GET /openapi.json`` (both majors this host serves) or ``/v1/openapi.json``."""
    body = document(1 if path.startswith("/v1/") else h.host.protocol)
    h.send_json(200, body, {"Cache-Control": "public, max-age=300"})
