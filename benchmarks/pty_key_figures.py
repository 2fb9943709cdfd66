"""Keys first, measured from outside the app (issue 26, part 5): a key typed 30 ms into an
unpaced rich answer (``bench.rich``: headings, lists, a table and code in six languages, about
2,200 tokens in two-word chunks), on a pseudo terminal, against the embedded demo host's
loopback server.

Each launch is a fresh app (its first answer: the one a first-event cost lands on), waits until
it is connected and idle, sends the message, and 30 ms later types one key; the figure is the
time from that key to its echo on screen, the median over the launches. The baseline is the
same app's key echo while idle, measured in the same launches.
"""

from __future__ import annotations

import statistics
import tempfile
import time

from benchmarks.figures import Figure, figure
from benchmarks.pty_figures import _app, demo_host
from benchmarks.terminal import MARKER, echoes

#: Fresh launches measured (each one key 30 ms into its first answer).
LAUNCHES = 7
#: How long after the message is sent the key is typed.
INTO_ANSWER_S = 0.030


def _early_key(url: str, key: str, pause: float) -> tuple[float, float]:
    """One launch: (the key's echo 30 ms into the first answer, the idle echo), in seconds;
    the message is sent ``pause`` seconds after the app is connected and has echoed keys."""
    with tempfile.TemporaryDirectory() as home:
        term = _app(url, key, home, "--workflow", "bench.rich")
        try:
            term.wait_for("connected")
            term.start_typing()
            idle = statistics.median(echoes(term, 5, every=0.05))
            term.clear_typing()
            time.sleep(pause)  # (a person's pause before sending: a measured interval)
            term.send("answer\r")
            time.sleep(INTO_ANSWER_S)  # (a measured interval, not a wait for anything)
            start = time.perf_counter()
            term.send(MARKER)
            seen = term.wait_for(MARKER)
            term.wait_for("answer over")
            return seen - start, idle
        finally:
            term.close()


@figure("pty_early_key")
async def pty_early_key() -> list[Figure]:
    """A key typed 30 ms into an unpaced rich 2,200-token answer, echoed (median of launches):
    the message sent 1.5 s after connecting (a person typing it), and at once (a script)."""
    figures = []
    with demo_host(pace=0) as (url, key):
        for name, pause in (("pty_early_key_echo_ms", 1.5), ("pty_early_key_at_once_ms", 0.0)):
            measured = [_early_key(url, key, pause) for _ in range(LAUNCHES)]
            early = [m[0] for m in measured]
            value = statistics.median(early) * 1000
            figures.append(
                Figure(
                    name,
                    value,
                    "ms",
                    "key echo of the idle app, same launches (ms, median)",
                    statistics.median(m[1] for m in measured) * 1000,
                    "< 50 ms",
                    value < 50.0,
                    note=f"median of {LAUNCHES} fresh launches, each its first answer, sent "
                    f"{pause:g} s after connecting; worst {max(early) * 1000:.0f} ms",
                )
            )
    return figures
