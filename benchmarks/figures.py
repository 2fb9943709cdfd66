"""The figures of ``python -m benchmarks``, one function each, run one per fresh process.

Each returns a `Figure`: the value, the baseline measured in the same run on the same machine,
their ratio, and the issue's target with whether it was met. Nothing here asserts: benchmarks
print, tests check behaviour.

Run one alone: ``python -m benchmarks.figures NAME`` (prints its JSON).
"""

from __future__ import annotations

import asyncio
import json
import resource
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass

import httpx
from httpx_sse import aconnect_sse


@dataclass(frozen=True, slots=True)
class Figure:
    """One measured figure beside its baseline."""

    name: str
    value: float
    unit: str
    baseline: str
    baseline_value: float | None
    target: str
    met: bool | None
    """``None`` when the target is not a threshold on this figure (shown for context)."""
    note: str = ""

    @property
    def ratio(self) -> float | None:
        """value / baseline (``None`` without a baseline)."""
        if not self.baseline_value:
            return None
        return self.value / self.baseline_value

    def as_json(self) -> dict[str, object]:
        return {**asdict(self), "ratio": self.ratio}


FigureFn = Callable[[], Awaitable[list[Figure]]]
FIGURES: dict[str, FigureFn] = {}


def figure(name: str) -> Callable[[FigureFn], FigureFn]:
    """Register a figure function under ``name`` (it may return several related figures)."""

    def register(fn: FigureFn) -> FigureFn:
        FIGURES[name] = fn
        return fn

    return register


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6


def _timed_command(args: list[str], repeat: int = 5) -> float:
    """The best wall time of ``args`` over ``repeat`` runs (best: the least disturbed)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(args, check=True, capture_output=True, timeout=120)
        best = min(best, time.perf_counter() - start)
    return best


# --------------------------------------------------------------------------- start-up


@figure("version")
async def version() -> list[Figure]:
    """``openwop-tui --version`` against ``python -c pass``."""
    ours = _timed_command([sys.executable, "-m", "openwop_tui", "--version"])
    bare = _timed_command([sys.executable, "-c", "pass"])
    return [Figure("version_s", ours, "s", "python -c pass", bare, "< 0.15 s", ours < 0.15)]


_FIRST_SCREEN = """
import asyncio, sys, time
start = float(sys.argv[1])
async def main():
    if sys.argv[2] == "ours":
        from openwop_tui.ui.app import ChatApp
        from openwop_tui.config import Config
        from openwop_tui.renderers.base import AudioSupport
        app = ChatApp(Config(host="http://127.0.0.1:9", audio=False, images="none"),
                      audio_support=AudioSupport(False, "bench"))
    else:
        from textual.app import App
        from textual.widgets import Footer, Input, Static
        class Minimal(App):
            def compose(self):
                yield Static("status"); yield Input(); yield Footer()
        app = Minimal()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        print(time.time() - start)
asyncio.run(main())
"""


@figure("first_screen")
async def first_screen() -> list[Figure]:
    """Process start to the first screen drawn, the app against a minimal Textual app."""

    def measure(which: str) -> float:
        best = float("inf")
        for _ in range(3):
            out = subprocess.run(
                [sys.executable, "-c", _FIRST_SCREEN, repr(time.time()), which],
                check=True,
                capture_output=True,
                text=True,
                timeout=120,
            )
            best = min(best, float(out.stdout.strip().splitlines()[-1]))
        return best

    ours, minimal = measure("ours"), measure("minimal")
    return [
        Figure("first_screen_s", ours, "s", "a minimal Textual app", minimal, "< 1 s", ours < 1.0)
    ]


# ---------------------------------------------------------------------------- ingest

INGEST_EVENTS = 20_000
MODES = "updates,messages"  # chunks travel in `messages` mode


async def _bench_run(url: str, key: str) -> tuple[str, dict[str, str]]:
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient() as http:
        response = await http.post(
            f"{url}/v1/runs",
            json={"workflowId": "bench.events", "inputs": {"count": INGEST_EVENTS}},
            headers=headers,
        )
        response.raise_for_status()
        return response.json()["runId"], headers


#: Rounds of `ingest`, each side taking its best: the machine's noise is one-sided (a round is
#: only ever slowed), and the two sides alternate so that a slow spell hits both.
INGEST_ROUNDS = 3


async def _bare_rate(url: str, key: str) -> float:
    """Events a second httpx-sse alone reads of a fresh run (no decoding beyond its own)."""
    run_id, headers = await _bench_run(url, key)
    start = time.perf_counter()
    count = 0
    async with (
        httpx.AsyncClient(timeout=60) as http,
        aconnect_sse(
            http, "GET", f"{url}/v1/runs/{run_id}/events?streamMode={MODES}", headers=headers
        ) as source,
    ):
        async for _ in source.aiter_sse():
            count += 1
    return count / (time.perf_counter() - start)


async def _our_rate(url: str, key: str) -> tuple[float, int]:
    """Events a second the client decodes, normalises and folds of a fresh run (and how many)."""
    from openwop_tui.core.fold import Transcript
    from openwop_tui.protocol.client import HostClient
    from openwop_tui.protocol.events import RunEvent
    from openwop_tui.protocol.stream import subscribe

    run_id, _ = await _bench_run(url, key)
    transcript = Transcript()
    start = time.perf_counter()
    events = 0
    async with HostClient(url, key) as client:
        await client.discover()
        async for item in subscribe(client, run_id, modes=MODES):
            if isinstance(item, RunEvent):
                transcript.apply(item)
                events += 1
    return events / (time.perf_counter() - start), events


@figure("ingest")
async def ingest() -> list[Figure]:
    """20,000 small events from the demo host (a process of its own: its work is not the
    client's) through decode, normalise and fold, against bare httpx-sse reading the same
    stream; the best of `INGEST_ROUNDS` each."""
    from benchmarks.pty_figures import demo_host

    bare = ours = 0.0
    events = 0
    with demo_host(pace=0) as (url, key):
        for _ in range(INGEST_ROUNDS):
            bare = max(bare, await _bare_rate(url, key))
            rate, events = await _our_rate(url, key)
            ours = max(ours, rate)
    return [
        Figure(
            "ingest_events_per_s",
            ours,
            "events/s",
            "bare httpx-sse over the same stream",
            bare,
            "ratio >= 0.5",
            ours / bare >= 0.5,
            note=f"{events} events through decode, normalise and fold; best of "
            f"{INGEST_ROUNDS} rounds each, alternating",
        )
    ]


def register_all() -> dict[str, FigureFn]:
    """Every figure, registered: each module below registers its own as it is imported. The
    one list of them, for the table (``python -m benchmarks``) and for the process each figure
    runs in (`main`): a module left out of one of two lists had its figures missing from the
    table (``pty_flood_60``, the issue's 60 s flood)."""
    # Run as ``-m``, this file is ``__main__``: the registry the figures fill is the one of the
    # module ``benchmarks.figures``, imported here under that name.
    import benchmarks.figures as registry
    import benchmarks.growth_figures  # (the store's growth with echoed histories)
    import benchmarks.inspect_figures  # (the inspector figures)
    import benchmarks.lint_figures  # (the lint, timeline and stats figure)
    import benchmarks.memory_figures  # (the flat-memory figures, from outside)
    import benchmarks.paragraph_figures  # (a long paragraph's redraw)
    import benchmarks.pattern_figures  # (the host-pattern figure)
    import benchmarks.pty_figures  # (the figures measured from outside the app)
    import benchmarks.pty_flood_figures  # (the 60 s flood's rate, from outside)
    import benchmarks.pty_key_figures  # (a key typed as an answer begins)
    import benchmarks.pty_page_figures  # (paging and resizing, from outside too)
    import benchmarks.pty_refold_figures  # (the first open without kept folds)
    import benchmarks.store_figures  # (the store, reopen and history figures)
    import benchmarks.view_figures  # noqa: F401  (the transcript figures)

    return registry.FIGURES


def main(argv: list[str]) -> int:
    (name,) = argv
    figures = asyncio.run(register_all()[name]())
    print(json.dumps([f.as_json() for f in figures]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
