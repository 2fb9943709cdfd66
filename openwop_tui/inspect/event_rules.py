"""The rules a client can check on one run event by itself: its schema, its payload, its fields.

An event is validated against the v1 RunEventDoc schema, or the v2 one when its type is spelled
the v2 way; an event valid under either is valid (a v2 host's ``engineVersion`` is an integer, a
v1 host's a string). Its payload is then checked against the payload schema of its type, for v1
events whose type the bundled subset covers. What the schemas say about the ``type`` itself
becomes its own rules: an unknown type is a warning (consumers MUST ignore it, but it is likely a
typo), a vendor type (``acme.thing``) worth a note. Pure: it reads `RunEvent.raw`, the event's
cleaned document, so what a message quotes is safe to print.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from openwop_tui.inspect.findings import Finding, finding
from openwop_tui.inspect.schemas import Problem, SchemaSet, problems, short, show_path
from openwop_tui.protocol.events import RunEvent, canonical_type

#: A vendor event type (`spec/v2/core/events.md`: ``<org>.<name>``, not ``openwop.``).
_VENDOR_TYPE = re.compile(r"(?!openwop\.)[a-z][a-z0-9-]*(\.[a-zA-Z][a-zA-Z0-9_-]*){1,3}")


def lint_event(event: RunEvent, schemas: SchemaSet, protocol: int | None = None) -> list[Finding]:
    """The findings about ``event`` as a document; ``protocol`` forces v1 or v2 (``None``: by
    the event's own spelling)."""
    raw = event.raw
    sequence = event.sequence
    if not isinstance(raw, Mapping) or raw.get("synthesized") is True:
        return []  # made by this client from a snapshot: nothing the host sent
    if "type" not in raw and "chunk" in raw:
        # A bare outputChunk (`messages` mode sends the payload alone): only the payload rules.
        return _payload(schemas, "output.chunk", raw, (), sequence)
    if event.type == "state.snapshot" and "type" not in raw:
        return []  # a `values`-mode RunSnapshot, not a RunEventDoc
    found: list[Finding] = []
    wire_type = raw.get("type")
    v2 = protocol == 2 or (
        protocol is None
        and isinstance(wire_type, str)
        and wire_type in schemas.v2_types
        and wire_type not in schemas.v1_types
    )
    first = problems(schemas.event_v2 if v2 else schemas.event_v1, raw)
    if first and protocol is None and not v2 and not problems(schemas.event_v2, raw):
        first, v2 = [], True  # valid v2
    for problem in first:
        found.extend(_event_problem(problem, raw, sequence, schemas, v2))
    if isinstance(wire_type, str) and not v2:
        key = "payload" if "payload" in raw else "data"
        payload = raw.get(key)
        if isinstance(payload, Mapping):
            found.extend(_payload(schemas, canonical_type(wire_type), payload, (key,), sequence))
    found.extend(_fields(raw, sequence))
    return found


def _event_problem(
    problem: Problem, raw: Mapping[str, Any], sequence: int | None, schemas: SchemaSet, v2: bool
) -> list[Finding]:
    path = show_path(problem.path)
    if problem.path == ("type",) and problem.keyword in ("enum", "anyOf"):
        name = raw.get("type")
        if isinstance(name, str) and (name in schemas.v1_types or name in schemas.v2_types):
            other = "v1" if v2 else "v2"
            message = f"type {short(name)} is a {other} name in a {'v2' if v2 else 'v1'} event"
            return [finding("OW102", message, sequence, path)]
        namespace = name.partition(".")[0] if isinstance(name, str) else ""
        if (
            isinstance(name, str)
            and _VENDOR_TYPE.fullmatch(name)
            and namespace not in schemas.namespaces
        ):
            message = f"type {short(name)} is a vendor event: consumers that do not know it skip it"
            return [finding("OW103", message, sequence, path)]
        message = (
            f"type {short(name)} is in neither the v1 nor the v2 event catalogue "
            "(consumers MUST skip unknown types; a typo?)"
        )
        return [finding("OW102", message, sequence, path)]
    code = "OW202" if problem.keyword == "additionalProperties" else "OW100"
    version = "v2" if v2 else "v1"
    return [finding(code, f"RunEventDoc ({version}): {problem.message}", sequence, path)]


def _payload(
    schemas: SchemaSet,
    event_type: str,
    payload: Mapping[str, Any],
    base: tuple[str | int, ...],
    sequence: int | None,
) -> list[Finding]:
    validator = schemas.payload(event_type)
    if validator is None:
        return []
    found = []
    for problem in problems(validator, payload, base):
        code = "OW202" if problem.keyword == "additionalProperties" else "OW101"
        message = f"{event_type} payload: {problem.message}"
        found.append(finding(code, message, sequence, show_path(problem.path)))
    return found


def _fields(raw: Mapping[str, Any], sequence: int | None) -> list[Finding]:
    found = []
    payload = raw.get("payload") if isinstance(raw.get("payload"), Mapping) else raw.get("data")
    lifted = raw.get("nodeId")
    inner = payload.get("nodeId") if isinstance(payload, Mapping) else None
    if isinstance(lifted, str) and isinstance(inner, str) and lifted != inner:
        message = f"nodeId {short(lifted)} on the event, {short(inner)} in the payload"
        found.append(finding("OW104", message, sequence, "$.nodeId"))
    if (
        raw.get("type") == "voice.transcript"
        and isinstance(payload, Mapping)
        and payload.get("contentTrust") != "untrusted"
    ):
        message = "a voice.transcript MUST carry contentTrust: 'untrusted' (spoken input)"
        found.append(finding("OW108", message, sequence, "$.payload.contentTrust"))
    stamp = raw.get("timestamp")
    if isinstance(stamp, str) and not _rfc3339(stamp):
        message = f"timestamp {short(stamp)} is not an RFC 3339 date-time with a zone"
        found.append(finding("OW106", message, sequence, "$.timestamp"))
    return found


def _rfc3339(text: str) -> bool:
    if "T" not in text.upper():
        return False
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return False
    return parsed.tzinfo is not None
