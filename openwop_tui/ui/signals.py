"""SIGTERM (a kill, a shutdown), SIGHUP (the terminal closed) and SIGINT (``kill -INT``, what a
supervisor or ``timeout -s INT`` sends) end the app as Ctrl+Q would.

Without asking (nobody may be there to answer): the app's own run is cancelled on the host, a run
it only follows is left running, the session's end is written (the run's worker is cancelled and
its stream logs the end), what the store could not take goes to a journal the next start writes
in (``keep``, `openwop_tui.ui.controllers.leaving`), and the terminal is restored; one line on
stderr says what became of the run, and the exit code is 128 + the signal's number (130 for
SIGINT, as a shell reports an interrupted command). Python's default for SIGTERM and SIGHUP kills
the process with the screen still in the alternate buffer, mouse tracking on and the cursor
hidden; for SIGINT, asyncio cancelled the app's task: exit code 0, nothing said, the run left
going on the host.

When the terminal itself is gone (its window closed: the usual SIGHUP), nothing can be restored
and Textual's own shutdown would wait for ever on its output thread, which died writing to the
hung-up terminal. Then the run is ended and the session closed as above, and the process exits
at once (`terminal_gone`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import Protocol

from textual.app import App
from textual.worker import WorkerCancelled, WorkerFailed, get_current_worker

#: The signals that end the app.
ENDING = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


class Ending(Protocol):
    """What ends the app's runs for a signal (the tabs controller, for every tab)."""

    async def end_for_signal(self, name: str) -> str:
        """Cancel the runs the app started, leave those it follows; the sentence to exit
        with."""
        ...


def terminal_gone(fd: int | None = None) -> bool:
    """Whether the terminal on ``fd`` (standard output) was hung up: a write to it fails."""
    if fd is None:
        try:
            fd = sys.__stdout__.fileno() if sys.__stdout__ is not None else -1
        except (OSError, ValueError):
            return False
    try:
        os.write(fd, b"")  # a hung-up terminal refuses even an empty write (EIO)
    except OSError:
        return True
    return False


def end_on_signals(
    app: App[None],
    runs: Ending,
    finish: Callable[[], Awaitable[None]],
    keep: Callable[[], str | None],
) -> None:
    """From now on, `ENDING` signals end ``app`` (with exit code 128 + the signal's number).

    A second signal while the first waits for the host ends the app at once, without waiting.

    Args:
        app: The app to end.
        runs: Cancels the runs the app started (one it follows keeps running) and gives the
            sentence the app exits with.
        finish: What the app does as it unmounts (close the connection, the store, the player): run
            here, and the process ended, when the terminal is gone.
        keep: Writes what the store has not taken to a journal, and returns the line saying so if
            anything waited (None otherwise).
    """

    async def end(number: int) -> None:
        message = await runs.end_for_signal(signal.Signals(number).name)
        # The other workers stop (the run's logs the run's end as it does), not this one: then
        # the session holds all it will, and what the store cannot take is kept.
        others = [worker for worker in app.workers if worker is not get_current_worker()]
        for worker in others:
            worker.cancel()
        for worker in others:
            with contextlib.suppress(WorkerCancelled, WorkerFailed):
                await worker.wait()
        kept = keep()
        if terminal_gone():
            await finish()
            os._exit(128 + number)  # nothing is left to restore, and Textual would hang
        app.exit(return_code=128 + number, message="\n".join(filter(None, (message, kept))))

    ending: list[int] = []

    def signalled(number: int) -> None:
        if ending:
            # A second signal while the first waits for the host (a cancel it does not
            # answer): whoever sent it will not wait, as a second Ctrl-C on `run`. What the
            # store has not taken is still kept.
            name = signal.Signals(number).name
            said = f"openwop-tui: stopped by {name} again, without waiting for the host"
            app.exit(return_code=128 + number, message="\n".join(filter(None, (said, keep()))))
            return
        ending.append(number)
        app.run_worker(end(number), group="signal", exclusive=True)

    # Not on every platform (Windows has no SIGHUP and no loop signal handlers): there the
    # default stays.
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError, AttributeError):
        loop = asyncio.get_running_loop()
        for number in ENDING:
            loop.add_signal_handler(number, signalled, number)


def stop_ending_on_signals() -> None:
    """The app is gone: `ENDING` signals have their defaults again (a test process's Ctrl-C
    interrupts the tests, not an app that already ended)."""
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError, AttributeError):
        loop = asyncio.get_running_loop()
        for number in ENDING:
            loop.remove_signal_handler(number)
