"""Drive a demo host with the official OpenWOP Python SDK 1.x (``openwop-client<2``), the v1
SDK, and print what it read as one JSON object.

Run by ``tests/demo_host/test_demo_host_sdk.py`` as a subprocess in the venv ``tools/sdk-venv``
makes (the 1.x and 2.x SDKs share the ``openwop_client`` name, so they cannot share a venv).
Usage: ``probe_v1.py BASE_URL API_KEY``. Standard library and the SDK only: this file must not
import openwop_tui. Any SDK error escapes as a traceback and a non-zero exit, which fails the test.
"""

from __future__ import annotations

import json
import sys
from importlib import metadata

from openwop_client import OpenwopClient
from openwop_client.types import CreateRunRequest, ResolveInterruptRequest


def main(base_url: str, api_key: str) -> None:
    client = OpenwopClient(base_url, api_key)
    caps = client.discovery_capabilities()
    openapi = client.discovery_openapi()
    chat = CreateRunRequest(
        workflowId="demo.chat", inputs={"messages": [{"role": "user", "content": "code"}]}
    )
    created = client.runs_create(chat)
    events = list(client.runs_events(created.runId, stream_mode="debug"))
    snapshot = client.runs_get(created.runId)
    polled = client.runs_poll_events(created.runId, last_sequence=len(events) - 3)
    approve = client.runs_create(CreateRunRequest(workflowId="demo.approve"))
    resolved = None
    paused: list[str] = []
    approve_types = []
    for event in client.runs_events(approve.runId):
        approve_types.append(event.type)
        if event.type == "interrupt.requested":
            # Paused while it waits, then resumed: each answer's status and the run's.
            paused.append(client.runs_pause(approve.runId).status)
            paused.append(client.runs_get(approve.runId).status)
            paused.append(client.runs_resume(approve.runId).status)
            paused.append(client.runs_get(approve.runId).status)
            answer = ResolveInterruptRequest(resumeValue={"action": "accept"})
            resolved = client.interrupts_resolve_by_run(
                approve.runId, event.payload["nodeId"], answer
            )
    # 1.x has no list method; GET /v1/runs through the SDK's own request path (auth, errors).
    listed = client._request_json("GET", "/v1/runs?limit=10")
    result = {
        "sdk": metadata.version("openwop-client"),
        "protocolVersion": caps.protocolVersion,
        "maxRequestBodyBytes": caps.limits.maxRequestBodyBytes,
        "openapi": openapi.get("openapi"),
        "types": [event.type for event in events],
        "status": snapshot.status,
        "polled": [event.sequence for event in polled.events],
        "pollComplete": polled.isComplete,
        "resolved": resolved.status if resolved else None,
        "approved": client.runs_get(approve.runId).status,
        "paused": paused,
        "approveTypes": approve_types,
        "listed": [run["runId"] for run in listed["runs"]],
        "runIds": [created.runId, approve.runId],
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
