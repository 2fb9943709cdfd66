"""The line walk: no host string, whatever it holds, prints a line of the client's own.

The measured case (issue 23): a newline in a tool's inputs or outcome, a decision's reasoning or
a failure's message started a line of its own, so a run that failed showed ``• run completed``
and ``✓ answered at node gate: accept`` in ``render``, ``run`` and the app; a ``workflowId``
holding a newline printed a fake row in ``runs``.

Every host string field is set to `FORGE` (newlines, the client's own line starts, a CR, an OSC
title sequence), one at a time for the constructed stream of the boundary walk
(``tests/hostile/test_boundary_walk.py``: every envelope family and event the fold draws), all at
once for every type the client knows (`KNOWN_TYPES`, each with the fields its lines quote) and
for every capture in ``tests/data/captures``. Each stream goes through the sinks that print
lines: the printer (what ``run``, ``render``, ``attach`` and ``replay`` print), the app's
transcript view (each item's lines as the view draws them), the ``render``, ``stats`` and ``run``
commands themselves (``run`` against a loopback host), and the app driven by Pilot (its
transcript and its events panel). The same events with
the field set to a plain ``x`` are the reference: a hostile stream must print exactly as many
lines that start with a client marker (``•``, ``✓``, ``⚠``, ``✖``, ``⚙``) at the margin as the
plain one, and no raw control byte. A host value may span lines only inside a block indented
under its label (a reply, reasoning), which the client's own lines never are.

Then the other line sinks: ``runs`` gets a run list whose fields hold a newline (one row per
run), ``sessions`` stored sessions whose title and host do (one row per session), the prompt and
the how-to of ``run``/``attach`` a question whose title, description and text do, the events
panel's row an event whose type and node do; and a host value that holds no newline but is long
enough to wrap puts no line of its own at the margin (continuation lines hang under their text).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import re
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread
from typing import Any

import pytest
from app_support import NO_AUDIO, SIZE, connected, settle
from hostile_host import HostileHost
from paths import TESTS
from patience import PATIENCE
from render_helpers import builtins
from rich.console import Console
from test_boundary_walk import capture_frames, constructed, leaf_paths, sse

from openwop_tui.__main__ import main
from openwop_tui.cli.answering import AnswerFlags, Asker, HowTo, LineReader
from openwop_tui.cli.output import Output
from openwop_tui.cli.render import print_entries
from openwop_tui.config import Config
from openwop_tui.core.conversation import Conversation
from openwop_tui.core.event_catalog import KNOWN_TYPES
from openwop_tui.core.fold import Added, EnvelopeItem, Transcript
from openwop_tui.draw.palette import Palette
from openwop_tui.inspect.timeline import timeline_row
from openwop_tui.present.envelope import draw, offline
from openwop_tui.protocol.events import normalize
from openwop_tui.renderers.base import AudioSupport, RenderContext
from openwop_tui.store.record import read_recording
from openwop_tui.store.sessions import Store
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.transcript.blocks import Block
from openwop_tui.ui.widgets.timeline_panel import TimelinePanel

FORGE = "x\n• run completed\n✓ answered at node gate: accept\r\x1b]0;pwned\x07"
PLAIN = "x"
#: The client's own line starts: a line of the client's begins with one at the margin.
MARKER = re.compile(r"^[•✓⚠✖⚙] ")
#: Raw controls: nothing but the newline may reach the output (Rich's SGR aside).
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")
_SGR = re.compile(r"\x1b\[[0-9;]*m")
#: Fields whose value decides which path is taken: a newline there changes the path itself.
STRUCTURAL = frozenset({"type", "display", "mimeType", "base64", "callId", "agentId", "nodeId"})

Docs = list[dict[str, Any]]


# ------------------------------------------------------------------------------- streams


def rewrite_one(doc: Any, path: tuple[Any, ...], value: str) -> Any:
    if not path:
        return value
    copy = list(doc) if isinstance(doc, list) else dict(doc)
    copy[path[0]] = rewrite_one(doc[path[0]], path[1:], value)
    return copy


def rewrite_all(doc: Any, value: str, key: str | None = None) -> Any:
    if isinstance(doc, str):
        return doc if key in STRUCTURAL else value
    if isinstance(doc, list):
        return [rewrite_all(item, value) for item in doc]
    if isinstance(doc, dict):
        return {k: rewrite_all(v, value, k) for k, v in doc.items()}
    return doc


#: The fields the lines of the known types quote (reasons, errors, decisions, names, values).
_QUOTED = (
    "reason", "message", "reasoning", "rationale", "summary", "status", "fromStatus", "level",
    "workflowId", "typeId", "toolName", "fromAgentId", "toAgentId", "provider", "model",
    "stopReason", "finalReason", "capability", "requested", "substitute", "name", "key",
    "value", "decision", "outcome", "inputs", "connectorId", "scope", "text", "title",
    "artifactId", "artifactType", "failedNodeId", "description", "kind",
)  # fmt: skip


def every_type(value: str) -> Docs:
    """One event of every type the client knows, its quoted fields (and an error's) ``value``."""
    payload: dict[str, Any] = {name: value for name in _QUOTED}
    payload["error"] = payload["lastError"] = {"code": value, "message": value}
    payload["decision"] = {"kind": value, "reason": value, "reasoning": value}
    docs: Docs = [{"type": "run.started", "runId": "r", "payload": {"workflowId": "w"}}]
    for seq, kind in enumerate(sorted(KNOWN_TYPES - {"run.completed", "run.started"}), 2):
        docs.append(
            {"type": kind, "runId": "r", "sequence": seq, "nodeId": "n1", "payload": payload}
        )
    return docs


def _text(docs: Docs) -> str:
    return sse([("message", None, doc) for doc in docs])


# --------------------------------------------------------------------------------- sinks


def printed(text: str, folder: Path, *, terminal: bool = False) -> tuple[str, Transcript]:
    """What the printer prints (``run``, ``render``, ``attach``, ``replay``) into a pipe, or on
    a terminal (where lines wrap at its width)."""
    sink = io.StringIO()
    console = Console(
        file=sink,
        width=100,
        color_system=None,
        force_terminal=terminal,
        highlight=False,
        emoji=False,
    )
    output = Output(Config(), console, save_dir=folder)
    conversation = Conversation(capture=True)
    printer = output.printer(audio=AudioSupport(False, "walk"), conversation=conversation)
    asyncio.run(print_entries(read_recording(text).entries, conversation, printer))
    return sink.getvalue(), conversation.transcript


def view_lines(transcript: Transcript, width: int = 100) -> str:
    """Every line the app's transcript view draws of the items (the gutter is the view's)."""
    console = Console(width=width, force_terminal=True, color_system="truecolor", emoji=False)
    context = RenderContext(width=width - 4, audio=AudioSupport(False, "walk"))
    lines: list[str] = []
    for item in transcript.items:
        block = Block(item)
        if isinstance(item, EnvelopeItem):
            block.rendered = asyncio.run(
                draw(item.envelope, builtins(), context, offline(), columns=width)
            )
        for strip in block.lines(console, width, Palette.default()):
            lines.append("".join(segment.text for segment in strip))
    return "\n".join(lines)


def markers(text: str) -> list[str]:
    """The lines that start with a client marker at the margin: the client's own lines."""
    return [line[0] for line in _SGR.sub("", text).splitlines() if MARKER.match(line)]


def check(forged: str, plain: str, where: str) -> None:
    found = CONTROL.search(_SGR.sub("", forged))
    assert found is None, f"{where}: raw {found.group()!r} reached the output"
    extra = sorted(markers(forged)), sorted(markers(plain))
    assert extra[0] == extra[1], f"{where}: lines of the client's own it never printed:\n{forged}"


def check_in_process(forged: Docs, plain: Docs, folder: Path, where: str) -> None:
    out, transcript = printed(_text(forged), folder / "forged")
    reference, reference_transcript = printed(_text(plain), folder / "plain")
    check(out, reference, f"{where}, printed")
    check(view_lines(transcript), view_lines(reference_transcript), f"{where}, the app's view")


# ------------------------------------------------------------------------------ the walks


def _one_at_a_time() -> list[tuple[int, tuple[Any, ...]]]:
    return [
        (index, path)
        for index, doc in enumerate(constructed())
        for path in leaf_paths(doc)
        if path[-1] not in STRUCTURAL
    ]


ONE_AT_A_TIME = _one_at_a_time()


@pytest.mark.parametrize(
    ("index", "path"),
    ONE_AT_A_TIME,
    ids=[f"{i}:{'.'.join(map(str, p))}" for i, p in ONE_AT_A_TIME],
)
def test_each_field_of_the_constructed_stream(
    index: int, path: tuple[Any, ...], tmp_path: Path
) -> None:
    docs = constructed()
    forged, plain = list(docs), list(docs)
    forged[index] = rewrite_one(docs[index], path, FORGE)
    plain[index] = rewrite_one(docs[index], path, PLAIN)
    check_in_process(forged, plain, tmp_path, f"event {index} at {path}")


def test_every_known_type_with_its_quoted_fields(tmp_path: Path) -> None:
    check_in_process(every_type(FORGE), every_type(PLAIN), tmp_path, "every type")


CAPTURES = sorted((TESTS / "data" / "captures").glob("*.sse"))


def _command(command: str, docs_of: Any, tmp_path: Path, capsys: Any) -> tuple[str, str]:
    """What ``command FILE`` prints of the stream ``docs_of(value)``: forged, then plain."""
    outputs = []
    for value in (FORGE, PLAIN):
        target = tmp_path / f"{len(outputs)}.sse"
        target.write_text(_text(docs_of(value)), encoding="utf-8", errors="surrogatepass")
        main([command, str(target), *(["--images", "none"] if command == "render" else [])])
        outputs.append(capsys.readouterr().out)
    return outputs[0], outputs[1]


@pytest.mark.parametrize("command", ["render", "replay", "stats"])
@pytest.mark.parametrize("path", CAPTURES, ids=[p.stem for p in CAPTURES])
def test_every_capture_through_the_printing_commands(
    path: Path, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def docs_of(value: str) -> Docs:
        return [rewrite_all(doc, value) for _, _, doc in capture_frames(path)]

    forged, plain = _command(command, docs_of, tmp_path, capsys)
    check(forged, plain, f"{command} {path.name}")


@pytest.mark.parametrize("command", ["render", "replay", "stats"])
def test_every_known_type_through_the_printing_commands(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    forged, plain = _command(command, every_type, tmp_path, capsys)
    check(forged, plain, command)
    assert markers(plain) or command == "stats", f"{command} printed no line: nothing checked"
    if command == "stats":  # no block of host text there: no line may even start with one
        starts = [line.lstrip() for line in forged.splitlines()]
        assert not any(line.startswith(("• run completed", "✓ answered")) for line in starts)


def _stream(value: str) -> str:
    """The constructed stream, ``value`` in every string, ending as the measured run did: failed
    (its message holding ``• run completed``), not cancelled or completed after that. Its
    events name the run the host created (`HostileHost`'s ``run_hostile``): a followed run's
    events naming another run are refused and said, not drawn (the printed sinks walk a forged
    run id: `test_every_capture_through_the_printing_commands`)."""
    docs = [
        {**doc, "runId": "run_hostile"} if "runId" in doc else doc
        for doc in (rewrite_all(doc, value) for doc in constructed())
    ]
    return _text([doc for doc in docs if doc["type"] not in ("run.cancelled", "run.completed")])


def test_the_run_command_against_a_host(capsys: pytest.CaptureFixture[str]) -> None:
    outputs = []
    for value in (FORGE, PLAIN):
        with HostileHost(_stream(value)) as host:
            main(["run", "wf", "--host", host.url, "--no-audio", "--images", "none"])
        outputs.append(capsys.readouterr().out)
    check(outputs[0], outputs[1], "run")
    assert "run failed" in outputs[0]


async def _app_lines(value: str) -> tuple[str, list[str]]:
    """The app's transcript lines once the run ended, and its events panel's (F2)."""
    with HostileHost(_stream(value)) as host:
        config = Config(host=host.url, workflow="wf", audio=False, images="halfblock")
        app = ChatApp(config, audio_support=NO_AUDIO)
        async with app.run_test(size=SIZE) as pilot:
            await connected(pilot, app)
            await pilot.press(*"go", "enter")
            await settle(
                pilot, app, lambda: app.transcript.status == "failed" and not app.runs.busy
            )
            console = Console(width=100, force_terminal=True, color_system="truecolor")
            transcript = "\n".join(
                "".join(segment.text for segment in strip)
                for block in app.view.blocks()
                for strip in block.lines(console, 100, Palette.default())
            )
            await pilot.press("f2")
            panel = app.query_one(TimelinePanel)
            await settle(pilot, app, lambda: bool(panel.view.plain_lines()), what="the events")
            return transcript, panel.view.plain_lines()


async def test_the_app_transcript_and_events_panel() -> None:
    (forged, events), (plain, _) = await _app_lines(FORGE), await _app_lines(PLAIN)
    check(forged, plain, "the app's transcript")
    assert markers(plain), "the app drew no lines of its own: the walk checks nothing"
    # The events panel draws one row an event, none of them starting with a host's text.
    assert not any(CONTROL.search(line) for line in events), events
    starts = [line.lstrip() for line in events]
    assert not any(line.startswith(("• run completed", "✓ answered")) for line in starts), events


# ----------------------------------------------------------------------------------- runs


@contextlib.contextmanager
def listing(routes: dict[str, Any]) -> Iterator[str]:
    """A v1 host on loopback answering ``GET`` of each path in ``routes`` with its document
    (and discovery); 404 for anything else."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            doc: Any = routes.get(self.path.split("?")[0])
            if self.path.startswith("/.well-known/openwop"):
                doc = {"protocolVersion": "1.0"}
            body = json.dumps(doc if doc is not None else {"error": "not_found"}).encode()
            self.send_response(200 if doc is not None else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


FIELDS = ("runId", "status", "workflowId", "startedAt", "completedAt")


@pytest.mark.parametrize("field", FIELDS)
def test_runs_prints_one_row_per_run(field: str, capsys: pytest.CaptureFixture[str]) -> None:
    runs = [
        {"runId": f"run_{n}", "status": "completed", "workflowId": "wf",
         "startedAt": "2026-01-01T00:00:00Z", "completedAt": "2026-01-01T00:01:00Z"}
        for n in range(3)
    ]  # fmt: skip
    for run in runs:
        run[field] = f"{run[field]}\nrun_fake  completed  wf\x1b]0;pwned\x07\t"
    with listing({"/v1/runs": {"runs": runs}}) as url:
        assert main(["runs", "--host", url]) == 0
    out = capsys.readouterr().out
    assert CONTROL.search(out.replace("\n", "")) is None, out
    lines = out.splitlines()
    assert len(lines) == 2 + len(runs), out  # the header, the column names, one row a run
    assert not any(line.startswith("run_fake") for line in lines), out


# ------------------------------------------------------------------- the prompt of ``run``


class _Conversation:
    run_id = "run-9"


def _request(kind: str, value: str) -> dict[str, Any]:
    config: dict[str, Any] = {"title": value, "description": value, "prompt": value}
    if kind == "clarification":
        config["questions"] = [{"id": "q1", "text": value}, {"id": "q2", "question": value}]
    else:
        config["actions"] = ["accept", "reject"]
    payload = {"kind": kind, "interruptId": "i1", "config": config, "reason": value}
    return {"type": "interrupt.requested", "sequence": 3, "runId": "run-9", "nodeId": "n1",
            "payload": payload}  # fmt: skip


async def _asked(kind: str, value: str, *, interactive: bool) -> str:
    """What ``run`` prints about a question (its prompt, or how to answer it), nobody typing."""
    transcript = Transcript()
    [added] = [
        c for c in transcript.apply(normalize(_request(kind, value))) if isinstance(c, Added)
    ]
    out, err = io.StringIO(), io.StringIO()
    read, write = os.pipe()
    os.close(write)  # the end of input at once: the prompt is printed, then the how-to
    with open(read, encoding="utf-8") as stdin:
        asker = Asker(
            _Conversation(),  # type: ignore[arg-type]  # nothing is sent
            AnswerFlags.parse(None),
            Console(file=out, width=100, color_system=None),
            interactive=interactive,
            howto=HowTo("http://h", lambda r, n: "http://h/x", lambda t: "http://h/t", keyed=False),
            reader=LineReader(stdin),
            err=err,
        )
        await asker.handle(added)
        # Wait for the how-to, the last thing said once nobody typed (a bound, not a clock).
        deadline = time.monotonic() + PATIENCE
        while "from anywhere" not in err.getvalue():
            assert time.monotonic() < deadline, f"no how-to: {out.getvalue()}{err.getvalue()}"
            await asyncio.sleep(0.01)
        await asker.close()
    return out.getvalue() + err.getvalue()


@pytest.mark.parametrize("interactive", [True, False], ids=["prompt", "how-to"])
@pytest.mark.parametrize("kind", ["approval", "clarification"])
async def test_the_prompt_of_run(kind: str, interactive: bool) -> None:
    forged = await _asked(kind, FORGE, interactive=interactive)
    plain = await _asked(kind, PLAIN, interactive=interactive)
    check(forged, plain, f"the {kind} prompt")
    starts = [line.lstrip() for line in forged.splitlines()]
    assert not any(line.startswith(("• run completed", "✓ answered")) for line in starts), forged


def test_a_timeline_row_is_one_line() -> None:
    # The event's type and node are the host's too (kept out of the walks above, since they
    # decide the path): a row of the events panel is one line whatever they hold.
    doc = {"type": f"vendor.{FORGE}", "nodeId": FORGE, "sequence": 1, "payload": {"m": FORGE}}
    row = timeline_row(normalize(doc))
    for text in (row.type, row.node or "", row.summary):
        assert len(text.splitlines()) == 1 and CONTROL.search(text) is None, text
        assert "␊• run completed" in text or text == row.summary


#: A value that wraps onto line after line, each starting with the client's own ``• ``.
BULLETS = "• " * 150


@pytest.mark.parametrize("width", [40, 80, 100])
def test_a_wrapped_host_value_stays_under_its_line(width: int, tmp_path: Path) -> None:
    # Wrapped at the margin, a long host value can start a screen line with what reads as a
    # line of the client's own, no newline needed: continuation lines hang under their text.
    def docs(value: str) -> Docs:
        return [
            {"type": "run.started", "runId": "r", "payload": {"workflowId": "w"}},
            {"type": "log.appended", "runId": "r", "nodeId": "n1",
             "payload": {"level": "warn", "message": value}},
            {"type": "agent.toolCalled", "runId": "r", "nodeId": "n1",
             "payload": {"callId": "c", "toolName": "t", "inputs": {"q": value}}},
            {"type": "agent.toolReturned", "runId": "r", "nodeId": "n1",
             "payload": {"callId": "c", "outcome": value}},
            {"type": "node.failed", "runId": "r", "nodeId": "n1",
             "payload": {"error": {"message": value}}},
        ]  # fmt: skip

    forged, transcript = printed(_text(docs(BULLETS)), tmp_path / "f", terminal=True)
    plain, reference = printed(_text(docs(PLAIN)), tmp_path / "p", terminal=True)
    check(forged, plain, "printed on a terminal")
    check(view_lines(transcript, width), view_lines(reference, width), f"the app's view at {width}")


def test_workflows_prints_one_line_per_workflow(capsys: pytest.CaptureFixture[str]) -> None:
    workflows = [
        {"id": f"wf{n}{FORGE}", "name": f"name{FORGE}", "description": FORGE,
         "agent": {"agentId": f"agent{FORGE}", "label": FORGE, "persona": FORGE}}
        for n in range(3)
    ]  # fmt: skip
    with listing({"/v1/workflows": {"workflows": workflows}}) as url:
        assert main(["workflows", "--host", url]) == 0
    out = capsys.readouterr().out
    assert CONTROL.search(out.replace("\n", "")) is None, out
    lines = out.splitlines()
    # The header, then one line a workflow (its agents on an indented line under it).
    assert len([line for line in lines if not line.startswith(" ")]) == 1 + 3, out
    assert not any(line.lstrip().startswith(("•", "✓")) for line in lines), out


def test_sessions_prints_one_row_per_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A session's title is its first message (a host's title, for a reopened one) and its
    # host a URL from the environment: neither may print a row of its own.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setenv("COLUMNS", "200")
    with Store() as store:
        for n in range(3):
            store.create(host=f"http://h{n}.example/{FORGE}", workflow="w", title=f"t{n}{FORGE}")
    assert main(["sessions"]) == 0
    out = capsys.readouterr().out
    assert CONTROL.search(out.replace("\n", "")) is None, out
    rows = [line for line in out.splitlines() if line.strip()]
    assert len(rows) == 1 + 3, out  # the column names, one row a session
    assert not any(line.lstrip().startswith(("•", "✓")) for line in rows), out
