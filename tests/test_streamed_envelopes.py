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

import asyncio
import base64
import io
import json
from typing import Any

import pytest
from app_support import SIZE, connected, demo_app, plain, settle

from openwop_tui.__main__ import main
from openwop_tui.app import ChatApp
from openwop_tui.printer import INCOMPLETE
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.protocol.events import normalize
from openwop_tui.renderers.base import Rendered
from openwop_tui.transcript import Change, EnvelopeItem
from openwop_tui.widgets.envelope_view import FRAGMENT, EnvelopeView

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

#: A live region small enough that a few notices push the first fragment into the history.
LIVE_LIMIT = 2


def fold(app: ChatApp, stream: Stream) -> list[Change]:
    """Fold every event of ``stream`` into the app's transcript; the changes, to draw."""
    return [change for doc in stream.events for change in app.transcript.apply(normalize(doc))]


def notices(app: ChatApp, count: int) -> list[Change]:
    return [app.transcript.add_notice("info", f"filler {n}") for n in range(count)]


def history_text(app: ChatApp) -> str:
    """Every line the history draws, as text."""
    history = app.view.history
    return "\n".join(history.render_line(y).text for y in range(history.size.height))


def the_envelope(app: ChatApp) -> EnvelopeItem:
    (item,) = [item for item in app.transcript.items if isinstance(item, EnvelopeItem)]
    return item


async def first_fragment_in_history(pilot: Any, app: ChatApp) -> EnvelopeItem:
    """Draw a first fragment, then enough notices after it to retire it into the history."""
    app.view.live_limit = LIVE_LIMIT
    await app.view.apply(fold(app, Stream().fragment("em", 0, "first_fragment = 1", partial=True)))
    item = the_envelope(app)
    view = app.view.widget_for(item)
    assert isinstance(view, EnvelopeView)
    await settle(pilot, app, lambda: view.rendered is not None, what="the fragment drawn")
    await app.view.apply(notices(app, LIVE_LIMIT + 1))
    await settle(pilot, app, lambda: app.view.history.holds(item.id), what="fragment retired")
    await settle(pilot, app, lambda: "first_fragment" in history_text(app), what="drawn there")
    assert FRAGMENT in history_text(app)
    return item


async def test_app_redraws_a_fragment_in_the_history_when_its_emission_completes() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        item = await first_fragment_in_history(pilot, app)
        assert app.view.widget_for(item) is None
        await app.view.apply(
            fold(app, Stream().fragment("em", 1, "final_version = 2", partial=False))
        )
        await settle(
            pilot, app, lambda: "final_version = 2" in history_text(app), what="final drawn"
        )
        text = history_text(app)
        assert "first_fragment" not in text and FRAGMENT not in text
        assert text.count("final_version = 2") == 1  # replaced in place, not appended


async def test_app_history_ends_on_the_last_of_several_later_fragments() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await first_fragment_in_history(pilot, app)
        later = (
            Stream()
            .fragment("em", 1, "second_fragment = 2", partial=True)
            .fragment("em", 2, "third_fragment = 3", partial=True)
        )
        await app.view.apply(fold(app, later))
        await settle(pilot, app, lambda: "third_fragment" in history_text(app), what="drawn")
        text = history_text(app)
        assert "first_fragment" not in text and "second_fragment" not in text
        assert FRAGMENT in text  # still not complete


async def test_app_live_fragment_retires_only_once_its_latest_version_is_drawn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The completing fragment and the items that push it out arrive in one batch, and its
    # drawing is still under way (held here by a gate): the view must not hand the history the
    # first fragment's drawing meanwhile, which the final one could then never replace.
    app = demo_app()
    gate = asyncio.Event()
    original = app._rendered

    async def gated(envelope: Envelope) -> Rendered:
        if not envelope.partial:
            await gate.wait()
        return await original(envelope)

    monkeypatch.setattr(app, "_rendered", gated)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        app.view.live_limit = LIVE_LIMIT
        await app.view.apply(
            fold(app, Stream().fragment("em", 0, "first_fragment = 1", partial=True))
        )
        item = the_envelope(app)
        view = app.view.widget_for(item)
        assert isinstance(view, EnvelopeView)
        await settle(pilot, app, lambda: view.rendered is not None, what="the fragment drawn")
        final = Stream().fragment("em", 1, "final_version = 2", partial=False)
        await app.view.apply([*fold(app, final), *notices(app, LIVE_LIMIT + 1)])
        await pilot.pause()
        assert not view.settled and app.view.widget_for(item) is view
        assert not app.view.history.holds(item.id)
        gate.set()
        await settle(pilot, app, lambda: view.settled, what="the final version drawn live")
        assert "final_version = 2" in plain(view.to_renderable())
        assert view.rendered is not None and view.rendered.actions != ()
        await app.view.apply(notices(app, 1))  # the next change retires it
        await settle(pilot, app, lambda: app.view.history.holds(item.id), what="retired")
        await settle(pilot, app, lambda: "final_version" in history_text(app), what="drawn")
        assert "first_fragment" not in history_text(app)


async def test_app_live_fragment_is_redrawn_with_the_final_version() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await app.view.apply(
            fold(app, Stream().fragment("em", 0, "first_fragment = 1", partial=True))
        )
        item = the_envelope(app)
        view = app.view.widget_for(item)
        assert isinstance(view, EnvelopeView)
        await settle(pilot, app, lambda: view.rendered is not None, what="the fragment drawn")
        shown = plain(view.to_renderable())
        assert "first_fragment" in shown and FRAGMENT in shown
        await app.view.apply(
            fold(app, Stream().fragment("em", 1, "final_version = 2", partial=False))
        )
        await settle(
            pilot,
            app,
            lambda: "final_version" in plain(view.to_renderable()),
            what="the final version drawn",
        )
        shown = plain(view.to_renderable())
        assert "first_fragment" not in shown and FRAGMENT not in shown


async def test_app_history_redraws_any_item_updated_after_it_moved_there() -> None:
    # Not only envelopes: a tool call that returns again (same callId) after it was retired.
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        app.view.live_limit = LIVE_LIMIT
        call = {"agentId": "a", "toolName": "lookup", "callId": "c1"}
        tool = (
            Stream()
            .event("agent.toolCalled", {**call, "inputs": {}})
            .event("agent.toolReturned", {**call, "outcome": "first_outcome", "status": "ok"})
        )
        await app.view.apply([*fold(app, tool), *notices(app, LIVE_LIMIT + 1)])
        await settle(pilot, app, lambda: "first_outcome" in history_text(app), what="retired")
        again = Stream().event(
            "agent.toolReturned", {**call, "outcome": "second_outcome", "status": "ok"}
        )
        await app.view.apply(fold(app, again))
        await settle(pilot, app, lambda: "second_outcome" in history_text(app), what="redrawn")
        assert "first_outcome" not in history_text(app)
