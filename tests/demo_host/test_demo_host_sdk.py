"""The official OpenWOP Python SDK reads the demo host without error: ``openwop-client`` 2.x
(v2-only, in the dev extras) against a dual-stack host, and 1.x (v1) against a v1 host; its
``runs_pause`` and ``runs_resume`` work on both.

The two majors of the SDK are both the ``openwop_client`` package, so 1.x runs in its own venv
(``tools/sdk-venv``, which ``.ci/run`` calls) through ``tests/sdk/probe_v1.py`` as a
subprocess. Under CI a missing venv fails the test rather than skipping it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from openwop_client import OpenwopClient
from openwop_client.errors import WopError
from openwop_client.types import CreateRunRequest, PauseRunRequest, ResolveInterruptRequest
from paths import TESTS

from openwop_tui.demo_host import DemoHost

ROOT = TESTS.parent
SDK1_PYTHON = ROOT / ".venv-sdk1" / "bin" / "python"
PROBE = TESTS / "sdk" / "probe_v1.py"


@pytest.fixture(scope="module")
def sdk() -> Iterator[OpenwopClient]:
    with DemoHost(pace=0, keepalive=0, protocol=2) as host:
        yield OpenwopClient(host.url, host.api_key, timeout=60)


def test_sdk2_reads_discovery_and_openapi(sdk: OpenwopClient) -> None:
    caps = sdk.discovery_capabilities()  # KeyError: 'witness' before every record was complete
    assert "2.0" in caps.protocolVersions and caps.preferredVersion == "1.0"
    assert {"limits", "runList", "supportedEnvelopes", "agents"} <= set(caps.families)
    assert caps.families["limits"].facets["maxRequestBodyBytes"] == 1024 * 1024
    assert sdk.discovery_openapi()["openapi"].startswith("3.1")


def test_sdk2_runs_streams_snapshots_and_lists(sdk: OpenwopClient) -> None:
    body = CreateRunRequest(
        workflowId="demo.chat", inputs={"messages": [{"role": "user", "content": "a card"}]}
    )
    created = sdk.runs_create(body)
    assert created.runId.startswith("demo/")
    events = list(sdk.runs_events(created.runId, stream_mode=["updates", "messages"]))
    types = [event.type for event in events]
    assert types[0] == "run.started" and types[-1] == "run.completed"
    assert "node.started" in types and "output.chunk" in types
    assert [e.sequence for e in events] == sorted({e.sequence for e in events})
    snapshot = sdk.runs_get(created.runId)
    assert snapshot.status == "completed" and snapshot.owner.tenant == "demo"
    polled = sdk.runs_poll_events(created.runId, after_sequence=events[-3].sequence)
    assert polled.isTerminal and [e.sequence for e in polled.events][-1] == events[-1].sequence

    listed = sdk.runs_list(limit=1)
    assert listed is not None and listed.runs[0].runId == created.runId
    assert listed.next_cursor is None or isinstance(listed.next_cursor, str)
    completed = sdk.runs_list(status="completed", workflow_id="demo.chat")
    assert completed is not None and created.runId in [r.runId for r in completed.runs]
    with pytest.raises(WopError) as refused:
        sdk.runs_list(cursor="forged")
    assert refused.value.status == 400


def test_sdk2_answers_a_question(sdk: OpenwopClient) -> None:
    created = sdk.runs_create(CreateRunRequest(workflowId="demo.approve"))
    answered = None
    for event in sdk.runs_events(created.runId):
        if event.type == "interrupt.requested":
            value = ResolveInterruptRequest(resumeValue={"action": "accept"})
            answered = sdk.interrupts_resolve_by_run(created.runId, event.payload["nodeId"], value)
    assert answered is not None and answered.runId == created.runId
    assert sdk.runs_get(created.runId).status == "completed"


def test_sdk2_pauses_and_resumes_a_run(sdk: OpenwopClient) -> None:
    created = sdk.runs_create(CreateRunRequest(workflowId="demo.approve"))
    seen = []
    for event in sdk.runs_events(created.runId):
        seen.append(event.type)
        if event.type == "interrupt.requested":
            node = event.payload["nodeId"]
            paused = sdk.runs_pause(created.runId, PauseRunRequest(reason="a look first"))
            assert paused.status == "paused" and paused.runId == created.runId
            assert sdk.runs_get(created.runId).status == "paused"
            with pytest.raises(WopError) as refused:
                sdk.runs_pause(created.runId)
            assert refused.value.status == 409
            resumed = sdk.runs_resume(created.runId)
            assert resumed.status == "running" and resumed.resumedAt
            value = ResolveInterruptRequest(resumeValue={"action": "accept"})
            sdk.interrupts_resolve_by_run(created.runId, node, value)
    assert seen.index("run.paused") < seen.index("run.resumed") < seen.index("run.completed")
    assert sdk.runs_get(created.runId).status == "completed"


def _sdk1_python() -> Path:
    if SDK1_PYTHON.exists():
        return SDK1_PYTHON
    message = f"{SDK1_PYTHON.relative_to(ROOT)} is missing: run tools/sdk-venv"
    if os.environ.get("CI") == "true":
        pytest.fail(message + " (.ci/run does)")
    pytest.skip(message)


def test_sdk1_reads_a_v1_host() -> None:
    python = _sdk1_python()
    with DemoHost(pace=0, keepalive=0) as host:
        done = subprocess.run(
            [str(python), str(PROBE), host.url, host.api_key],
            capture_output=True,
            text=True,
            check=False,
            env={"PATH": os.environ.get("PATH", ""), "PYTHONNOUSERSITE": "1"},
            cwd=PROBE.parent,
            timeout=300,  # a bound against a hang, not a synchronisation
        )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["sdk"].startswith("1.")
    assert result["protocolVersion"] == "1.0" and result["maxRequestBodyBytes"] == 1024 * 1024
    assert result["openapi"].startswith("3.1")
    types = result["types"]
    assert types[0] == "run.started" and types[-1] == "run.completed"
    assert result["status"] == "completed"
    assert result["polled"] == list(range(len(types) - 2, len(types))) and result["pollComplete"]
    assert result["resolved"] == "running" and result["approved"] == "completed"
    assert result["paused"] == ["paused", "paused", "running", "waiting-approval"]
    assert {"run.paused", "run.resumed"} <= set(result["approveTypes"])
    assert result["listed"] == result["runIds"][::-1]
    assert sys.executable != str(python)  # the probe ran in its own interpreter
