"""A hint lifted beside a text reply (``outputs.rendering`` with ``outputs.completion`` and no
envelope object) keeps its alt and title, and the reply is shown once (issue 23 item 10).

Measured before: a streamed reply finalised with ``outputs.rendering {display: text, alt,
title}`` printed the reply twice (the turn, then an ``unknown display "text" · completion``
envelope holding the same text), and neither showed the alt or the title; sent whole (no
chunks), the envelope showed the text once but dropped the alt.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from installed import printing_env, run_installed

from openwop_tui.core.fold import AssistantTurn, EnvelopeItem, Transcript
from openwop_tui.core.items import Added
from openwop_tui.protocol.events import RunEvent, normalize

REPLY = "The answer is 42."
HINT = {"display": "text", "alt": "a short answer", "title": "Answer"}


def _event(seq: int, type_: str, payload: dict[str, Any]) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "eventId": f"e{seq}",
        "runId": "run_HINT",
        "type": type_,
        "payload": payload,
        "timestamp": f"2026-11-30T10:00:{seq:02d}.000Z",
        "sequence": seq,
    }
    if "nodeId" in payload:
        doc["nodeId"] = payload["nodeId"]
    return doc


def _run(*, streamed: bool, hint: dict[str, str]) -> list[dict[str, Any]]:
    docs = [
        _event(0, "run.started", {"workflowId": "w"}),
        _event(1, "node.started", {"nodeId": "n"}),
    ]
    if streamed:
        docs.append(_event(2, "output.chunk", {"nodeId": "n", "chunk": "The answer "}))
        docs.append(_event(3, "output.chunk", {"nodeId": "n", "chunk": "is 42."}))
    outputs = {"completion": REPLY, "rendering": hint}
    docs.append(_event(4, "node.completed", {"nodeId": "n", "outputs": outputs}))
    docs.append(_event(5, "run.completed", {}))
    return docs


def _fold(docs: list[dict[str, Any]]) -> list[Any]:
    transcript = Transcript()
    added: list[Any] = []
    for doc in docs:
        event = normalize(doc)
        assert isinstance(event, RunEvent)
        added += [c.item for c in transcript.apply(event) if isinstance(c, Added)]
    return added


@pytest.mark.parametrize("display", ["text", "code", "card"])
def test_a_streamed_reply_keeps_the_lifted_hint_and_is_one_item(display: str) -> None:
    items = _fold(_run(streamed=True, hint={**HINT, "display": display}))
    assert [i for i in items if isinstance(i, EnvelopeItem)] == []
    [turn] = [i for i in items if isinstance(i, AssistantTurn)]
    assert turn.text == REPLY and turn.final
    assert turn.hint is not None
    assert (turn.hint.alt, turn.hint.title, turn.hint.display) == (
        "a short answer",
        "Answer",
        display,
    )


def test_a_reply_sent_whole_is_the_hinted_envelope_alone() -> None:
    items = _fold(_run(streamed=False, hint=HINT))
    assert [i for i in items if isinstance(i, AssistantTurn)] == []
    [item] = [i for i in items if isinstance(i, EnvelopeItem)]
    assert item.envelope.alt == "a short answer" and item.envelope.text == REPLY


def _render(tmp_path: Path, docs: list[dict[str, Any]]) -> str:
    capture = tmp_path / "hint.sse"
    frames = (f"id: {d['sequence']}\nevent: {d['type']}\ndata: {json.dumps(d)}\n\n" for d in docs)
    capture.write_text("".join(frames), encoding="utf-8")
    return run_installed(["render", str(capture)], printing_env(tmp_path, columns=120)).stdout


@pytest.mark.parametrize("streamed", [True, False], ids=["streamed", "whole"])
def test_render_prints_the_reply_once_with_its_alt(tmp_path: Path, streamed: bool) -> None:
    out = _render(tmp_path, _run(streamed=streamed, hint={**HINT, "display": "code"}))
    assert out.count(REPLY) == 1
    assert "alt: a short answer" in out
