"""`plain_document`: a text it passes decodes (by orjson) to what `json.loads` makes of it and
`host_value` would copy unchanged, so the decoder may skip the copy; every kind of text the
copy would change is refused."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openwop_tui.protocol.events import normalize
from openwop_tui.protocol.frames import events_from_frame
from openwop_tui.protocol.hostdata import (
    MAX_DEPTH,
    NOT_PLAIN,
    KeyProbes,
    fragment_floor,
    host_value,
    mask,
    plain_document,
)

KEY = "sk-plain-0123456789abcdefghij"
SETTINGS = settings(
    max_examples=400, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)

_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    # Printable ASCII mostly (what passes), now and then anything (what must not), and now and
    # then a piece of the key.
    | st.text(
        st.characters(min_codepoint=32, max_codepoint=126) | st.sampled_from("\n\t"), max_size=30
    )
    | st.text(max_size=8)
    | st.sampled_from([KEY, KEY[2:20], KEY[: fragment_floor(KEY)], f"Bearer {KEY[:5]}"])
)
_documents = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=20,
)


@SETTINGS
@given(_documents, st.booleans())
def test_a_text_it_passes_decodes_to_what_cleaning_leaves_unchanged(
    doc: object, ascii: bool
) -> None:
    text = json.dumps(doc, ensure_ascii=ascii)
    decoded = plain_document(text, (KEY,))
    if decoded is not NOT_PLAIN:
        assert decoded == json.loads(text)
        assert host_value(decoded, (KEY,)) == decoded


@pytest.mark.parametrize(
    "text",
    [
        '{"a": "\\u001b[31mred"}',  # an escape: a terminal control once decoded
        '{"a": "\x1b[31mred"}',  # a raw control character
        '{"a": "rub\x7fout"}',  # DEL: valid JSON raw, and a control all the same
        '{"a": "caf\u00e9"}',  # not ASCII (a homograph, a bidi control …)
        '{"a": "\\u202e"}',
        f'{{"a": "{KEY}"}}',  # the key, a long piece of its middle, its start after Bearer
        f'{{"a": "{KEY[3 : 3 + fragment_floor(KEY)]}"}}',
        f'{{"a": "Bearer {KEY[:4]}"}}',
        '{"a": 12345678901234567890}',  # past the clamp
        '{"a": -9223372036854775808}',
        '{"a": 1e999}',  # infinity once decoded
        '{"a": [1, 2E400]}',
        '{"a": NaN}',
        '{"a": -Infinity}',
        "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1),  # too deep
        '{"a": "\\r\\n"}',  # an escape of a character `clean` rewrites
        '{"a": "\\b"}',
        '{"a": "\\u0041"}',  # any character at all
        '{"a":\n1}',  # (a line break between tokens is harmless, but not printable)
    ],
)
def test_what_cleaning_would_change_is_refused(text: str) -> None:
    assert plain_document(text, (KEY,)) is NOT_PLAIN


def test_an_ordinary_event_passes_and_decodes_as_the_long_way_does() -> None:
    doc = {
        "eventId": "evt_bd539e7f58c63972a1fd",
        "runId": "run_cf38",
        "type": "output.chunk",
        "payload": {"nodeId": "bench", "chunk": "w4 ", "score": 0.5, "n": -3},
        "timestamp": "2026-12-02T10:28:58.211Z",
        "sequence": 5,
    }
    text = json.dumps(doc)
    assert plain_document(text, (KEY,)) == doc
    (quick,) = events_from_frame("messages", text, "5", secrets=(KEY,)).events
    slow = normalize(json.loads(text), frame_event="messages", frame_id="5", secrets=(KEY,))
    assert (quick, quick.raw, quick.piece) == (slow, slow.raw, slow.piece)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=4, max_size=64))
def test_every_text_the_mask_changes_holds_a_probe(secret: str) -> None:
    # Every piece of the key (its start, end, middle or all), as a host leaves one: alone,
    # after Bearer, cut with an ellipsis.
    probes = KeyProbes([secret])
    for start in range(len(secret)):
        for end in range(start + 1, len(secret) + 1):
            for before, after in [
                ("", ""),
                ("Bearer ", ""),
                ("auth: BEARER ", "…"),
                ("", "…"),
                ('"', " more"),
            ]:
                text = before + secret[start:end] + after
                if mask(text, (secret,)) != text:
                    assert probes.found(text), (start, end, before, after)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (f"{KEY[:4]} and {KEY[:4]}, then bEaReR {KEY[:4]}", True),  # only the last is after it
        (f"Bearer  {KEY[:4]}", False),  # two spaces: not what `mask` masks
        (f"{KEY[:4]} Bearer ", False),
        (f"{KEY[:4]}" * 1000 + f"Bearer {KEY[:3]}", False),
    ],
)
def test_the_bearer_probe_finds_the_key_start_right_after_bearer(text: str, found: bool) -> None:
    assert KeyProbes([KEY]).found(text) is found
    assert KeyProbes([KEY, "another-key-entirely"]).found(text) is found


@pytest.mark.parametrize(
    "text",
    [
        '{"a": "two\\nlines\\tand a tab, \\"quoted\\", a \\\\ and a \\/"}',
        '{"a": "\\\\u0041 \\\\\\n"}',  # an escaped backslash, then "u0041"; then a line break
        "[" * MAX_DEPTH + "]" * MAX_DEPTH,  # as deep as is kept
        json.dumps({"messages": [{"role": "user", "content": f"turn {n}"} for n in range(99)]}),
    ],
)
def test_line_breaks_quotes_and_many_containers_pass(text: str) -> None:
    decoded = plain_document(text, (KEY,))
    assert decoded is not NOT_PLAIN
    assert decoded == json.loads(text) == host_value(decoded, (KEY,))


def test_no_escape_passes_when_the_key_holds_a_character_one_decodes_to() -> None:
    # The probes look at the text: "ab\/cd" holds the key "ab/cd…" once decoded, not as text.
    key = "abc/def/ghi/jkl/mno/"  # each probe holds a slash: an escaped one hides them all
    text = json.dumps({"a": key}).replace("/", "\\/")
    assert plain_document(text, (key,)) is NOT_PLAIN
    assert plain_document('{"a": "x\\ny"}', (key,)) is NOT_PLAIN
    assert plain_document('{"a": "x y"}', (key,)) == {"a": "x y"}
