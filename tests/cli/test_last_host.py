"""``runs`` and ``attach`` find the runs made before (issue 27 part 6): without ``--host`` they
use the host last talked to (the app's or a command's), saying so; with none remembered they
say that the command's embedded host is new and how to keep one running. The installed
program, as a script runs it; the host a real demo host on loopback."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from openwop_tui.cli.host import NEW_HOST
from openwop_tui.demo_host import DemoHost
from openwop_tui.store import state

pytestmark = pytest.mark.usefixtures("cli_isolated")


def _program(*argv: str, key: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if key is not None:
        env["OPENWOP_API_KEY"] = key
    return subprocess.run(
        [sys.executable, "-m", "openwop_tui", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_runs_without_a_host_lists_the_runs_made_on_the_host_last_used(host: DemoHost) -> None:
    made = _program(
        "run", "demo.chat", "--host", host.url, "--message", "hi", "--json", key=host.api_key
    )
    assert made.returncode == 0, made.stderr
    run_id = next(
        json.loads(line)["runId"] for line in made.stdout.splitlines() if '"runId"' in line
    )
    listed = _program("runs", "--json", key=host.api_key)
    assert listed.returncode == 0, listed.stderr
    assert run_id in {run["runId"] for run in json.loads(listed.stdout)}
    assert f"no --host: using {host.url}, the host last talked to" in listed.stderr
    attached = _program("attach", run_id, "--json", key=host.api_key)
    assert attached.returncode == 0, attached.stderr
    assert '"run.completed"' in attached.stdout


def test_with_no_host_ever_used_runs_says_its_host_is_new_and_how_to_keep_one() -> None:
    assert state.remembered_host() is None
    listed = _program("runs")
    assert listed.returncode == 0, listed.stderr
    assert NEW_HOST in listed.stderr
    assert "openwop-tui demo-host" in NEW_HOST


def test_a_host_that_never_answered_is_not_remembered() -> None:
    done = _program("runs", "--host", "http://127.0.0.1:9", key="k")
    assert done.returncode != 0
    assert state.remembered_host() is None


def test_the_state_file_keeps_no_credentials(tmp_path: object) -> None:
    from openwop_tui.cli.host import remember

    remember("https://user:secret@host.example:8443/base")
    assert state.remembered_host() == "https://host.example:8443/base"
    assert "secret" not in state.state_path().read_text()
