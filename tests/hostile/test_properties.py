"""Property tests over the whole pipeline (issue 5, part 8): whatever a host sends, no exception
escapes and no control character, bidi override or secret reaches the output.

Each layer is tried on its own and then all together: the SSE decoder on arbitrary text in
arbitrary pieces, normalisation on arbitrary JSON, the fold on arbitrary events, every renderer on
arbitrary envelopes (drawn on a console, since a Rich renderable can fail when drawn, not only
when built), the ``render`` command on whole streams, and the app headless.
"""

from __future__ import annotations

import io
import json
from typing import Any

from hostile_data import (
    API_KEY,
    DISPLAYS,
    as_frame,
    envelopes,
    event_documents,
    hostile_text,
    json_values,
    leak,
    printed,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from render_helpers import render
from rich.console import Console

from openwop_tui.core.fold import Transcript
from openwop_tui.protocol.envelopes import extract_envelopes
from openwop_tui.protocol.events import EventShapeError, normalize
from openwop_tui.protocol.frames import decode_frame
from openwop_tui.protocol.sse import SSEDecoder
from openwop_tui.renderers import RenderContext
from openwop_tui.renderers.base import AudioSupport

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _frames(
    text: str, cuts: list[int], max_line_chars: int | None = None
) -> list[tuple[str, str | None, str | None, str]]:
    decoder = SSEDecoder() if max_line_chars is None else SSEDecoder(max_line_chars=max_line_chars)
    frames = []
    start = 0
    for cut in sorted(c % (len(text) + 1) for c in cuts):
        frames += decoder.feed(text[start:cut])
        start = max(start, cut)
    frames += decoder.feed(text[start:])
    frames += decoder.close()
    return [(f.event, f.id, f.problem, f.data) for f in frames]


@SETTINGS
@given(
    st.text(alphabet=st.sampled_from('data: {}"\\n\r\n:idevent1x\x00\ud800'), max_size=200),
    st.lists(st.integers(0, 400), max_size=6),
)
def test_the_decoder_gives_the_same_frames_however_the_text_is_cut(
    text: str, cuts: list[int]
) -> None:
    assert _frames(text, cuts) == _frames(text, [])


#: SSE lines as hosts send them, short and over the limit of 7, among random ones.
_sse_lines = st.lists(
    st.sampled_from(["", "", "data: x", "data:{}", "id: 1", "event: e", ": c", "retry: 5"])
    | st.just("data: " + "y" * 9)
    | st.text(alphabet=st.sampled_from("data: {}ie1x\x00"), max_size=12),
    max_size=30,
)


@SETTINGS
@given(_sse_lines, st.lists(st.integers(0, 400), max_size=6), st.sampled_from([None, 7]))
def test_lines_ending_in_lf_read_as_the_same_lines_ending_in_crlf(
    lines: list[str], cuts: list[int], limit: int | None
) -> None:
    text = "\n".join(lines)
    # A text of LF line ends alone takes the decoder's quick way; with CRLF, the careful one.
    assert _frames(text, cuts, limit) == _frames(text.replace("\n", "\r\n"), cuts, limit)


@SETTINGS
@given(json_values)
def test_normalising_any_json_raises_only_its_own_error(doc: Any) -> None:
    try:
        event = normalize(doc)
    except EventShapeError:
        return
    extract_envelopes(event)


@SETTINGS
@given(st.lists(event_documents, max_size=8), st.booleans())
def test_decoding_and_folding_never_raise_and_items_are_clean(
    docs: list[Any], ascii_only: bool
) -> None:
    transcript = Transcript()
    text = "".join(as_frame(doc, ascii_only) for doc in docs)
    decoder = SSEDecoder()
    for frame in [*decoder.feed(text), *decoder.close()]:
        result = decode_frame(frame, secrets=(API_KEY,))
        for event in result.events:
            transcript.apply(event)
    transcript.close_open()
    for item in transcript.items:
        for name in ("text", "tool_name", "status", "agent_id"):
            value = getattr(item, name, None)
            if isinstance(value, str):
                assert leak(value) is None, (name, value)


_CONTEXT = RenderContext(width=60, audio=AudioSupport(False, "no audio (test)"))


@SETTINGS
@given(envelopes, st.sampled_from(DISPLAYS), hostile_text)
def test_every_renderer_draws_any_envelope(
    obj: dict[str, Any], display: str | None, completion: str
) -> None:
    if display is not None:
        obj = {**obj, "meta": {"rendering": {"display": display, "title": completion}}}
    doc = {
        "type": "node.completed",
        "runId": "r",
        "sequence": 1,
        "payload": {"outputs": {"envelope": obj, "completion": completion}},
    }
    sink = io.StringIO()
    console = Console(file=sink, width=60, color_system=None, highlight=False)
    for envelope in extract_envelopes(normalize(doc, secrets=(API_KEY,))):
        rendered = render(envelope, _CONTEXT)
        console.print(rendered.title)
        console.print(rendered.body)
        if rendered.filename is not None:
            assert leak(rendered.filename) is None
    assert leak(sink.getvalue()) is None


@SETTINGS
@given(st.lists(event_documents, min_size=1, max_size=6), st.booleans(), st.booleans())
def test_the_render_command_prints_any_stream_cleanly(
    docs: list[Any], ascii_only: bool, color: bool
) -> None:
    text = "".join(as_frame(doc, ascii_only) for doc in docs)
    problem = leak(printed(text, color=color, width=80))
    assert problem is None, problem


@SETTINGS
@given(st.text(max_size=300))
def test_the_render_command_takes_any_text(text: str) -> None:
    # Printed, or refused as not SSE with a line naming what it holds: cleanly either way.
    assert leak(printed(text, refused=True)) is None


def test_a_document_nested_ten_thousand_deep_is_one_visible_problem() -> None:
    deep = "[" * 10_000 + "]" * 10_000
    doc = f'{{"type": "node.completed", "payload": {{"outputs": {{"envelope": {deep}}}}}}}'
    out = printed(f"event: node.completed\ndata: {doc}\n\n")
    assert leak(out) is None
    assert "node.completed" in out  # the event is named, not silently dropped
    nested = "{" + '"a": {' * 600 + "}" * 600 + "}"  # 600 deep objects parse, then must not hang
    out = printed(f'data: {{"type": "media.file", "payload": {nested}}}\n\n')
    assert leak(out) is None


def test_numbers_of_any_size_are_printed_or_refused_not_raised() -> None:
    huge = "9" * 5000
    doc = (
        '{"type": "media.image", "sequence": 1, "payload": {"url": "https://[x]/a.png", '
        f'"bytes": {huge}, "durationMs": {huge}, "confidence": {huge}, "mimeType": "image/png"}}}}'
    )
    frame = f"event: media.image\ndata: {doc}\n\n"
    decided = json.dumps(
        {"type": "agent.decided", "payload": {"confidence": float("nan"), "decision": 1e308 * 10}}
    )
    out = printed(frame + f"data: {decided}\n\n")
    assert leak(out) is None
