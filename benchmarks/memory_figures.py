"""Issue 26's flat-memory figures, measured from outside the app (its RSS read from
``/proc/PID/status``), the app in a pty against the demo host in a process of its own.

* ``pty_memory_turns``: RSS grown across `TURNS` short streamed turns (``demo.text`` echoing
  a few words) after the first, beside a bare Textual ``RichLog`` app fed the same text in the
  same pty (which keeps every line it was given: the floor a scrolling log costs);
* ``pty_memory_flood``: RSS grown across `FLOODS` floods of the fast host (10,000 chunk events
  a second, ``BENCH_FLOOD_SECONDS`` long, 15 s by default: 150,000 events each; four by
  default, the issue's 600,000 events; ``BENCH_MEMORY_FLOODS`` to change), from the idle app
  (the issue's measure), beside the growth after the first flood (the plateau).

The turns' growth is taken after a first turn, so what is made once (the first reply's
drawing, the store's pages, Textual's caches) is not counted as growth.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

from benchmarks.figures import Figure, figure
from benchmarks.pty_figures import FLOOD_RATE, FLOOD_SECONDS, PROMPT, _app, _env, demo_host
from benchmarks.terminal import Terminal

#: Turns measured after the first.
TURNS = int(os.environ.get("BENCH_MEMORY_TURNS", "300"))
#: Floods run in one session (four of 150,000 events: the issue's 600,000).
FLOODS = int(os.environ.get("BENCH_MEMORY_FLOODS", "4"))
#: What the issue's target is stated for.
TARGET_EVENTS = 600_000

#: The baseline: a bare RichLog under a prompt, writing each message and the same reply
#: ``demo.text`` gives it (its markdown drawn by Rich), keeping every line.
_RICHLOG = """
from rich.markdown import Markdown
from textual.app import App
from textual.widgets import Input, RichLog
class Bare(App):
    AUTO_FOCUS = "Input"
    def compose(self):
        yield RichLog(); yield Input(placeholder="Message the host")
    def on_input_submitted(self, event):
        log = self.query_one(RichLog)
        text = event.value
        event.input.value = ""
        log.write(text)
        log.write(Markdown("## Text only\\n\\nYou said:\\n\\n> " + text + "\\n"))
Bare().run()
"""


def _message(n: int) -> str:
    """A short message that names its turn once (``ping0007x``, never inside another's)."""
    return f"ping{n:04d}x"


def _turn(term: Terminal, n: int) -> None:
    """Send turn ``n`` and wait for its echo under it (the message and the quote of it)."""
    message = _message(n)
    term.send(message + "\r")
    term.wait_for(lambda text: text.count(message) >= 2, timeout=60)


def _turns_growth(term: Terminal, pause: float) -> tuple[float, float]:
    """(RSS after the first turn, growth over `TURNS` more), MiB."""
    _turn(term, 0)
    time.sleep(1.0)  # (the first turn's drawing ahead and its run's end settle)
    first = term.rss_mb()
    for n in range(1, TURNS + 1):
        _turn(term, n)
        time.sleep(pause)  # (the run's end reaches the app before the next message)
    time.sleep(1.0)
    return first, term.rss_mb() - first


@figure("pty_memory_turns")
async def pty_memory_turns() -> list[Figure]:
    """RSS grown over 300 short streamed turns after the first, against a bare RichLog."""
    with demo_host(pace=0) as (url, key), tempfile.TemporaryDirectory() as home:
        term = _app(url, key, home, "--workflow", "demo.text")
        try:
            first, grown = _turns_growth(term, 0.15)
        finally:
            term.close()
        bare = Terminal([sys.executable, "-c", _RICHLOG], _env(home))
        try:
            bare.wait_for(PROMPT)
            bare_first, bare_grown = _turns_growth(bare, 0.0)
        finally:
            bare.close()
    return [
        Figure(
            "pty_memory_turns_growth_mib",
            grown,
            "MiB",
            f"a bare Textual RichLog fed the same text (MiB grown; {bare_first:.0f} after one)",
            bare_grown,
            f"< 50 MiB across {TURNS} turns after the first",
            grown < 50.0,
            note=f"RSS {first:.0f} MiB after the first turn, {first + grown:.0f} after "
            f"{TURNS} more ({grown / max(TURNS, 1) * 1024:.0f} KiB a turn)",
        )
    ]


def _flood(term: Terminal, n: int) -> None:
    """Run one flood (message ``flood n``) and wait for its end on screen."""
    term.send(f"flood {n}\r")
    if n:  # the last flood's end leaves the screen once this one's words fill it
        term.wait_for(lambda text: "flood over" not in text, timeout=60)
    term.wait_for("flood over", timeout=FLOOD_SECONDS + 120)


@figure("pty_memory_flood")
async def pty_memory_flood() -> list[Figure]:
    """RSS grown across floods of 10,000 chunk events a second, from the idle app."""
    events = round(FLOOD_RATE * FLOOD_SECONDS)
    with demo_host(pace=1) as (url, key), tempfile.TemporaryDirectory() as home:
        term = _app(url, key, home, "--workflow", "bench.flood")
        try:
            idle = term.rss_mb()
            after: list[float] = []
            for n in range(max(FLOODS, 1)):
                _flood(term, n)
                time.sleep(2.0)  # (the run's end settles: its garbage collected)
                after.append(term.rss_mb())
        finally:
            term.close()
    grown = after[-1] - idle
    total = events * len(after)
    return [
        Figure(
            "pty_memory_flood_growth_mib",
            grown,
            "MiB",
            "the idle app's RSS (MiB)",
            idle,
            f"< 100 MiB across {TARGET_EVENTS:,} events",
            grown < 100.0 if total >= TARGET_EVENTS else None,
            note=f"{len(after)} floods of {events:,} events ({total:,}); grown "
            f"{after[-1] - after[0]:.0f} MiB after the first; RSS after each flood: "
            + " -> ".join(f"{mib:.0f}" for mib in after),
        )
    ]
