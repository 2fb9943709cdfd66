"""The store, reopen and long-session figures of ``python -m benchmarks`` (registered on import
by `benchmarks.figures`), each beside a baseline measured in the same run.

* ``store_appends``: 1,180 frames appended as the app appends them (batched) against one commit
  per append (what the store did before), with one transaction for everything as the floor;
* ``reopen``: a stored session of 3,000 real-shaped turns (a recorded ``demo.chat`` turn of
  ~75 streamed frames, written 3,000 times) reopened by the conversation against a one-turn
  session; the first open of a session without kept folds (one written by an older version)
  is shown beside it;
* ``next_message``: the message after those 3,000 turns, sent to the demo host running in its
  own process (over a socket), against the message after one turn;
* ``flood``: 100,000 chunk events through the conversation and the store, against a bare
  httpx-sse consumer: events a second and memory grown per event.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.figures import Figure, figure
from benchmarks.sessions import recorded_turn, write_session
from openwop_tui.core import opening
from openwop_tui.core.chat_history import body_size
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store
from openwop_tui.text.units import human_size

APPENDS = 1_180
TURNS = 3_000


def _frames(count: int) -> list[Entry]:
    data = '{"type":"output.chunk","runId":"r","sequence":%d,"payload":{"chunk":"word "}}'
    return [
        Entry("frame", data % n, run="r", label="messages", frame_id=str(n)) for n in range(count)
    ]


def _append_all(folder: Path, name: str, mode: str) -> float:
    store = Store(folder / f"{name}.db")
    session = store.create(host="http://127.0.0.1:1", workflow="bench")
    frames = _frames(APPENDS)
    start = time.perf_counter()
    if mode == "one":  # the floor: everything in one transaction, by hand
        db = store._db
        db.execute("BEGIN IMMEDIATE")
        for n, frame in enumerate(frames):
            db.execute(
                "INSERT INTO entries (session, seq, at, kind, run, label, frame_id, data) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (session, n, time.time(), "frame", "r", "messages", str(n), frame.data.encode()),
            )
        db.execute("COMMIT")
    else:
        for frame in frames:
            store.append(session, frame)
            if mode == "each":  # what every append cost before: its own transaction
                store.flush()
        store.flush()
    seconds = time.perf_counter() - start
    store.close()
    return seconds


@figure("store_appends")
async def store_appends() -> list[Figure]:
    """1,180 appends batched, against a commit per append (the floor: one transaction)."""
    with tempfile.TemporaryDirectory() as folder:
        here = Path(folder)
        best = {
            mode: min(_append_all(here, f"{mode}{n}", mode) for n in range(3))
            for mode in ("batched", "each", "one")
        }
    return [
        Figure(
            "store_1180_appends_s",
            best["batched"],
            "s",
            "one transaction per append (the store before)",
            best["each"],
            "ratio <= 0.3",
            best["batched"] / best["each"] <= 0.3,
            note=f"floor, one transaction for all: {best['one']:.3f} s",
        )
    ]


def _reopen_time(path: Path, session_id: str) -> float:
    best = float("inf")
    for _ in range(3):
        with Store(path) as store:
            start = time.perf_counter()
            chat = opening.stored(store, session_id)
            best = min(best, time.perf_counter() - start)
            assert chat.transcript.items
    return best


@figure("reopen")
async def reopen() -> list[Figure]:
    """A 3,000-turn session of real-shaped turns reopened (kept folds), against one turn."""
    turn = await recorded_turn()
    with tempfile.TemporaryDirectory() as folder:
        big, small = Path(folder) / "big.db", Path(folder) / "small.db"
        with Store(big) as store:
            big_id = write_session(store, turn, TURNS)
        with Store(small) as store:
            small_id = write_session(store, turn, 1)
        # Written entry by entry, like a session of an older version: the first open folds
        # every event and keeps each run's fold; every later open reads those.
        with Store(big) as store:
            start = time.perf_counter()
            chat = opening.stored(store, big_id)
            first = time.perf_counter() - start
            items = len(chat.transcript.items)
        ours = _reopen_time(big, big_id)
        one = _reopen_time(small, small_id)
    return [
        Figure(
            "reopen_3000_turns_s",
            ours,
            "s",
            "the same reopen of a one-turn session",
            one,
            "< 0.5 s (the app's 1.5x of its 1.2 s one-turn open)",
            ours < 0.5,
            note=f"{items} items, {len(turn)} log entries a turn; first open without kept "
            f"folds (folds every event, keeps them): {first:.1f} s",
        )
    ]


def _demo_host() -> tuple[subprocess.Popen[str], str, str]:
    """The demo host in a process of its own (so its work is not counted as the client's)."""
    code = "from openwop_tui.demo_host.host import serve_forever; serve_forever(pace=0)"
    host = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert host.stdout is not None
    found = re.search(r"http://\S+", host.stdout.readline())
    key = host.stdout.readline().split()[-1]
    assert found is not None
    return host, found.group(0), key


async def _next_message(path: Path, session_id: str, url: str, key: str) -> tuple[float, str]:
    from openwop_tui.core.session import Session
    from openwop_tui.protocol.client import HostClient
    from openwop_tui.protocol.errors import HostError

    with Store(path) as store:
        async with HostClient(url, key) as client:
            session = Session(client, workflow_id="demo.chat")
            chat = opening.stored(store, session_id, session=session)
            await chat.connect()
            limit = chat.discovery.max_request_body_bytes if chat.discovery else None
            sent = chat.chat.fitted(
                "and the next one?", workflow_id="demo.chat", max_body_bytes=limit
            )
            body = body_size({"workflowId": "demo.chat", "inputs": sent.inputs})
            start = time.perf_counter()
            try:
                async for _ in chat.send("and the next one?"):
                    pass
            except HostError as error:
                return time.perf_counter() - start, f"failed: {error}"
            seconds = time.perf_counter() - start
    status = chat.transcript.status or "no status"
    shown = "no limit advertised" if limit is None else f"host limit {human_size(limit)}"
    return seconds, (
        f"{status}; {len(sent.inputs['messages'])} messages, {human_size(body)} sent "
        f"({shown}; {sent.left_out} turns left out)"
    )


@figure("next_message")
async def next_message() -> list[Figure]:
    """The message after 3,000 turns, to the demo host over a socket, against after one.

    It carries the newest turns that fit the host's request limit (1 MB of history, echoed
    back in ``run.started``): the time is that megabyte's, there and back."""
    turn = await recorded_turn()
    host, url, key = _demo_host()
    try:
        with tempfile.TemporaryDirectory() as folder:
            big, small = Path(folder) / "big.db", Path(folder) / "small.db"
            with Store(big) as store:
                big_id = write_session(store, turn, TURNS)
            with Store(small) as store:
                small_id = write_session(store, turn, 1)
            one, _ = await _next_message(small, small_id, url, key)
            ours, outcome = await _next_message(big, big_id, url, key)
    finally:
        host.terminate()
        host.wait(timeout=30)
    completed = outcome.startswith("completed")
    return [
        Figure(
            "next_message_3000_turns_s",
            ours,
            "s",
            "the message after one turn",
            one,
            "runs to completion, < 1 s",
            completed and ours < 1.0,
            note=outcome,
        )
    ]


FLOOD_EVENTS = 100_000


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 1e6


async def _bench_run(url: str, key: str) -> str:
    import httpx

    async with httpx.AsyncClient() as http:
        response = await http.post(
            f"{url}/v1/runs",
            json={"workflowId": "bench.events", "inputs": {"count": FLOOD_EVENTS}},
            headers={"Authorization": f"Bearer {key}"},
        )
        response.raise_for_status()
        run_id: str = response.json()["runId"]
        return run_id


@figure("flood")
async def flood() -> list[Figure]:
    """100,000 chunk events from the demo host (its own process) through the conversation and
    the store, against a bare httpx-sse consumer of the same stream: events a second, and
    memory grown per event (what the conversation keeps is the text, not the events)."""
    import gc

    import httpx
    from httpx_sse import aconnect_sse

    from openwop_tui.core.session import Session
    from openwop_tui.protocol.client import HostClient

    host, url, key = _demo_host()
    try:
        run_id = await _bench_run(url, key)
        gc.collect()
        start, count, bare_half = time.perf_counter(), 0, 0.0
        async with (
            httpx.AsyncClient(timeout=120) as http,
            aconnect_sse(
                http,
                "GET",
                f"{url}/v1/runs/{run_id}/events?streamMode=updates,messages",
                headers={"Authorization": f"Bearer {key}"},
            ) as source,
        ):
            async for _ in source.aiter_sse():
                count += 1
                if count == FLOOD_EVENTS // 2:
                    gc.collect()
                    bare_half = _rss_mb()
        bare_rate = count / (time.perf_counter() - start)
        gc.collect()
        bare_growth = (_rss_mb() - bare_half) * 1e6 / (count - FLOOD_EVENTS // 2)

        with tempfile.TemporaryDirectory() as folder, Store(Path(folder) / "s.db") as store:
            async with HostClient(url, key) as client:
                chat = opening.stored(
                    store, None, session=Session(client, workflow_id="bench.events")
                )
                await chat.connect()
                gc.collect()
                start, events, half = time.perf_counter(), 0, None
                async for update in chat.start({"count": FLOOD_EVENTS}):
                    events += type(update).__name__ == "EventArrived"
                    if half is None and events == FLOOD_EVENTS // 2:
                        gc.collect()
                        half = _rss_mb()
                rate = events / (time.perf_counter() - start)
                gc.collect()
                # Over the second half: the caches of a fixed size (SQLite's pages, the
                # masking's short strings) fill in the first, and are not per event.
                assert half is not None
                growth = (_rss_mb() - half) * 1e6 / (events - FLOOD_EVENTS // 2)
    finally:
        host.terminate()
        host.wait(timeout=30)
    return [
        Figure(
            "flood_events_per_s",
            rate,
            "events/s",
            "bare httpx-sse over the same stream",
            bare_rate,
            ">= 10,000 events/s (issue 13's fast host)",
            rate >= 10_000,
            note=f"{events:,} events through the conversation and the store",
        ),
        Figure(
            "flood_rss_bytes_per_event",
            growth,
            "B",
            "bare httpx-sse over the same stream",
            bare_growth,
            "< 50 B an event (a chunk's text is 4 bytes)",
            growth < 50,
            note="RSS grown per event over the flood's second half",
        ),
    ]
