"""The transcript, session and chat-turn figures of ``python -m benchmarks`` (registered on
import by `benchmarks.figures`).

Baselines are measured in the same run, each in a process of its own when memory is compared,
and each costs less than its figure: a bare ``RichLog`` holding the same lines, a ``Static``
receiving the same tokens, loading the same rows from SQLite alone.
"""

from __future__ import annotations

import asyncio
import gc
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import RichLog, Static

from benchmarks.figures import Figure, figure, peak_rss_mb
from openwop_tui.core.fold import Added, AssistantTurn, Change, Transcript, Updated
from openwop_tui.renderers import Registry
from openwop_tui.ui.transcript.view import TranscriptView

SIZE = (120, 40)
REPLY = (
    "Here is **some** markdown with `code`:\n\n- one\n- two\n\n```python\nprint('hi')\n```"
    "\n\nDone {n}."
)


class _ViewApp(App[None]):
    def compose(self) -> ComposeResult:
        yield TranscriptView(id="t", registry=Registry(plugins=False).load())


def _mixed(transcript: Transcript, count: int) -> list[Change]:
    """Finished mixed items: user turns, markdown replies with code, notices, lifecycle lines."""
    changes: list[Change] = []
    for n in range(count):
        kind = n % 4
        if kind == 0:
            changes.append(transcript.add_user(f"question {n}: what about item {n}?"))
        elif kind == 1:
            turn = AssistantTurn(f"assistant-{n}", None, REPLY.format(n=n), final=True)
            transcript.items.append(turn)
            changes.append(Added(turn))
        elif kind == 2:
            changes.append(transcript.add_notice("info", f"run completed in 0.{n % 10}4 s"))
        else:
            changes.append(transcript.add_notice("info", f"node n{n} started", verbose=True))
    return changes


def _child(name: str) -> dict[str, float]:
    """Run ``python -m benchmarks.view_figures NAME`` (a baseline in a clean process)."""
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.view_figures", name],
        check=True,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


# ------------------------------------------------------------------------ transcript


@figure("append")
async def append() -> list[Figure]:
    """10,000 finished mixed items into the view (paging and resizing them are measured from
    outside the process: `benchmarks.pty_figures.pty_page`)."""
    app = _ViewApp()
    async with app.run_test(size=SIZE) as pilot:
        app._pilot_pause = pilot.pause  # type: ignore[attr-defined]
        view = app.query_one(TranscriptView)
        changes = _mixed(Transcript(), 10_000)
        start = time.perf_counter()
        for change in changes:
            await view.apply([change])
        await pilot.pause()
        ours = time.perf_counter() - start
        rss = peak_rss_mb()
    base = _child("richlog_append_1000")
    scaled = base["seconds"] * 10
    return [
        Figure(
            "append_10000_items_s",
            ours,
            "s",
            "a bare RichLog written the same items' lines (1,000 of them, time x10)",
            scaled,
            "< 5 s",
            ours < 5.0,
            note="the baseline writes a tenth of the items so that it costs less than the "
            f"figure ({base['seconds']:.2f} s); a RichLog's cost is per line written",
        ),
        Figure(
            "rss_10000_items_mb",
            rss,
            "MB",
            "a bare RichLog holding 1,000 of the items' lines",
            base["rss_mb"],
            "< 250 MB",
            rss < 250.0,
        ),
    ]


def _tokens(count: int = 2_200) -> list[str]:
    return [("word " if n % 12 else "word.\n\n") for n in range(count)]


async def _stream_into_view(tokens: list[str], pace: float) -> tuple[float, float]:
    """Seconds to stream ``tokens`` (``pace`` s apart) and the worst event-loop gap in ms."""
    app = _ViewApp()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(TranscriptView)
        turn = AssistantTurn("a", None)
        await view.apply([Added(turn)])
        gc.freeze()  # as the app does after its first screen (`ui.controllers.opening`)
        worst = 0.0
        running = True

        async def ticker() -> None:
            nonlocal worst
            last = time.perf_counter()
            while running:
                await asyncio.sleep(0.005)
                now = time.perf_counter()
                worst = max(worst, now - last - 0.005)
                last = now

        tick = asyncio.create_task(ticker())
        start = time.perf_counter()
        for token in tokens:
            turn.body.append(token)
            await view.apply([Updated(turn, token)])
            await asyncio.sleep(pace)
        turn.final = True
        await view.apply([Updated(turn)])
        await pilot.pause()
        seconds = time.perf_counter() - start
        running = False
        await tick
    return seconds, worst * 1000


@figure("stream")
async def stream() -> list[Figure]:
    """A 2,200-token answer into the view, unpaced and paced (20 ms a token)."""
    tokens = _tokens()
    ours, _ = await _stream_into_view(tokens, 0.0)

    class StaticApp(App[None]):
        def compose(self) -> ComposeResult:
            yield VerticalScroll(Static("", id="s"))

    app = StaticApp()
    async with app.run_test(size=SIZE) as pilot:
        static = app.query_one(Static)
        parts: list[str] = []
        start = time.perf_counter()
        for token in tokens:
            parts.append(token)
            static.update("".join(parts))
            await asyncio.sleep(0)
        await pilot.pause()
        base = time.perf_counter() - start
    paced_tokens = tokens[:500]  # 10 s at 20 ms: enough to see the worst gap
    paced, gap = await _stream_into_view(paced_tokens, 0.02)
    floor = len(paced_tokens) * 0.02
    return [
        Figure(
            "stream_2200_tokens_s",
            ours,
            "s",
            "the same tokens appended to a Static",
            base,
            "ratio <= 2",
            ours / base <= 2.0,
        ),
        Figure(
            "stream_worst_gap_ms",
            gap,
            "ms",
            "pacing floor (500 tokens at 20 ms)",
            floor * 1000,
            "<= 50 ms when paced",
            gap <= 50.0,
            note=f"paced run took {paced:.2f} s",
        ),
    ]


# --------------------------------------------------------------------------- session


@figure("open_session")
async def open_session() -> list[Figure]:
    """Reopen a saved 5,000-message session to its last message drawn, against reading the
    same rows from SQLite alone."""
    from openwop_tui.core import opening
    from openwop_tui.store.records import Entry
    from openwop_tui.store.sessions import Store

    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "sessions.db")
        session_id = _fill_session(store, Entry, 2_500)  # 2,500 turns: 5,000 messages
        start = time.perf_counter()
        rows = list(store.entries(session_id))
        sqlite_only = time.perf_counter() - start
        # Written entry by entry, it has no kept folds yet (a session of an older version):
        # the first open keeps them, as the app does at the end of every live run.
        start = time.perf_counter()
        opening.stored(store, session_id)
        first = time.perf_counter() - start

        app = _ViewApp()
        async with app.run_test(size=SIZE) as pilot:
            view = app.query_one(TranscriptView)
            start = time.perf_counter()
            chat = opening.stored(Store(Path(folder) / "sessions.db"), session_id)
            await view.apply([Added(item) for item in chat.transcript.items])
            view.scroll_end(animate=False)
            await pilot.pause()
            ours = time.perf_counter() - start
    return [
        Figure(
            "open_session_5000_s",
            ours,
            "s",
            "loading the same rows from SQLite alone",
            sqlite_only,
            "< 1 s",
            ours < 1.0,
            note=f"{len(rows)} log entries; the first open, keeping the runs' folds: {first:.2f} s",
        )
    ]


def _fill_session(store: object, entry: type, turns: int) -> str:
    """A stored session of ``turns`` chat turns, written as the app writes them: the user's
    message, the run's creation, its frames, its end."""
    from openwop_tui.store.sessions import SessionLog

    log = SessionLog(store, None, host="http://127.0.0.1:1", workflow="demo.chat")  # type: ignore[arg-type]
    seq = 0
    for n in range(turns):
        run = f"run_{n:06d}"
        log.append(entry("user", f"question {n}"))
        log.append(entry("run", run=run, meta={"workflow": "demo.chat"}))
        for kind, payload in (
            ("run.started", {"workflowId": "demo.chat"}),
            ("node.completed", {"nodeId": "reply", "outputs": {"completion": REPLY.format(n=n)}}),
            ("run.completed", {"durationMs": 12}),
        ):
            seq += 1
            doc = {"type": kind, "runId": run, "sequence": seq, "payload": payload}
            log.append(entry("frame", json.dumps(doc), run=run, label=kind, frame_id=str(seq)))
        log.append(entry("end", run=run, meta={"status": "completed"}))
    assert log.session_id is not None
    return log.session_id


# --------------------------------------------------------------------------- chat turns


@figure("turns")
async def turns() -> list[Figure]:
    """500 chat turns against the embedded demo host: the 500th turn's latency over the first's."""
    from openwop_tui.config import Config
    from openwop_tui.demo_host import DemoHost
    from openwop_tui.renderers.base import AudioSupport
    from openwop_tui.ui.app import ChatApp

    latencies: list[float] = []
    with DemoHost(pace=0) as demo:
        config = Config(host=demo.url, api_key=demo.api_key, audio=False, images="none")
        app = ChatApp(config, audio_support=AudioSupport(False, "bench"))
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(400):
                if app.session is not None and app.session.discovery is not None:
                    break
                await pilot.pause(0.01)
            for n in range(500):
                start = time.perf_counter()
                await pilot.press(*f"hi {n}", "enter")
                while app.runs.busy or app.transcript.status not in ("completed", "failed"):
                    await pilot.pause(0.001)
                latencies.append(time.perf_counter() - start)
                app.transcript.status = None
    first = statistics.median(latencies[:5])
    last = statistics.median(latencies[-5:])
    return [
        Figure(
            "turn_500_latency_ratio",
            last / first,
            "x",
            "the first turns' latency (s)",
            first,
            "<= 1.5",
            last / first <= 1.5,
            note=f"turn 500 took {last:.3f} s",
        )
    ]


# --------------------------------------------------------------------------- baselines


def _log_lines(count: int) -> list[str]:
    lines: list[str] = []
    for n in range(count):
        lines += [f"question {n}", REPLY.format(n=n), f"run completed {n}", ""]
    return lines


async def _richlog(count: int) -> dict[str, float]:
    class LogApp(App[None]):
        def compose(self) -> ComposeResult:
            yield RichLog(id="t", markup=False, wrap=True)

    app = LogApp()
    async with app.run_test(size=SIZE) as pilot:
        log = app.query_one(RichLog)
        start = time.perf_counter()
        for line in _log_lines(count // 4):
            log.write(line)
        await pilot.pause()
        return {"seconds": time.perf_counter() - start, "rss_mb": peak_rss_mb()}


# A baseline costs less than its figure (one Markdown widget per message, the old append
# baseline, ran for 17 minutes at 1,000 messages; a RichLog written 10,000 lines, 4 to 8 s).
_BASELINES = {
    "richlog_append_1000": lambda: _richlog(1_000),
}

if __name__ == "__main__":
    print(json.dumps(asyncio.run(_BASELINES[sys.argv[1]]())))
