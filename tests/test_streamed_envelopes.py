"""Streamed envelopes end as their final version (protocol.md §4.3, rule E1).

An emission streamed in fragments shares one ``correlationId``; each fragment is a whole envelope
that replaces the one before, and the one with ``partial.isPartial: false`` completes it.

* ``render`` / ``run`` print a fragment only once its emission completed (the completing fragment
  is what is printed), or when the stream ends (the last fragment seen, marked incomplete), and
  keep transcript order around it;
* the app redraws the item wherever it lives: a live envelope widget, or the line-cached history
  it moved to while later items arrived (`test_app_*` below).

The recorded streams are built here, event by event, and go through the real command (`main`).
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from openwop_tui.__main__ import main
from openwop_tui.printer import INCOMPLETE

# ------------------------------------------------------------------------------- stream building


class Stream:
    """A recorded SSE stream, one event at a time, with increasing sequence numbers."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def event(self, type_: str, payload: dict[str, Any], node: str | None = None) -> Stream:
        doc: dict[str, Any] = {
            "type": type_,
            "runId": "run_s",
            "sequence": len(self.events),
            "payload": payload,
        }
        if node is not None:
            doc["nodeId"] = node
        self.events.append(doc)
        return self

    def fragment(
        self, emission: str, index: int, source: str, *, partial: bool | None, node: str = "n"
    ) -> Stream:
        """One envelope of an emission: a code block whose source is ``source``.

        ``partial=None`` sends it without a ``partial`` marker (an envelope sent whole).
        """
        envelope: dict[str, Any] = {
            "type": "vendor.x.snippet",
            "envelopeId": f"env_{emission}_{index}",
            "correlationId": emission,
            "payload": {"source": source},
            "meta": {"rendering": {"display": "code", "lang": "python", "title": emission}},
        }
        if partial is not None:
            envelope["partial"] = {"isPartial": partial, "index": index, "total": -1}
        outputs = {"envelope": envelope}
        return self.event("node.completed", {"nodeId": node, "outputs": outputs}, node)

    def log(self, message: str) -> Stream:
        return self.event("log.appended", {"level": "warn", "message": message})

    def reply(self, text: str, node: str = "r") -> Stream:
        self.event("output.chunk", {"nodeId": node, "chunk": text}, node)
        return self.event("node.completed", {"nodeId": node, "outputs": {"completion": text}}, node)

    def completed(self) -> Stream:
        return self.event("run.completed", {"outputs": {}})

    def sse(self) -> str:
        return "".join(
            f"id: {doc['sequence']}\nevent: {doc['type']}\ndata: {json.dumps(doc)}\n\n"
            for doc in self.events
        )


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    # No user config file, no host from the environment, no sound card probing.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("OPENWOP_BASE_URL", raising=False)
    monkeypatch.delenv("OPENWOP_API_KEY", raising=False)
    monkeypatch.setenv("OPENWOP_TUI_AUDIO", "off")
    monkeypatch.setenv("COLUMNS", "100")


def rendered(
    stream: Stream, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> str:
    """What ``openwop-tui render -`` prints for the stream."""
    monkeypatch.setattr("sys.stdin", io.StringIO(stream.sse()))
    assert main(["render", "-"]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return out


def order(out: str, *needles: str) -> list[int]:
    """Where each needle is in ``out``, each asserted to be there exactly once."""
    for needle in needles:
        assert out.count(needle) == 1, f"{needle!r} printed {out.count(needle)} times:\n{out}"
    return [out.index(needle) for needle in needles]


# ------------------------------------------------------------------------------ render / run


def test_render_prints_the_completing_fragment_not_the_first(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stream = (
        Stream()
        .fragment("em", 0, "first_fragment = 1", partial=True)
        .fragment("em", 1, "second_fragment = 2", partial=True)
        .fragment("em", 2, "final_version = 3", partial=False)
        .completed()
    )
    out = rendered(stream, monkeypatch, capsys)
    order(out, "final_version = 3")
    assert "first_fragment" not in out and "second_fragment" not in out
    assert INCOMPLETE.strip() not in out


def test_render_prints_the_last_fragment_marked_incomplete_when_the_stream_ends(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stream = (
        Stream()
        .fragment("em", 0, "first_fragment = 1", partial=True)
        .fragment("em", 1, "second_fragment = 2", partial=True)
        .log("after the fragments")
    )
    out = rendered(stream, monkeypatch, capsys)
    second, marker, log = order(out, "second_fragment = 2", INCOMPLETE.strip(), "after the")
    assert second < marker < log
    assert "first_fragment" not in out


def test_render_prints_a_completing_fragment_whose_first_never_arrived(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stream = (
        Stream()
        .fragment("em", 2, "final_version = 3", partial=False)
        .log("after the envelope")
        .completed()
    )
    out = rendered(stream, monkeypatch, capsys)
    envelope, log = order(out, "final_version = 3", "after the envelope")
    assert envelope < log
    assert INCOMPLETE.strip() not in out


def test_render_keeps_transcript_order_for_interleaved_emissions(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # a starts, b starts, other items, b completes, a completes: a, b, then the others.
    stream = (
        Stream()
        .fragment("alpha", 0, "alpha_first = 1", partial=True)
        .fragment("beta", 0, "beta_first = 1", partial=True)
        .log("between the emissions")
        .reply("A reply in the middle.")
        .fragment("beta", 1, "beta_final = 2", partial=False)
        .fragment("alpha", 1, "alpha_final = 2", partial=False)
        .completed()
    )
    out = rendered(stream, monkeypatch, capsys)
    positions = order(
        out, "alpha_final = 2", "beta_final = 2", "between the emissions", "A reply in the middle."
    )
    assert positions == sorted(positions), out
    assert "alpha_first" not in out and "beta_first" not in out


def test_run_against_the_demo_host_prints_the_streamed_code_block_once_complete(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from openwop_tui.demo_host.streamed import STREAMED_PY

    assert main(["run", "demo.chat", "--message", "stream", "--demo-pace", "0"]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    last_line = STREAMED_PY.rstrip().splitlines()[-1]
    order(out, "stream.py", last_line.strip())
    assert INCOMPLETE.strip() not in out
