"""A second SIGINT or SIGTERM while the first waits for the host ends the app at once, as a
second Ctrl-C ends ``run``: a supervisor's second signal, or a host that never answers the
cancel, must not keep the process. A real signal to this process, taken by the app's handler.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time

import pytest
from patience import PATIENCE
from textual.app import App

from openwop_tui.ui.signals import end_on_signals, stop_ending_on_signals

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


class _HostThatNeverAnswers:
    """A runs controller whose cancel on the host never comes back."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()

    async def end_for_signal(self, name: str) -> str:
        self.asked.set()
        await asyncio.Event().wait()  # never set: the host does not answer
        return ""


class _App(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.runs = _HostThatNeverAnswers()
        self.kept = 0

    def keep(self) -> str | None:
        self.kept += 1
        return "openwop-tui: 3 session entries the store could not take are in JOURNAL"

    async def finish(self) -> None:
        return None

    def on_mount(self) -> None:
        end_on_signals(self, self.runs, self.finish, self.keep)  # type: ignore[arg-type]

    def on_unmount(self) -> None:
        stop_ending_on_signals()


async def test_a_second_sigint_ends_the_app_at_once_and_keeps_what_waits(
    capsys: pytest.CaptureFixture[str],
) -> None:
    app = _App()
    async with app.run_test() as pilot:
        os.kill(os.getpid(), signal.SIGINT)
        await asyncio.wait_for(app.runs.asked.wait(), PATIENCE)
        os.kill(os.getpid(), signal.SIGINT)
        deadline = time.monotonic() + PATIENCE
        while app.is_running:
            assert time.monotonic() < deadline, "the second signal did not end the app"
            await pilot.pause(0.01)
    assert app.return_code == 130 and app.kept == 1
    said = capsys.readouterr().err
    assert "stopped by SIGINT again, without waiting for the host" in said
    assert "are in JOURNAL" in said
