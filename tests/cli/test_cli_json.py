"""``--json`` on ``run``, ``attach``, ``render`` and ``replay``: NDJSON of the normalised events,
in the JSONL export's shape, and nothing else on stdout."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from paths import TESTS

from openwop_tui.__main__ import main
from openwop_tui.demo_host import DemoHost

CAPTURES = TESTS / "data" / "captures"
EVENT_FIELDS = {"kind", "type", "sequence", "runId", "nodeId", "eventId", "timestamp", "payload"}


pytestmark = pytest.mark.usefixtures("cli_isolated")


def _lines(out: str) -> list[dict[str, Any]]:
    assert out.endswith("\n")
    parsed = [json.loads(line) for line in out.splitlines()]  # every line parses
    assert all(isinstance(line, dict) and line["kind"] for line in parsed)
    return parsed


def _jq_reads(out: str) -> None:
    if shutil.which("jq") is None:
        return
    done = subprocess.run(["jq", "-c", "."], input=out, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == len(out.splitlines())


@pytest.mark.parametrize("where", ["after", "before"])
def test_run_json_is_ndjson_jq_reads(where: str, capsys: pytest.CaptureFixture[str]) -> None:
    words = ["run", "demo.tour"]
    flags = ["--json", "--demo-pace", "0"]
    assert main([*words, *flags] if where == "after" else [*flags, *words]) == 0
    out, err = capsys.readouterr()
    lines = _lines(out)
    _jq_reads(out)
    kinds = [line["kind"] for line in lines]
    assert kinds[0] == "run" and kinds[-1] == "end" and lines[-1]["status"] == "completed"
    events = [line for line in lines if line["kind"] == "event"]
    assert events and all(set(e) == EVENT_FIELDS for e in events)
    assert events[0]["type"] == "run.started" and events[-1]["type"] == "run.completed"
    assert "run " in err and "demo host" in err  # the words for a person, on stderr
    assert "\x1b" not in out


def test_attach_json_gives_the_runs_events(capsys: pytest.CaptureFixture[str]) -> None:
    with DemoHost(pace=0) as host:
        common = ["--host", host.url, "--api-key", host.api_key, "--json"]
        assert main(["run", "demo.chat", "--message", "hi", *common]) == 0
        ran = _lines(capsys.readouterr().out)
        run_id = ran[0]["runId"]
        assert main(["attach", run_id, *common]) == 0
        attached = _lines(capsys.readouterr().out)
    events = [(e["type"], e["sequence"]) for e in attached if e["kind"] == "event"]
    assert events == [(e["type"], e["sequence"]) for e in ran if e["kind"] == "event"]
    assert attached[0] == {
        "kind": "run",
        "runId": run_id,
        "workflow": "demo.chat",
        "host": host.url,
    }


@pytest.mark.parametrize("command", ["render", "replay"])
def test_render_and_replay_json_are_the_exports_shape(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capture = CAPTURES / "example-rich-envelopes.sse"
    assert main([command, str(capture), "--json"]) == 0
    out, err = capsys.readouterr()
    lines = _lines(out)
    _jq_reads(out)
    assert "printing the recording" not in out + err  # --json is asked for, not a fallback
    events = [line for line in lines if line["kind"] == "event"]
    assert events and all(set(e) == EVENT_FIELDS for e in events)


def test_a_malformed_frame_is_a_notice_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    bad = tmp_path / "bad.sse"
    bad.write_text(
        'id: 0\nevent: run.started\ndata: {"type": "run.started", "sequence": 0}\n\n'
        "id: 1\nevent: node.completed\ndata: {not json\n\n",
        encoding="utf-8",
    )
    assert main(["render", str(bad), "--json"]) == 0
    lines = _lines(capsys.readouterr().out)
    assert [line["kind"] for line in lines] == ["event", "notice"]
    assert lines[1]["level"] == "warning" and "not valid JSON" in lines[1]["text"]


def test_json_and_save_media_together_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["render", "x.sse", "--json", "--save-media", str(tmp_path)]) == 2
    assert "with --json nothing is drawn" in capsys.readouterr().err


def test_the_key_never_reaches_the_json(capsys: pytest.CaptureFixture[str]) -> None:
    with DemoHost(pace=0) as host:
        argv = ["run", "demo.chat", "--host", host.url, "--api-key", host.api_key, "--json"]
        assert main([*argv, "--message", f"echo {host.api_key}"]) == 0
        out = capsys.readouterr().out
        assert host.api_key not in out
        _lines(out)
