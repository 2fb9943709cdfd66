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

import itertools
import statistics
import tempfile
import time
from typing import NamedTuple

from benchmarks.figures import Figure, figure
from benchmarks.pty_figures import _app, _completed_at, demo_host
from benchmarks.terminal import MARKER, echoes
from openwop_tui.demo_host.workflows import CODE_RATE

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


#: Launches of each long answer measured (each its own app, keys typed throughout).
CODE_LAUNCHES = 1
#: The host's pause after each ten chunks of a long answer (``bench.code``, ``bench.list``:
#: `openwop_tui.demo_host.workflows.CODE_RATE` chunks a second).
PAUSE_S = 10 / CODE_RATE


class _Long(NamedTuple):
    """One launch through a long answer."""

    keys: list[float]
    """The echoes of keys typed while it streamed (s)."""
    idle: float
    """The idle echo before it (s, median)."""
    lag: float
    """Seconds from the host's end of the run to the answer's end on screen."""
    still: float
    """The longest the transcript stood still on screen while the answer streamed (s)."""
    updates: int
    """How many times the transcript changed on screen while it streamed."""


def _transcript(lines: list[str]) -> list[str]:
    """The transcript's rows of the screen: below the status line, above the prompt's box,
    without the scroll bar's columns (what a key typed into the prompt does not change)."""
    box = next((n for n, line in enumerate(lines) if "▔▔▔" in line), len(lines))
    return [line[:-4] for line in lines[1:box]]


def _long_keys(url: str, key: str, workflow: str, first: str) -> _Long:
    """One launch through ``workflow``'s long answer, from ``first`` on screen to ``answer
    over``: keys typed every 50 ms and echoed, the transcript's changes noted."""
    with tempfile.TemporaryDirectory() as home:
        term = _app(url, key, home, "--workflow", workflow)
        try:
            term.start_typing()
            idle = statistics.median(echoes(term, 5, every=0.05))
            term.clear_typing()
            term.send("long answer\r")
            term.wait_for(first)
            term.watch(_transcript)
            began = time.perf_counter()
            term.start_typing()
            keys: list[float] = []
            while "answer over" not in term.text:
                keys.append(term.echo())
                time.sleep(0.05)  # (a person's typing: a measured interval)
            seen = time.time()
            changes = [began, *term.region_changes]
        finally:
            term.close()
    still = max(b - a for a, b in itertools.pairwise(changes)) if len(changes) > 1 else 0.0
    lag = seen - _completed_at(url, key, workflow)
    return _Long(keys, idle, lag, still, len(changes) - 1)


def _long_figures(name: str, workflow: str, first: str, what: str) -> list[Figure]:
    """The key echo figures of ``workflow``'s long answer (its ``what`` streaming)."""
    with demo_host(pace=1.0) as (url, key):  # (the workflow's own pace)
        measured = [_long_keys(url, key, workflow, first) for _ in range(CODE_LAUNCHES)]
    keys = [echo for launch in measured for echo in launch.keys]
    idle = statistics.median(m.idle for m in measured) * 1000
    median = statistics.median(keys) * 1000
    worst = max(keys) * 1000
    slow = sum(1 for echo in keys if echo > 0.05)
    lag = statistics.median(m.lag for m in measured)
    still = statistics.median(m.still for m in measured) * 1000
    updates = statistics.median(m.updates for m in measured)
    return [
        Figure(
            f"{name}_echo_ms",
            median,
            "ms",
            "key echo of the idle app, same launches (ms, median)",
            idle,
            "< 50 ms",
            median < 50.0,
            note=f"{len(keys)} keys, one every 50 ms while {what} streamed; "
            f"{slow} of them over 50 ms; the answer's end on screen {lag:.2f} s after the host's",
        ),
        Figure(
            f"{name}_worst_ms",
            worst,
            "ms",
            "key echo of the idle app, same launches (ms, median)",
            idle,
            "< 100 ms",
            worst < 100.0,
            note=f"the slowest echo of all the keys typed while {what} streamed",
        ),
        Figure(
            f"{name}_still_ms",
            still,
            "ms",
            "the host's pause between its bursts of ten chunks (ms)",
            PAUSE_S * 1000,
            "< 250 ms",
            still < 250.0,
            note=f"the longest the transcript stood still on screen while {what} streamed "
            f"(it changed {updates:g} times)",
        ),
    ]


@figure("pty_code_key")
async def pty_code_key() -> list[Figure]:
    """Keys typed while a 600-line code block streams at a fast model's pace (``bench.code``:
    100 chunks a second, 15 s), echoed: the open code block is drawn again at every redraw."""
    return _long_figures("pty_code_key", "bench.code", "class Step", "the code block")


@figure("pty_list_key")
async def pty_list_key() -> list[Figure]:
    """Keys typed while a 100-item numbered list streams at a fast model's pace
    (``bench.list``: 100 chunks a second, 15 s), echoed: the open list is parsed and drawn
    again at every redraw."""
    return _long_figures("pty_list_key", "bench.list", "Check the queue", "the list")
