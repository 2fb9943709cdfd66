"""The envelope inspector's figures of ``python -m benchmarks`` (registered on import by
`benchmarks.figures`): opening it on a 10 MB envelope against a 1 KB one in the same run, and
a page step through the 10 MB document once open (issue 13, "Big documents").

Both envelopes come through the real event normalisation and envelope extraction, as the app
gets them; only pushing the screen and its first frame are timed.
"""

from __future__ import annotations

import json
import statistics
import time
from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Log

from benchmarks.figures import Figure, figure

SIZE = (120, 40)
TEN_MB = 10_000_000
REPEATS = 3


def _document(size: int) -> dict[str, Any]:
    """An envelope of about ``size`` bytes of JSON: records (70 %) and inline base64 (30 %)."""
    blob = "QUJD" * (size * 3 // 10 // 4)
    record = {"id": 0, "name": "row number 0", "tags": ["a", "b"], "score": 0.5, "ok": True}
    rows = [
        {**record, "id": n, "name": f"row number {n}"}
        for n in range(max((size - len(blob)) // (len(json.dumps(record)) + 2), 1))
    ]
    return {
        "type": "vendor.acme.table",
        "envelopeId": "env_bench",
        "meta": {"rendering": {"display": "vendor.acme.table"}},
        "payload": {"rows": rows, "blob": blob},
    }


def _envelope(size: int) -> Any:
    from openwop_tui.protocol.envelopes import extract_envelopes
    from openwop_tui.protocol.events import normalize

    event = normalize(
        {
            "type": "node.completed",
            "runId": "run_bench",
            "sequence": 1,
            "nodeId": "n1",
            "payload": {"nodeId": "n1", "outputs": {"envelope": _document(size)}},
        }
    )
    (found,) = extract_envelopes(event)
    return found


async def _open(envelope: Any) -> tuple[float, int, float, int]:
    """(seconds from pushing the inspector to its first frame, nodes made, median ms of a
    page step drawn in the envelope's tree, rows in that tree)."""
    from openwop_tui.ui.screens.inspect import InspectScreen
    from openwop_tui.ui.widgets.json_tree import JsonTree

    app = App[None]()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        start = time.perf_counter()
        app.push_screen(InspectScreen(envelope, None))
        await pilot.pause()
        opened = time.perf_counter() - start
        trees = list(app.screen.query(JsonTree))
        if not trees or not trees[0].render_line(0).text.strip():
            raise RuntimeError("the inspector drew nothing: the figure would mean nothing")
        built = sum(tree.rows.built for tree in trees)
        steps = []
        for _ in range(20):
            begin = time.perf_counter()
            trees[0].action_page(1)
            await pilot.pause()
            steps.append(time.perf_counter() - begin)
    return opened, built, statistics.median(steps) * 1000, len(trees[0].rows)


async def _log_page(rows: int) -> float:
    """Median ms of a page step drawn in a bare Textual ``Log`` of ``rows`` lines."""

    class LogApp(App[None]):
        def compose(self) -> ComposeResult:
            yield Log()

    app = LogApp()
    async with app.run_test(size=SIZE) as pilot:
        log = app.query_one(Log)
        log.write_lines([f'    "name": "row number {n}"' for n in range(rows)])
        await pilot.pause()
        steps = []
        for _ in range(20):
            begin = time.perf_counter()
            log.scroll_page_down(animate=False)
            await pilot.pause()
            steps.append(time.perf_counter() - begin)
    return statistics.median(steps) * 1000


@figure("inspect")
async def inspect() -> list[Figure]:
    """The inspector on a 10 MB envelope against the same on a 1 KB one."""
    big, small = _envelope(TEN_MB), _envelope(1_000)
    big_runs, small_runs = [], []
    for _ in range(REPEATS):  # interleaved, so a disturbance hits both alike
        big_runs.append(await _open(big))
        small_runs.append(await _open(small))
    opened = min(run[0] for run in big_runs)  # best: the least disturbed
    baseline = min(run[0] for run in small_runs)
    page = min(run[2] for run in big_runs)
    log_page = min([await _log_page(big_runs[0][3]) for _ in range(REPEATS)])
    built = big_runs[0][1]
    return [
        Figure(
            "inspect_open_10mb_s",
            opened,
            "s",
            "the inspector on a 1 KB envelope",
            baseline,
            "< 1 s",
            opened < 1.0,
            note=f"{built:,} nodes made for both trees of the 10 MB envelope",
        ),
        Figure(
            "inspect_page_10mb_ms",
            page,
            "ms",
            "a bare Textual Log of as many rows, paged the same way",
            log_page,
            "at most 3x the bare Log",
            page <= 3 * log_page,
            note="median Page Down drawn in the 10 MB envelope's tree (the inspector is modal: "
            "the screen under it is composited too)",
        ),
    ]
