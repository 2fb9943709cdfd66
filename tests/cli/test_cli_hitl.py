"""``run`` and ``attach`` take part in a run: answers from flags, the how-to without a terminal,
attaching to runs started elsewhere (live or finished), Ctrl-C detaching.

Everything runs against a real embedded demo host over loopback. A process that must keep
waiting is a subprocess, read line by line until it says what the test waits for (never a
clock); the run is then answered over HTTP from the test. Runs the flags answer get an
interrupt deadline (``timeoutMs``) only as a safety net: were the answer never sent, the run
would fail (exit 1) rather than the test hang.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from typing import IO

import httpx
import pytest
from hitl_support import SPEC_ANSWERS, Log, resolve, start
from patience import PATIENCE

from openwop_tui.__main__ import main
from openwop_tui.demo_host import DemoHost

SAFETY = '{"timeoutMs": 60000}'


pytestmark = pytest.mark.usefixtures("cli_isolated_wide")


def on(host: DemoHost) -> list[str]:
    return ["--host", host.url, "--api-key", host.api_key]


# ---------------------------------------------------------------------------- answers from flags


def test_run_answers_a_clarification_from_the_flags(
    host: DemoHost, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["run", "demo.clarify", *on(host), "--input", SAFETY]
    assert main([*args, "--answer", "colour=blue", "--answer", "name=Ann"]) == 0
    out = capsys.readouterr().out
    assert "✓ answered at node ask: colour=blue, name=Ann · the host accepted it" in out
    assert "Thanks, Ann. The summary card will be blue." in out
    assert "run completed" in out


def test_run_approve_completes(host: DemoHost, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "demo.approve", *on(host), "--input", SAFETY, "--approve"]) == 0
    out = capsys.readouterr().out
    assert "✓ answered at node review: accept" in out
    assert "node publish completed" in out and "run completed" in out


def test_run_reject_with_feedback_fails_with_the_reason(
    host: DemoHost, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["run", "demo.approve", *on(host), "--input", SAFETY, "--reject"]
    assert main([*args, "--feedback", "too vague"]) == 1
    out = capsys.readouterr().out
    assert "✓ answered at node review: reject · too vague" in out
    assert "The draft was rejected: too vague" in out


def test_a_bad_answer_flag_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "demo.clarify", "--answer", "=blue"]) == 2
    assert "names no question" in capsys.readouterr().err


# ------------------------------------------------------------------- waiting without a terminal


def spawn(host: DemoHost, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "NO_COLOR": "1", "PYTHONUNBUFFERED": "1", "COLUMNS": "100"}
    env.pop("OPENWOP_BASE_URL", None)
    command = [sys.executable, "-m", "openwop_tui", *args, *on(host), "--no-audio"]
    return subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def read_until(stream: IO[str] | None, needle: str) -> list[str]:
    """Lines of ``stream`` up to and including the first holding ``needle``. Read in a thread
    whose queue is waited on with a generous bound: a safety net that turns "never printed"
    into a failure instead of a hung suite, not a measure of speed."""
    assert stream is not None
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        for line in stream:
            lines.put(line)
            if needle in line:
                return
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    seen: list[str] = []
    while True:
        try:
            line = lines.get(timeout=PATIENCE)
        except queue.Empty:
            raise AssertionError(f"never printed {needle!r}: {''.join(seen)}") from None
        if line is None:
            raise AssertionError(f"ended without {needle!r}: {''.join(seen)}")
        seen.append(line)
        if needle in line:
            return seen


def run_id_of(lines: list[str]) -> str:
    return next(line.split()[1] for line in lines if line.startswith("run "))


def test_without_a_terminal_the_question_and_how_to_answer_it_are_printed_and_it_waits(
    host: DemoHost, client: httpx.Client
) -> None:
    process = spawn(host, "run", "demo.clarify")
    try:
        run_id = run_id_of(read_until(process.stdout, "run "))
        told = "".join(read_until(process.stderr, "Waiting for the answer"))
        assert "card use? (one of: red, green, blue, purple)" in told
        assert f"openwop-tui attach {run_id} --host {host.url}" in told
        assert "--answer colour=VALUE --answer name=VALUE" in told
        assert f"curl -X POST {host.url}/v1/runs/{run_id}/interrupts/ask" in told
        assert f"{host.url}/v1/interrupts/" in told  # the signed-token route
        assert host.api_key not in told  # the key is named, never printed
        # Still waiting: answered from here (elsewhere, for the process), it completes.
        assert resolve(client, run_id, "ask", SPEC_ANSWERS).status_code == 200
        out, _ = process.communicate(timeout=PATIENCE)
    finally:
        process.kill()
    assert process.returncode == 0
    assert "the question at node ask answered" in out  # reported as answered elsewhere
    assert "Thanks, Ann. The summary card will be blue." in out


def test_a_refused_answer_gets_the_hosts_sentence_and_the_run_still_waits(
    host: DemoHost, client: httpx.Client
) -> None:
    # Longer than the demo host's 2000 characters: the client sends it, the host says 400.
    process = spawn(host, "run", "demo.approve", "--reject", "--feedback", "x" * 2500)
    try:
        run_id = run_id_of(read_until(process.stdout, "run "))
        told = "".join(read_until(process.stderr, "Waiting for the answer"))
        assert "The host refused the answer:" in told
        assert "longer than 2000 characters" in told
        accepted = resolve(client, run_id, "review", {"action": "accept"})
        assert accepted.status_code == 200
        out, _ = process.communicate(timeout=PATIENCE)
    finally:
        process.kill()
    assert process.returncode == 0
    assert "run completed" in out


def test_flags_that_do_not_fit_the_question_say_what_would_and_exit_2(
    host: DemoHost, capsys: pytest.CaptureFixture[str]
) -> None:
    # SAFETY: were the command to wait instead, the run would time out (exit 1), not hang.
    assert main(["run", "demo.clarify", *on(host), "--input", SAFETY, "--approve"]) == 2
    told = capsys.readouterr().err
    assert "this run asks a question: answer it with --answer colour, name=VALUE" in told
    assert "Nothing was sent; the run waits at the host" in told


# ---------------------------------------------------------------------------------- attach


def test_attach_follows_a_run_started_over_http_to_its_end(
    host: DemoHost, client: httpx.Client, capsys: pytest.CaptureFixture[str]
) -> None:
    run_id = start(client, "demo.clarify", timeoutMs=60000)
    Log(client, run_id).wait_for("clarification.requested")
    args = ["attach", run_id, *on(host), "--answer", "colour=green", "--answer", "name=Bo"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert f"run {run_id} · demo.clarify" in out
    assert "run started" in out  # the history before attaching
    assert "✓ answered at node ask: colour=green, name=Bo" in out
    assert "Thanks, Bo. The summary card will be green." in out


def test_attach_to_a_finished_run_prints_its_history_and_its_outcome(
    host: DemoHost, client: httpx.Client, capsys: pytest.CaptureFixture[str]
) -> None:
    done = start(client, "conformance-noop")
    Log(client, done).to_end()
    assert main(["attach", done, *on(host)]) == 0
    out = capsys.readouterr().out
    assert "run started" in out and "node noop completed" in out and "run completed" in out

    failed = start(client, "demo.chat", messages=[{"role": "user", "content": "fail"}])
    Log(client, failed).to_end()
    assert main(["attach", failed, *on(host)]) == 1
    assert "demo_failure" in capsys.readouterr().out


def test_attach_from_a_sequence_skips_the_history_before_it(
    host: DemoHost, client: httpx.Client, capsys: pytest.CaptureFixture[str]
) -> None:
    done = start(client, "conformance-noop")
    events = Log(client, done).to_end()
    last = events[-1]["sequence"]
    assert main(["attach", done, *on(host), "--from", str(last)]) == 0
    out = capsys.readouterr().out
    assert "run completed" in out and "run started" not in out


def test_attach_from_past_the_question_still_answers_it(
    host: DemoHost, client: httpx.Client, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--from`` past the events that asked: the run's snapshot carries the open question,
    so the flags still answer it and the run completes (without it, attach would wait on a
    question it never saw)."""
    run_id = start(client, "demo.clarify", timeoutMs=60000)
    asked = Log(client, run_id).wait_for("clarification.requested")
    args = [
        "attach",
        run_id,
        *on(host),
        "--from",
        str(asked["sequence"] + 1),
        "--answer",
        "colour=green",
        "--answer",
        "name=Bo",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "run started" not in out  # the history before --from is skipped
    assert "✓ answered at node ask: colour=green, name=Bo" in out
    assert "Thanks, Bo. The summary card will be green." in out


def test_attach_to_an_unknown_run_is_a_refusal(
    host: DemoHost, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["attach", "run_nope", *on(host)]) == 3
    err = capsys.readouterr().err
    assert "run_nope" in err and "Traceback" not in err


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_on_attach_detaches_without_cancelling(host: DemoHost, client: httpx.Client) -> None:
    run_id = start(client, "demo.clarify")
    process = spawn(host, "attach", run_id)
    try:
        read_until(process.stderr, "Waiting for the answer")
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=PATIENCE)
    finally:
        process.kill()
    assert process.returncode == 130
    assert f"detached from run {run_id}; it goes on on the host" in err
    assert client.get(f"/v1/runs/{run_id}").json()["status"] == "waiting-input"
    assert resolve(client, run_id, "ask", SPEC_ANSWERS).status_code == 200
