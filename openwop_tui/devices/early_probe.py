"""The terminal asked before the app's modules load, its answers read after.

`openwop_tui.devices.terminal` decides the image protocol from the terminal's answers to one
question. Asked after the app's modules are imported, the start waited for them in turn: the
imports (a few hundred milliseconds), then the terminal's round trip, which is a few
milliseconds on a local terminal but the network's round trip over SSH, and the whole
`DEFAULT_TIMEOUT` for a terminal that never answers. `EarlyProbe.ask` writes the question
first thing, while the keyboard is held (`openwop_tui.devices.typeahead.TypeAhead`: canonical
input and echo off, so the answers queue unseen and unbuffered); `EarlyProbe.answer`, once the
modules are in, reads what came meanwhile, and waits only for what is still due by the same
deadline, counted from the question. So the round trip, and a silent terminal's timeout, pass
while the modules load.

The decision is the terminal module's own (`plan_probe`, `decide`): the same answers give the
same protocol either way. As there, whatever fails gives half-blocks and says why.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping

from openwop_tui.devices.terminal import (
    DEFAULT_TIMEOUT,
    ImageSupport,
    Plan,
    Stream,
    decide,
    failed,
    plan_probe,
    read_answers,
    tmux_passthrough,
    with_colours,
)

__all__ = ["EarlyProbe"]


class EarlyProbe:
    """A question to the terminal, sent (`ask`), its answers to be read (`answer`)."""

    def __init__(
        self,
        plan: Plan | ImageSupport,
        streams: tuple[Stream, Stream],
        environ: Mapping[str, str],
        deadline: tuple[float, float],
    ) -> None:
        """Use `ask`.

        Args:
            plan: The question sent, or the decision already made (no question, or it failed).
            streams: The terminal's input and output.
            environ: The environment.
            deadline: (``time.monotonic()`` by which the answers are due, the seconds given).
        """
        self._plan = plan
        self._stdin, self._stdout = streams
        self._environ = environ
        self._deadline, self._timeout = deadline

    @classmethod
    def ask(
        cls,
        requested: str,
        *,
        stdin: Stream,
        stdout: Stream,
        environ: Mapping[str, str],
        timeout: float = DEFAULT_TIMEOUT,
        ask_tmux: Callable[[], bool | None] = tmux_passthrough,
    ) -> EarlyProbe:
        """Send the question ``requested`` needs, if any (never raises, never waits for the
        terminal). The terminal must be held out of canonical mode with echo off
        (`openwop_tui.devices.typeahead.TypeAhead.hold`) until `answer`.

        Args:
            requested: The ``images`` setting.
            stdin: The input, where the terminal answers.
            stdout: The output, where the question is written.
            environ: The environment (``TERM``, tmux, ``OPENWOP_TUI_IMAGES``…).
            timeout: Seconds the terminal is given, from now.
            ask_tmux: Says whether tmux passes graphics through (None: unknown).
        """
        streams = (stdin, stdout)
        deadline = (time.monotonic() + timeout, timeout)
        try:
            plan = plan_probe(
                requested, stdin=stdin, stdout=stdout, environ=environ, ask_tmux=ask_tmux
            )
            if plan.decided is not None:
                return cls(plan.decided, streams, environ, deadline)
            stdout.flush()  # anything already written goes out before the question
            os.write(stdout.fileno(), plan.query)
        except Exception as error:  # a probe degrades, never crashes
            return cls(failed(error), streams, environ, deadline)
        return cls(plan, streams, environ, (time.monotonic() + timeout, timeout))

    def answer(self, typed: Callable[[bytes], None] | None = None) -> ImageSupport:
        """How images are drawn: from the answers that came since `ask` (waiting, at most until
        its deadline, for what is still due). ``typed`` is given the keys typed meanwhile (read
        with the answers); None drops them."""
        plan = self._plan
        if isinstance(plan, ImageSupport):
            return with_colours(plan, self._environ)
        try:
            data = read_answers(self._stdin.fileno(), self._deadline)
            support = decide(
                data,
                plan,
                stdout=self._stdout,
                environ=self._environ,
                timeout=self._timeout,
                typed=typed,
            )
        except Exception as error:  # a probe degrades, never crashes
            support = failed(error)
        return with_colours(support, self._environ)
