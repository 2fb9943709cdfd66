"""``openwop-tui lint`` and ``stats`` end to end: recordings of the demo host, hand-made faults,
runs read back from the host by id, and input that cannot be read."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from installed import printing_env, run_installed
from paths import TESTS

from openwop_tui.__main__ import main
from openwop_tui.demo_host import DemoHost
from openwop_tui.store.record import read_recording

CAPTURES = TESTS / "data" / "captures"

BOTH = (
    '{"eventId":"e1","runId":"r1","type":"node.completed","sequence":1,'
    '"timestamp":"2026-12-01T10:00:01Z","nodeId":"n","causationId":"c1","payload":{"nodeId":"n",'
    '"outputs":{"envelope":{"type":"media.image","envelopeId":"env","correlationId":"c1",'
    '"payload":{"url":"https://cdn.example/a.png","base64":"iVBORw0KGgo=","bytes":8,'
    '"mimeType":"image/png"},"meta":{"source":"ai-generation","ts":"2026-12-01T10:00:01Z",'
    '"rendering":{"display":"image","alt":"a picture"}}}}}}'
)
START = (
    '{"eventId":"e0","runId":"r1","type":"run.started","sequence":0,'
    '"timestamp":"2026-12-01T10:00:00Z","payload":{"workflowId":"w"}}'
)
END = (
    '{"eventId":"e2","runId":"r1","type":"run.completed","sequence":2,'
    '"timestamp":"2026-12-01T10:00:02Z","payload":{}}'
)


def sse(*docs: str) -> str:
    return "".join(f"id: {i}\ndata: {doc}\n\n" for i, doc in enumerate(docs))


@pytest.fixture(scope="module")
def demo() -> Iterator[DemoHost]:
    with DemoHost(pace=0) as host:
        yield host


@pytest.fixture(scope="module")
def tour(tmp_path_factory: pytest.TempPathFactory, demo: DemoHost) -> tuple[Path, str]:
    """A recording of the demo tour, and its run id."""
    record = tmp_path_factory.mktemp("tour") / "tour.sse"
    argv = ["run", "demo.tour", "--host", demo.url, "--api-key", demo.api_key]
    assert main([*argv, "--images", "none", "--record", str(record)]) == 0
    runs = [e.run for e in read_recording(record.read_text()).entries if e.kind == "run"]
    assert runs and runs[0]
    return record, runs[0]


def test_a_clean_tour_recording_lints_to_0_with_its_faults_as_warnings(
    tour: tuple[Path, str], demo: DemoHost, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    # --host: the demo host's media are absolute URLs on its own (loopback) origin, which
    # count as the host's own only when the host is named.
    assert main(["lint", str(tour[0]), "--host", demo.url]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    # The tour's deliberate faults, each with its code, none an error.
    for code in ("OW216", "OW218", "OW300", "OW304"):
        assert any(f" {code} " in line and "warning" in line for line in lines), code
    assert not any(" error " in line for line in lines)
    assert "file: URLs are never fetched" in out


def test_a_recording_names_its_host_so_its_own_media_urls_are_not_refused(
    tour: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    # No --host: the recording's run line says which host ran it, and the demo host's own
    # (loopback) media URLs are that host's; only the tour's two foreign URLs are refused.
    capsys.readouterr()
    assert main(["lint", str(tour[0])]) == 0
    refused = [line for line in capsys.readouterr().out.splitlines() if " OW216 " in line]
    assert len(refused) == 2, refused
    assert "file: URLs are never fetched" in refused[0] and "10.20.30.40" in refused[1]
    assert not any("loopback" in line for line in refused)


def test_url_and_base64_together_exit_1_with_the_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "both.sse"
    path.write_text(sse(START, BOTH, END))
    assert main(["lint", str(path)]) == 1
    out = capsys.readouterr().out
    (line,) = [line for line in out.splitlines() if "OW214" in line]
    assert line.split()[:3] == ["1", "OW214", "error"]
    assert "both url and base64" in line


def test_a_bad_attachment_in_the_recorded_message_exits_1_with_its_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run.started that echoes a message whose picture has no bytes: the finding's line
    names the part, and the run lints to 1; ``--rules`` lists the attachment rules."""
    parts = [
        {"type": "text", "text": "what is this?"},
        {"type": "image", "mimeType": "image/png", "alt": "picture.png"},
    ]
    messages = [{"role": "user", "content": "hi"}, {"role": "user", "content": parts}]
    start = json.loads(START)
    start["payload"]["inputs"] = {"messages": messages}
    path = tmp_path / "attached.sse"
    path.write_text(sse(json.dumps(start), END.replace('"sequence":2', '"sequence":1')))
    assert main(["lint", str(path)]) == 1
    out = capsys.readouterr().out
    (line,) = [line for line in out.splitlines() if "OW232" in line]
    assert line.split()[:3] == ["0", "OW232", "error"]
    assert "neither dataBase64 nor url" in line
    assert "$.payload.inputs.messages[1].content[1]" in out
    assert main(["lint", "--rules"]) == 0
    listed = capsys.readouterr().out
    assert all(f"OW23{n}" in listed for n in range(9))


def test_json_output_is_one_documented_object_per_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "both.sse"
    path.write_text(sse(START, BOTH, END))
    assert main(["lint", str(path), "--json"]) == 1
    lines = capsys.readouterr().out.splitlines()
    objects = [json.loads(line) for line in lines]
    assert objects and all(
        set(o) == {"sequence", "code", "severity", "source", "message", "path", "runId", "input"}
        and o["input"] == str(path)
        for o in objects
    )
    both = next(o for o in objects if o["code"] == "OW214")
    assert both["severity"] == "error" and both["sequence"] == 1
    assert both["path"] == "$.payload.outputs.envelope.payload" and both["runId"] == "r1"


def test_stdin_and_a_clean_capture(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    text = (CAPTURES / "example-chat-markdown-debug.sse").read_text()
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert main(["lint", "-"]) == 0
    assert "0 errors" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (None, "is not a file; to read run"),
        ("hello, not an event stream\n", "holds no SSE frames"),
    ],
)
def test_bad_input_exits_2_with_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, said: str
) -> None:
    path = tmp_path / "input.sse"
    if content is not None:
        path.write_text(content)
    assert main(["lint", str(path)]) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err


def test_a_malformed_frame_is_an_error_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.sse"
    path.write_text(sse(START, "{not json", END))
    assert main(["lint", str(path)]) == 1
    assert "OW107" in capsys.readouterr().out


def test_lint_and_stats_read_a_run_from_the_host(
    demo: DemoHost, tour: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    host = ["--host", demo.url, "--api-key", demo.api_key]
    assert main(["lint", tour[1], *host]) == 0
    err = capsys.readouterr().err
    assert f"run {tour[1]} on" in err and "0 errors" in err
    assert main(["stats", tour[1], *host, "--json"]) == 0
    (run,) = json.loads(capsys.readouterr().out)["runs"]
    assert run["runId"] == tour[1] and run["status"] == "completed"
    nodes = {node["nodeId"]: node for node in run["nodes"]}
    assert {"intro", "chart", "no-media"} <= set(nodes)
    # debug mode brings node.started: every node has a measured span on the run's axis.
    assert all(n["start"] is not None and n["end"] is not None for n in nodes.values())
    assert run["tokensOut"] > 0


def test_a_wrong_key_for_a_run_id_is_refused_in_one_sentence(
    demo: DemoHost, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lint", "run_x", "--host", demo.url, "--api-key", "wrong-key-1234"]) == 2
    err = capsys.readouterr().err
    assert "API key" in err and "Traceback" not in err and "wrong-key-1234" not in err


def test_stats_prints_each_nodes_bar_and_the_tokens(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["stats", str(CAPTURES / "example-chat-markdown-debug.sse")]) == 0
    out = capsys.readouterr().out
    (node,) = [line for line in out.splitlines() if line.strip().startswith("respond")]
    assert "█" in node and "610 ms" in node and "in 41 out 52" in node  # the host's figure
    assert "first token after 65 ms" in out
    assert "model anthropic/claude-opus-4-7: in 41, out 52" in out


def test_stats_into_a_pipe_keeps_each_line_whole(
    tour: tuple[Path, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    capsys.readouterr()
    assert main(["stats", str(tour[0])]) == 0
    lines = capsys.readouterr().out.splitlines()
    (facts,) = [line for line in lines if line.startswith("  duration ")]
    whole = r"events \(.*/s\) · first token after \d+ ms · tokens in \d+, out \d+$"
    assert re.search(whole, facts), facts
    (intro,) = [line for line in lines if line.strip().startswith("intro ")]
    assert re.search(r"█[█·]* +\d+ ms completed · in \d+ out \d+$", intro), intro
    assert "…" not in "".join(lines)


def test_the_inspector_commands_take_the_shared_colours_and_width(
    tour: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["lint", str(tour[0]), "--colors", "256"]) == 0
    assert "\x1b[" in capsys.readouterr().out
    assert main(["stats", str(tour[0]), "--width", "200"]) == 0
    lines = capsys.readouterr().out.splitlines()
    (intro,) = [line for line in lines if line.strip().startswith("intro ")]
    assert len(intro.split()[1]) == 50  # the widest bar, for 200 columns
    assert "\x1b[" not in "".join(lines)


def test_stats_of_the_postgres_capture(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", str(CAPTURES / "pg-host-mock-agent-stream.sse")]) == 0
    out = capsys.readouterr().out
    assert "85 ms completed" in out and "15 ms completed" in out


def test_stats_of_nothing_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "empty.sse"
    path.write_text(": only a comment\n\n")
    assert main(["stats", str(path)]) == 2
    assert "holds no SSE frames" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("command", "fields"),
    [
        ("lint", ("sequence", "code", "severity", "source", "message", "path", "runId", "input")),
        ("stats", ("runs", "durationMs", "tokensIn", "tokensOut", "nodes", "models")),
    ],
)
def test_help_documents_the_json_fields(
    capsys: pytest.CaptureFixture[str], command: str, fields: tuple[str, ...]
) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert all(field in out for field in fields), out


def test_rules_lists_every_code(capsys: pytest.CaptureFixture[str]) -> None:
    from openwop_tui.inspect.findings import RULES

    assert main(["lint", "--rules"]) == 0
    out = capsys.readouterr().out
    assert all(code in out for code in RULES)


def test_an_unknown_run_id_exits_2(demo: DemoHost, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "run_nope", "--host", demo.url, "--api-key", demo.api_key]) == 2
    err = capsys.readouterr().err
    assert "run_nope" in err and "Traceback" not in err


def test_stats_prints_the_hosts_node_duration_and_says_when_it_sets_one_aside(
    tmp_path: Path,
) -> None:
    """The installed command: a node the host timed at 12 ms shows 12 ms (not the 1 ms between
    its events); one whose figure is absurd shows the measured time and says why."""

    def event(seq: int, kind: str, ms: int, **payload: Any) -> str:
        doc: dict[str, Any] = {
            "eventId": f"e{seq}",
            "runId": "r",
            "type": kind,
            "sequence": seq,
            "timestamp": f"2026-12-01T10:00:00.{ms:03d}Z",
            "payload": payload,
        }
        if "nodeId" in payload:
            doc["nodeId"] = payload["nodeId"]
        return f"id: {seq}\nevent: {kind}\ndata: {json.dumps(doc)}\n\n"

    frames = [
        event(0, "run.started", 0, workflowId="w"),
        event(1, "node.started", 100, nodeId="timed"),
        event(2, "node.completed", 101, nodeId="timed", durationMs=12),
        event(3, "node.started", 110, nodeId="odd"),
        event(4, "node.completed", 113, nodeId="odd", durationMs=10**12),
        event(5, "run.completed", 130, durationMs=130),
    ]
    capture = tmp_path / "timed.sse"
    capture.write_text("".join(frames), encoding="utf-8")
    done = run_installed(["stats", str(capture)], printing_env(tmp_path))
    lines = {line.split()[0]: line for line in done.stdout.splitlines() if line.startswith("  ")}
    assert "   12 ms completed" in lines["timed"]
    assert "    3 ms completed" in lines["odd"]
    assert (
        "(the host's durationMs 1e+12 is absurd (over a week); measured 3 ms instead)"
        in (lines["odd"])
    )
