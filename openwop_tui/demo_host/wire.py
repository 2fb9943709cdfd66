"""How the demo host's runs look on the wire under each protocol major (protocol.md §1.3).

The run store keeps one representation: opaque run ids (``run_…``) and v1 event type names.
What a client sees depends on the major its request selected, and is projected here, where the
data leaves the host, exactly once:

* **v1** (``/v1/…`` paths, and bare paths without ``OpenWOP-Version`` since a dual-stack host's
  ``preferredVersion`` is its 1.x): everything as stored.
* **v2** (bare paths with ``OpenWOP-Version: 2``): run ids are tenant-bound, ``demo/run_…``
  (`spec/v2/core/identity.md` §5, versioning.md §5: a run is read under v2 as
  ``<tenant>/<v1 id>``), and travel in paths and links as one RFC 0184-projected segment
  (``demo~2Frun_…``); event types are the kebab names of `spec/v2/event-codemap.json`; error
  codes are registered v2 codes; the create response is the closed ``{runId, status, eventsUrl,
  statusUrl}``; snapshots carry ``owner`` and ``eventLogSchemaVersion``.

The v1→v2 names below are this host's own copy of the codemap, kept apart from the client's, so
a wrong row on either side shows up as a disagreement in the end-to-end tests.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

__all__ = [
    "OWNER",
    "RUN_ID_SEGMENT",
    "TENANT",
    "V1",
    "V1_OF_DUAL_STACK",
    "V1_TO_V2",
    "V2",
    "Wire",
    "WrongTenant",
    "protocol_versions",
    "v2_error_code",
    "wire_for",
]

#: The tenant of the host's key. A host given more keys (``DemoHost(more_keys=…)``) has more
#: tenants, but only uploaded media is partitioned by them (`uploads`); runs are all this one's.
TENANT = "demo"

#: Every row of `spec/v2/event-codemap.json` (v2.0) whose v1 and v2 names differ.
V1_TO_V2: Mapping[str, str] = {
    "run.resuming": "run.resume-started",
    "run.dead_lettered": "run.dead-lettered",
    "replay.divergedAtRefusal": "replay.diverged-at-refusal",
    "agent.reasoning.delta": "agent.reasoning-delta",
    "agent.promptResolved": "agent.prompt-resolved",
    "model.capability.substituted": "model.capability-substituted",
    "model.capability.insufficient": "model.capability-insufficient",
    "envelope.retry.attempted": "envelope.retry-attempted",
    "envelope.retry.exhausted": "envelope.retry-exhausted",
    "envelope.nlToFormat.engaged": "envelope.nl-to-format-engaged",
    "envelope.recovery.applied": "envelope.recovery-applied",
    "agent.toolCalled": "agent.tool-called",
    "agent.toolReturned": "agent.tool-returned",
    "agent.invocation.started": "agent.invocation-started",
    "agent.invocation.completed": "agent.invocation-completed",
    "deployment.canary.adjusted": "deployment.canary-adjusted",
    "deployment.state.changed": "deployment.state-changed",
    "roster.run.initiated": "roster.run-initiated",
    "tool.session.opened": "tool.session-opened",
    "tool.session.closed": "tool.session-closed",
    "trigger.subscription.state.changed": "trigger.subscription-state-changed",
    "trigger.delivery.attempted": "trigger.delivery-attempted",
    "budget.threshold.crossed": "budget.threshold-crossed",
    "runOrchestrator.decided": "orchestrator.decided",
    "core.dispatch.fanOut": "dispatch.fanned-out",
    "core.dispatch.join": "dispatch.joined",
    "agent.memory.consolidated": "agent.memory-consolidated",
    "core.workflowChain.event": "workflow-chain.event",
    "core.workflowChain.confidence-escalated": "workflow-chain.confidence-escalated",
    "connector.auth_expired": "connector.auth-expired",
    "voice.speech_start": "voice.speech-start",
    "voice.endpoint_candidate": "voice.endpoint-candidate",
    "voice.turn_commit": "voice.turn-commit",
    "voice.synthesis_chunk": "voice.synthesis-chunk",
    "voice.barge_in": "voice.barge-in",
    "compensation.manual_intervention_required": "compensation.manual-intervention-required",
}

#: This host's v1 error codes and the v2 code for each: the registered one (spec/v2/errors.json)
#: when the registry has one for the same status, else a vendor code (``<org>.<code>``, which v2
#: reserves for exactly this), since a registered code maps to one status (x-openwop-http-status)
#: and 405, 411 and 502 have none.
_V2_ERROR_CODES = {
    "run_not_found": "not_found",
    "workflow_not_found": "not_found",
    "agent_not_found": "not_found",
    "unauthorized": "unauthenticated",
    "bad_request": "validation_error",
    "length_required": "openwop-tui.length_required",
    "method_not_allowed": "openwop-tui.method_not_allowed",
    "bad_gateway": "openwop-tui.bad_gateway",
    "fault_injected": "openwop-tui.fault_injected",
}

#: A run id as one path segment, for every route's pattern: a v1 id, or a v2 tenant-bound id
#: projected (``demo~2Frun_…``) or percent-encoded (``demo%2Frun_…``, any case), which
#: `Wire.internal_run_id` decodes. No ``/`` and no ``:``, which end the segment
#: (``/runs/{runId}:pause``).
RUN_ID_SEGMENT = r"([A-Za-z0-9_.~%-]+)"

_KEPT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
_TILDE = re.compile(r"~([0-9A-Fa-f]{2})")
_OPAQUE = re.compile(r"[A-Za-z0-9._~-]{1,128}")


#: ``owner`` of every run in a v2 snapshot: the one tenant and the API-key subject
#: (identity.md §1.1; `spec/v2/core/runs.md` §Snapshot makes it required).
OWNER: Mapping[str, Any] = {
    "tenant": TENANT,
    "subject": {
        "issuer": "urn:openwop-tui-demo:api-key",
        "subjectId": "demo-key",
        "tenant": TENANT,
        "lane": "api-key",
        "kind": "user",
    },
}


def v2_error_code(code: str) -> str:
    """The registered v2 code for one of this host's error codes."""
    return _V2_ERROR_CODES.get(code, code)


class WrongTenant(ValueError):
    """A tenant-bound id names another tenant than the caller's (``403 id_tenant_mismatch``)."""


def _project(value: str) -> str:
    return "".join(chr(b) if b in _KEPT else f"~{b:02X}" for b in value.encode())


def _unproject(segment: str) -> str:
    # `~XX` is the projection; `%2F` must be accepted too (identity.md §5); the server hands
    # over the raw path segment, so both are decoded here, once.
    raw = _TILDE.sub(lambda m: f"%{m.group(1)}", segment)
    return unquote(raw, errors="strict")


@dataclass(frozen=True, slots=True)
class Wire:
    """The major one request selected, and the response header that names it."""

    major: int
    version: str | None = None
    """The ``OpenWOP-Version`` to send on every response; ``None``: send none (the v1-only host,
    which stays as it always was)."""

    @property
    def runs_path(self) -> str:
        """``/v1/runs`` or ``/runs``."""
        return "/v1/runs" if self.major == 1 else "/runs"

    def run_id(self, internal: str) -> str:
        """The run id as this major names it in bodies and events."""
        return internal if self.major == 1 else f"{TENANT}/{internal}"

    def run_path(self, internal: str) -> str:
        """The path of a run's resource: ``/v1/runs/run_…`` or ``/runs/demo~2Frun_…``."""
        return f"{self.runs_path}/{_project(self.run_id(internal))}"

    def internal_run_id(self, segment: str) -> str:
        """The stored id a path segment names; raises `WrongTenant` for another tenant's id.

        v1 takes the id, percent-encoded or not; v2 takes the projected (``demo~2Frun_…``) and
        percent-encoded (``demo%2Frun_…``) forms,
        and through the overlap also the bare v1 id (identity.md §5), bound to the caller's
        tenant. A segment that decodes to nothing sensible is simply an unknown run.
        """
        try:
            # v1 ids are not projected, but a path segment may still be percent-encoded.
            value = unquote(segment, errors="strict") if self.major == 1 else _unproject(segment)
        except UnicodeDecodeError:
            return ""
        if self.major == 1:
            return value
        tenant, slash, opaque = value.partition("/")
        if not slash:
            return value
        if not _OPAQUE.fullmatch(tenant) or tenant != TENANT:
            raise WrongTenant(tenant)
        return opaque

    def event(self, doc: Mapping[str, Any]) -> dict[str, Any]:
        """One stored RunEventDoc as this major sends it."""
        if self.major == 1:
            return dict(doc)
        out = dict(doc)
        out["type"] = V1_TO_V2.get(doc["type"], doc["type"])
        out["runId"] = self.run_id(doc["runId"])
        payload = doc.get("payload")
        if isinstance(payload, Mapping) and isinstance(payload.get("runId"), str):
            # `messages` mode sends the bare chunk payload, which names the run too.
            out["payload"] = {**payload, "runId": self.run_id(payload["runId"])}
        return out

    def headers(self) -> dict[str, str]:
        """Headers every response of this major carries."""
        return {"OpenWOP-Version": self.version} if self.version else {}


#: The wire of the v1-only host (``--protocol 1``): no version header, nothing projected.
V1 = Wire(1)
#: v1 on the dual-stack host (``--protocol 2``): as `V1`, but responses name their contract.
V1_OF_DUAL_STACK = Wire(1, "1.0")
#: v2 on the dual-stack host.
V2 = Wire(2, "2.0")


def protocol_versions(protocol: int) -> tuple[str, ...]:
    """``protocolVersions[]`` of a host started with ``protocol``."""
    return ("1.0",) if protocol == 1 else ("1.0", "2.0")


def wire_for(version: str | None) -> Wire | None:
    """The wire a dual-stack host serves a bare path in, for the request's ``OpenWOP-Version``
    (``2`` and ``2.0`` alike; absent: the preferred 1.x); ``None`` for a major it does not
    serve (``406 protocol_version_unsupported``)."""
    if version is None or not version.strip():
        return V1_OF_DUAL_STACK
    major = version.strip().split(".")[0]
    return {"1": V1_OF_DUAL_STACK, "2": V2}.get(major)
