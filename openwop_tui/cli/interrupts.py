"""Ctrl-C while a command follows a run (``run``, ``attach``, the printed chat).

The first Ctrl-C stops the stream (`Interrupts`, routed to it by `sigint_to`); ``run`` then
cancels the run on the host, waiting at most `CANCEL_WAIT_SECONDS` (`cancel_interrupted`), and
prints one line saying which run was cancelled or why it could not be, and exits 130. A second
Ctrl-C exits 130 at once, without waiting for anything.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Iterator

from openwop_tui.cli.exits import EXIT_INTERRUPTED
from openwop_tui.protocol.client import HostClient, HostError
from openwop_tui.text.sanitize import clean_own

#: How long the cancel sent after Ctrl-C may take before the command stops waiting for it.
CANCEL_WAIT_SECONDS = 5.0


class Interrupts:
    """Ctrl-C while ``run`` streams: the first stops the stream (the run is then cancelled on
    the host), a second exits at once."""

    def __init__(self) -> None:
        self.pressed = False
        self.reported = False
        """Whether the one line about the interrupt has been printed."""
        self.task: asyncio.Future[None] | None = None

    def __call__(self) -> None:
        if self.pressed:
            # The user insists: no cancel, no cleanup, no waiting on anything.
            with contextlib.suppress(OSError, ValueError):
                sys.stdout.flush()
            os._exit(EXIT_INTERRUPTED)
        self.pressed = True
        if self.task is not None:
            self.task.cancel()

    def report(self, line: str) -> int:
        """Print the one line (once) and give the exit status."""
        if not self.reported:
            self.reported = True
            print(f"openwop-tui: {line}", file=sys.stderr)
        return EXIT_INTERRUPTED


@contextlib.contextmanager
def sigint_to(handler: Interrupts) -> Iterator[None]:
    """Route SIGINT to ``handler`` on the running loop for as long as the block runs."""
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, handler)
    except (NotImplementedError, RuntimeError, ValueError):
        # No loop signal handlers here (Windows, or not the main thread): the default
        # KeyboardInterrupt still reaches run_workflow, which reports it.
        yield
        return
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGINT)


async def cancel_interrupted(client: HostClient, run_id: str | None) -> str:
    """Cancel the interrupted run on the host (bounded wait); the line that says how it went."""
    if run_id is None:
        return "interrupted before the host confirmed a run; nothing was cancelled"
    shown = clean_own(run_id)  # the user's (attach RUN) or the host's answer (cleaned)
    try:
        await asyncio.wait_for(
            client.cancel_run(run_id, reason="interrupted (Ctrl-C) in openwop-tui run"),
            CANCEL_WAIT_SECONDS,
        )
    except TimeoutError:
        return (
            f"interrupted; the host did not answer the cancel of run {shown} within "
            f"{CANCEL_WAIT_SECONDS:g} s: it may still be running"
        )
    except HostError as error:
        if error.status == 409:
            return f"interrupted; run {shown} had already ended on the host"
        return f"interrupted; could not cancel run {shown} on the host: {error.message}"
    return f"interrupted; cancelled run {shown} on the host"
