"""The envelope lint (`openwop_tui.inspect.lint`): each rule fires on the fault it names, and
stays silent on the valid shape next to it, so a rule that is removed or loosened fails here."""

from __future__ import annotations

import base64
import copy
from typing import Any

import pytest

from openwop_tui.inspect.findings import RULES, Severity
from openwop_tui.inspect.lint import LintConfig, Linter, has_errors, lint_events, summary
from openwop_tui.inspect.schemas import SchemaSet
from openwop_tui.protocol.events import RunEvent, normalize

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(32)
RUN = "run_1"


@pytest.fixture(scope="module")
def schemas() -> SchemaSet:
    return SchemaSet()


def event(sequence: int, kind: str, payload: dict[str, Any], **extra: Any) -> RunEvent:
    doc = {
        "eventId": f"evt_{sequence}",
        "runId": RUN,
        "type": kind,
        "payload": payload,
        "timestamp": f"2026-12-01T10:00:{sequence % 60:02d}.000Z",
        "sequence": sequence,
        **extra,
    }
    return normalize(doc)


def media_envelope(
    payload: dict[str, Any], rendering: dict[str, Any] | None = None, kind: str = "media.image"
) -> dict[str, Any]:
    meta: dict[str, Any] = {"source": "ai-generation", "ts": "2026-12-01T10:00:00Z"}
    if rendering is not None:
        meta["rendering"] = rendering
    return {
        "type": kind,
        "envelopeId": "env_1",
        "correlationId": "corr_1",
        "nodeId": "n",
        "payload": payload,
        "meta": meta,
    }


def completed(envelope: dict[str, Any], sequence: int = 1) -> RunEvent:
    return event(
        sequence,
        "node.completed",
        {"nodeId": "n", "outputs": {"envelope": envelope}},
        nodeId="n",
        causationId=envelope.get("correlationId", "corr_1"),
    )


GOOD_PNG = {"base64": base64.b64encode(PNG).decode(), "bytes": len(PNG), "mimeType": "image/png"}
GOOD_HINT = {"display": "image", "mimeType": "image/png", "alt": "one pixel"}


def codes(schemas: SchemaSet, *events: RunEvent, config: LintConfig | None = None) -> list[str]:
    linter = Linter(config, schemas=schemas)
    for item in events:
        linter.feed(item)
    return [f.code for f in linter.findings]


def test_a_valid_inline_image_has_no_findings(schemas: SchemaSet) -> None:
    assert codes(schemas, completed(media_envelope(GOOD_PNG, GOOD_HINT), 0)) == []


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"url": "https://cdn.example/a.png"}, "OW214"),  # url and base64 both
        ({"bytes": len(PNG) + 5}, "OW211"),  # misstated bytes
        ({"base64": "not*base64!"}, "OW213"),
        ({"mimeType": "image/jpeg"}, "OW220"),  # the type contradicts the data
        ({"base64": base64.b64encode(WAV).decode(), "bytes": len(WAV)}, "OW219"),  # family
        ({"mimeType": "text/csv"}, "OW221"),
        ({"extra": 1}, "OW202"),  # a key the schema does not allow
        ({"alt": "in the payload"}, "OW224"),
    ],
)
def test_each_media_fault_has_its_code(
    schemas: SchemaSet, change: dict[str, Any], code: str
) -> None:
    found = codes(schemas, completed(media_envelope({**GOOD_PNG, **change}, GOOD_HINT), 0))
    assert code in found


def test_missing_bytes_and_missing_type(schemas: SchemaSet) -> None:
    payload = {"url": "https://cdn.example/a.png"}
    found = codes(schemas, completed(media_envelope(payload, {"display": "image", "alt": "x"}), 0))
    assert "OW212" in found and "OW222" in found


def test_inline_over_the_hosts_cap(schemas: SchemaSet) -> None:
    big = bytes(PNG) + bytes(2000)
    payload = {"base64": base64.b64encode(big).decode(), "bytes": len(big), "mimeType": "image/png"}
    envelope = completed(media_envelope(payload, GOOD_HINT), 0)
    assert "OW210" in codes(schemas, envelope, config=LintConfig(max_inline_bytes=1000))
    assert "OW210" not in codes(schemas, envelope, config=LintConfig(max_inline_bytes=10_000))


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("file:///etc/passwd", "OW216"),
        ("http://10.20.30.40/chart.png", "OW216"),
        ("/v1/host/sample/assets/tok", "OW217"),
    ],
)
def test_urls_under_the_clients_policy(schemas: SchemaSet, url: str, code: str) -> None:
    payload = {"url": url, "bytes": 10, "mimeType": "image/png"}
    assert code in codes(schemas, completed(media_envelope(payload, GOOD_HINT), 0))


def test_a_public_https_url_passes_and_the_hosts_own_http_does_with_host(
    schemas: SchemaSet,
) -> None:
    public = {"url": "https://cdn.example/a.png", "bytes": 10, "mimeType": "image/png"}
    assert codes(schemas, completed(media_envelope(public, GOOD_HINT), 0)) == []
    own = {"url": "http://127.0.0.1:8080/a.png", "bytes": 10, "mimeType": "image/png"}
    envelope = completed(media_envelope(own, GOOD_HINT), 0)
    assert "OW216" in codes(schemas, envelope)
    assert codes(schemas, envelope, config=LintConfig(base_url="http://127.0.0.1:8080")) == []


def test_advertised_size_over_the_download_limit(schemas: SchemaSet) -> None:
    payload = {"url": "https://cdn.example/a.png", "bytes": 50_000_000, "mimeType": "image/png"}
    assert "OW218" in codes(schemas, completed(media_envelope(payload, GOOD_HINT), 0))


def test_fetched_bytes_are_checked_when_the_caller_has_them(schemas: SchemaSet) -> None:
    payload = {"url": "https://cdn.example/a.png", "bytes": 10, "mimeType": "image/png"}
    linter = Linter(schemas=schemas, assets=lambda url: b"plain text, not a PNG")
    found = [f.code for f in linter.feed(completed(media_envelope(payload, GOOD_HINT), 0))]
    assert "OW220" in found and "OW211" in found


@pytest.mark.parametrize(
    ("rendering", "code"),
    [
        ({"display": "hologram", "alt": "x"}, "OW300"),
        ({"display": "acme.hologram", "alt": "x"}, "OW301"),
        ({"display": "code", "alt": "x"}, "OW302"),  # the hint contradicts the type
        ({"display": "image"}, "OW303"),  # no alt
        ({"display": "image", "alt": "x", "colour": "red"}, "OW202"),
    ],
)
def test_hint_rules(schemas: SchemaSet, rendering: dict[str, Any], code: str) -> None:
    found = codes(schemas, completed(media_envelope(GOOD_PNG, rendering), 0))
    assert code in found
    if code in ("OW300", "OW301"):
        assert "OW200" not in found  # the enum failure is the display rule's, not a schema error


def test_media_hint_without_media_and_vendor_kind_with_data(schemas: SchemaSet) -> None:
    empty = media_envelope({"caption": "x"}, {"display": "image", "alt": "x"}, "vendor.acme.snap")
    assert "OW304" in codes(schemas, completed(empty, 0))
    both = media_envelope(
        {**GOOD_PNG, "url": "https://cdn.example/a.png"},
        {"display": "image", "alt": "x"},
        "vendor.acme.snap",
    )
    assert "OW214" in codes(schemas, completed(both, 0))


def test_kinds_the_host_does_not_advertise(schemas: SchemaSet) -> None:
    envelope = completed(media_envelope(GOOD_PNG, GOOD_HINT), 0)
    assert "OW203" not in codes(schemas, envelope)  # the host's list is not known
    listed = LintConfig(supported_envelopes=frozenset({"media.image"}))
    assert "OW203" not in codes(schemas, envelope, config=listed)
    other = LintConfig(supported_envelopes=frozenset({"media.audio"}))
    assert "OW203" in codes(schemas, envelope, config=other)


def test_envelope_schema_and_causation(schemas: SchemaSet) -> None:
    envelope = media_envelope(GOOD_PNG, GOOD_HINT)
    del envelope["correlationId"]
    assert "OW200" in codes(schemas, completed(envelope, 0))
    envelope = media_envelope(GOOD_PNG, GOOD_HINT)
    unrelated = event(
        0, "node.completed", {"nodeId": "n", "outputs": {"envelope": envelope}}, causationId="x"
    )
    assert "OW105" in codes(schemas, unrelated)


def test_event_schema_payload_schema_and_types(schemas: SchemaSet) -> None:
    assert codes(schemas, event(0, "run.started", {"workflowId": "w"})) == []
    assert "OW101" in codes(schemas, event(0, "run.started", {"inputs": {}}))
    assert "OW101" in codes(
        schemas,
        event(0, "artifact.created", {"artifactId": "a", "artifactType": "t", "version": 1}),
    )
    assert "OW102" in codes(schemas, event(0, "run.startde", {}))
    assert "OW103" in codes(schemas, event(0, "acme.thing", {}))
    shaped = normalize({"seq": 0, "runId": RUN, "type": "run.started", "timestamp": "x"})
    found = codes(schemas, shaped)
    # The in-memory host's dialect, read as what it means (its own codes, not OW100/OW202).
    assert {"OW120", "OW124", "OW125", "OW106"} <= set(found)
    assert {"OW100", "OW202"}.isdisjoint(found)
    extra = normalize({**copy.deepcopy(shaped.raw), "colour": "red"})
    assert "OW202" in codes(schemas, extra)


def test_a_valid_v2_event_is_valid(schemas: SchemaSet) -> None:
    doc = event(0, "agent.tool-called", {"agentId": "abc", "toolName": "t", "callId": "c"})
    assert "OW100" in codes(schemas, doc)  # v2 makes schemaVersion required
    v2 = event(
        0,
        "agent.tool-called",
        {"agentId": "abc", "toolName": "t", "callId": "c"},
        schemaVersion=1,
        engineVersion=3,
    )
    assert codes(schemas, v2) == []
    # A name both majors share, sent by a v2 host: invalid as v1 (engineVersion is a string
    # there), valid as v2, so valid.
    shared = event(0, "run.started", {"workflowId": "w"}, schemaVersion=1, engineVersion=3)
    assert codes(schemas, shared) == []
    assert "OW100" in codes(schemas, shared, config=LintConfig(protocol=1))


def test_sequence_rules(schemas: SchemaSet) -> None:
    first = event(0, "run.started", {"workflowId": "w"})
    gap = event(3, "log.appended", {"level": "info", "message": "m"})
    again = event(3, "log.appended", {"level": "info", "message": "m"})
    other = normalize({**copy.deepcopy(gap.raw), "eventId": "evt_other"})
    back = event(2, "log.appended", {"level": "info", "message": "m"})
    end = event(4, "run.completed", {})
    after = event(5, "log.appended", {"level": "info", "message": "m"})
    found = codes(schemas, first, gap, again, other, back, end, after)
    for code in ("OW110", "OW112", "OW113", "OW111", "OW116"):
        assert code in found, code
    assert "OW115" in codes(schemas, gap)


def test_a_sequence_gap_says_where_it_may_come_from(schemas: SchemaSet) -> None:
    linter = Linter(schemas=schemas)
    linter.feed(event(0, "run.started", {"workflowId": "w"}))
    linter.feed(event(3, "log.appended", {"level": "info", "message": "m"}))
    [gap] = [f for f in linter.findings if f.code == "OW110"]
    # Which events are missing, and the usual reason (a stream of some modes) before loss.
    assert gap.message.startswith("sequence 1 to 2 not in this stream (2 events)")
    assert "modes" in gap.message and "lost" in gap.message


def test_the_end_of_the_log(schemas: SchemaSet) -> None:
    linter = Linter(schemas=schemas)
    linter.feed(event(0, "run.started", {"workflowId": "w"}))
    assert [f.code for f in linter.finish()] == ["OW117"]
    linter = Linter(schemas=schemas)
    linter.feed(event(0, "run.started", {"workflowId": "w"}))
    linter.feed(event(1, "run.completed", {}))
    assert linter.finish() == []


def test_findings_are_data_and_kept_per_sequence(schemas: SchemaSet) -> None:
    linter = Linter(schemas=schemas)
    both = {**GOOD_PNG, "url": "https://cdn.example/a.png"}
    linter.feed(completed(media_envelope(both, GOOD_HINT), 7))
    (item,) = [f for f in linter.for_event(RUN, 7) if f.code == "OW214"]
    assert linter.for_event("another run", 7) == []
    assert item.run_id == RUN
    assert item.severity is Severity.ERROR
    assert item.path == "$.payload.outputs.envelope.payload"
    assert item.source == RULES["OW214"].source
    assert item.as_json()["sequence"] == 7
    assert has_errors(linter.findings) and summary(linter.findings)["codes"]["OW214"] == 1


def test_unreadable_frames_and_synthesized_events(schemas: SchemaSet) -> None:
    linter = Linter(schemas=schemas)
    assert [f.code for f in linter.problem("frame id 3: data is not valid JSON")] == ["OW107"]
    made = RunEvent("run.completed", {}, raw={"synthesized": True, "status": "completed"})
    assert linter.feed(made) == []


def test_hostile_values_never_raise_and_stay_printable(schemas: SchemaSet) -> None:
    nasty = "\x1b]52;c;ZXZpbA==\x07\u202e"
    payload = {"url": nasty, "base64": nasty, "bytes": "many", "mimeType": nasty}
    found = lint_events(
        [completed(media_envelope(payload, {"display": nasty, nasty: 1}), 0)], LintConfig()
    )
    assert found
    assert all("\x1b" not in f.message and "\u202e" not in f.message for f in found)


def test_one_finding_per_missing_key(schemas: SchemaSet) -> None:
    # jsonschema reports `required` once per missing key, each error naming the whole list.
    bare = normalize({"runId": RUN, "type": "run.started", "payload": {"workflowId": "w"}})
    missing = sorted(f.path for f in Linter(schemas=schemas).feed(bare) if f.code == "OW100")
    assert missing == ["$.sequence", "$.timestamp"]  # no eventId is a dialect: OW124


def test_a_refused_url_says_when_naming_the_host_would_change_it(schemas: SchemaSet) -> None:
    def message(url: str) -> str:
        payload = {"url": url, "bytes": 10, "mimeType": "image/png"}
        (refused,) = [
            f
            for f in Linter(schemas=schemas).feed(completed(media_envelope(payload, GOOD_HINT), 0))
            if f.code == "OW216"
        ]
        return refused.message

    assert "--host" in message("http://127.0.0.1:8080/a.png")
    assert "--host" not in message("file:///etc/passwd")


def test_streamed_envelopes_in_order_and_completed(schemas: SchemaSet) -> None:
    def piece(sequence: int, index: int, partial: bool) -> RunEvent:
        envelope = media_envelope(GOOD_PNG, GOOD_HINT)
        envelope["partial"] = {"isPartial": partial, "index": index, "total": -1}
        return completed(envelope, sequence)

    linter = Linter(schemas=schemas)
    for item in (piece(0, 0, True), piece(1, 1, True), piece(2, 2, False)):
        linter.feed(item)
    assert [f.code for f in [*linter.findings, *linter.finish()]] == ["OW117"]
    linter = Linter(schemas=schemas)
    for item in (piece(0, 0, True), piece(1, 2, True)):
        linter.feed(item)
    found = [f.code for f in [*linter.findings, *linter.finish()]]
    assert "OW205" in found and "OW204" in found


def test_voice_transcripts_are_untrusted(schemas: SchemaSet) -> None:
    said = {"text": "hi", "isFinal": True, "atMs": 1}
    assert "OW108" in codes(schemas, event(0, "voice.transcript", said))
    trusted = {**said, "contentTrust": "untrusted"}
    assert "OW108" not in codes(schemas, event(0, "voice.transcript", trusted))


def test_a_list_of_envelopes_needs_one_of_their_correlation_ids(schemas: SchemaSet) -> None:
    first, second = media_envelope(GOOD_PNG, GOOD_HINT), media_envelope(GOOD_PNG, GOOD_HINT)
    second["correlationId"] = "corr_2"
    payload = {"nodeId": "n", "outputs": {"envelope": [first, second]}}
    assert "OW105" not in codes(schemas, event(0, "node.completed", payload, causationId="corr_1"))
    assert "OW105" in codes(schemas, event(0, "node.completed", payload, causationId="other"))


def test_a_media_event_with_its_hint_beside_the_payload(schemas: SchemaSet) -> None:
    payload = {**GOOD_PNG, "rendering": GOOD_HINT}
    found = codes(schemas, event(0, "media.image", payload))
    assert "OW202" not in found and "OW303" not in found
