"""The walk: every string a host sends, made hostile, through the whole print path.

Every captured stream in ``tests/data/captures`` and a constructed stream with every envelope
family and every event the fold understands are rewritten so that string leaves carry a salad of
terminal attacks (OSC 52 clipboard write, OSC title, CSI, 8-bit CSI, BEL, a bidi override,
markdown character references that decode to controls, a zero-width space, a lone surrogate, the
API key whole and cut). Each rewritten stream goes through the ``render`` command's path
(`openwop_tui.cli.render.print_entries`: SSE decoding, the fold, the printer and the renderers,
``--save-media`` into a temporary folder) on a colour console and a plain one, and then:

* the output holds no C0 control but newline, no C1, no bidi control, no surrogate, no key;
  on the colour console the only escapes allowed are the SGR sequences Rich writes for styling
  (a host's own ``ESC [ 31 m`` would show on the plain console, which must have no ESC at all);
* saved file names hold no control, bidi or zero-width character;
* every string in every item of the fold is clean and key-free (``RunEvent.wire`` excepted: it is
  the raw frame, kept for storage and never shown);
* the app's view lines (`openwop_tui.ui.transcript.blocks.Block.lines`, each item as the transcript
  view draws it, envelopes drawn by the same renderers) hold no control and no key: the view
  cleans nothing itself, it draws the `HostText` the boundary made;
* the Markdown export of the stream, stored as a session (`openwop_tui.present.export`), holds no
  control and no key either.

Strings are rewritten all at once (every leaf, and a hostile key added to every object), and one
at a time for the constructed stream, so a field whose own path misses cleaning is caught even
when others would mask it. This fails if `openwop_tui.protocol.hostdata.host_value` stops
cleaning or masking: a tool call's ``status`` and host numbers, for instance, are cleaned there
and nowhere else; `test_a_bypassed_boundary_is_caught` shows it does, for the view and the fold.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from paths import TESTS
from render_helpers import builtins, png, wav
from rich.console import Console

from openwop_tui.cli.output import Output
from openwop_tui.cli.render import print_entries
from openwop_tui.config import Config
from openwop_tui.core.conversation import Conversation
from openwop_tui.core.fold import EnvelopeItem, Transcript
from openwop_tui.draw.palette import Palette
from openwop_tui.present.envelope import draw, export_drawer, offline
from openwop_tui.present.export import export_session
from openwop_tui.protocol import hostdata
from openwop_tui.protocol.sse import parse_sse_text
from openwop_tui.renderers.base import AudioSupport, RenderContext
from openwop_tui.store.record import read_recording
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store
from openwop_tui.ui.transcript.blocks import Block

CAPTURES = TESTS / "data" / "captures"
KEY = "sk-walk-0123456789abcdefSECRET"
PARTS = [
    "\x1b]52;c;SGVsbG8=\x07",  # OSC 52: write the clipboard
    "\x1b]0;pwned\x07",  # OSC 0: retitle the window
    "\x1b[2J\x1b[31m",  # CSI: clear the screen, colour
    "\x9b31m",  # 8-bit CSI
    "\x07\x08\r",  # BEL, backspace, CR
    "\u202e",  # right-to-left override
    "&#x202e;",  # the same, as a markdown character reference
    "&rlm;",  # a bidi mark, as a named reference
    "&#27;[31m",  # ESC as a numeric reference
    "&#x9b;",  # C1 CSI as a reference
    "\u200b",  # zero-width space
    "\ud800",  # a lone surrogate
    f" Bearer {KEY} ",  # the key, echoed
]
SALAD = "".join(PARTS)
#: Appended last: a host that cuts what it echoes leaves the start of the key at the end.
CUT = f" Bearer {KEY[:12]}"
#: Fields whose value decides which path is taken: kept in the all-at-once rewrite, so that the
#: renderers for images, audio and files are reached, and rewritten one at a time instead.
STRUCTURAL = frozenset({"type", "display", "mimeType", "base64", "callId", "agentId", "nodeId"})

#: Rich's own styling: SGR only.
_SGR = re.compile(r"\x1b\[[0-9;]*m")
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_NAME_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)


def hostile(text: str) -> str:
    return text + SALAD + CUT


# -------------------------------------------------------------------------- the streams


def _node(seq: int, node: str, outputs: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "node.completed",
        "runId": "run_walk",
        "sequence": seq,
        "nodeId": node,
        "timestamp": "2026-01-01T00:00:00Z",
        "payload": {"nodeId": node, "outputs": outputs, "durationMs": 12},
    }


def _envelope(kind: str, payload: Any, rendering: dict[str, Any] | None) -> dict[str, Any]:
    meta = {"rendering": rendering} if rendering is not None else {}
    return {"type": kind, "envelopeId": f"env_{kind}", "payload": payload, "meta": meta}


def _event(seq: int, kind: str, payload: dict[str, Any], node: str = "n1") -> dict[str, Any]:
    return {"type": kind, "runId": "run_walk", "sequence": seq, "nodeId": node, "payload": payload}


def constructed() -> list[dict[str, Any]]:
    """One stream with every envelope family and every event type the fold draws."""
    image = base64.b64encode(png()).decode()
    audio = base64.b64encode(wav(0.1)).decode()
    pdf = base64.b64encode(b"%PDF-1.4 walk").decode()
    envelopes = [
        _envelope("vendor.x.md", {"markdown": "# Title\n\nSome *text* [a](http://e.com/x)"}, {
            "display": "markdown", "title": "Notes"}),
        _envelope("vendor.x.code", {"source": "print('hi')\n", "lang": "python"}, {
            "display": "code", "lang": "python", "title": "hi.py"}),
        _envelope("vendor.x.card", {"headline": "Done", "items": ["a", "b"]}, {
            "display": "card", "title": "Card"}),
        _envelope("media.image", {"base64": image, "bytes": 70, "mimeType": "image/png",
                                  "name": "chart.png"}, {
            "display": "image", "mimeType": "image/png", "title": "Chart", "alt": "A chart"}),
        _envelope("media.image", {"url": "https://e.com/a.png", "bytes": 9, "mimeType":
                                  "image/png"}, {"display": "image", "title": "Remote"}),
        _envelope("media.audio", {"base64": audio, "mimeType": "audio/wav", "name": "hi.wav",
                                  "durationSeconds": 0.1}, {"display": "audio", "title": "Hi"}),
        _envelope("media.file", {"base64": pdf, "mimeType": "application/pdf",
                                 "name": "invoice.pdf"}, {"display": "file", "title": "Invoice"}),
        _envelope("vendor.x.metrics", {"p50": 12, "tags": ["a"], "ok": True}, None),
        _envelope("vendor.x.holo", {"text": "fallback text"}, {"display": "hologram"}),
    ]  # fmt: skip
    return [
        _event(1, "run.started", {"workflowId": "walk"}),
        _event(2, "node.started", {"typeId": "demo.step"}),
        _event(3, "output.chunk", {"chunk": "Hello **there** ", "meta": {"model": "m1"}}),
        _event(4, "node.message", {"delta": "and `more`"}),
        _node(5, "n1", {"completion": "Hello **there** and `more`", "model": "m1"}),
        _event(6, "agent.reasoning.delta", {"agentId": "a1", "delta": "thinking"}),
        _event(7, "agent.reasoned", {"agentId": "a1", "reasoning": "thought"}),
        _event(8, "agent.toolCalled", {"callId": "c1", "agentId": "a1", "toolName": "search",
                                       "inputs": {"q": "cats"}}),
        _event(9, "agent.toolReturned", {"callId": "c1", "agentId": "a1", "status": "done",
                                         "outcome": {"hits": ["x"]}}),
        _event(10, "agent.toolReturned", {"callId": "c2", "toolName": "t", "error": {"m": "e"}}),
        _event(11, "agent.handoff", {"fromAgentId": "a1", "toAgentId": "a2", "reason": "r"}),
        _event(12, "agent.decided", {"agentId": "a2", "decision": {"go": "yes"},
                                     "confidence": 0.5}),
        _event(13, "provider.usage", {"provider": "p", "model": "m", "inputTokens": 3,
                                      "outputTokens": 4}),
        _event(14, "artifact.created", {"artifactId": "art", "artifactType": "t",
                                        "summary": "s"}),
        _event(15, "log.appended", {"level": "warn", "message": "careful"}),
        _event(16, "envelope.refusal", {"refusalText": "no"}),
        _event(17, "envelope.truncated", {"stopReason": "length"}),
        _event(18, "envelope.retry.attempted", {"attempt": 2, "reason": "bad"}),
        _node(19, "n2", {"envelope": envelopes}),
        _node(20, "n3", {"rendering": {"display": "code", "lang": "sh", "title": "t"},
                         "completion": "echo hi"}),
        _event(21, "media.file", {"base64": pdf, "mimeType": "application/pdf",
                                  "name": "direct.pdf", "rendering": {"title": "Direct"}}),
        _event(22, "node.suspended", {"kind": "approval", "config": {"title": "Approve?",
                                                                     "description": "d"}}),
        _event(23, "node.resumed", {}),
        _event(24, "node.failed", {"error": {"code": "E1", "message": "broke"}}),
        _event(25, "run.failed", {"error": {"code": "E2", "message": "all broke"},
                                  "failedNodeId": "n3"}),
        _event(26, "run.cancelled", {"reason": "user"}),
        _event(27, "run.completed", {"durationMs": 1234}),
    ]  # fmt: skip


Frame = tuple[str, str | None, Any]


def capture_frames(path: Path) -> list[Frame]:
    """(event, id, decoded data) of every frame of a capture that holds JSON."""
    frames: list[Frame] = []
    for frame in parse_sse_text(path.read_text(encoding="utf-8")):
        try:
            frames.append((frame.event, frame.id, json.loads(frame.data)))
        except ValueError:
            continue  # a deliberately broken frame: its notice is checked by the SSE tests
    return frames


def sse(frames: list[Frame]) -> str:
    """An SSE document; ``json.dumps`` escapes a surrogate as ``\\ud800``, as a host would."""
    out = []
    for event, frame_id, doc in frames:
        head = f"event: {event}\n" if event != "message" else ""
        ident = f"id: {frame_id}\n" if frame_id is not None else ""
        out.append(f"{head}{ident}data: {json.dumps(doc)}\n\n")
    return "".join(out)


# ------------------------------------------------------------------------- rewriting


def rewrite_all(value: Any, key: str | None = None) -> Any:
    """Every string leaf made hostile (structural fields kept), a hostile key in every object."""
    if isinstance(value, str):
        return value if key in STRUCTURAL else hostile(value)
    if isinstance(value, list):
        return [rewrite_all(item) for item in value]
    if isinstance(value, dict):
        out = {k: rewrite_all(v, k) for k, v in value.items()}
        out[SALAD] = hostile("key")
        return out
    return value


def leaf_paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, str):
        yield path
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaf_paths(item, (*path, index))
    elif isinstance(value, dict):
        for name, item in value.items():
            yield from leaf_paths(item, (*path, name))


def rewrite_one(value: Any, path: tuple[Any, ...]) -> Any:
    if not path:
        return hostile(value)
    copy = list(value) if isinstance(value, list) else dict(value)
    copy[path[0]] = rewrite_one(value[path[0]], path[1:])
    return copy


# ------------------------------------------------------------------------- the checks


def strings_of(value: Any) -> Iterator[str]:
    """Every string reachable from a fold item (dataclasses, dicts, lists), ``wire`` aside."""
    stack, seen = [value], set()
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
            continue
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            for field in dataclasses.fields(item):
                # The raw frame, for storage, and a chunk's text with its edges left for the
                # fold to join (`RunEvent.piece`): neither is ever shown.
                if field.name not in ("wire", "piece"):
                    stack.append(getattr(item, field.name))


def assert_safe(text: str, where: str) -> None:
    found = _UNSAFE.search(text)
    assert found is None, (
        f"{where}: {found.group()!r} in {text[max(found.start() - 60, 0) :][:120]!r}"
    )
    assert KEY[:10] not in text, f"{where}: the API key is shown"


def render_stream(text: str, folder: Path, *, colour: bool) -> tuple[str, Transcript]:
    sink = io.StringIO()
    console = Console(
        file=sink,
        width=100,
        force_terminal=colour,
        color_system="truecolor" if colour else None,
        no_color=not colour,
        highlight=False,
        emoji=False,
    )
    output = Output(Config(api_key=KEY), console, save_dir=folder)
    conversation = Conversation(secrets=(KEY,), capture=True)
    printer = output.printer(audio=AudioSupport(False, "walk"), conversation=conversation)
    asyncio.run(print_entries(read_recording(text).entries, conversation, printer))
    return sink.getvalue(), conversation.transcript


def view_lines(transcript: Transcript) -> list[tuple[str, str]]:
    """(item type, line) for every line the app's transcript view draws of the fold's items:
    each item's `Block` drawn as the view draws it, envelopes by the built-in renderers."""
    console = Console(width=100, force_terminal=True, color_system="truecolor", emoji=False)
    palette = Palette.default()
    registry = builtins()
    context = RenderContext(width=96, audio=AudioSupport(False, "walk"))
    lines: list[tuple[str, str]] = []
    for item in transcript.items:
        block = Block(item)
        if isinstance(item, EnvelopeItem):
            block.rendered = asyncio.run(
                draw(item.envelope, registry, context, offline(), columns=100)
            )
        for strip in block.lines(console, 100, palette):
            lines.append((type(item).__name__, "".join(segment.text for segment in strip)))
    return lines


def export_markdown(frames: list[Frame], folder: Path) -> str:
    """The Markdown export of ``frames`` stored as one session's run (the API key configured)."""
    folder.mkdir(parents=True, exist_ok=True)
    with Store(folder / "walk.db", secrets=(KEY,)) as store:
        session = store.create(host="http://walk.example", workflow="walk")
        store.append(session, Entry("user", "walk"))
        store.append(session, Entry("run", run="r1", meta={"workflow": "walk"}))
        for event, _frame_id, doc in frames:
            store.append(session, Entry("frame", json.dumps(doc), run="r1", label=event))
        target = folder / "walk.md"
        export_session(store, session, "md", target, drawer=export_drawer(builtins()))
    return target.read_text(encoding="utf-8")


def check(frames: list[Frame], folder: Path, label: str, *, export: bool = True) -> None:
    text = sse(frames)
    for colour in (True, False):
        target = folder / ("colour" if colour else "plain")
        out, transcript = render_stream(text, target, colour=colour)
        if colour:
            out = _SGR.sub("", out)
        assert_safe(out, f"{label}, {'colour' if colour else 'plain'} output")
        for item in transcript.items:
            for string in strings_of(item):
                assert_safe(string, f"{label}, fold item {type(item).__name__}")
        if target.exists():
            for saved in target.iterdir():
                assert _NAME_UNSAFE.search(saved.name) is None, f"{label}: saved as {saved.name!r}"
    for kind, line in view_lines(transcript):
        assert_safe(line, f"{label}, the app's view line of a {kind}")
    if export:
        assert_safe(export_markdown(frames, folder / "export"), f"{label}, Markdown export")


CAPTURE_FILES = sorted(CAPTURES.glob("*.sse"))


@pytest.mark.parametrize("path", CAPTURE_FILES, ids=[p.stem for p in CAPTURE_FILES])
def test_every_capture_with_every_string_hostile(path: Path, tmp_path: Path) -> None:
    frames = [(e, i, rewrite_all(doc)) for e, i, doc in capture_frames(path)]
    check(frames, tmp_path, path.stem)


def test_the_constructed_stream_with_every_string_hostile(tmp_path: Path) -> None:
    frames: list[Frame] = [("message", None, rewrite_all(doc)) for doc in constructed()]
    check(frames, tmp_path, "constructed")
    saved = sorted(p.name for p in (tmp_path / "plain").iterdir())
    assert len(saved) == 4  # chart.png, hi.wav, invoice.pdf, direct.pdf: saved, names cleaned


def _one_at_a_time() -> list[tuple[int, tuple[Any, ...]]]:
    return [(index, path) for index, doc in enumerate(constructed()) for path in leaf_paths(doc)]


ONE_AT_A_TIME = _one_at_a_time()


@pytest.mark.parametrize(
    ("index", "path"),
    ONE_AT_A_TIME,
    ids=[f"{i}:{'.'.join(map(str, p))}" for i, p in ONE_AT_A_TIME],
)
def test_each_string_of_the_constructed_stream_alone(
    index: int, path: tuple[Any, ...], tmp_path: Path
) -> None:
    docs = constructed()
    docs[index] = rewrite_one(docs[index], path)
    check([("message", None, doc) for doc in docs], tmp_path, f"event {index} at {path}")


def test_a_bypassed_boundary_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The boundary made to pass host strings through (a path that bypasses it): the app's
    # view then draws control bytes, since nothing above the boundary cleans host text again,
    # and the walk's check fails. Without this, a walk that cleaned everywhere would pass
    # whatever the boundary did.
    monkeypatch.setattr(hostdata, "clean", lambda text: text)
    frames: list[Frame] = [("message", None, rewrite_all(doc)) for doc in constructed()]
    _, transcript = render_stream(sse(frames), tmp_path / "out", colour=False)
    drawn = [(kind, line) for kind, line in view_lines(transcript) if _UNSAFE.search(line)]
    assert {"Notice", "ToolCall", "Reasoning"} <= {kind for kind, _ in drawn}
    with pytest.raises(AssertionError, match="bypassed, colour output"):
        check(frames, tmp_path / "walk", "bypassed", export=False)


def test_sse_labels_and_ids_are_hostile_too(tmp_path: Path) -> None:
    text = "".join(
        f"event: x{SALAD}\nid: 7{SALAD}\ndata: {json.dumps(doc)}\n\n" for doc in constructed()[:5]
    )
    text += f"data: {{not json {SALAD}\n\n"  # a broken frame's notice quotes it
    for colour in (True, False):
        out, _ = render_stream(text, tmp_path / str(colour), colour=colour)
        assert_safe(_SGR.sub("", out) if colour else out, "labels")


@pytest.mark.parametrize(
    "doc",
    [
        _node(1, "n", {"envelope": _envelope("media.image", {"url": "https://[x]/a.png"}, None)}),
        _event(1, "run.completed", {"durationMs": 10**300}),
        _event(1, "media.file", {"base64": "eA==", "bytes": 10**300, "name": "n"}),
        _event(1, "agent.decided", {"confidence": 10**300, "decision": "d"}),
        _event(1, "output.chunk", {"chunk": "lone \ud800 surrogate"}),
        _node(
            1, "n", {"envelope": _envelope("vendor.deep", json.loads("[" * 600 + "]" * 600), None)}
        ),
    ],
    ids=["malformed-url", "huge-duration", "huge-bytes", "huge-confidence", "surrogate", "deep"],
)
def test_values_that_used_to_crash_print_fine(doc: dict[str, Any], tmp_path: Path) -> None:
    check([("message", None, doc)], tmp_path, "crash")


def test_the_walk_sees_every_family() -> None:
    # Guard against a rewrite that silently drops the paths it is meant to exercise.
    kinds: set[str] = set()
    stack: list[Any] = constructed()
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if isinstance(item.get("display"), str):
                kinds.add(item["display"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    assert {"markdown", "code", "card", "image", "audio", "file", "hologram"} <= kinds
