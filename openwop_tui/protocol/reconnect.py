"""How long a run's stream keeps trying to reconnect: a budget in time, with backoff.

A count of attempts is the wrong measure: five quick 503s gave up after about 5 s while the run
went on to complete at the host, and nothing said which run it was or how to follow it again.
`Reconnects` spends a budget of wall time instead (`DEFAULT_BUDGET`, five minutes; the
``reconnect_minutes`` setting), from the first failure of a streak; a connection that brings an
event starts a new streak.

How long each wait is:

* The host sent ``Retry-After`` with the failure: exactly that. A host that says "1" is tried
  again after 1 s, every time (doubling on top of it once kept a storm that ended after 8 s
  invisible at 60 s). It is clamped: below `MIN_RETRY_AFTER` (a ``0`` would be a hot loop) is
  taken as that, and above `MAX_RETRY_AFTER` (a host saying 10^9 s) is cut to that, and the
  notice says what the host asked and what the client does instead.
* No ``Retry-After``: a backoff doubling from the host's SSE ``retry:`` (or `BASE_DELAY`) up to
  `MAX_DELAY`, each step lengthened by a random share up to `JITTER`, so clients cut off by the
  same outage do not all come back in the same instant.

A wait longer than what the budget has left ends the streak at once rather than retry early.
`gave_up` is the final error: it names the run and the exact command that follows it again.

The clock, the sleep and the jitter's randomness are injected (`openwop_tui.protocol.stream.
subscribe` takes all three), so tests run a whole budget without waiting and know each wait.
Pure apart from them; no Textual here.
"""

from __future__ import annotations

import math
import random
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass

from openwop_tui.protocol.errors import HostError
from openwop_tui.protocol.waits import span

__all__ = [
    "BASE_DELAY",
    "DEFAULT_BUDGET",
    "JITTER",
    "MAX_DELAY",
    "MAX_RETRY_AFTER",
    "MIN_RETRY_AFTER",
    "Reconnects",
    "attach_command",
]

#: Seconds a streak of failures may last before the stream gives up (``reconnect_minutes``).
DEFAULT_BUDGET = 300.0
#: Longest backoff step the client picks itself, before its jitter.
MAX_DELAY = 30.0
#: First backoff step when the host gave no ``retry:``.
BASE_DELAY = 0.5
#: Largest share of a backoff step added at random (0.25: a 4 s step waits 4 to 5 s).
JITTER = 0.25
#: Shortest wait a host's ``Retry-After`` gets (``Retry-After: 0`` would retry in a hot loop).
MIN_RETRY_AFTER = 0.5
#: Longest wait a host's ``Retry-After`` gets: a minute, so that a host asking for hours (or
#: 10^9 s) neither freezes the client nor ends the run's stream before the budget is spent.
MAX_RETRY_AFTER = 60.0

Clock = Callable[[], float]
Random = Callable[[], float]
"""A source of numbers in [0, 1), like `random.random`."""


def attach_command(host: str, run_id: str, *, keyed: bool) -> str:
    """The command that follows ``run_id`` again, ready to paste (shell-quoted)."""
    key = ' --api-key "$OPENWOP_API_KEY"' if keyed else ""
    return f"openwop-tui attach {shlex.quote(run_id)} --host {shlex.quote(host)}{key}"


@dataclass(slots=True)
class Reconnects:
    """One stream's reconnect budget; see the module docstring."""

    budget: float = DEFAULT_BUDGET
    clock: Clock = time.monotonic
    max_attempts: int | None = None
    """An extra cap on attempts in a streak (``None``: the time budget alone decides)."""
    jitter: Random = random.random
    """Where the backoff's random share comes from (tests pass a constant)."""
    attempts: int = 0
    """Failures in the current streak."""
    note: str = ""
    """What the last wait is, when it is not what the host asked: ``the host asked to wait 31
    years; 1 min is the longest this client waits``. Empty otherwise."""
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
        self.note = ""
        if retry_after is not None and retry_after >= 0:  # NaN is no answer: back off instead
            delay = min(max(retry_after, MIN_RETRY_AFTER), MAX_RETRY_AFTER)
            if retry_after > MAX_RETRY_AFTER:
                self.note = (
                    f"the host asked to wait {span(retry_after)}; {span(delay)} is the longest "
                    "this client waits"
                )
        else:
            retry_after = None
            base = retry_ms / 1000 if retry_ms is not None else BASE_DELAY
            # The exponent is bounded: a long streak of Retry-After answers must not overflow it.
            step = min(base * 2.0 ** min(self.attempts - 1, 32), MAX_DELAY)
            delay = step * (1 + JITTER * min(max(self.jitter(), 0.0), 1.0))
            # Rounded up, to what the notice shows: never sooner than the host's ``retry:``.
            delay = math.ceil(delay * 10 - 1e-9) / 10 if delay < 10 else float(math.ceil(delay))
        left = self.budget - self.elapsed
        if delay > left:
            self._refused = (
                f" (the host asked to wait {span(retry_after)}, more than the "
                f"{span(max(left, 0))} left)"
                if retry_after is not None and left > 0
                else ""
            )
            return None
        return delay

    def describe(self) -> str:
        """How far the streak is, for the reconnect notice: ``attempt 2, trying for 5 min``,
        after `note` when the wait is not what the host asked."""
        note = f"{self.note}; " if self.note else ""
        if self.max_attempts is not None:
            return f"{note}attempt {self.attempts} of {self.max_attempts}"
        return f"{note}attempt {self.attempts}, trying for up to {span(self.budget)}"

    def gave_up(self, error: HostError, run_id: str, command: str) -> HostError:
        """The final error: the last failure's sentence, how long it was tried, which run, and
        the command that follows it again."""
        tries = self.attempts - 1
        spent = f" over {span(self.elapsed)}" if self.elapsed >= 1 else ""
        attempts = f"{tries} reconnect attempt" + ("" if tries == 1 else "s")
        return HostError(
            f"{error.message} Gave up on run {run_id} after {attempts}{spent}{self._refused}; "
            f"the run may still be going at the host. Follow it again with: {command}",
            status=error.status,
            code=error.code,
            retry_after=error.retry_after,
            details=error.details,
        )
