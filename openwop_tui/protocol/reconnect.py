"""How long a run's stream keeps trying to reconnect: a budget in time, with backoff.

A count of attempts is the wrong measure: five quick 503s gave up after about 5 s while the run
went on to complete at the host, and nothing said which run it was or how to follow it again.
`Reconnects` spends a budget of wall time instead (`DEFAULT_BUDGET`, five minutes; the
``reconnect_minutes`` setting), from the first failure of a streak; a connection that brings an
event starts a new streak. Each wait doubles from the host's ``retry:`` (or `BASE_DELAY`) up
to `MAX_DELAY`, and is never shorter than a ``Retry-After`` the host sent: a host that asks for
more than the budget has left is taken at its word, and the stream gives up at once rather than
retry early. `gave_up` is the final error: it names the run and the exact command that follows
it again.

The clock and the sleep are injected (`openwop_tui.protocol.stream.subscribe` takes both), so
tests run a whole budget without waiting. Pure apart from them; no Textual here.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass

from openwop_tui.protocol.errors import HostError

__all__ = ["BASE_DELAY", "DEFAULT_BUDGET", "MAX_DELAY", "Reconnects", "attach_command"]

#: Seconds a streak of failures may last before the stream gives up (``reconnect_minutes``).
DEFAULT_BUDGET = 300.0
#: Longest backoff step the client picks itself (a host's ``Retry-After`` may ask for more).
MAX_DELAY = 30.0
#: First backoff step when the host gave no ``retry:``.
BASE_DELAY = 0.5

Clock = Callable[[], float]


def attach_command(host: str, run_id: str, *, keyed: bool) -> str:
    """The command that follows ``run_id`` again, ready to paste (shell-quoted)."""
    key = ' --api-key "$OPENWOP_API_KEY"' if keyed else ""
    return f"openwop-tui attach {shlex.quote(run_id)} --host {shlex.quote(host)}{key}"


def _span(seconds: float) -> str:
    """``5 min``, ``90 s``, ``1 min 30 s``: a budget or an elapsed time in words."""
    whole = round(seconds)
    minutes, rest = divmod(whole, 60)
    if not minutes:
        return f"{whole} s"
    return f"{minutes} min" + (f" {rest} s" if rest else "")


@dataclass(slots=True)
class Reconnects:
    """One stream's reconnect budget; see the module docstring."""

    budget: float = DEFAULT_BUDGET
    clock: Clock = time.monotonic
    max_attempts: int | None = None
    """An extra cap on attempts in a streak (``None``: the time budget alone decides)."""
    attempts: int = 0
    """Failures in the current streak."""
    _started: float | None = None
    _refused: str = ""
    """Why the last `next_delay` said no, for `gave_up`."""

    def __post_init__(self) -> None:
        if not self.budget >= 0:  # NaN or negative (a hand-edited config): no reconnects
            self.budget = 0.0

    def reset(self) -> None:
        """Events arrived: the next failure starts a new streak with a full budget."""
        self.attempts, self._started = 0, None

    @property
    def elapsed(self) -> float:
        """Seconds since the streak's first failure (0 outside a streak)."""
        return 0.0 if self._started is None else max(0.0, self.clock() - self._started)

    def next_delay(self, retry_ms: int | None, retry_after: float | None) -> float | None:
        """Count a failure; the seconds to wait before the next attempt, or ``None`` when the
        budget (or ``max_attempts``) is spent. ``retry_ms``: the host's SSE ``retry:``;
        ``retry_after``: its ``Retry-After`` on the failed answer, in seconds."""
        if self._started is None:
            self._started = self.clock()
        self.attempts += 1
        if self.max_attempts is not None and self.attempts > self.max_attempts:
            self._refused = ""
            return None
        base = retry_ms / 1000 if retry_ms is not None else BASE_DELAY
        delay = min(base * 2.0 ** (self.attempts - 1), MAX_DELAY)
        if retry_after is not None:
            delay = max(delay, retry_after)  # never sooner than the host asked
        left = self.budget - self.elapsed
        if delay > left:
            asked = retry_after is not None and retry_after >= delay
            self._refused = (
                f" (the host asked to wait {_span(retry_after or 0)}, more than the "
                f"{_span(max(left, 0))} left)"
                if asked and left > 0
                else ""
            )
            return None
        return delay

    def describe(self) -> str:
        """How far the streak is, for the reconnect notice: ``attempt 2, trying for 5 min``."""
        if self.max_attempts is not None:
            return f"attempt {self.attempts} of {self.max_attempts}"
        return f"attempt {self.attempts}, trying for up to {_span(self.budget)}"

    def gave_up(self, error: HostError, run_id: str, command: str) -> HostError:
        """The final error: the last failure's sentence, how long it was tried, which run, and
        the command that follows it again."""
        tries = self.attempts - 1
        spent = f" over {_span(self.elapsed)}" if self.elapsed >= 1 else ""
        attempts = f"{tries} reconnect attempt" + ("" if tries == 1 else "s")
        return HostError(
            f"{error.message} Gave up on run {run_id} after {attempts}{spent}{self._refused}; "
            f"the run may still be going at the host. Follow it again with: {command}",
            status=error.status,
            code=error.code,
            retry_after=error.retry_after,
            details=error.details,
        )
