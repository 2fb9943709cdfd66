"""A fast host read at its own pace, measured from outside the app (issue 26, part 1).

``pty_flood_60``: the demo host's ``bench.flood`` offers 10,000 chunk events a second for 60 s
(``BENCH_FLOOD_60_SECONDS`` shortens it) to the app in a pty, against a bare httpx-sse reader of
the same flood in the same run. Counted from outside the app's process:

* the rate the app read the flood at: the events its session store holds for the run (read
  from the store's file after the app quit) over the time from the host's start of the run to
  the run's end on screen; every event the host sent must be there, in the host's order, or
  the figure says how many are missing;
* the run's end on screen (its end line: the reply's last words are past the app's cap on a
  reply's text) after the host sent it (the host's ``completedAt``);
* key echo over the flood (median), and the app's peak RSS for context.

The 15 s figures of `benchmarks.pty_figures.pty_flood` keep their names and method.
"""

from __future__ import annotations

import itertools
import os
import sqlite3
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from benchmarks.figures import Figure, figure
from benchmarks.pty_figures import FLOOD_RATE, _app, _completed_at, _run_ended, demo_host
from benchmarks.terminal import echoes, median_ms

#: How long the flood lasts (the issue's 60 s; ``BENCH_FLOOD_60_SECONDS`` to try it shorter).
SECONDS = float(os.environ.get("BENCH_FLOOD_60_SECONDS", "60"))
#: How long after the host's end the run's end may take to be on screen before giving up.
PATIENCE = 120.0
#: The issue's targets: the rate read, the end on screen after the host's, key echo.
RATE_TARGET = 9_500.0
END_TARGET_S = 1.0
ECHO_TARGET_MS = 50.0


def _epoch(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def _run_of(url: str, key: str) -> tuple[str, float, int]:
    """The newest flood run: its id, when the host started it (epoch seconds) and how many
    events the host sent for it."""
    headers = {"Authorization": f"Bearer {key}"}
    runs = httpx.get(f"{url}/v1/runs", params={"workflowId": "bench.flood"}, headers=headers)
    run_id = runs.json()["runs"][0]["runId"]
    snapshot = httpx.get(f"{url}/v1/runs/{run_id}", headers=headers).json()
    last = httpx.get(
        f"{url}/v1/runs/{run_id}/events/poll",
        params={"afterSequence": 1 << 40, "timeout": 0},
        headers=headers,
    ).json()["lastSequence"]
    return run_id, _epoch(snapshot["startedAt"]), int(last) + 1


def _bare_rate(url: str, key: str) -> tuple[float, float]:
    """A bare httpx-sse reader of a whole flood: (events a second, from the host's start of
    the run to the reader's last event; seconds from the host's end to the reader's)."""
    from httpx_sse import connect_sse

    headers = {"Authorization": f"Bearer {key}"}
    run = httpx.post(
        f"{url}/v1/runs", json={"workflowId": "bench.flood", "inputs": {}}, headers=headers
    ).json()["runId"]
    count = 0
    with (
        httpx.Client(timeout=PATIENCE) as http,
        connect_sse(
            http, "GET", f"{url}/v1/runs/{run}/events?streamMode=updates,messages", headers=headers
        ) as source,
    ):
        for event in source.iter_sse():
            count += 1
            if '"run.completed"' in event.data:
                break
    seen = time.time()
    _, started, _ = _run_of(url, key)
    return count / (seen - started), seen - _completed_at(url, key, "bench.flood")


def _stored(home: str, run_id: str) -> tuple[int, bool]:
    """How many of the run's events the app's store holds, and whether they are in the
    host's order (each frame's id, its sequence, above the last)."""
    path = Path(home) / "data" / "openwop-tui" / "sessions.db"
    with sqlite3.connect(path) as db:
        ids = [
            row[0]
            for row in db.execute(
                "SELECT frame_id FROM entries WHERE kind = 'frame' AND run = ? ORDER BY seq",
                (run_id,),
            )
        ]
    sequences = [int(i) for i in ids if i is not None and i.isdigit()]
    ordered = len(sequences) == len(ids) and all(a < b for a, b in itertools.pairwise(sequences))
    return len(ids), ordered


def _flood(url: str, key: str, home: str) -> dict[str, Any]:
    """The app through one flood: what the figures need."""
    term = _app(url, key, home, "--workflow", "bench.flood")
    try:
        term.start_typing()
        idle = echoes(term, 10, every=0.05)
        idle_rss = term.rss_mb()
        term.clear_typing()
        term.send("flood\r")
        term.wait_for("w1 w2")
        term.start_typing()
        keys: list[float] = []
        peak = 0.0
        deadline = time.perf_counter() + SECONDS + PATIENCE
        # The run's end line, not the reply's last words: 60 s of chunks are past the app's
        # cap on a reply's text (the rest is saved), so "flood over" is not drawn.
        while not _run_ended(term.text) and time.perf_counter() < deadline:
            keys.append(term.echo(timeout=PATIENCE))
            peak = max(peak, term.rss_mb())
            time.sleep(0.1)
        ended = _run_ended(term.text)
        seen = time.time()
        peak = max(peak, term.rss_mb())
    finally:
        term.close()
    run_id, started, sent = _run_of(url, key)
    stored, ordered = _stored(home, run_id)
    return {
        "ended": ended,
        "rate": stored / (seen - started),
        "lag": seen - _completed_at(url, key, "bench.flood"),
        "sent": sent,
        "stored": stored,
        "ordered": ordered,
        "keys": keys,
        "idle": idle,
        "peak": peak,
        "idle_rss": idle_rss,
    }


@figure("pty_flood_60")
async def pty_flood_60() -> list[Figure]:
    """10,000 chunk events a second for 60 s into the app in a pty: the rate it read them at,
    its end on screen and key echo, beside a bare httpx-sse reader of the same flood."""
    with (
        demo_host(pace=1, flood_seconds=SECONDS) as (url, key),
        tempfile.TemporaryDirectory() as home,
    ):
        bare_rate, bare_lag = _bare_rate(url, key)
        app = _flood(url, key, home)
    whole = app["stored"] == app["sent"] and app["ordered"]
    kept = (
        f"all {app['sent']:,} events stored, in order"
        if whole
        else f"{app['stored']:,} of {app['sent']:,} events stored"
        + ("" if app["ordered"] else ", NOT in the host's order")
    )
    offered = f"{FLOOD_RATE:,} events/s offered for {SECONDS:.0f} s"
    echo, idle_echo = median_ms(app["keys"]), median_ms(app["idle"])
    return [
        Figure(
            "pty_flood_60_rate_per_s",
            app["rate"],
            "events/s",
            "a bare httpx-sse reader of the same flood (events/s)",
            bare_rate,
            f">= {RATE_TARGET:,.0f}/s, every event stored",
            app["rate"] >= RATE_TARGET and whole,
            note=f"{offered}; {kept}; counted from the store, host start to the end on screen",
        ),
        Figure(
            "pty_flood_60_end_on_screen_s",
            app["lag"],
            "s",
            "a bare httpx-sse reader's lag behind the same flood (s)",
            bare_lag,
            f"<= {END_TARGET_S:g} s after the host sent it",
            app["ended"] and app["lag"] <= END_TARGET_S,
            note="" if app["ended"] else f"not on screen after {PATIENCE:.0f} s",
        ),
        Figure(
            "pty_flood_60_key_echo_ms",
            echo,
            "ms",
            "key echo of the idle app (ms, median of 10)",
            idle_echo,
            f"median < {ECHO_TARGET_MS:g} ms",
            echo < ECHO_TARGET_MS,
            note=f"median of {len(app['keys'])} keys over the flood, "
            f"worst {max(app['keys']) * 1000:.0f} ms",
        ),
        Figure(
            "pty_flood_60_rss_mib",
            app["peak"],
            "MiB",
            "the idle app's RSS (MiB)",
            app["idle_rss"],
            "shown for context",
            None,
        ),
    ]
