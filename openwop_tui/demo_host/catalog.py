"""What the demo host says about its workflows and agents: discovery ``fixtures``, the
conversation and interrupt capabilities, ``GET /v1/workflows[/{id}]`` and ``GET /v1/agents``.

The reference hosts list workflow ids in the discovery document's ``fixtures`` and serve each
definition at ``GET /v1/workflows/{workflowId}`` (``{id, name, version, description, nodes,
…}``, as the fixtures on disk are). No reference host lists workflows in one call, so
``GET /v1/workflows`` answers ``{workflows: [...]}`` with the same summary fields.
``GET /v1/agents`` follows RFC 0072 §A (``{agents: [AgentInventoryEntry]}``: ``agentId``,
``persona``, ``label``, ``modelClass``, ``degraded`` …), gated on
``agents.manifestRuntime`` in discovery as the SDK expects.

Each workflow also says what its "model" reads beyond text: ``modelCapabilities.advertised``
(RFC 0055 §A's vocabulary) on its summary and definition, so a client can tell ``demo.chat``
(pictures and voice) from ``demo.text`` (text only) before it attaches anything. Their agents
say the same from the other side: ``agent:demo`` lists nothing ``degraded``, ``demo.text``'s
``agent:demo-text`` lists ``vision-input`` and ``audio-input``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata
from typing import Any

#: The interrupt kinds this host can raise (interrupt.md §InterruptPayload).
INTERRUPT_KINDS = ("approval", "clarification", "low-confidence", "conversation.exchange")


@dataclass(frozen=True, slots=True)
class WorkflowInfo:
    """How a workflow presents itself: label, description, tags and its nodes."""

    name: str
    description: str
    tags: tuple[str, ...]
    nodes: tuple[tuple[str, str, str], ...]
    """(node id, typeId, name) for each node."""
    agent: str | None = None
    capabilities: tuple[str, ...] = ()
    """Its ``modelCapabilities.advertised``: what it reads beyond text (``vision-input``…)."""


_AI = "core.ai.callPrompt"

#: Workflow id → how it presents itself. Every workflow the host runs must be here (a test
#: checks), so the discovery document and the picker never miss one.
WORKFLOW_INFO: Mapping[str, WorkflowInfo] = {
    "demo.chat": WorkflowInfo(
        "Demo chat",
        "A pretend model that answers from keywords: try 'everything', 'ask' or 'approve'.",
        ("demo", "chat"),
        (("think", _AI, "Think"), ("reply", _AI, "Reply")),
        "agent:demo",
        ("vision-input", "audio-input"),
    ),
    "demo.text": WorkflowInfo(
        "Demo: text only",
        "A plain chat that reads text only: it says which attachments it could not read.",
        ("demo", "chat", "text"),
        (("reply", _AI, "Reply"),),
        "agent:demo-text",
    ),
    "demo.tour": WorkflowInfo(
        "Demo tour",
        "Every envelope family, then the media a careful client must refuse or degrade.",
        ("demo", "envelopes"),
        (("intro", _AI, "Introduction"),),
    ),
    "demo.clarify": WorkflowInfo(
        "Demo: clarification",
        "Asks two questions (a choice and free text), then replies using the answers.",
        ("demo", "hitl"),
        (("ask", "core.clarificationGate", "Clarification Gate"), ("reply", _AI, "Reply")),
    ),
    "demo.approve": WorkflowInfo(
        "Demo: approval",
        "A draft to accept (completes), reject (fails with your reason) or refine.",
        ("demo", "hitl"),
        (
            ("draft", _AI, "Draft"),
            ("review", "core.approvalGate", "Approval Gate"),
            ("publish", _AI, "Publish"),
        ),
    ),
    "demo.low-confidence": WorkflowInfo(
        "Demo: low-confidence decision",
        "An agent decides with confidence 0.4 below the 0.7 threshold and waits for you.",
        ("demo", "hitl", "low-confidence"),
        (("decider", "core.conformance.mock-agent", "Decider"),),
        "agent:local-unsure",
    ),
    "demo.conversation": WorkflowInfo(
        "Demo: conversation",
        "One run holds a conversation open; every message is a conversation turn.",
        ("demo", "conversation"),
        (("conversation", "core.conversationGate", "Conversation"),),
        "agent:demo",
    ),
    "demo.openclaw": WorkflowInfo(
        "Demo: OpenClaw directives",
        "A reply with OpenClaw's MEDIA:, voice, reply and embed directives, drawn as items.",
        ("demo", "openclaw"),
        (("agent", _AI, "Agent"),),
    ),
    "conformance-noop": WorkflowInfo(
        "Conformance: No-op",
        "One node that does nothing.",
        ("conformance",),
        (("noop", "core.noop", "No-op"),),
    ),
    "conformance-clarification": WorkflowInfo(
        "Conformance: Clarification",
        "Suspends on a clarification interrupt with one fixed question.",
        ("conformance", "hitl"),
        (("ask", "core.clarificationGate", "Clarification Gate"),),
    ),
    "conformance-approval": WorkflowInfo(
        "Conformance: Approval",
        "Suspends on an approval interrupt (accept or reject).",
        ("conformance", "hitl"),
        (("gate", "core.approvalGate", "Approval Gate"),),
    ),
    "conformance-agent-low-confidence": WorkflowInfo(
        "Conformance: Agent Low-Confidence Escalation",
        "An agent decides below the 0.7 threshold (confidence 0.5); the run waits for approval.",
        ("conformance", "multi-agent", "low-confidence"),
        (("low-conf-decider", "core.conformance.mock-agent", "Low-Confidence Decider"),),
        "core.conformance.low-conf-decider",
    ),
    "bench.events": WorkflowInfo(
        "Benchmark: event flood",
        "inputs.count small chunk events at once (default 20,000), for the ingest benchmark.",
        ("benchmark",),
        (("bench", "core.noop", "Bench"),),
    ),
    "bench.flood": WorkflowInfo(
        "Benchmark: fast host",
        "inputs.rate chunk events a second (default 10,000) for inputs.seconds (default 15).",
        ("benchmark",),
        (("bench", "core.noop", "Bench"),),
    ),
    "bench.big": WorkflowInfo(
        "Benchmark: big reply",
        "One reply of inputs.megabytes (default 15) of markdown, in 64 KB chunks.",
        ("benchmark",),
        (("bench", "core.noop", "Bench"),),
    ),
    "bench.answer": WorkflowInfo(
        "Benchmark: an answer",
        "A 2,200-token markdown answer in 1,100 chunks, at the host's pace.",
        ("benchmark",),
        (("bench", "core.noop", "Bench"),),
    ),
    "bench.rich": WorkflowInfo(
        "Benchmark: a rich answer",
        "A 2,200-token answer with headings, lists, a table and code in six languages.",
        ("benchmark",),
        (("bench", "core.noop", "Bench"),),
    ),
    "bench.code": WorkflowInfo(
        "Benchmark: a long code answer",
        "An answer that is mostly one 600-line Python code block, 100 chunks a second.",
        ("benchmark",),
        (("bench", "core.noop", "Bench"),),
    ),
    "bench.list": WorkflowInfo(
        "Benchmark: a long list answer",
        "An answer that is mostly one 100-item numbered list, 100 chunks a second.",
        ("benchmark",),
        (("bench", "core.noop", "Bench"),),
    ),
}


def for_people(workflow_ids: Iterable[str]) -> tuple[list[str], int]:
    """The workflows worth naming to a person (the demo and conformance ones), and how many
    others there are (the benchmarks' floods and big replies, tagged ``benchmark``: a newcomer
    who mistyped a workflow has no use for them)."""
    shown, hidden = [], 0
    for workflow_id in workflow_ids:
        info = WORKFLOW_INFO.get(workflow_id)
        if info is not None and "benchmark" in info.tags:
            hidden += 1
        else:
            shown.append(workflow_id)
    return shown, hidden


#: The agents ``GET /v1/agents`` lists (RFC 0072 §A `AgentInventoryEntry`).
AGENTS: tuple[dict[str, Any], ...] = (
    {
        "agentId": "agent:demo",
        "persona": "demo-assistant",
        "label": "Demo assistant",
        "modelClass": "chat",
        "description": "Answers from keywords and draws every kind of envelope.",
        "toolAllowlist": ["assets.prepare"],
        "hasHandoffSchemas": False,
        "confidenceThreshold": 0.7,
        # Nothing degraded: `demo.chat` reads pictures, documents and sound (describe.py).
    },
    {
        "agentId": "agent:demo-text",
        "persona": "text-only-assistant",
        "label": "Text-only assistant",
        "modelClass": "chat",
        "description": "Reads words only; names each attachment it could not read.",
        "toolAllowlist": [],
        "hasHandoffSchemas": False,
        "confidenceThreshold": 0.7,
        # The truth of `demo.text` (text_only.py): it never reads a part's bytes.
        "degraded": ["vision-input", "audio-input"],
    },
    {
        "agentId": "agent:local-unsure",
        "persona": "cautious-decider",
        "label": "Cautious decider",
        "modelClass": "reasoning",
        "description": "Decides with low confidence and asks a human to ratify.",
        "toolAllowlist": [],
        "hasHandoffSchemas": False,
        "confidenceThreshold": 0.7,
        "degraded": ["tool-calling"],
    },
    {
        "agentId": "core.conformance.low-conf-decider",
        "persona": "conformance-decider",
        "label": "Conformance low-confidence decider",
        "modelClass": "reasoning",
        "toolAllowlist": [],
        "hasHandoffSchemas": False,
        "confidenceThreshold": 0.7,
    },
)


def discovery_fields(workflows: Iterable[str]) -> dict[str, Any]:
    """The discovery document's ``fixtures``, ``conversationPrimitive`` and ``interrupts``,
    and the ``agents`` family (with ``manifestRuntime``: ``GET /v1/agents`` is served)."""
    return {
        "fixtures": list(workflows),
        "conversationPrimitive": True,
        "interrupts": {
            "kinds": list(INTERRUPT_KINDS),
            # The Postgres host's spelling of the same list, and its approval actions.
            "supportedKinds": list(INTERRUPT_KINDS),
            "approvalActions": ["accept", "reject", "refine"],
            "signedCallbackTokens": True,
        },
        "agents": {
            "reasoning": {"streaming": True},
            "manifestRuntime": True,
            "modelClasses": sorted({str(a["modelClass"]) for a in AGENTS}),
        },
    }


def summary(workflow_id: str) -> dict[str, Any]:
    """One workflow's entry in ``GET /v1/workflows``."""
    info = WORKFLOW_INFO.get(workflow_id) or WorkflowInfo(workflow_id, "", (), ())
    entry: dict[str, Any] = {
        "id": workflow_id,
        "workflowId": workflow_id,
        "name": info.name,
        "version": "1.0.0",
        "description": info.description,
        "metadata": {"tags": list(info.tags)},
        "modelCapabilities": {"advertised": list(info.capabilities)},
    }
    if info.agent is not None:
        entry["agent"] = {"agentId": info.agent}
    return entry


def definition(workflow_id: str) -> dict[str, Any]:
    """``GET /v1/workflows/{id}``: the definition in the reference fixtures' shape."""
    info = WORKFLOW_INFO.get(workflow_id) or WorkflowInfo(workflow_id, "", (), ())
    nodes = []
    for node_id, type_id, name in info.nodes:
        node: dict[str, Any] = {"id": node_id, "typeId": type_id, "name": name, "inputs": {}}
        if info.agent is not None and type_id in (_AI, "core.conformance.mock-agent"):
            node["agent"] = {"agentId": info.agent}
        nodes.append(node)
    return {
        **summary(workflow_id),
        "nodes": nodes,
        "edges": [
            {"id": f"e{i}", "source": a[0], "target": b[0]}
            for i, (a, b) in enumerate(zip(info.nodes, info.nodes[1:], strict=False))
        ],
        "triggers": [{"id": "manual", "type": "manual", "enabled": True}],
    }


def agents() -> list[dict[str, Any]]:
    """The ``GET /v1/agents`` entries, each naming this package as its pack."""
    try:
        version = metadata.version("openwop-tui")
    except metadata.PackageNotFoundError:  # a source tree that is not installed
        version = "0.0.0"
    return [{**a, "packName": "openwop-tui-demo", "packVersion": version} for a in AGENTS]
