"""``openwop-tui lint`` as a CI job runs it: the installed program, on what real hosts send.

Every real-host capture (the shared ones, copied to ``tests/data/captures``) and every recorded
run of the four reference hosts (``tests/data/captures/reference-runs``, see its RECORDED.md)
passes by default: their dialect is warnings, each summary line names it. ``--strict`` still
reads them schema-exact (the dialect is errors), an empty file stays a usage error, and a
stream with real faults fails.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from installed import PROGRAM
from paths import TESTS

from openwop_tui.__main__ import main

CAPTURES = TESTS / "data" / "captures"
#: The captures real hosts (and the protocol brief's examples) sent; the other files there are
#: hand-made for one test each, some with faults on purpose.
REAL = ("example-", "inmem-host-", "pg-host-", "python-host-", "sqlite-host-")


def real_captures() -> list[Path]:
    shared = [p for p in sorted(CAPTURES.glob("*.sse")) if p.name.startswith(REAL)]
    runs = sorted((CAPTURES / "reference-runs").glob("*.sse"))
    return [p for p in [*shared, *runs] if p.read_text(encoding="utf-8").strip()]


def installed() -> list[str]:
    """The installed ``openwop-tui`` command (beside this interpreter), as users run it."""
    return [str(PROGRAM)]


def run_lint(*args: str) -> subprocess.CompletedProcess[str]:
    # One process for every file: the program lints each on its own, one summary line each.
    return subprocess.run(
        [*installed(), "lint", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=600,  # a bound for a wedged process, not a pace: the run takes seconds
        check=False,
    )


def summaries(stderr: str) -> dict[str, str]:
    """Each input's summary line, by the input's name."""
    found = {}
    for line in stderr.splitlines():
        name, _, rest = line.removeprefix("openwop-tui lint: ").partition(": ")
        found[name] = rest
    return found


def test_every_real_host_capture_and_reference_run_passes() -> None:
    files = real_captures()
    hosts = {p.name.split("-host-")[0] for p in files if "-host-" in p.name}
    assert {"inmem", "pg", "postgres", "python", "sqlite"} <= hosts
    assert len(files) >= 60
    done = run_lint(*map(str, files))
    assert done.returncode == 0, done.stderr
    lines = summaries(done.stderr)
    for path in files:
        line = lines[str(path)]
        assert " 0 errors" in line, line
        if "-host-" in path.name and not path.name.startswith("example-"):
            assert "dialect: openwop-examples" in line, line  # named, not silent
    assert "Traceback" not in done.stdout + done.stderr


def test_strict_still_reads_the_dialect_as_errors() -> None:
    picks = [
        CAPTURES / "python-host-noop.sse",
        CAPTURES / "inmem-host-noop.sse",
        CAPTURES / "sqlite-host-approval-accept.sse",
        CAPTURES / "reference-runs" / "postgres-host-run-conformance-noop.sse",
    ]
    done = run_lint("--strict", "--json", *map(str, picks))
    assert done.returncode == 1
    found = [json.loads(line) for line in done.stdout.splitlines()]
    by_input = {str(path): {f["code"] for f in found if f["input"] == str(path)} for path in picks}
    assert by_input[str(picks[0])] == {"OW127"}
    assert {"OW120", "OW124", "OW125"} <= by_input[str(picks[1])]
    assert {"OW121", "OW123", "OW126", "OW129"} <= by_input[str(picks[2])]
    assert {"OW121", "OW123"} <= by_input[str(picks[3])]
    assert all(f["severity"] == "error" for f in found)
    assert all("(errors: --strict)" in line for line in summaries(done.stderr).values())


def test_an_empty_file_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = CAPTURES / "python-host-noop-messages.sse"
    assert empty.read_text(encoding="utf-8") == ""
    assert main(["lint", str(empty)]) == 2
    assert "is empty: it holds no SSE events" in capsys.readouterr().err
    # With others, it is still said and still exit 2, and the others are still linted.
    assert main(["lint", str(CAPTURES / "python-host-noop.sse"), str(empty)]) == 2
    err = capsys.readouterr().err
    assert "python-host-noop.sse: 4 events, 0 errors" in err and "is empty" in err


#: A display that is not a string, an unprefixed kind, a kind the protocol does not define.
FAULTS = [
    ({"type": "error", "display": 42}, "OW305"),
    ({"type": "error", "display": True}, "OW305"),
    ({"type": "foo.bar"}, "OW207"),
    ({"type": "media.video"}, "OW206"),
]


@pytest.mark.parametrize(("change", "code"), FAULTS)
def test_real_faults_fail_the_job(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, object], code: str
) -> None:
    meta: dict[str, object] = {"source": "ai-generation", "ts": "2026-12-01T10:00:00Z"}
    if "display" in change:
        meta["rendering"] = {"display": change["display"]}
    envelope = {
        "type": change["type"],
        "envelopeId": "env_1",
        "correlationId": "corr_1",
        "payload": {"code": "x", "message": "m"},
        "meta": meta,
    }
    events = [
        {"type": "run.started", "payload": {"workflowId": "w"}},
        {
            "type": "node.completed",
            "payload": {"nodeId": "n", "outputs": {"envelope": envelope}},
            "nodeId": "n",
            "causationId": "corr_1",
        },
        {"type": "run.completed", "payload": {}},
    ]
    frames = []
    for sequence, event in enumerate(events):
        doc = {
            "eventId": f"e{sequence}",
            "runId": "run_1",
            "timestamp": "2026-12-01T10:00:00Z",
            "sequence": sequence,
            **event,
        }
        frames.append(f"id: {sequence}\nevent: {doc['type']}\ndata: {json.dumps(doc)}\n\n")
    path = tmp_path / "faulty.sse"
    path.write_text("".join(frames), encoding="utf-8")
    assert main(["lint", str(path), "--json"]) == 1
    found = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert any(f["code"] == code and f["severity"] == "error" for f in found), found


def test_the_recorded_headers_name_the_major(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = (CAPTURES / "python-host-noop.sse").read_text(encoding="utf-8")
    path = tmp_path / "run.sse"
    path.write_text(source, encoding="utf-8")
    assert main(["lint", str(path)]) == 0
    assert "protocol v1 (read from the stream" in capsys.readouterr().err
    path.with_suffix(".headers").write_text(
        "HTTP/1.1 200 OK\r\nOpenWOP-Version: 2.0\r\nContent-Type: text/event-stream\r\n\r\n"
    )
    # Read as v2, the Python host's events lack what v2 requires (schemaVersion): errors.
    assert main(["lint", str(path)]) == 1
    assert "protocol v2 (the host's)" in capsys.readouterr().err
    assert main(["lint", str(path), "--protocol", "1"]) == 0  # the flag overrides


def test_a_v2_run_is_read_as_v2_from_its_recording_and_from_its_host(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from openwop_tui.demo_host import DemoHost
    from openwop_tui.store.record import read_recording

    record = tmp_path / "v2.sse"
    with DemoHost(pace=0, protocol=2) as demo:
        key = ["--host", demo.url, "--api-key", demo.api_key]
        assert main(["run", "conformance-noop", *key, "--record", str(record)]) == 0
        (run,) = [e.run for e in read_recording(record.read_text()).entries if e.kind == "run"]
        assert run and "/" in run  # v2 run ids are tenant-bound
        capsys.readouterr()
        assert main(["lint", str(record)]) == 0
        err = capsys.readouterr().err
        assert "protocol v2 (read from the stream: run id" in err and " 0 errors" in err
        assert main(["lint", run, *key]) == 0
        err = capsys.readouterr().err
        assert "protocol v2 (the host's)" in err and " 0 errors" in err
