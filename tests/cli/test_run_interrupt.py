"""Ctrl-C on ``openwop-tui run``: the run is cancelled on the host, one line, exit 130.

A real ``openwop-tui run`` subprocess against a demo host in this process; SIGINT is sent once
the run's id has been printed (waiting on the output, not on a clock).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest
from patience import PATIENCE

from openwop_tui.cli.interrupts import cancel_interrupted
from openwop_tui.demo_host import DemoHost
from openwop_tui.protocol.client import HostClient

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


@pytest.fixture
def host() -> Iterator[DemoHost]:
    # Paced: the "slow" reply streams for many seconds, so the run is surely still going.
    with DemoHost(pace=1) as demo:
        yield demo


def start_run(host: DemoHost) -> tuple[subprocess.Popen[str], str]:
    """``openwop-tui run demo.chat --message slow`` until it prints the run id."""
    env = {**os.environ, "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"}
    env.pop("OPENWOP_BASE_URL", None)
    command = [sys.executable, "-m", "openwop_tui", "run", "demo.chat", "--message", "slow"]
    command += ["--host", host.url, "--api-key", host.api_key, "--no-audio"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("run "):
            return process, line.split()[1]
    process.kill()
    raise AssertionError(f"no run line; stderr: {process.communicate()[1]}")


def run_status(host: DemoHost, run_id: str) -> str:
    headers = {"Authorization": f"Bearer {host.api_key}"}
    status: str = httpx.get(f"{host.url}/v1/runs/{run_id}", headers=headers).json()["status"]
    return status


def test_ctrl_c_cancels_the_run_on_the_host_and_exits_130(host: DemoHost) -> None:
    process, run_id = start_run(host)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=PATIENCE)
    assert process.returncode == 130
    assert err.splitlines() == [f"openwop-tui: interrupted; cancelled run {run_id} on the host"]
    assert run_status(host, run_id) == "cancelled"


def test_sigint_on_attach_detaches_and_leaves_the_run_going(host: DemoHost) -> None:
    # As --help says: attach's Ctrl-C (or ``kill -INT``) detaches, exit 130, the run goes on.
    headers = {"Authorization": f"Bearer {host.api_key}"}
    inputs = {"messages": [{"role": "user", "content": "slow"}]}
    created = httpx.post(
        f"{host.url}/v1/runs", headers=headers, json={"workflowId": "demo.chat", "inputs": inputs}
    ).json()
    run_id = created["runId"]
    env = {**os.environ, "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"}
    env.pop("OPENWOP_BASE_URL", None)
    command = [sys.executable, "-m", "openwop_tui", "attach", run_id, "--host", host.url]
    command += ["--api-key", host.api_key, "--no-audio"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("run "):
            break
    os.kill(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=PATIENCE)
    assert process.returncode == 130
    assert len(err.splitlines()) == 1 and f"detached from run {run_id}" in err
    assert run_status(host, run_id) == "running"


def test_a_second_ctrl_c_exits_130_without_a_traceback(host: DemoHost) -> None:
    process, _ = start_run(host)
    process.send_signal(signal.SIGINT)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=PATIENCE)
    assert process.returncode == 130
    assert "Traceback" not in err
    assert len(err.splitlines()) <= 1


@pytest.mark.parametrize(
    ("status", "body", "line"),
    [
        (409, {"error": "run_terminal", "message": "done"}, "run r1 had already ended on the host"),
        (
            500,
            {"error": "internal_error", "message": "it broke"},
            "could not cancel run r1 on the host:",
        ),
    ],
)
async def test_a_cancel_the_host_refuses_is_said_plainly(
    status: int, body: dict[str, str], line: str
) -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(status, json=body))
    async with HostClient("http://127.0.0.1:1", "key", transport=transport) as client:
        said = await cancel_interrupted(client, "r1")
    assert said.startswith("interrupted; ") and line in said


async def test_ctrl_c_before_the_run_exists_cancels_nothing() -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(500))
    async with HostClient("http://127.0.0.1:1", "key", transport=transport) as client:
        said = await cancel_interrupted(client, None)
    assert said == "interrupted before the host confirmed a run; nothing was cancelled"
