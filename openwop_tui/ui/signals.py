"""SIGTERM (a kill, a shutdown) and SIGHUP (the terminal closed) end the app as Ctrl+Q would.

Without asking (nobody may be there to answer): the app's own run is cancelled on the host, a run
it only follows is left running, the session's end is written (the run's worker is cancelled and
its stream logs the end) and the terminal is restored. Python's default for both signals kills
the process with the screen still in the alternate buffer, mouse tracking on and the cursor
hidden.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal

from textual.app import App

from openwop_tui.ui.controllers.runs import RunsController

#: The signals that end the app.
ENDING = (signal.SIGTERM, signal.SIGHUP)


def end_on_signals(app: App[None], runs: RunsController) -> None:
    """From now on, `ENDING` signals end ``app`` (with exit code 128 + the signal's number)."""

    async def end(number: int) -> None:
        message = await runs.end_for_signal(signal.Signals(number).name)
        app.exit(return_code=128 + number, message=message)

    def signalled(number: int) -> None:
        app.run_worker(end(number), group="signal", exclusive=True)

    # Not on every platform (Windows has no SIGHUP and no loop signal handlers): there the
    # default stays.
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError, AttributeError):
        loop = asyncio.get_running_loop()
        for number in ENDING:
            loop.add_signal_handler(number, signalled, number)
