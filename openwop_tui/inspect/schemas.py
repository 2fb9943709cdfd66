"""The bundled conformance schemas, and validation errors made into short, printable sentences.

The schema files live beside this module (``schemas/``, with a README naming their origin); they
are read with `importlib.resources`, so they work from a wheel as from a checkout. `SchemaSet`
loads them once when it is built (the linter builds one; nothing is read at import) and validates
with `jsonschema` (Draft 2020-12, as the files declare).

`Problem` is one validation error reduced to what a finding needs: the keyword that failed, the
JSON path inside the validated value, and a one-line sentence. The sentences are composed here
rather than taken from jsonschema, whose messages quote whole values (a megabyte of base64 for a
type error) and list whole enums (80 event types). What they quote comes from already cleaned
host data (`openwop_tui.protocol.hostdata`) and is cut short.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

import fastjsonschema

if TYPE_CHECKING:
    # Imported when a value fails the compiled check, not before the first screen: with its
    # format checkers installed, importing jsonschema alone takes a second or more.
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

#: Each bundled file, with where it comes from (the finding's ``source`` names it).
SOURCES: dict[str, str] = {
    "run-event.schema.json": "openwop/openwop schemas/run-event.schema.json (1.11.0)",
    "run-event.v2.schema.json": "openwop/openwop schemas/v2/run-event.schema.json (2.0)",
    "run-event-payloads.subset.schema.json": (
        "openwop/openwop schemas/run-event-payloads.schema.json (1.11.0, subset)"
    ),
    "ai-envelope.constructed.schema.json": (
        "schemas/ai-envelope.schema.json (constructed from ai-envelope.md, 1.11.0)"
    ),
    "envelopes/media.image.schema.json": "openwop/openwop schemas/envelopes/media.image (1.11.0)",
    "envelopes/media.audio.schema.json": "openwop/openwop schemas/envelopes/media.audio (1.11.0)",
    "envelopes/media.file.constructed.schema.json": (
        "schemas/envelopes/media.file (constructed from ai-envelope.md, 1.11.0)"
    ),
}

#: v1 event type → the ``$defs`` entry of its payload schema (those the bundled subset holds).
PAYLOAD_DEFS: dict[str, str] = {
    "run.started": "runStarted",
    "run.completed": "runCompleted",
    "run.failed": "runFailed",
    "run.cancelled": "runCancelled",
    "node.started": "nodeStarted",
    "node.completed": "nodeCompleted",
    "node.failed": "nodeFailed",
    "node.suspended": "nodeSuspended",
    "node.resumed": "nodeResumed",
    "approval.requested": "approvalRequested",
    "approval.received": "approvalReceived",
    "clarification.requested": "clarificationRequested",
    "clarification.resolved": "clarificationResolved",
    "interrupt.requested": "interruptRequested",
    "interrupt.resolved": "interruptResolved",
    "artifact.created": "artifactCreated",
    "output.chunk": "outputChunk",
    "agent.reasoned": "agentReasoned",
    "agent.reasoning.delta": "agentReasoningDelta",
    "provider.usage": "providerUsage",
    "agent.toolCalled": "agentToolCalled",
    "agent.toolReturned": "agentToolReturned",
    "agent.decided": "agentDecided",
    "conversation.opened": "conversationOpened",
    "conversation.exchanged": "conversationExchanged",
    "conversation.closed": "conversationClosed",
}

_MEDIA_FILES = {
    "media.image": "envelopes/media.image.schema.json",
    "media.audio": "envelopes/media.audio.schema.json",
    "media.file": "envelopes/media.file.constructed.schema.json",
}

_SHORT = 60


@dataclass(frozen=True, slots=True)
class Problem:
    """One schema violation: the failed keyword, where, and a sentence saying what."""

    keyword: str
    path: tuple[str | int, ...]
    """Inside the validated value (``("payload", "bytes")``)."""
    message: str
    extra_key: str | None = None
    """For ``additionalProperties``: the one key not allowed (one problem per key)."""


def _load(name: str) -> dict[str, Any]:
    place = resources.files("openwop_tui.inspect").joinpath("schemas")
    for part in name.split("/"):
        place = place.joinpath(part)
    text = place.read_text("utf-8")
    value = json.loads(text)
    assert isinstance(value, dict), name
    return value


def _inlined(node: Any, defs: Mapping[str, Any], depth: int = 0) -> Any:
    """``node`` with every local ``{"$ref": "#/$defs/NAME"}`` replaced by that definition.

    The same schema, validated about twice as fast: resolving a reference is most of what
    jsonschema spends on an event (measured: 5.1 of 10.9 s for 10,000 chunks). The bundled
    schemas have no recursive definitions; ``depth`` guards against one anyway.
    """
    if depth > 32:
        return node
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs:
            rest = {k: v for k, v in node.items() if k != "$ref"}
            target = _inlined(defs[ref[8:]], defs, depth + 1)
            return {**target, **_inlined(rest, defs, depth + 1)} if rest else target
        return {k: _inlined(v, defs, depth + 1) for k, v in node.items() if k != "$defs"}
    if isinstance(node, list):
        return [_inlined(v, defs, depth + 1) for v in node]
    return node


class Schema:
    """One bundled schema, ready to validate: a compiled yes/no check, and jsonschema for why.

    Most events are valid, and fastjsonschema's generated check answers "valid" about twenty
    times faster than jsonschema walks the schema (measured: 499,000 against 25,000 events/s
    of CPU for the RunEventDoc schema), so the lint keeps up with a 10,000 events/s stream. Only
    what that check rejects is walked by jsonschema, whose answer is the one reported: a check
    that is stricter somewhere (it reads the schema as draft-07) costs time, never a finding.
    """

    def __init__(self, schema: dict[str, Any]) -> None:
        self._schema = schema
        self._flat_schema: dict[str, Any] | None = None
        self._walker: Draft202012Validator | None = None
        self._fast: Callable[[Any], Any] | None = None
        self._compiled = False
        # Compiled on first use, not here: the set has 32 schemas and compiling them all took
        # 130 ms, on the event loop, at the first event of the first run (a key typed then
        # waited for it). A run's events use two or three of them.

    @property
    def _flat(self) -> dict[str, Any]:
        """The schema with its local ``$ref``s inlined (once)."""
        if self._flat_schema is None:
            schema = self._schema
            defs = schema.get("$defs", {})
            self._flat_schema = _inlined(schema, defs) if isinstance(defs, dict) else schema
        return self._flat_schema

    def _compile(self) -> Callable[[Any], Any] | None:
        """The compiled check (``None``: it cannot be compiled). Safe from two threads at once
        (`warm`'s and the loop's): both compile, either result is the same check, and the
        flag is set only once the check is there."""
        fast: Callable[[Any], Any] | None
        try:
            # The bundled schemas use only keywords draft-07 reads the same way.
            draft7 = {**self._flat, "$schema": "http://json-schema.org/draft-07/schema#"}
            fast = fastjsonschema.compile(draft7, use_formats=False)
        except Exception:  # a schema it cannot compile: jsonschema alone, slower but right
            fast = None
        self._fast = fast
        self._compiled = True
        return fast

    @property
    def validator(self) -> Draft202012Validator:
        """jsonschema's validator for this schema, built on first use (it says why)."""
        if self._walker is None:
            from jsonschema import Draft202012Validator

            self._walker = Draft202012Validator(self._flat)
        return self._walker

    def passes(self, value: Any) -> bool:
        """Whether the compiled check accepts ``value`` (``False``: ask jsonschema why)."""
        fast = self._fast if self._compiled else self._compile()
        if fast is None:
            return False
        try:
            fast(value)
        except Exception:  # JsonSchemaValueException, or anything else: jsonschema decides
            return False
        return True


def _validator(schema: dict[str, Any]) -> Schema:
    return Schema(schema)


_SHARED: SchemaSet | None = None
_SHARED_LOCK = threading.Lock()


def shared() -> SchemaSet:
    """The process's one `SchemaSet` (its schemas read once, each compiled once on first use):
    every linter shares it, so a new chat's timeline does not read and compile them again."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = SchemaSet()
        return _SHARED


def warm(*, between: Callable[[], None] = lambda: None) -> None:
    """Do now, in the caller's thread, what the first events of a run would otherwise do on the
    event loop: read the schemas and compile the checks every run uses (the event documents,
    envelopes and the common events' payloads). The app calls it in a thread once the host is
    reached. jsonschema, which says why an event fails, is not imported here: where its format
    checkers are installed its import alone takes a second or more of the interpreter, and a
    thread holding it that long made every key typed meanwhile wait (measured: the idle key
    echo just after connecting went from 5 to 20 ms); it loads when an event first fails.
    ``between`` is called before each schema is compiled (the app's warming waits there while
    keys are typed or a session is read)."""
    between()
    schemas = shared()
    for schema in (
        schemas.event_v1,
        schemas.event_v2,
        schemas.envelope,
        *schemas.common_payloads(),
    ):
        between()
        schema.passes(None)  # (compiles it; the answer is not wanted)


#: The event types nearly every run sends, whose payload checks `warm` compiles ahead.
COMMON_EVENTS = (
    "run.started",
    "run.completed",
    "node.started",
    "node.completed",
    "output.chunk",
    "agent.reasoning.delta",
    "provider.usage",
)


class SchemaSet:
    """Validators for run events (v1, v2), their payloads, envelopes and media payloads."""

    def __init__(self) -> None:
        v1 = _load("run-event.schema.json")
        v2 = _load("run-event.v2.schema.json")
        self.event_v1 = _validator(v1)
        self.event_v2 = _validator(v2)
        payloads = _load("run-event-payloads.subset.schema.json")
        self._payloads = {
            kind: _validator({**payloads, "$ref": f"#/$defs/{name}"})
            for kind, name in PAYLOAD_DEFS.items()
        }
        self.envelope = _validator(_load("ai-envelope.constructed.schema.json"))
        self._media = {kind: _validator(_load(f)) for kind, f in _MEDIA_FILES.items()}
        v1_types = v1["$defs"]["RunEventType"]["enum"]
        v2_types = v2["properties"]["type"]["anyOf"][0]["enum"]
        self.v1_types = frozenset(v1_types)
        self.v2_types = frozenset(v2_types)
        self.namespaces = frozenset(
            name.partition(".")[0] for name in self.v1_types | self.v2_types
        )
        """The first segments of the spec's own types (``run``, ``node`` …): a name in one of
        them that the catalogue lacks is a typo or a newer type, not a vendor's."""

    def common_payloads(self) -> list[Schema]:
        """The payload checks of the events nearly every run sends (`COMMON_EVENTS`)."""
        return [schema for kind in COMMON_EVENTS if (schema := self._payloads.get(kind))]

    def payload(self, event_type: str) -> Schema | None:
        """The payload validator of a v1 event type, if the bundled subset has one."""
        return self._payloads.get(event_type)

    def media(self, kind: str) -> Schema | None:
        """The payload validator of a ``media.*`` kind."""
        return self._media.get(kind)


def problems(schema: Schema, value: Any, base: tuple[str | int, ...] = ()) -> list[Problem]:
    """Every violation of ``value`` against ``validator``, as `Problem`\\ s whose paths start
    with ``base`` (where ``value`` sits in the event). Never raises: a value the validator
    cannot walk gives one problem saying so."""
    if schema.passes(value):
        return []
    try:
        found = [p for error in schema.validator.iter_errors(value) for p in _explain(error, base)]
    except (RecursionError, ValueError, TypeError) as error:
        return [Problem("unreadable", base, f"cannot be validated ({type(error).__name__})")]
    # jsonschema reports `required` once per missing key, each naming the whole list.
    unique: dict[tuple[str, tuple[str | int, ...]], Problem] = {}
    for problem in found:
        unique.setdefault((problem.keyword, problem.path), problem)
    return list(unique.values())


def _explain(error: ValidationError, base: tuple[str | int, ...]) -> Iterator[Problem]:
    path = (*base, *error.absolute_path)
    where = show_path(path)
    keyword = str(error.validator)
    value: Any = error.validator_value
    instance = error.instance
    if keyword == "additionalProperties" and isinstance(instance, Mapping):
        allowed = error.schema.get("properties", {}) if isinstance(error.schema, Mapping) else {}
        for key in instance:
            if key not in allowed:
                yield Problem(
                    keyword,
                    (*path, str(key)),
                    f"{short(key)} is not allowed at {where}",
                    extra_key=str(key),
                )
        return
    if keyword == "required" and isinstance(instance, Mapping) and isinstance(value, list):
        for key in value:
            if key not in instance:
                yield Problem(keyword, (*path, str(key)), f"{where} lacks the required {key!r}")
        return
    yield Problem(keyword, path, f"{where}: {_sentence(keyword, value, instance)}")


def _sentence(keyword: str, value: Any, instance: Any) -> str:
    shown = short(instance)
    if keyword == "type":
        wanted = " or ".join(value) if isinstance(value, list) else str(value)
        return f"{shown} is {kind_of(instance)}, not {wanted}"
    if keyword == "enum" and isinstance(value, Sequence):
        listed = ", ".join(repr(v) for v in list(value)[:6])
        more = f" and {len(value) - 6} more" if len(value) > 6 else ""
        return f"{shown} is not one of {listed}{more}"
    if keyword in ("anyOf", "oneOf"):
        return f"{shown} matches none of the allowed forms"
    if keyword in ("minimum", "maximum", "minLength", "maxLength", "minItems", "pattern", "const"):
        return f"{shown} fails {keyword} {short(value)}"
    return f"{shown} fails {keyword}"


def kind_of(value: Any) -> str:
    """``a string``, ``an integer`` … (a JSON reading of a Python value)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def short(value: Any) -> str:
    """A value as a short, one-line excerpt (already cleaned host data stays clean)."""
    if isinstance(value, dict):
        text = "an object"
    elif isinstance(value, list):
        text = f"an array of {len(value)}"
    else:
        text = repr(value)
    return text if len(text) <= _SHORT else text[: _SHORT - 1] + "…"


def show_path(parts: Sequence[str | int], base: str = "$") -> str:
    """A JSON path: ``$.payload.outputs[0]``; keys that are not identifiers are quoted."""
    text = base
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif part.isidentifier():
            text += f".{part}"
        else:
            text += f"[{json.dumps(part)}]"
    return text
