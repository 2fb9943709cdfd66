"""The lint as a CI gate: a reference host's dialect is a warning with its own code (an error
with ``strict``), the protocol major is read from the stream, and the faults a dialect must not
hide (a disagreeing duplicate, an undefined or unprefixed kind, a hint that is not a string) are
errors. Each rule fires on its fault and stays silent on the valid shape beside it."""

from __future__ import annotations

from typing import Any

import pytest

from openwop_tui.inspect import dialects
from openwop_tui.inspect.findings import RULES, Finding, Severity
from openwop_tui.inspect.lint import LintConfig, Linter
from openwop_tui.inspect.schemas import SchemaSet
from openwop_tui.protocol.events import normalize

RUN = "run-1"


@pytest.fixture(scope="module")
def schemas() -> SchemaSet:
    return SchemaSet()


def lint(schemas: SchemaSet, *docs: dict[str, Any], **config: Any) -> Linter:
    linter = Linter(LintConfig(**config), schemas=schemas)
    for doc in docs:
        linter.feed(normalize(doc))
    return linter


def by_code(linter: Linter) -> dict[str, Finding]:
    return {f.code: f for f in linter.findings}


def python_doc(sequence: int, kind: str, payload: Any, **extra: Any) -> dict[str, Any]:
    """An event as the Python reference host sends it (captures/python-host-*.sse)."""
    return {
        "eventId": f"e{sequence}",
        "runId": RUN,
        "type": kind,
        "payload": payload,
        "timestamp": "2026-11-29T22:05:47.241683Z",
        "sequence": sequence,
        **extra,
    }


def sql_doc(sequence: int, kind: str, payload: Any, node: str | None = None) -> dict[str, Any]:
    """An event as the SQLite and Postgres hosts send it (both spellings, null for absent)."""
    return {
        "eventId": f"evt-{sequence}",
        "runId": RUN,
        "seq": sequence,
        "sequence": sequence,
        "type": kind,
        "nodeId": node,
        "data": payload,
        "payload": payload,
        "timestamp": "2026-11-29T22:07:20.579Z",
    }


def memory_doc(sequence: int, kind: str, payload: Any = None, **extra: Any) -> dict[str, Any]:
    """An event as the TypeScript in-memory host sends it (seq, data, no eventId)."""
    doc = {
        "seq": sequence,
        "runId": RUN,
        "type": kind,
        "timestamp": "2026-11-29T22:06:19.099Z",
        **extra,
    }
    if payload is not None:
        doc["data"] = payload
    return doc


def test_the_python_hosts_empty_payloads_are_a_warning(schemas: SchemaSet) -> None:
    linter = lint(
        schemas,
        python_doc(0, "run.started", {}),
        python_doc(1, "node.started", {}, nodeId="noop"),
        python_doc(2, "node.completed", {"outputs": {}}, nodeId="noop"),
        python_doc(3, "run.completed", {}),
    )
    found = by_code(linter)
    assert set(found) == {"OW127", "OW128"}
    assert all(f.severity is Severity.WARNING for f in found.values())
    assert "workflowId" in found["OW127"].message
    assert linter.dialect is not None and linter.dialect.startswith(dialects.PYTHON)
    # The same payload missing a field it should have is a real fault, not the dialect.
    real = by_code(lint(schemas, python_doc(0, "run.started", {"inputs": {}})))
    assert real["OW101"].severity is Severity.ERROR and "OW127" not in real


def test_the_sql_hosts_duplicates_and_nulls_are_warnings(schemas: SchemaSet) -> None:
    linter = lint(
        schemas,
        sql_doc(0, "run.started", None),
        sql_doc(1, "node.suspended", {"kind": "approval", "nodeId": "gate"}, "gate"),
        sql_doc(2, "node.resumed", {"action": "accept"}, "gate"),
        sql_doc(3, "run.completed", None),
    )
    found = by_code(linter)
    assert set(found) == {"OW121", "OW123", "OW126", "OW127", "OW128", "OW129"}
    assert not any(f.severity is Severity.ERROR for f in linter.findings)
    assert linter.dialect is not None and linter.dialect.startswith(dialects.SQL)


def test_the_in_memory_hosts_spelling_is_a_warning(schemas: SchemaSet) -> None:
    linter = lint(
        schemas,
        memory_doc(0, "run.started"),
        memory_doc(1, "node.failed", {"nodeId": "n", "error": {"code": "x", "message": "m"}}),
        memory_doc(2, "run.completed"),
    )
    assert set(by_code(linter)) == {"OW120", "OW122", "OW124", "OW125"}
    assert linter.dialect is not None and linter.dialect.startswith(dialects.IN_MEMORY)


def test_a_dialect_is_said_once_per_run(schemas: SchemaSet) -> None:
    docs = [sql_doc(n, "log.appended", {"level": "info", "message": "m"}) for n in range(5)]
    other = [{**doc, "runId": "run-2"} for doc in docs]
    codes = [f.code for f in lint(schemas, *docs, *other).findings]
    assert codes.count("OW121") == 2  # once for each run, not once for each event


def test_strict_makes_the_dialect_errors(schemas: SchemaSet) -> None:
    docs = [sql_doc(0, "run.started", None), sql_doc(1, "run.completed", None)]
    strict = lint(schemas, *docs, strict=True)
    assert {f.code for f in strict.findings} == {"OW121", "OW123", "OW126", "OW127"}
    assert all(f.severity is Severity.ERROR for f in strict.findings)


@pytest.mark.parametrize(
    ("change", "field"),
    [({"seq": 7}, "seq"), ({"data": {"workflowId": "other"}}, "data")],
)
def test_a_duplicate_that_disagrees_is_an_error(
    schemas: SchemaSet, change: dict[str, Any], field: str
) -> None:
    doc = {**sql_doc(0, "run.started", {"workflowId": "w"}), **change}
    found = by_code(lint(schemas, doc))
    assert found["OW118"].severity is Severity.ERROR
    assert found["OW118"].path == f"$.{field}"


def test_the_dialect_does_not_hide_a_real_fault(schemas: SchemaSet) -> None:
    # A dialect document with a key no host sends, and a sequence that is not a number.
    doc = {**sql_doc(0, "run.started", None), "colour": "red"}
    assert by_code(lint(schemas, doc))["OW202"].severity is Severity.ERROR
    bad = {**memory_doc(0, "run.started"), "seq": "zero"}
    assert "OW100" in by_code(lint(schemas, bad))


def test_describe_names_the_closest_host() -> None:
    assert dialects.describe([]) is None
    assert (dialects.describe(["OW127"]) or "").startswith(dialects.PYTHON)
    assert (dialects.describe(["OW127", "OW121"]) or "").startswith(dialects.SQL)
    mixed = dialects.describe(["OW120", "OW121"]) or ""
    assert dialects.IN_MEMORY in mixed and dialects.SQL in mixed and "mixed" in mixed


def test_every_dialect_code_is_a_warning_rule_naming_its_host() -> None:
    for code, dialect in dialects.DIALECTS.items():
        rule = RULES[code]
        assert rule.severity is Severity.WARNING
        assert any(word in rule.title for word in ("Python", "SQLite", "in-memory")), code
        assert dialect.hosts


# ----------------------------------------------------------------- the protocol major


def v2_doc(sequence: int, kind: str, payload: Any, **extra: Any) -> dict[str, Any]:
    return {
        "eventId": f"e{sequence}",
        "runId": "acme/run-1",
        "type": kind,
        "payload": payload,
        "timestamp": "2026-12-01T10:00:00Z",
        "sequence": sequence,
        "schemaVersion": 1,
        **extra,
    }


def test_a_v2_stream_is_read_as_v2(schemas: SchemaSet) -> None:
    started = v2_doc(0, "run.started", {"workflowId": "w"})
    # v2 requires schemaVersion: this event is a valid v1 document, a faulty v2 one.
    faulty = {k: v for k, v in v2_doc(1, "node.started", {"nodeId": "n"}).items()}
    del faulty["schemaVersion"]
    v1_name = v2_doc(2, "agent.toolCalled", {"agentId": "a", "toolName": "t", "callId": "c"})
    linter = lint(schemas, started, faulty, v1_name)
    assert linter.major is not None and linter.major[0] == 2
    assert "tenant-bound" in linter.major[1]
    found = {(f.sequence, f.code) for f in linter.findings}
    assert (1, "OW100") in found  # its missing schemaVersion
    assert (2, "OW102") in found  # a v1 name in a v2 stream
    # Told the major, the linter does not read the stream for it.
    told = lint(schemas, started, faulty, protocol=1)
    assert told.major is None and not any(f.code == "OW100" for f in told.findings)


@pytest.mark.parametrize(
    ("doc", "major"),
    [
        ({"type": "agent.tool-called", "runId": "r", "schemaVersion": 1}, 2),
        ({"type": "run.started", "runId": "r", "engineVersion": 3, "schemaVersion": 1}, 2),
        ({"type": "run.started", "runId": "r", "engineVersion": "3.1", "schemaVersion": 1}, 1),
        ({"type": "agent.toolCalled", "runId": "r", "schemaVersion": 1}, 1),
        ({"type": "run.started", "runId": "r"}, 1),  # v2 requires schemaVersion
        ({"type": "run.started", "runId": "r", "schemaVersion": 1}, None),
    ],
)
def test_what_tells_the_major(schemas: SchemaSet, doc: dict[str, Any], major: int | None) -> None:
    from openwop_tui.inspect.major import mark

    found = mark(doc, schemas)
    assert (found[0] if found else None) == major


# ----------------------------------------------------------------- names and hints


def envelope(kind: str, rendering: dict[str, Any] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"source": "ai-generation", "ts": "2026-12-01T10:00:00Z"}
    if rendering is not None:
        meta["rendering"] = rendering
    return {
        "type": kind,
        "envelopeId": "env_1",
        "correlationId": "corr_1",
        "payload": {"text": "hi"},
        "meta": meta,
    }


def completed(env: dict[str, Any], *, v2: bool = False, **outputs: Any) -> dict[str, Any]:
    payload = {"nodeId": "n", "outputs": {"envelope": env, **outputs}}
    if v2:
        return v2_doc(0, "node.completed", payload, nodeId="n", causationId="corr_1")
    return python_doc(0, "node.completed", payload, nodeId="n", causationId="corr_1")


@pytest.mark.parametrize(
    ("kind", "v2", "code"),
    [
        ("media.video", False, "OW206"),  # the protocol's family, a kind it does not define
        ("media.video", True, "OW206"),
        ("ui.chart", False, "OW206"),
        ("openwop.thing", False, "OW206"),
        ("foo.bar", False, "OW207"),  # no vendor namespace
        ("foo.bar", True, "OW207"),  # v2: org foo is not registered
        ("hologram", False, "OW207"),
        ("myndhyve.prd", False, "OW207"),  # a v2 org's form in a v1 stream
        ("prd.create", False, "OW208"),
        ("vendor.acme.prd", True, "OW209"),
    ],
)
def test_kinds_the_spec_does_not_define(schemas: SchemaSet, kind: str, v2: bool, code: str) -> None:
    found = by_code(lint(schemas, completed(envelope(kind), v2=v2)))
    assert code in found
    assert found[code].severity is RULES[code].severity
    assert found[code].path.endswith(".envelope.type")


@pytest.mark.parametrize(
    ("kind", "v2"),
    [
        ("media.image", False),
        ("ui.a2ui-surface", False),
        ("error", False),
        ("clarification.request", True),
        ("vendor.acme.prd", False),
        ("private.acme.prd", False),
        ("x-acme-globe", False),
        ("x-acme-globe", True),
        ("myndhyve.prd", True),  # a registered v2 org
    ],
)
def test_kinds_the_spec_allows(schemas: SchemaSet, kind: str, v2: bool) -> None:
    found = by_code(lint(schemas, completed(envelope(kind), v2=v2)))
    assert {"OW206", "OW207", "OW208", "OW209"}.isdisjoint(found), found


def test_a_media_event_of_a_kind_the_spec_does_not_define(schemas: SchemaSet) -> None:
    doc = python_doc(0, "media.video", {"url": "https://cdn.example/v.mp4", "bytes": 10})
    assert by_code(lint(schemas, doc))["OW206"].severity is Severity.ERROR


@pytest.mark.parametrize("value", [42, True, 1.5, ["image"], {"x": 1}])
def test_a_display_that_is_not_a_string_is_an_error(schemas: SchemaSet, value: Any) -> None:
    found = by_code(lint(schemas, completed(envelope("error", {"display": value}))))
    assert found["OW305"].severity is Severity.ERROR
    assert found["OW305"].path.endswith(".meta.rendering.display")
    assert "OW200" not in found  # said once, by its own rule
    # The same in a hint lifted out of its envelope, which no schema checks.
    lifted = completed(envelope("error"), rendering={"display": value})
    assert "OW305" in by_code(lint(schemas, lifted))


def test_other_hint_fields_and_the_hint_itself(schemas: SchemaSet) -> None:
    found = by_code(lint(schemas, completed(envelope("error", {"display": "code", "lang": 3}))))
    assert found["OW305"].path.endswith(".rendering.lang")
    lifted = completed(envelope("error"), rendering="markdown")
    assert "OW305" in by_code(lint(schemas, lifted))
    fine = completed(envelope("error", {"display": "code", "lang": "python"}))
    assert "OW305" not in by_code(lint(schemas, fine))


@pytest.mark.parametrize(
    ("display", "code"),
    [
        ("media.video", "OW306"),
        ("core.chart", "OW306"),
        ("video", "OW300"),
        ("acme.globe", "OW301"),
    ],
)
def test_displays_the_spec_does_not_define(schemas: SchemaSet, display: str, code: str) -> None:
    found = by_code(lint(schemas, completed(envelope("error", {"display": display}))))
    assert code in found and found[code].severity is RULES[code].severity
    assert {"OW300", "OW301", "OW306"} & set(found) == {code}


@pytest.mark.parametrize(
    ("kind", "v2", "code"),
    [
        ("openwop.thing", False, "OW109"),
        ("openwop.thing", True, "OW109"),
        ("foo.bar", True, "OW109"),  # v2: an org not in the registry
        ("vendor.acme.thing", True, "OW109"),  # v2: a pack namespace
        ("myndhyve.thing", True, "OW103"),
        ("foo.bar", False, "OW103"),  # v1: any vendor prefix (host-extensions.md)
        ("run.startde", False, "OW102"),
    ],
)
def test_event_types_outside_the_catalogue(
    schemas: SchemaSet, kind: str, v2: bool, code: str
) -> None:
    doc = v2_doc(0, kind, {}) if v2 else python_doc(0, kind, {})
    found = by_code(lint(schemas, doc))
    assert code in found and found[code].severity is RULES[code].severity
