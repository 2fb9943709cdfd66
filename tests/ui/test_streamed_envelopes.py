"""Streamed envelopes end as their final version (protocol.md §4.3, rule E1).

An emission streamed in fragments shares one ``correlationId``; each fragment is a whole envelope
that replaces the one before, and the one with ``partial.isPartial: false`` completes it.

* ``render`` / ``run`` print a fragment only once its emission completed (the completing fragment
  is what is printed), or when the stream ends (the last fragment seen, marked incomplete), and
  keep transcript order around it;
* the app redraws the item wherever it is in the transcript, even scrolled far up while later
  items arrived (`test_app_*` below).

The recorded streams are built here, event by event, and go through the real command (`main`).
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
from typing import Any

import pytest
from app_support import SIZE, all_rendered, connected, demo_app, on_screen, settle

from openwop_tui.__main__ import main
from openwop_tui.cli.printer import INCOMPLETE
from openwop_tui.core.fold import Change, EnvelopeItem
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.protocol.events import normalize
from openwop_tui.renderers.base import Rendered
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.transcript.blocks import FRAGMENT

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


def test_render_saves_no_bytes_of_an_emission_that_never_completed(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Rule E1: nothing is done with a fragment; saving its bytes would be doing something.
    data = base64.b64encode(b"family,count\nhalf,1\n").decode()
    envelope = {
        "type": "media.file",
        "envelopeId": "env_file_0",
        "correlationId": "em",
        "payload": {"base64": data, "bytes": 20, "mimeType": "text/csv", "name": "half.csv"},
        "meta": {"rendering": {"display": "file", "mimeType": "text/csv"}},
        "partial": {"isPartial": True, "index": 0, "total": 2},
    }
    stream = Stream().event("node.completed", {"nodeId": "n", "outputs": {"envelope": envelope}})
    folder = tmp_path / "media"
    monkeypatch.setattr("sys.stdin", io.StringIO(stream.sse()))
    assert main(["render", "-", "--save-media", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "half.csv" in out and INCOMPLETE.strip() in out
    assert not folder.exists() or not any(folder.iterdir())


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


# ------------------------------------------------------------------------------------- the app

#: Enough notices after an item to scroll it far out of the viewport.
FILLER = 80


def fold(app: ChatApp, stream: Stream) -> list[Change]:
    """Fold every event of ``stream`` into the app's transcript; the changes, to draw."""
    return [change for doc in stream.events for change in app.transcript.apply(normalize(doc))]


def notices(app: ChatApp, count: int) -> list[Change]:
    return [app.transcript.add_notice("info", f"filler {n}") for n in range(count)]


def the_envelope(app: ChatApp) -> EnvelopeItem:
    (item,) = [item for item in app.transcript.items if isinstance(item, EnvelopeItem)]
    return item


async def shown_at_top(pilot: Any, app: ChatApp) -> str:
    """Scroll to the top of the transcript (Home); what the view shows there once drawn."""
    app.view.action_first()
    await pilot.pause()  # painted: the view asks for what it shows
    await settle(pilot, app, lambda: all_rendered(app), what="the top drawn")
    return on_screen(app.view)


async def first_fragment_far_up(pilot: Any, app: ChatApp) -> EnvelopeItem:
    """Draw a first fragment, then enough notices after it to scroll it far up."""
    await app.view.apply(fold(app, Stream().fragment("em", 0, "first_fragment = 1", partial=True)))
    item = the_envelope(app)
    await settle(pilot, app, lambda: "first_fragment" in on_screen(app.view), what="drawn")
    assert FRAGMENT in app.view.text_of(item.id)
    await app.view.apply(notices(app, FILLER))
    await settle(pilot, app, lambda: "filler 79" in on_screen(app.view), what="followed")
    assert "first_fragment" not in on_screen(app.view)
    return item


async def test_app_redraws_a_fragment_far_up_when_its_emission_completes() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        item = await first_fragment_far_up(pilot, app)
        await app.view.apply(
            fold(app, Stream().fragment("em", 1, "final_version = 2", partial=False))
        )
        text = await shown_at_top(pilot, app)
        assert "first_fragment" not in text and FRAGMENT not in text
        assert text.count("final_version = 2") == 1  # replaced in place, not appended
        assert "[Copy]" in app.view.text_of(item.id)  # complete: its actions are back


async def test_app_ends_on_the_last_of_several_later_fragments() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await first_fragment_far_up(pilot, app)
        later = (
            Stream()
            .fragment("em", 1, "second_fragment = 2", partial=True)
            .fragment("em", 2, "third_fragment = 3", partial=True)
        )
        await app.view.apply(fold(app, later))
        text = await shown_at_top(pilot, app)
        assert "third_fragment" in text
        assert "first_fragment" not in text and "second_fragment" not in text
        assert FRAGMENT in text  # still not complete


async def test_a_late_drawing_of_an_older_fragment_never_replaces_the_final_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The first fragment's drawing is still under way (held here by a gate) when the completing
    # fragment arrives: whichever drawing lands last, the view must end on the final version.
    app = demo_app()
    gate = asyncio.Event()
    original = app.lab.rendered

    async def gated(envelope: Envelope, width: int, *how: Any, **more: Any) -> Rendered:
        if envelope.partial:
            await gate.wait()
        return await original(envelope, width, *how, **more)

    monkeypatch.setattr(app.lab, "rendered", gated)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await app.view.apply(
            fold(app, Stream().fragment("em", 0, "first_fragment = 1", partial=True))
        )
        item = the_envelope(app)
        block = app.view.block_for(item.id)
        assert block is not None
        await pilot.pause()
        final = Stream().fragment("em", 1, "final_version = 2", partial=False)
        await app.view.apply([*fold(app, final), *notices(app, 3)])
        gate.set()
        await settle(pilot, app, lambda: all_rendered(app), what="drawn")
        await settle(pilot, app, lambda: block.drawn is item.envelope, what="final drawn")
        assert "final_version = 2" in app.view.text_of(item.id)
        assert "first_fragment" not in app.view.text_of(item.id)
        assert block.rendered is not None and block.rendered.actions != ()


async def test_app_visible_fragment_is_redrawn_with_the_final_version() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await app.view.apply(
            fold(app, Stream().fragment("em", 0, "first_fragment = 1", partial=True))
        )
        item = the_envelope(app)
        await settle(pilot, app, lambda: "first_fragment" in on_screen(app.view), what="drawn")
        assert FRAGMENT in on_screen(app.view)
        await app.view.apply(
            fold(app, Stream().fragment("em", 1, "final_version = 2", partial=False))
        )
        await settle(pilot, app, lambda: "final_version" in on_screen(app.view), what="final drawn")
        shown = app.view.text_of(item.id)
        assert "first_fragment" not in shown and FRAGMENT not in shown


async def test_app_redraws_any_item_updated_after_it_scrolled_far_up() -> None:
    # Not only envelopes: a tool call that returns again (same callId) long after it was drawn.
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        call = {"agentId": "a", "toolName": "lookup", "callId": "c1"}
        tool = (
            Stream()
            .event("agent.toolCalled", {**call, "inputs": {}})
            .event("agent.toolReturned", {**call, "outcome": "first_outcome", "status": "ok"})
        )
        await app.view.apply(fold(app, tool))
        await settle(pilot, app, lambda: "first_outcome" in on_screen(app.view), what="drawn")
        await app.view.apply(notices(app, FILLER))
        await settle(pilot, app, lambda: "filler 79" in on_screen(app.view), what="followed")
        again = Stream().event(
            "agent.toolReturned", {**call, "outcome": "second_outcome", "status": "ok"}
        )
        await app.view.apply(fold(app, again))
        text = await shown_at_top(pilot, app)
        assert "second_outcome" in text and "first_outcome" not in text
