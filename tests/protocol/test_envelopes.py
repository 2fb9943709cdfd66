"""Envelope extraction on the constructed rich-envelope stream (protocol.md §0, §4.2, §6)."""

from __future__ import annotations

import base64

import pytest
from paths import TESTS

from openwop_tui.protocol.envelopes import Envelope, extract_envelopes
from openwop_tui.protocol.events import RunEvent, normalize
from openwop_tui.protocol.frames import events_from_frame
from openwop_tui.protocol.sse import parse_sse_text

CAPTURES = TESTS / "data" / "captures"


def events_of(name: str) -> list[RunEvent]:
    events: list[RunEvent] = []
    for frame in parse_sse_text((CAPTURES / name).read_text(encoding="utf-8")):
        events.extend(events_from_frame(frame.event, frame.data, frame.id).events)
    return events


@pytest.fixture(scope="module")
def rich() -> dict[str, Envelope]:
    found: dict[str, Envelope] = {}
    for event in events_of("example-rich-envelopes.sse"):
        for envelope in extract_envelopes(event):
            assert envelope.node_id is not None
            found[envelope.node_id] = envelope
    return found


def test_all_envelopes_found_in_order(rich: dict[str, Envelope]) -> None:
    assert list(rich) == ["code", "chart", "dot", "tts", "summary", "report", "weird"]


def test_code(rich: dict[str, Envelope]) -> None:
    code = rich["code"]
    assert code.kind == "vendor.acme.snippet"
    assert code.display == "code"
    assert (code.rendering.lang, code.rendering.title) == ("python", "hello.py")
    assert code.text == "print('hello, terminal')\n"
    assert code.media is None


def test_image_by_url(rich: dict[str, Envelope]) -> None:
    chart = rich["chart"]
    assert (chart.kind, chart.display, chart.mime_type) == ("media.image", "image", "image/png")
    assert chart.media is not None
    assert chart.media.url is not None
    assert chart.media.url.startswith("https://api.example.com/v1/host/sample/assets/")
    assert chart.media.bytes == 184320
    assert chart.media.base64 is None
    assert chart.rendering.alt == "Bar chart of Q3 revenue by region"


def test_inline_image(rich: dict[str, Envelope]) -> None:
    dot = rich["dot"]
    assert dot.media is not None and dot.media.base64 is not None
    png = base64.b64decode(dot.media.base64)
    assert png.startswith(b"\x89PNG") and len(png) == dot.media.bytes == 70
    assert dot.rendering.alt == "A single red pixel"


def test_audio(rich: dict[str, Envelope]) -> None:
    tts = rich["tts"]
    assert (tts.kind, tts.display, tts.mime_type) == ("media.audio", "audio", "audio/wav")
    assert tts.media is not None
    assert tts.media.duration_seconds == pytest.approx(0.01)
    assert base64.b64decode(tts.media.base64 or "").startswith(b"RIFF")


def test_card(rich: dict[str, Envelope]) -> None:
    card = rich["summary"]
    assert card.display == "card"
    assert card.rendering.title == "Deployment summary"
    assert card.payload == {
        "headline": "Deploy succeeded",
        "items": ["3 services updated", "0 errors"],
    }
    assert card.text is not None and card.text.startswith("**Deploy succeeded**")


def test_file_with_relative_url(rich: dict[str, Envelope]) -> None:
    report = rich["report"]
    assert report.display == "file"
    assert report.media is not None
    assert report.media.url == "/v1/host/sample/assets/Pk2Wn8sLx4TqV0bZr7Yc1Md9Ga3Hf6Ju5Ee2Oi8Ut0Q"
    assert report.media.name == "q3-report.pdf"
    assert report.mime_type == "application/pdf"


def test_unknown_display_is_kept_for_the_fallback(rich: dict[str, Envelope]) -> None:
    weird = rich["weird"]
    assert weird.display == "hologram"  # the registry resolves unknown values to raw JSON
    assert weird.text is not None and "fell back" in weird.text


def test_source_event_and_ids_are_kept(rich: dict[str, Envelope]) -> None:
    chart = rich["chart"]
    assert chart.source.type == "node.completed"
    assert chart.source.sequence == 4
    assert chart.envelope_id == "env_i1"
    assert chart.correlation_id == chart.source.causation_id == "run_01JDX4MEDIA004:chart:0:i1"
    assert chart.key == "env_i1"  # de-duplication is by envelope id, not correlation id
    assert isinstance(chart.document, dict) and chart.document["type"] == "media.image"


def test_list_envelopes_without_ids_keep_distinct_keys() -> None:
    event = normalize(
        {
            "type": "node.completed",
            "runId": "r",
            "sequence": 9,
            "causationId": "shared",
            "payload": {"nodeId": "n", "outputs": {"envelope": [{"type": "a"}, {"type": "b"}]}},
        }
    )
    first, second = extract_envelopes(event)
    assert first.correlation_id == second.correlation_id == "shared"
    assert first.key != second.key


def test_lifted_hint_without_envelope_object() -> None:
    event = normalize(
        {
            "type": "node.completed",
            "sequence": 3,
            "runId": "r",
            "nodeId": "n",
            "payload": {
                "outputs": {
                    "completion": "SELECT 1;",
                    "rendering": {"display": "code", "lang": "sql", "title": 7},
                }
            },
        }
    )
    [envelope] = extract_envelopes(event)
    assert envelope.kind == "completion"
    assert envelope.display == "code"
    assert envelope.rendering.lang == "sql"
    assert envelope.rendering.title is None  # not a string: dropped
    assert envelope.text == envelope.payload == "SELECT 1;"
    assert envelope.source is event


def test_markdown_completion_is_turn_text_not_an_envelope() -> None:
    events = events_of("example-chat-markdown-debug.sse")
    assert [env for e in events for env in extract_envelopes(e)] == []


def test_events_without_envelopes() -> None:
    for name in ("python-host-multi-node.sse", "sqlite-host-approval-accept.sse"):
        assert [env for e in events_of(name) for env in extract_envelopes(e)] == []
