"""The bundled schemas (`openwop_tui.inspect.schemas`): they load from the package, and the
compiled fast check never calls valid what jsonschema rejects (it only saves time: a value it
lets through is never walked again, so a disagreement there would hide findings)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import TESTS

from openwop_tui.inspect.log import observed_entries
from openwop_tui.inspect.schemas import PAYLOAD_DEFS, SOURCES, Schema, SchemaSet
from openwop_tui.store.record import read_recording

CAPTURES = TESTS / "data" / "captures"


@pytest.fixture(scope="module")
def schemas() -> SchemaSet:
    return SchemaSet()


def every_schema(schemas: SchemaSet) -> list[Schema]:
    found = [schemas.event_v1, schemas.event_v2, schemas.envelope]
    found += [s for kind in PAYLOAD_DEFS if (s := schemas.payload(kind)) is not None]
    found += [
        s for kind in ("media.image", "media.audio", "media.file") if (s := schemas.media(kind))
    ]
    return found


def test_every_bundled_file_loads_and_names_its_source(schemas: SchemaSet) -> None:
    assert len(every_schema(schemas)) == 3 + len(PAYLOAD_DEFS) + 3
    assert "run.started" in schemas.v1_types and "agent.tool-called" in schemas.v2_types
    assert all("openwop" in source or "constructed" in source for source in SOURCES.values())


def documents() -> list[Any]:
    docs: list[Any] = []
    for path in sorted(CAPTURES.glob("*.sse")):
        for observed in observed_entries(read_recording(path.read_text()).entries):
            if observed.event is not None:
                raw = observed.event.raw
                docs.append(raw)
                if isinstance(raw, dict):
                    docs.append(raw.get("payload"))
                    outputs = (raw.get("payload") or {}).get("outputs")
                    if isinstance(outputs, dict) and isinstance(outputs.get("envelope"), dict):
                        docs.append(outputs["envelope"])
                        docs.append(outputs["envelope"].get("payload"))
    return docs


def test_the_fast_check_agrees_on_every_captured_document(schemas: SchemaSet) -> None:
    checked = 0
    for doc in documents():
        for schema in every_schema(schemas):
            if schema.passes(doc):
                assert schema.validator.is_valid(doc), doc
                checked += 1
    assert checked > 50


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 2**40)
    | st.floats(allow_nan=False)
    | st.text(max_size=6)
    | st.sampled_from(["run.started", "media.image", "image", "2026-12-01T10:00:00Z"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "eventId",
                    "runId",
                    "payload",
                    "sequence",
                    "timestamp",
                    "url",
                    "base64",
                    "bytes",
                    "mimeType",
                    "meta",
                    "source",
                    "ts",
                    "envelopeId",
                    "correlationId",
                    "nodeId",
                    "display",
                    "x",
                ]
            ),
            inner,
            max_size=6,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_the_fast_check_never_accepts_what_jsonschema_rejects(
    schemas: SchemaSet, value: Any
) -> None:
    for schema in every_schema(schemas):
        if schema.passes(value):
            assert schema.validator.is_valid(value), value


def _counted_compiles(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count fastjsonschema compiles from here on."""
    from openwop_tui.inspect import schemas as module

    calls: list[int] = []
    compile_ = module.fastjsonschema.compile

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return compile_(*args, **kwargs)

    monkeypatch.setattr(module.fastjsonschema, "compile", counted)
    return calls


def test_a_schema_set_compiles_nothing_until_a_check_is_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 26, keys first: building the set compiled all 32 checks (130 ms on the event loop
    at a run's first event); now each is compiled at its first use, once."""
    calls = _counted_compiles(monkeypatch)
    fresh = SchemaSet()
    assert calls == []
    assert fresh.event_v1.passes({"type": "run.started"}) in (True, False)
    fresh.event_v1.passes({})
    assert len(calls) == 1


def test_warm_compiles_what_a_run_uses_so_its_events_compile_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After `warm` (the app runs it in a thread once the host is reached), linting a recorded
    chat run compiles no check on the way: the event loop does not."""
    from openwop_tui.inspect import schemas as module
    from openwop_tui.inspect.lint import Linter

    monkeypatch.setattr(module, "_SHARED", None)  # (a process's first warm, here)
    module.warm()
    calls = _counted_compiles(monkeypatch)
    linter = Linter()
    assert linter._schemas is module.shared()  # every linter shares the one set
    recording = read_recording((CAPTURES / "example-chat-markdown-debug.sse").read_text())
    for observed in observed_entries(recording.entries):
        if observed.event is not None:
            linter.feed(observed.event)
    assert calls == []
