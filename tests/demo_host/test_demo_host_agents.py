"""``GET /v1/agents`` tells the truth about what each agent reads: the demo assistant
(``demo.chat``, which reads pictures and sound) lists nothing degraded, the text-only one
(``demo.text``) lists ``vision-input`` and ``audio-input``; every workflow's
``modelCapabilities`` and its agent's ``degraded`` agree. Real loopback HTTP, v1 and v2; the
v2 discovery root stays valid against the conformance schema, and the official SDK reads the
list."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from conformance_schemas import discovery_v2_problems
from openwop_client import OpenwopClient
from patience import PATIENCE

from openwop_tui.demo_host import DemoHost

MEDIA_INPUT = ["vision-input", "audio-input"]


@pytest.fixture(scope="module")
def host() -> Iterator[DemoHost]:
    with DemoHost(pace=0, keepalive=0, protocol=2) as demo:
        yield demo


@pytest.fixture(scope="module")
def http(host: DemoHost) -> Iterator[httpx.Client]:
    headers = {"Authorization": f"Bearer {host.api_key}"}
    with httpx.Client(base_url=host.url, headers=headers, timeout=PATIENCE) as client:
        yield client


def _agents(http: httpx.Client) -> dict[str, dict[str, Any]]:
    listed = http.get("/v1/agents")
    assert listed.status_code == 200, listed.text
    return {a["agentId"]: a for a in listed.json()["agents"]}


def test_the_demo_assistant_reads_pictures_and_sound(http: httpx.Client) -> None:
    demo = _agents(http)["agent:demo"]
    assert "degraded" not in demo, demo
    one = http.get("/v1/agents/agent:demo").json()
    assert one["label"] == "Demo assistant" and "degraded" not in one


def test_the_text_only_agent_says_it_cannot(http: httpx.Client) -> None:
    text = _agents(http)["agent:demo-text"]
    assert text["degraded"] == MEDIA_INPUT
    assert text["label"] == "Text-only assistant" and text["modelClass"] == "chat"
    definition = http.get("/v1/workflows/demo.text").json()
    assert definition["agent"] == {"agentId": "agent:demo-text"}
    assert [n["agent"]["agentId"] for n in definition["nodes"]] == ["agent:demo-text"]


def test_each_workflows_capabilities_and_its_agents_degraded_agree(http: httpx.Client) -> None:
    agents = _agents(http)
    workflows = http.get("/v1/workflows").json()["workflows"]
    named = [w for w in workflows if "agent" in w]
    assert {w["id"] for w in named} >= {"demo.chat", "demo.text"}
    for workflow in named:
        agent = agents[workflow["agent"]["agentId"]]  # every agent a workflow names is listed
        advertised = set(workflow["modelCapabilities"]["advertised"])
        assert not advertised & set(agent.get("degraded", [])), (workflow["id"], agent)
        # A chat workflow whose model reads no media has an agent that says so.
        if "chat" in workflow["metadata"]["tags"] and not advertised & set(MEDIA_INPUT):
            assert set(MEDIA_INPUT) <= set(agent.get("degraded", [])), workflow["id"]


def test_the_v2_discovery_root_and_the_sdk_read_the_agents(host: DemoHost) -> None:
    doc = httpx.get(f"{host.url}/.well-known/openwop", headers={"OpenWOP-Version": "2"}).json()
    assert discovery_v2_problems(doc) == []
    assert doc["agents"]["modelClasses"] == ["chat", "reasoning"]
    sdk = OpenwopClient(host.url, host.api_key, timeout=PATIENCE)
    entries = {a.agentId: a for a in sdk.agents_list() or []}
    assert entries["agent:demo"].degraded is None
    assert entries["agent:demo-text"].degraded == MEDIA_INPUT
    for entry in entries.values():
        assert entry.persona and entry.label and entry.modelClass and entry.packName
        assert isinstance(entry.toolAllowlist, list) and isinstance(entry.hasHandoffSchemas, bool)
