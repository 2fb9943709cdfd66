"""``kill -INT`` (what a supervisor or ``timeout -s INT`` sends) ends the app as Ctrl+C ends a
command: the app's run is cancelled on the host, one line on stderr says so, exit code 130.

Before: asyncio's own SIGINT handling cancelled the app's task, so the process ended with
exit code 0, said nothing, and the run went on streaming on the host.

The installed program on a real pseudo-terminal, against a paced demo host the test owns (so
the run's status is read from the host over loopback HTTP after the program is gone).
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from patience import PATIENCE
from pty_support import Program, home

from openwop_tui.demo_host import DemoHost
from openwop_tui.store.sessions import Store

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pty and signals")


@pytest.fixture
def host() -> Iterator[DemoHost]:
    # Paced: "something slow" streams for many seconds, so the run is in flight when signalled.
    with DemoHost(pace=1) as running:
        yield running


def _run_ids(env: dict[str, str]) -> list[str]:
    store = Store(Path(env["XDG_DATA_HOME"]) / "openwop-tui" / "sessions.db")
    try:
        return [
            e.run
            for i in store.sessions()
            for e in store.entries(i.id)
            if e.kind == "run" and e.run
        ]
    finally:
        store.close()


def test_sigint_cancels_the_run_on_the_host_says_so_and_exits_130(
    tmp_path: Path, host: DemoHost
) -> None:
    env = home(tmp_path, OPENWOP_API_KEY=host.api_key)
    terminal = Program(["--host", host.url, "--no-audio", "--images", "halfblock"], env, tmp_path)
    terminal.read_until(b"connected")
    os.write(terminal.master, b"something slow\r")
    terminal.read_until(b"streaming")
    os.kill(terminal.process.pid, signal.SIGINT)
    assert terminal.wait() == 130
    after = terminal.seen[terminal.seen.rfind(b"\x1b[?1049l") :]
    lines = [line for line in after.decode(errors="replace").splitlines() if "openwop-tui:" in line]
    assert len(lines) == 1 and "cancelled run" in lines[0] and "SIGINT" in lines[0], lines
    [run_id] = _run_ids(env)
    headers = {"Authorization": f"Bearer {host.api_key}"}
    status = httpx.get(f"{host.url}/v1/runs/{run_id}", headers=headers, timeout=PATIENCE).json()
    assert status["status"] == "cancelled"
