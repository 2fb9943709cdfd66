"""The inspector's figures of ``python -m benchmarks`` (registered on import by
`benchmarks.figures`): lint, timeline rows and statistics folded over one event log.

The log is the demo tour's events repeated to 20,000 (chunks, node lifecycle and every envelope
family, faults included), as the timeline would meet them live; the baseline is the transcript
fold over the same events, the work the app already does per event. The target is the issue's:
the timeline follows 10,000 events a second.
"""

from __future__ import annotations

import json
import time

import httpx

from benchmarks.figures import Figure, figure
from openwop_tui.protocol.events import RunEvent, normalize

EVENTS = 20_000


def _log() -> list[RunEvent]:
    """The tour's events, renumbered, repeated to `EVENTS`."""

    from openwop_tui.demo_host import DemoHost
    from openwop_tui.protocol.sse import parse_sse_text

    with DemoHost(pace=0) as demo:
        headers = {"Authorization": f"Bearer {demo.api_key}"}
        with httpx.Client(base_url=demo.url, headers=headers, timeout=60) as http:
            run = http.post("/v1/runs", json={"workflowId": "demo.tour", "inputs": {}}).json()
            stream = f"/v1/runs/{run['runId']}/events?streamMode=debug"
            text = http.get(stream, headers={"Accept": "text/event-stream"}).text
    docs = [f.data for f in parse_sse_text(text) if f.data.startswith("{")]
    base = [json.loads(d) for d in docs]
    events = []
    for number in range(EVENTS):
        doc = dict(base[number % len(base)])
        doc["sequence"] = number
        events.append(normalize(doc))
    return events


@figure("lint")  # (not "inspect": that is the envelope inspector's, which this one hid)
async def lint() -> list[Figure]:
    """Lint + timeline rows + statistics per event, against the transcript fold alone."""
    from openwop_tui.core.fold import Transcript
    from openwop_tui.inspect.lint import Linter
    from openwop_tui.inspect.stats import StatsFold
    from openwop_tui.inspect.timeline import Timeline

    events = _log()
    transcript = Transcript()
    start = time.perf_counter()
    for event in events:
        transcript.apply(event)
    fold = EVENTS / (time.perf_counter() - start)

    linter, timeline, stats = Linter(), Timeline(), StatsFold()
    start = time.perf_counter()
    for event in events:
        timeline.add(event, linter.feed(event))
        stats.feed(event)
    stats.runs()
    ours = EVENTS / (time.perf_counter() - start)
    return [
        Figure(
            "inspect_events_per_s",
            ours,
            "events/s",
            "the transcript fold over the same events",
            fold,
            ">= 10000 events/s",
            ours >= 10_000,
            note=f"{EVENTS} tour events: lint, timeline row and statistics each",
        )
    ]


@figure("timeline")
async def timeline() -> list[Figure]:
    """The app's timeline per event (the inspector fed, the row queued, batches drawn into a
    headless `TimelineView`), against the transcript fold over the same events."""
    from textual.app import App, ComposeResult

    from openwop_tui.core.fold import Transcript
    from openwop_tui.inspect.inspector import Inspector
    from openwop_tui.ui.widgets.timeline_view import Entry, TimelineView

    events = _log()
    transcript = Transcript()
    start = time.perf_counter()
    for event in events:
        transcript.apply(event)
    fold = EVENTS / (time.perf_counter() - start)

    class Bench(App[None]):
        def compose(self) -> ComposeResult:
            yield TimelineView()

    seconds = 0.0
    app = Bench()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(TimelineView)
        inspector = Inspector()
        batch: list[Entry] = []
        start = time.perf_counter()
        for number, event in enumerate(events, 1):
            batch.append(Entry(inspector.feed(event, time.time()), event))
            if number % 333 == 0:  # 10,000 events a second at 30 frames a second
                view.extend(batch)
                batch = []
                for y in range(40):
                    view.render_line(y)
        view.extend(batch)
        seconds = time.perf_counter() - start
        await pilot.pause()
    ours = EVENTS / seconds
    return [
        Figure(
            "timeline_events_per_s",
            ours,
            "events/s",
            "the transcript fold over the same events",
            fold,
            ">= 10000 events/s",
            ours >= 10_000,
            note=f"{EVENTS} tour events: inspector, row, batches of 333 drawn (a 40-row frame)",
        )
    ]
