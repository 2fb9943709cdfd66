"""The host-data boundary (`openwop_tui.protocol.hostdata`) and every place host JSON enters.

Each test here fails if the boundary stops doing one of its jobs: cleaning strings and keys,
masking the API key (whole or cut), clamping numbers, bounding depth and size, never raising.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import httpx
import pytest
from client_support import KEY, answer, make_client

from openwop_tui.protocol.client import HostError
from openwop_tui.protocol.events import normalize
from openwop_tui.protocol.frames import events_from_frame
from openwop_tui.protocol.hostdata import INT_MAX, MASK, TOO_DEEP, host_value, mask
from openwop_tui.protocol.stream_items import StreamNotice

#: Anything a terminal would act on, or that reorders text, or cannot be encoded.
UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
HOSTILE = "\x1b]52;c;SGVsbG8=\x07\x1b]0;pwned\x07\x1b[2J\x9b31m\x07\u202e\ud800"


def strings(value: Any) -> list[str]:
    """Every string and key in a JSON value (iteratively: values here may be deep)."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            found.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def assert_clean(value: Any, secret: str | None = None) -> None:
    for text in strings(value):
        assert UNSAFE.search(text) is None, repr(text)
        if secret is not None:
            assert secret not in text and secret[:8] not in text, text


def test_strings_and_keys_are_cleaned_and_lone_surrogates_are_visible() -> None:
    out = host_value({HOSTILE: [HOSTILE, {"k": HOSTILE}], "plain": "ok"})
    assert_clean(out)
    assert out["plain"] == "ok"
    assert "<U+D800>" in out["␛]52;c;SGVsbG8=␇␛]0;pwned␇␛[2J<U+009B>31m␇<U+202E><U+D800>"][0]
    json.dumps(out).encode("utf-8")  # no surrogate left: encodable for the terminal and a file


def test_the_key_is_masked_everywhere_and_its_cut_prefix_at_the_end() -> None:
    doc = {
        "echo": f"Authorization: Bearer {KEY} was rejected",
        KEY: "as a key",
        "cut": f"header was Bearer {KEY[:9]}",
        "cut-with-dots": f"Bearer {KEY[:6]}...",
        "short": f"Bearer {KEY[:3]}",  # 3 characters: ordinary text, left alone
    }
    out = host_value(doc, (KEY,))
    assert_clean(out, KEY)
    assert out["echo"] == f"Authorization: Bearer {MASK} was rejected"
    assert out[MASK] == "as a key"
    assert out["cut"] == f"header was Bearer {MASK}"
    assert out["cut-with-dots"] == f"Bearer {MASK}..."
    assert out["short"] == f"Bearer {KEY[:3]}"
    assert mask("no key here", (KEY,)) == "no key here"


def test_numbers_are_clamped_and_non_finite_floats_become_none() -> None:
    huge = 10**5000  # what a host's 5,001-digit `bytes` becomes once the digit limit is raised
    out = host_value({"bytes": huge, "neg": -huge, "nan": math.nan, "inf": -math.inf, "f": 1.5})
    assert out == {"bytes": INT_MAX, "neg": -INT_MAX, "nan": None, "inf": None, "f": 1.5}
    assert f"{out['bytes'] / 1000:.2f}"  # the arithmetic the fold does no longer overflows
    assert host_value(True) is True  # a bool is not clamped into an int


def test_json_loads_with_many_digits_then_the_boundary(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setattr(sys, "get_int_max_str_digits", sys.get_int_max_str_digits)
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(6000)
    try:
        doc = json.loads('{"durationMs": ' + "9" * 5000 + ', "confidence": NaN}')
    finally:
        sys.set_int_max_str_digits(old)
    assert host_value(doc) == {"durationMs": INT_MAX, "confidence": None}


def test_depth_of_ten_thousand_is_cut_without_recursion() -> None:
    deep: Any = "bottom"
    for _ in range(10_000):
        deep = {"a": [deep]}
    out = host_value(deep, max_depth=32)
    depth, node = 0, out
    while isinstance(node, dict | list):
        node = node["a"] if isinstance(node, dict) else node[0]
        depth += 1
    assert depth == 32 and node == TOO_DEEP
    json.dumps(out)  # bounded: the standard encoder (recursive) copes


def test_cycles_and_huge_containers_cost_linear_work() -> None:
    loop: list[Any] = []
    loop.extend([loop, loop])  # a hand-built cycle: 2**48 paths without a budget
    out = host_value(loop, max_items=1000)
    assert len(strings(out)) < 1000
    wide = host_value(list(range(5000)), max_items=100)
    assert len(wide) == 101 and wide[-1] == "[4,900 more items not shown]"


def test_values_that_are_not_json_never_raise() -> None:
    class Weird:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    out = host_value({"w": Weird(), 3: (1, 2), "s": {1}})
    assert out == {"w": "[Weird value]", "3": [1, 2], "s": "[set value]"}


def test_normalize_cleans_payload_raw_and_ids_and_keeps_the_wire() -> None:
    doc = {
        "type": "agent.toolReturned",
        "runId": HOSTILE,
        "nodeId": HOSTILE,
        "sequence": 10**400,
        "payload": {"status": HOSTILE + KEY, "outcome": {HOSTILE: KEY[:12]}},
    }
    wire = json.dumps(doc)
    event = normalize(doc, frame_event=HOSTILE, secrets=(KEY,), wire=wire)
    assert_clean(event.payload, KEY)
    assert_clean(event.raw, KEY)
    for field in (event.run_id, event.node_id, event.frame_event):
        assert field is not None and UNSAFE.search(field) is None
    assert event.sequence == INT_MAX
    assert event.wire == wire  # exactly as received, for storage only


def test_a_frame_nested_deeper_than_json_loads_goes_is_a_problem() -> None:
    data = "[" * 100_000 + "]" * 100_000
    result = events_from_frame("message", data, "1")
    assert result.events == [] and "nested too deeply" in result.problems[0]


def test_a_deep_but_loadable_event_is_bounded() -> None:
    inner = "[" * 600 + "]" * 600
    data = '{"type": "node.completed", "payload": {"outputs": {"envelope": ' + inner + "}}}"
    (event,) = events_from_frame("message", data, "1").events
    assert TOO_DEEP in json.dumps(event.payload)


def test_problem_sentences_and_raw_text_are_masked_cleaned_and_cut() -> None:
    data = f"not json {HOSTILE} Bearer {KEY} " + "x" * 10_000
    result = events_from_frame(HOSTILE, data, HOSTILE, secrets=(KEY,))
    assert result.raw is not None and len(result.raw) < 4200
    for text in [*result.problems, result.raw]:
        assert UNSAFE.search(text) is None and KEY not in text


def test_a_key_cut_by_the_excerpt_is_masked_first() -> None:
    data = "x" * 70 + KEY + "y" * 50  # the 80-character excerpt cuts through the key
    (problem,) = events_from_frame("message", data, None, secrets=(KEY,)).problems
    assert KEY[:8] not in problem


def test_stream_notices_hold_only_printable_text() -> None:
    notice = StreamNotice("warning", HOSTILE, HOSTILE)
    assert UNSAFE.search(notice.message) is None
    assert notice.raw is not None and UNSAFE.search(notice.raw) is None


async def test_client_answers_are_cleaned_and_masked() -> None:
    body = {"runId": "r1", "status": HOSTILE, "outputs": {HOSTILE: f"echo {KEY}"}}
    async with make_client(answer(200, json.dumps(body))) as client:
        snapshot = await client.get_run("r1")
    assert_clean(snapshot, KEY)


async def test_discovery_is_cleaned() -> None:
    doc = {"protocolVersion": "1.0", "implementation": {"name": HOSTILE, "version": KEY}}
    async with make_client(answer(200, json.dumps(doc))) as client:
        found = await client.discover()
    assert found.implementation_name is not None
    assert UNSAFE.search(found.implementation_name) is None
    assert found.implementation_version == MASK
    assert_clean(found.raw, KEY)


async def test_error_bodies_mask_the_key_before_cutting() -> None:
    # A non-JSON body whose key straddles the 120-character excerpt.
    text = "z" * 110 + f"Bearer {KEY} and more"
    async with make_client(answer(500, text)) as client:
        with pytest.raises(HostError) as caught:
            await client.get_run("r1")
    assert KEY[:6] not in caught.value.message


async def test_error_codes_and_details_are_cleaned() -> None:
    body = {"error": HOSTILE, "message": f"bad key {KEY}", "details": {"got": KEY}}
    # Sent as JSON text: a lone surrogate can only travel escaped (`\ud800`).
    async with make_client(answer(400, json.dumps(body))) as client:
        with pytest.raises(HostError) as caught:
            await client.get_run("r1")
    error = caught.value
    assert_clean([error.message, error.code, error.details], KEY)


async def test_a_cut_error_body_ending_mid_key_is_masked() -> None:
    body = {"error": "bad_request", "message": f"header Bearer {KEY[:12]}"}
    async with make_client(answer(400, body)) as client:
        with pytest.raises(HostError) as caught:
            await client.get_run("r1")
    assert KEY[:8] not in caught.value.message


def test_transport_errors_quoting_the_key_are_masked() -> None:
    from openwop_tui.protocol.errors import error_for_exception

    error = error_for_exception(
        httpx.ConnectError(f"boom {KEY[:12]}"),
        action="x",
        base_url="http://h",
        origin="http://h",
        timeout=1,
        api_key=KEY,
    )
    assert KEY[:8] not in error.message
