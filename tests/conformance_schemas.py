"""The OpenWOP conformance schemas in ``tests/data/schemas`` as checks the tests call.

Each check returns the list of problems (empty: valid), each naming the JSON path and the rule
broken, so a failing test says exactly which field of which event is wrong. Formats are checked
(``uri``, ``date-time``): `FORMATS` refuses to start without those checkers, since a relative
URL passes a schema whose ``format: uri`` is not checked.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker

SCHEMAS = Path(__file__).parent / "data" / "schemas"

#: The format checker every validator here uses; ``uri`` needs jsonschema's ``format-nongpl``
#: extra (rfc3986-validator), ``date-time`` its rfc3339-validator.
FORMATS = FormatChecker()
_NEEDED = {"uri", "date-time"}
if not set(FORMATS.checkers) >= _NEEDED:  # pragma: no cover - an install problem, said clearly
    raise RuntimeError(
        f"jsonschema cannot check the formats {sorted(_NEEDED - set(FORMATS.checkers))}: "
        "install jsonschema[format-nongpl] (the dev extras do)"
    )

#: Event types the demo host sends whose payload has no ``$def`` in the stored subset.
NO_PAYLOAD_SCHEMA = frozenset({"node.cancelled"})

#: The schema of each media envelope kind's payload.
MEDIA_SCHEMAS = {
    "media.image": "envelopes/media.image.schema.json",
    "media.audio": "envelopes/media.audio.schema.json",
    "media.file": "envelopes/media.file.constructed.schema.json",
}


@cache
def _load(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    return schema


@cache
def _validator(name: str, definition: str | None = None) -> Draft202012Validator:
    schema = _load(name)
    if definition is not None:
        schema = {**schema, "$ref": f"#/$defs/{definition}"}
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=FORMATS)


def _problems(validator: Draft202012Validator, doc: Any, where: str) -> list[str]:
    return [
        f"{where}{''.join(f'[{p!r}]' for p in error.absolute_path)}: {error.message}"
        for error in validator.iter_errors(doc)
    ]


def payload_definition(v1_type: str) -> str | None:
    """The ``$def`` of an event type's payload (``node.suspended`` → ``nodeSuspended``,
    ``agent.toolCalled`` → ``agentToolCalled``), or ``None`` when the subset has none."""
    head, *rest = v1_type.split(".")
    name = head + "".join(part[:1].upper() + part[1:] for part in rest)
    return name if name in _load("run-event-payloads.subset.schema.json")["$defs"] else None


def event_problems(doc: Mapping[str, Any], major: int, v1_type: str | None = None) -> list[str]:
    """A RunEventDoc as sent under ``major``: the envelope, its payload, and any AI envelope
    it carries. ``v1_type`` names the payload schema for a v2 event (its type is kebab)."""
    where = f"{doc.get('type')}#{doc.get('sequence')}"
    schema = "run-event.schema.json" if major == 1 else "run-event.v2.schema.json"
    found = _problems(_validator(schema), doc, where)
    type_ = v1_type or str(doc.get("type"))
    found += payload_problems(type_, doc.get("payload"), where + ".payload")
    return found


def payload_problems(v1_type: str, payload: Any, where: str) -> list[str]:
    """One event payload against its ``$def`` (and its envelope, if it carries one)."""
    definition = payload_definition(v1_type)
    if definition is None:
        if v1_type in NO_PAYLOAD_SCHEMA:
            return []
        return [f"{where}: no payload schema for {v1_type!r} in the stored subset"]
    schema = _validator("run-event-payloads.subset.schema.json", definition)
    found = _problems(schema, payload, where)
    outputs = payload.get("outputs") if isinstance(payload, Mapping) else None
    envelope = outputs.get("envelope") if isinstance(outputs, Mapping) else None
    if envelope is not None:
        found += envelope_problems(envelope, where + ".outputs.envelope")
    return found


def envelope_problems(envelope: Any, where: str = "envelope") -> list[str]:
    """An AI envelope, and a ``media.*`` envelope's payload against its kind's schema."""
    found = _problems(_validator("ai-envelope.constructed.schema.json"), envelope, where)
    kind = envelope.get("type") if isinstance(envelope, Mapping) else None
    if isinstance(kind, str) and kind in MEDIA_SCHEMAS:
        found += _problems(
            _validator(MEDIA_SCHEMAS[kind]), envelope.get("payload"), where + ".payload"
        )
    return found


def discovery_v2_problems(document: Any) -> list[str]:
    """The v2 discovery root against the transcribed capabilities schema."""
    return _problems(_validator("capabilities.v2.subset.schema.json"), document, "discovery")


def error_problems(status: int, body: Any) -> list[str]:
    """A v2 error response: the closed envelope, a registered or vendor code, and the status
    the registry maps a registered code to (``x-openwop-http-status``)."""
    found = _problems(_validator("error-envelope.v2.schema.json"), body, f"error {status}")
    code = body.get("error") if isinstance(body, Mapping) else None
    expected = _load("error-envelope.v2.schema.json")["x-openwop-http-status"].get(code)
    if expected is not None and expected != status:
        found.append(f"error {status}: {code!r} is registered for status {expected}")
    return found


def snapshot_problems(snapshot: Any) -> list[str]:
    """A v1 ``GET /v1/runs/{runId}`` body against RunSnapshot."""
    return _problems(_validator("run-snapshot.schema.json"), snapshot, "snapshot")
