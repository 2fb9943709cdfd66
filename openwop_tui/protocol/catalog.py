"""What a host offers to talk to: its workflows, and the agents behind them.

`load_catalog` merges everything a host tells about its workflows into one list of
`WorkflowChoice`, in the host's own order:

* the discovery document's ``fixtures`` (every reference host lists its workflow ids there);
* ``GET …/workflows`` (``{workflows: [{id|workflowId, name, description, metadata.tags,
  agent}]}``, or a bare list) where the host serves it; where it does not, each listed
  workflow's definition (``GET …/workflows/{id}``: ``name``, ``description``, the agents its
  nodes name), at most `MAX_DEFINITIONS` of them;
* ``GET …/agents`` (RFC 0072 §A: ``agentId``, ``persona``, ``label``, ``modelClass``,
  ``degraded``) where the host serves it, joined to the workflows that name an agent.

What a host does not serve (404, 405, 501, a body of the wrong shape) is left out without a
word: the listing is a convenience, never a reason to fail. A 401/403 is raised (`HostError`),
since it says the key is wrong. `obvious_choice` is the rule the app's picker uses to skip
asking. Nothing here draws; everything shown has passed `openwop_tui.text.sanitize.clean`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from openwop_tui.protocol.client import HostClient, HostError
from openwop_tui.protocol.hostdata import host_value
from openwop_tui.text.sanitize import clean

#: Most workflow definitions fetched one by one for a host without ``GET …/workflows``.
MAX_DEFINITIONS = 50
#: Most workflows kept from any one host (a listing is for a person to read).
MAX_WORKFLOWS = 500
#: Definitions fetched at once.
CONCURRENCY = 8
#: Statuses that mean "this host does not serve that listing".
_NOT_SERVED = frozenset({404, 405, 406, 410, 501})


@dataclass(frozen=True, slots=True)
class AgentInfo:
    """An agent a workflow runs (RFC 0072 §A ``AgentInventoryEntry``), as far as told."""

    agent_id: str
    persona: str | None = None
    label: str | None = None
    model_class: str | None = None
    degraded: tuple[str, ...] = ()
    """Capabilities the agent runs without (``vision-input``, ``tool-calling``…)."""


@dataclass(frozen=True, slots=True)
class WorkflowChoice:
    """One workflow a person can pick: its id (what ``--workflow`` takes) and what describes it."""

    id: str
    label: str | None = None
    description: str | None = None
    tags: tuple[str, ...] = ()
    agents: tuple[AgentInfo, ...] = ()
    default: bool = False
    """The host says this is its default workflow."""
    sources: tuple[str, ...] = field(default=(), compare=False)
    """Where it was found: ``fixtures``, ``workflows``, ``definition``."""
    reads: tuple[str, ...] | None = None
    """Its ``modelCapabilities.advertised`` (``vision-input``, ``audio-input`` …), when the
    host says per workflow; ``None``: the host's discovery document speaks for it."""

    @property
    def title(self) -> str:
        """The label when the host gave one, else the id."""
        return self.label or self.id


async def load_catalog(client: HostClient) -> list[WorkflowChoice]:
    """Every workflow the host tells of, merged, in its order (discovery's first). Raises
    `HostError` only when discovery cannot be read or the key is refused."""
    discovery = client.discovery or await client.discover(verify_key=False)
    raw = discovery.raw
    default = _text(raw.get("defaultWorkflow")) or _text(raw.get("defaultWorkflowId"))
    merged: dict[str, WorkflowChoice] = {}
    for workflow_id in _ids(raw.get("fixtures")):
        merged.setdefault(workflow_id, WorkflowChoice(workflow_id, sources=("fixtures",)))
    listed = await _get(client, "workflows")
    if listed is not None:
        for entry in _entries(listed, "workflows"):
            _merge(merged, _choice(entry, "workflows"))
    else:
        await _definitions(client, merged)
    agents = await _get(client, "agents")
    inventory = {a.agent_id: a for a in map(_agent, _entries(agents, "agents")) if a is not None}
    choices = []
    for choice in list(merged.values())[:MAX_WORKFLOWS]:
        joined = tuple(inventory.get(a.agent_id, a) for a in choice.agents)
        choices.append(
            replace(choice, agents=joined, default=choice.default or choice.id == default)
        )
    return choices


def obvious_choice(
    choices: Sequence[WorkflowChoice], *, preferred: str | None = None
) -> WorkflowChoice | None:
    """The workflow to take without asking, or ``None`` when a person should choose.

    In order: the ``preferred`` one when the host has it (the app's configured workflow, or
    ``demo.chat`` on the embedded host); the one the host marks as its default; the only
    workflow there is. Several workflows and no default: ``None``, ask."""
    if preferred is not None:
        found = next((c for c in choices if c.id == preferred), None)
        if found is not None:
            return found
    defaults = [c for c in choices if c.default]
    if len(defaults) == 1:
        return defaults[0]
    return choices[0] if len(choices) == 1 else None


def describe(choice: WorkflowChoice) -> str:
    """One line about a workflow's agents: persona, label, model class, what is degraded."""
    parts = []
    for agent in choice.agents:
        bits = [agent.label or agent.persona or agent.agent_id]
        if agent.persona and agent.label:
            bits.append(f"persona {agent.persona}")
        if agent.model_class:
            bits.append(agent.model_class)
        if agent.degraded:
            bits.append("degraded: " + ", ".join(agent.degraded))
        parts.append(" · ".join(bits))
    return "; ".join(parts)


def as_json(choices: Iterable[WorkflowChoice]) -> list[dict[str, Any]]:
    """The catalog as JSON values (``workflows --json``)."""
    return [
        {
            "id": c.id,
            "label": c.label,
            "description": c.description,
            "tags": list(c.tags),
            "default": c.default,
            "agents": [
                {
                    "agentId": a.agent_id,
                    "persona": a.persona,
                    "label": a.label,
                    "modelClass": a.model_class,
                    "degraded": list(a.degraded),
                }
                for a in c.agents
            ],
        }
        for c in choices
    ]


# ----------------------------------------------------------------------------- reading


async def _get(client: HostClient, *segments: str) -> Any:
    """``GET`` a listing; ``None`` when the host does not serve it or sends no JSON."""
    url = client.url(*segments)
    import httpx  # here, not at the top: the first frame does not wait for it

    try:
        response = await client.http.get(url, headers=client.request_headers())
    except httpx.HTTPError:
        return None
    if response.status_code in (401, 403):
        raise client.error_for_response(
            response, response.content, action=f"list the host's {segments[0]}"
        )
    if response.status_code in _NOT_SERVED or not 200 <= response.status_code < 300:
        return None
    try:
        return host_value(json.loads(response.text), client.secrets)
    except (ValueError, RecursionError):
        return None


async def _definitions(client: HostClient, merged: dict[str, WorkflowChoice]) -> None:
    """Fill labels from each workflow's definition (a host without ``GET …/workflows``)."""
    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(workflow_id: str) -> Any:
        async with gate:
            return await _get(client, "workflows", workflow_id)

    ids = list(merged)[:MAX_DEFINITIONS]
    try:
        found = await asyncio.gather(*(one(i) for i in ids))
    except HostError:
        return  # a definition refused: the ids alone still make a list
    for workflow_id, doc in zip(ids, found, strict=True):
        if isinstance(doc, Mapping):
            choice = _choice({"id": workflow_id, **doc}, "definition")
            if choice is not None and choice.id == workflow_id:
                _merge(merged, choice)


def _merge(merged: dict[str, WorkflowChoice], choice: WorkflowChoice | None) -> None:
    if choice is None:
        return
    known = merged.get(choice.id)
    if known is None:
        merged[choice.id] = choice
        return
    merged[choice.id] = WorkflowChoice(
        choice.id,
        known.label or choice.label,
        known.description or choice.description,
        known.tags or choice.tags,
        known.agents or choice.agents,
        known.default or choice.default,
        (*known.sources, *choice.sources),
        known.reads if known.reads is not None else choice.reads,
    )


def _entries(doc: Any, key: str) -> list[Mapping[str, Any]]:
    """The objects of a listing: ``{key: [...]}``, ``{items: [...]}`` or a bare list."""
    if isinstance(doc, Mapping):
        doc = doc.get(key, doc.get("items"))
    if not isinstance(doc, list):
        return []
    return [entry for entry in doc[:MAX_WORKFLOWS] if isinstance(entry, Mapping)]


def _ids(value: Any) -> list[str]:
    """Workflow ids from ``fixtures`` (strings, or objects naming an id)."""
    if not isinstance(value, list):
        return []
    ids = []
    for entry in value[:MAX_WORKFLOWS]:
        if isinstance(entry, Mapping):
            entry = entry.get("id", entry.get("workflowId"))
        text = _text(entry)
        if text is not None:
            ids.append(text)
    return ids


def _choice(entry: Mapping[str, Any], source: str) -> WorkflowChoice | None:
    workflow_id = _text(entry.get("workflowId")) or _text(entry.get("id"))
    if workflow_id is None:
        return None
    metadata = entry.get("metadata")
    tags = metadata.get("tags") if isinstance(metadata, Mapping) else entry.get("tags")
    agents = [_agent(entry.get("agent"))]
    nodes = entry.get("nodes")
    for node in nodes[:200] if isinstance(nodes, list) else []:
        if isinstance(node, Mapping):
            agents.append(_agent(node.get("agent")))
    unique = {a.agent_id: a for a in agents if a is not None}
    return WorkflowChoice(
        workflow_id,
        _label(entry.get("name")) or _label(entry.get("label")) or _label(entry.get("title")),
        _label(entry.get("description")),
        tuple(clean(t) for t in tags[:20] if isinstance(t, str)) if isinstance(tags, list) else (),
        tuple(unique.values()),
        entry.get("default") is True or entry.get("isDefault") is True,
        (source,),
        _reads(entry),
    )


def _reads(entry: Mapping[str, Any]) -> tuple[str, ...] | None:
    """A workflow's ``modelCapabilities.advertised`` (``None``: it does not say)."""
    models = entry.get("modelCapabilities")
    advertised = models.get("advertised") if isinstance(models, Mapping) else None
    if not isinstance(advertised, list):
        return None
    return tuple(clean(a) for a in advertised[:50] if isinstance(a, str))


async def workflow_reads(client: HostClient, workflow_id: str) -> tuple[str, ...] | None:
    """What ``workflow_id``'s model reads, from its definition (``GET …/workflows/{id}``);
    ``None`` when the host does not say, or does not answer."""
    try:
        doc = await _get(client, "workflows", workflow_id)
    except HostError:
        return None
    return _reads(doc) if isinstance(doc, Mapping) else None


def _agent(value: Any) -> AgentInfo | None:
    if isinstance(value, str):
        value = {"agentId": value}
    if not isinstance(value, Mapping):
        return None
    agent_id = _text(value.get("agentId")) or _text(value.get("id"))
    if agent_id is None:
        return None
    degraded = value.get("degraded")
    return AgentInfo(
        agent_id,
        _label(value.get("persona")),
        _label(value.get("label")),
        _label(value.get("modelClass")),
        tuple(clean(d) for d in degraded[:20] if isinstance(d, str))
        if isinstance(degraded, list)
        else (),
    )


def _text(value: Any) -> str | None:
    """An identifier: a non-empty string, as the host sent it (it goes back in URLs)."""
    return value if isinstance(value, str) and value.strip() else None


def _label(value: Any) -> str | None:
    """Text to show: cleaned, one line."""
    if not isinstance(value, str):
        return None
    text = " ".join(clean(value).split())
    return text or None
