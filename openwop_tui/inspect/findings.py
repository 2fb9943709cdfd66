"""Lint findings, and the catalogue of every rule with its stable code.

A `Finding` is data: the rule's code (``OW214``), its severity, where the rule comes from (an RFC
section or a schema file), a one-line message, and where it was found (the event's sequence and
a JSON path inside the event). Codes are stable: a rule keeps its code for good, a retired rule's
code is never reused, so a host author's CI can allow or forbid a code by name.

Codes are grouped by hundreds: ``OW1xx`` run events and the stream, ``OW2xx`` envelopes and their
media (``OW23x``: the attachments of a user's message), ``OW3xx`` rendering hints. `RULES` is the
whole catalogue (``openwop-tui lint --rules`` prints it). Pure: no I/O, no Rich, no Textual.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from openwop_tui.text.sanitize import HostText


class Severity(StrEnum):
    """How bad a finding is: ``error`` breaks a MUST or a schema; ``warning`` a SHOULD, or
    something a client must work around; ``info`` is worth knowing and breaks nothing."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, slots=True)
class Rule:
    """One check a client can make on an event or an envelope."""

    code: str
    severity: Severity
    source: str
    """Where the rule comes from: an RFC section, a spec section or a schema file."""
    title: str
    """What the rule says, in a few words."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One broken rule, where it was broken. Every string is already safe to print."""

    code: str
    severity: Severity
    source: str
    message: HostText
    """The rule's words around the event's cleaned values (see `finding`)."""
    sequence: int | None
    """The event's sequence (``None``: the event had none, or the finding is about the stream)."""
    path: HostText
    """A JSON path inside the event (``$.payload.outputs.envelope.payload.bytes``), ``$`` for
    the whole event, ``""`` for a finding about the stream rather than one event."""
    run_id: str | None = None
    """The run of the event (a log may hold several runs, each numbering from 0)."""

    def as_json(self) -> dict[str, Any]:
        """The finding as one ``--json`` object (the documented NDJSON shape)."""
        return {
            "sequence": self.sequence,
            "code": self.code,
            "severity": self.severity.value,
            "source": self.source,
            "message": self.message,
            "path": self.path,
            "runId": self.run_id,
        }


_E, _W, _I = Severity.ERROR, Severity.WARNING, Severity.INFO
_EVENT_SCHEMA = "schemas/run-event.schema.json (v1), schemas/v2/run-event.schema.json (v2)"
_PAYLOADS = "schemas/run-event-payloads.schema.json"
_STREAM = "spec/v1/stream-modes.md; spec/v2/core/events.md §The envelope"
_MEDIA = "RFC 0055 §C; ai-envelope.md §Media reference payloads"
_CAP = "RFC 0055 §C rule 2; ai-envelope.md §Asset-URL discipline rule 2"
_HINT = "RFC 0055 §B; ai-envelope.md §Rendering hints"
_DIALECT = "protocol.md §10 (what the openwop-examples hosts send); " + _EVENT_SCHEMA
_NAMES = "host-extensions.md §Canonical prefixes; spec/v2/core/events.md §Types"
_KINDS = "ai-envelope.md §Vendor-namespaced kinds; spec/v2/core/events.md §AI envelopes"
_POLICY = "design.md §Security posture (client media policy; the spec is silent)"
_PARTS = "protocol.md §12; the reference web chat's ContentPart (chat/types.ts)"
_PART_CAP = "RFC 0055 §C (aiProviders.maxInlineMediaBytes); protocol.md §12"
_PART_WHERE = "RFC 0055 §C (inline, or a host-served url); protocol.md §12"
_ALLOWED = "protocol.md §12 (the reference web chat's allow-list, fail-closed on both ends)"

_CATALOGUE: tuple[Rule, ...] = (
    Rule("OW100", _E, _EVENT_SCHEMA, "event does not match the RunEventDoc schema"),
    Rule("OW101", _E, _PAYLOADS, "payload does not match its event type's payload schema"),
    Rule("OW102", _W, _EVENT_SCHEMA, "event type in neither the v1 nor the v2 catalogue"),
    Rule("OW103", _I, "spec/v2/core/events.md §The envelope", "vendor event type"),
    Rule("OW104", _W, "spec/v1 run-event.schema.json (nodeId lifted)", "nodeId disagrees"),
    Rule(
        "OW105", _W, "ai-envelope.md §Run event log integration", "causationId not the envelope's"
    ),
    Rule("OW106", _W, _EVENT_SCHEMA, "timestamp is not an RFC 3339 date-time"),
    Rule("OW107", _E, "stream-modes.md; SSE frames", "frame that is not a run event"),
    Rule("OW108", _E, "SDK events.py; RFC 0106", "voice.transcript not marked untrusted"),
    Rule("OW109", _E, _NAMES, "event type under a reserved prefix, or (v2) an unregistered org"),
    Rule("OW110", _I, _STREAM, "sequence gap (a filtered stream mode leaves gaps)"),
    Rule("OW111", _E, _STREAM, "sequence goes backwards"),
    Rule("OW112", _I, _STREAM, "same event delivered twice (two modes, or a resume)"),
    Rule("OW113", _E, _STREAM, "two different events share a sequence"),
    Rule("OW114", _I, _STREAM, "event without a sequence"),
    Rule("OW115", _I, _STREAM, "stream does not start at sequence 0"),
    Rule("OW116", _E, "spec/v1/rest-endpoints.md §SSE", "events after the run's terminal event"),
    Rule("OW117", _W, "spec/v1/rest-endpoints.md §SSE", "stream ends without a terminal event"),
    Rule("OW118", _E, _DIALECT, "a legacy duplicate (seq, data) disagrees with its field"),
    # The reference hosts' dialect (`openwop_tui.inspect.dialects`): warnings, errors with
    # --strict; each is reported once per run.
    Rule("OW120", _W, _DIALECT, "seq instead of sequence (TypeScript in-memory host)"),
    Rule("OW121", _W, _DIALECT, "seq repeats sequence (TypeScript SQLite and Postgres hosts)"),
    Rule("OW122", _W, _DIALECT, "data instead of payload (TypeScript in-memory host)"),
    Rule("OW123", _W, _DIALECT, "data repeats payload (TypeScript SQLite and Postgres hosts)"),
    Rule("OW124", _W, _DIALECT, "no eventId (TypeScript in-memory host)"),
    Rule("OW125", _W, _DIALECT, "no payload at all (TypeScript in-memory host)"),
    Rule("OW126", _W, _DIALECT, "null for an absent field (TypeScript SQLite and Postgres hosts)"),
    Rule(
        "OW127",
        _W,
        _DIALECT,
        "empty payload without its required fields (Python host {}, "
        "SQLite and Postgres hosts null)",
    ),
    Rule(
        "OW128",
        _W,
        _DIALECT,
        "payload without the nodeId the event carries (Python, SQLite and Postgres hosts)",
    ),
    Rule(
        "OW129",
        _W,
        _DIALECT,
        "node.suspended without interruptId, interrupts keyed by node (SQLite and Postgres hosts)",
    ),
    Rule("OW200", _E, "schemas/ai-envelope.schema.json", "envelope does not match the schema"),
    Rule("OW201", _E, "schemas/envelopes/media.*.schema.json", "media payload schema mismatch"),
    Rule("OW202", _E, "schemas (additionalProperties: false)", "key the schema does not allow"),
    Rule(
        "OW203",
        _W,
        "spec/v1/capabilities.md (supportedEnvelopes); ai-envelope.md §Primitive step 2",
        "envelope kind the host does not advertise",
    ),
    Rule("OW204", _W, "spec/v2/core/events.md §E1", "streamed envelope never completed"),
    Rule("OW205", _W, "ai-envelope.md §PartialInfo; events.md §E1", "fragment out of order"),
    Rule("OW206", _E, _KINDS, "kind in a protocol family the spec does not define (media.video)"),
    Rule("OW207", _E, _KINDS, "kind without a vendor namespace (foo.bar)"),
    Rule("OW208", _W, _KINDS, "legacy un-namespaced kind (prd.create, theme.create, tasks.create)"),
    Rule("OW209", _W, _KINDS, "kind namespaced the v1 way (vendor.<org>.…) in a v2 stream"),
    Rule("OW210", _E, _CAP, "inline data over the host's maxInlineMediaBytes"),
    Rule("OW211", _E, _MEDIA, "bytes does not match the inline data"),
    Rule("OW212", _E, "schemas/envelopes/media.*.schema.json", "media payload without bytes"),
    Rule("OW213", _E, _MEDIA, "inline base64 is not valid base64"),
    Rule("OW214", _E, _MEDIA, "both url and base64 (one or the other)"),
    Rule("OW215", _W, _MEDIA, "media with neither url nor base64"),
    Rule("OW216", _W, _POLICY, "URL the client refuses to fetch"),
    Rule("OW217", _W, "schemas/envelopes/media.*.schema.json (format: uri)", "relative url"),
    Rule("OW218", _W, _POLICY, "advertised size over the client's download limit"),
    Rule("OW219", _E, _MEDIA, "bytes of another media family than the envelope's"),
    Rule("OW220", _W, _MEDIA, "media type contradicts the data"),
    Rule("OW221", _W, _MEDIA, "media type of another family than the envelope's kind"),
    Rule("OW222", _I, _MEDIA, "no media type anywhere (read as application/octet-stream)"),
    Rule("OW223", _W, _HINT, "the payload and the hint give different media types"),
    Rule("OW224", _I, "ai-envelope.md §Media reference payloads", "alt in the payload only"),
    # A user message's content parts, as a run.started echoes them (inputs.messages[*].content).
    Rule("OW230", _W, _PARTS, "message content part that is not an object, or of an unknown type"),
    Rule("OW231", _E, _PARTS, "image, file or audio part without a mimeType"),
    Rule("OW232", _E, _PART_WHERE, "attachment part with neither dataBase64 nor url, or both"),
    Rule("OW233", _E, _PARTS, "attachment part whose dataBase64 is not valid base64"),
    Rule("OW234", _E, _PART_CAP, "attachment part inline over the host's maxInlineMediaBytes"),
    Rule("OW235", _W, _ALLOWED, "attachment mimeType not on the allow-list for its part type"),
    Rule("OW236", _W, _PARTS, "attachment bytes that are not what its mimeType says"),
    Rule("OW237", _W, _PARTS, "audio part whose durationSeconds is not a non-negative number"),
    Rule("OW238", _E, _PARTS, "text part whose text is not a string"),
    Rule("OW300", _W, _HINT, "unknown display without a vendor prefix"),
    Rule("OW301", _I, _HINT, "vendor display value (consumers fall back)"),
    Rule(
        "OW302",
        _W,
        "ai-envelope.md §Rendering hints (the hint never overrides the type)",
        "hint names a renderer unfit for the envelope's type",
    ),
    Rule("OW303", _W, _HINT, "image, audio or file without alt"),
    Rule("OW304", _W, _HINT, "media hint on a payload with no media"),
    Rule("OW305", _E, _HINT, "hint field that is not a string (display: 42), or no object"),
    Rule("OW306", _E, _HINT, "display under a protocol namespace that is none of the six"),
)

#: Every rule, by code.
RULES: dict[str, Rule] = {rule.code: rule for rule in _CATALOGUE}


def finding(
    code: str, message: str, sequence: int | None, path: str, severity: Severity | None = None
) -> Finding:
    """A `Finding` of rule ``code``, its source from `RULES`.

    Args:
        code: The rule's code (``OW201``…).
        message: What was found, in the rule's words around cleaned values.
        sequence: The event's sequence; None when it has none.
        path: Where in the event document, as ``$.payload…``.
        severity: Overrides the rule's severity (a dialect under ``--strict`` is an error); None
            keeps it.
    """
    rule = RULES[code]
    # Rules read `RunEvent`s, whose every string `normalize` cleaned, and write their own words
    # (and the schema validator's) around them: the message and the path are clean as made.
    # A sentence that may hold an exception's message is cleaned by its rule (`Linter.problem`).
    return Finding(
        code, severity or rule.severity, rule.source, HostText(message), sequence, HostText(path)
    )
