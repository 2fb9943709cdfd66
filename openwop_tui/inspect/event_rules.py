"""The rules a client can check on one run event by itself: its schema, its payload, its fields.

A known host dialect is first read as what it means (`openwop_tui.inspect.dialects`: ``seq``
for ``sequence`` …), each difference said by its own code. The event is then validated against
the v1 RunEventDoc schema, or the v2 one when the stream's major is known to be 2 or its type is
spelled the v2 way; with the major unknown, an event valid under either is valid (a v2 host's
``engineVersion`` is an integer, a v1 host's a string). Its payload is then checked against the
payload schema of its type, for v1 events whose type the bundled subset covers. The ``type``
itself has rules of its own (`openwop_tui.inspect.kinds`): an unknown type in a protocol
namespace is a warning (consumers MUST ignore it, but it is likely a typo), a vendor type
(``acme.thing``) worth a note, one under ``openwop.`` or (v2) an unregistered org an error.
Pure: it reads `RunEvent.raw`, the event's cleaned document, so what a message quotes is safe
to print.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from openwop_tui.inspect import dialects
from openwop_tui.inspect.findings import Finding, Severity, finding
from openwop_tui.inspect.kinds import event_type_verdict
from openwop_tui.inspect.schemas import SchemaSet, problems, short, show_path
from openwop_tui.protocol.events import RunEvent, canonical_type


def lint_event(
    event: RunEvent, schemas: SchemaSet, protocol: int | None = None, *, strict: bool = False
) -> list[Finding]:
    """The findings about ``event`` as a document.

    A known host dialect (`openwop_tui.inspect.dialects`) is read as what it means and said by its
    own codes.

    Args:
        event: The event, with its cleaned document.
        schemas: The schemas it is checked against.
        protocol: 1 or 2 to force v1 or v2; None reads it from the event's own spelling.
        strict: True makes the dialect findings errors instead of warnings.
    """
    raw = event.raw
    sequence = event.sequence
    if not isinstance(raw, Mapping) or raw.get("synthesized") is True:
        return []  # made by this client from a snapshot: nothing the host sent
    if "type" not in raw and "chunk" in raw:
        # A bare outputChunk (`messages` mode sends the payload alone): only the payload rules.
        return _payload(schemas, "output.chunk", raw, None, (), sequence, None)
    if event.type == "state.snapshot" and "type" not in raw:
        return []  # a `values`-mode RunSnapshot, not a RunEventDoc
    doc, differences = dialects.read(raw)
    dialect = Severity.ERROR if strict else None
    found = [
        finding(
            d.code, d.message, sequence, d.path, dialect if d.code in dialects.DIALECTS else None
        )
        for d in differences
    ]
    wire_type = doc.get("type")
    v2 = protocol == 2 or (
        protocol is None
        and isinstance(wire_type, str)
        and wire_type in schemas.v2_types
        and wire_type not in schemas.v1_types
    )
    # The names' rules follow the stream's major (or the type's own spelling), never the
    # fallback below: a v1 vendor event that happens to fit the v2 document is still v1's.
    v2_names = v2
    first = problems(schemas.event_v2 if v2 else schemas.event_v1, doc)
    if first and protocol is None and not v2 and not problems(schemas.event_v2, doc):
        first, v2 = [], True  # valid v2
    for problem in first:
        if problem.path == ("type",) and isinstance(wire_type, str):
            continue  # a string type has rules of its own (`_type`)
        code = "OW202" if problem.keyword == "additionalProperties" else "OW100"
        version = "v2" if v2 else "v1"
        message = f"RunEventDoc ({version}): {problem.message}"
        found.append(finding(code, message, sequence, show_path(problem.path)))
    if isinstance(wire_type, str):
        found.extend(_type(wire_type, v2_names, schemas, sequence))
    if isinstance(wire_type, str) and not v2:
        key = "payload" if "payload" in raw or "data" not in raw else "data"
        payload = doc.get("payload")
        absent = any(d.code == "OW125" for d in differences)
        if isinstance(payload, Mapping) or (payload is None and not absent):
            node_id = doc.get("nodeId")
            found.extend(
                _payload(
                    schemas,
                    canonical_type(wire_type),
                    payload,
                    node_id if isinstance(node_id, str) else None,
                    (key,),
                    sequence,
                    dialect,
                )
            )
    found.extend(_fields(doc, sequence))
    return found


def _type(name: str, v2: bool, schemas: SchemaSet, sequence: int | None) -> list[Finding]:
    """The rules of an event's ``type`` that is not in its major's catalogue.

    Args:
        name: The event's type.
        v2: True when the event is read as v2.
        schemas: The catalogues of event types and namespaces.
        sequence: The event's sequence, given with each finding; None when it has none.
    """
    catalogue = schemas.v2_types if v2 else schemas.v1_types
    if name in catalogue:
        return []
    if name in schemas.v1_types or name in schemas.v2_types:
        other = "v1" if v2 else "v2"
        message = f"type {short(name)} is a {other} name in a {'v2' if v2 else 'v1'} event"
        return [finding("OW102", message, sequence, "$.type")]
    code, message = event_type_verdict(name, 2 if v2 else 1, schemas.namespaces)
    return [finding(code, message, sequence, "$.type")]


def _payload(
    schemas: SchemaSet,
    event_type: str,
    sent: Mapping[str, Any] | None,
    node_id: str | None,
    base: tuple[str | int, ...],
    sequence: int | None,
    dialect: Severity | None,
) -> list[Finding]:
    """The payload schema's findings.

    Args:
        schemas: The payload schemas.
        event_type: The event's type, which picks the schema.
        sent: The payload; None when the event had none.
        node_id: The event's node id; None when it has none.
        base: Where the payload is in the event document.
        sequence: The event's sequence, given with each finding; None when it has none.
        dialect: The severity for a required field the reference hosts leave out for a reason of
            their own (`openwop_tui.inspect.dialects`), said by its dialect code; None for the
            rule's.
    """
    validator = schemas.payload(event_type)
    if validator is None:
        return []
    payload = sent if sent is not None else {}
    found = []
    empty: list[str] = []
    for problem in problems(validator, payload, base):
        field = problem.path[-1] if len(problem.path) == len(base) + 1 else None
        if problem.keyword == "required" and not payload:
            empty.append(str(field))
            continue
        if problem.keyword == "required" and field == "nodeId" and node_id is not None:
            message = (
                f"{event_type} payload has no nodeId; the event's nodeId {short(node_id)} says it"
            )
            found.append(finding("OW128", message, sequence, show_path(problem.path), dialect))
            continue
        if (
            problem.keyword == "required"
            and field == "interruptId"
            and event_type == "node.suspended"
            and (node_id is not None or isinstance(payload.get("nodeId"), str))
        ):
            message = (
                "node.suspended payload has no interruptId: the interrupt is resolved "
                "by its node (POST …/interrupts/{nodeId})"
            )
            found.append(finding("OW129", message, sequence, show_path(problem.path), dialect))
            continue
        code = "OW202" if problem.keyword == "additionalProperties" else "OW101"
        message = f"{event_type} payload: {problem.message}"
        found.append(finding(code, message, sequence, show_path(problem.path)))
    if empty:
        said = "null" if sent is None else "empty ({})"
        message = f"{event_type} payload is {said}: its schema requires {', '.join(empty)}"
        found.append(finding("OW127", message, sequence, show_path(base or ("payload",)), dialect))
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
