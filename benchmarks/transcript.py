"""Benchmark: a long transcript, our way against one ``Markdown`` widget per message.

Prints figures, never asserts: time to add N finished messages, memory, and the time of one
Page Up, for the app's `TranscriptView` (live widgets + line-cached history) and for the
baseline most chat TUIs use (a ``Markdown`` widget per message in a ``VerticalScroll``), both
measured in the same run on the same machine, with the ratio between them. Also the throughput
of the sans-IO core: SSE decoding plus the transcript fold over a long streamed reply.

    python -m benchmarks.transcript [--messages 300] [--chunks 20000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from openwop_tui.protocol.sse import SSEDecoder, events_from_frame
from openwop_tui.transcript import Transcript
from openwop_tui.widgets.transcript_view import TranscriptView

MESSAGE = (
    "## Reply {n}\n\nHere is **some** markdown with `inline code`, a list:\n\n"
    "- first point\n- second point\n\nand a closing sentence for message {n}."
)


class OursApp(App[None]):
    def compose(self) -> ComposeResult:
        yield TranscriptView(id="t")


class BaselineApp(App[None]):
    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="t")


async def fill_ours(app: App[None], count: int) -> None:
    view = app.query_one(TranscriptView)
    transcript = Transcript()
    for n in range(count):
        # A finished reply: the fold's changes for a completion-only turn.
        await view.apply([transcript.add_user(MESSAGE.format(n=n))])


async def fill_baseline(app: App[None], count: int) -> None:
    scroll = app.query_one(VerticalScroll)
    for n in range(count):
        await scroll.mount(Markdown(MESSAGE.format(n=n)))


async def measure(
    app_class: type[App[None]], fill: Callable[[App[None], int], Awaitable[None]], count: int
) -> dict[str, float]:
    app = app_class()
    async with app.run_test(size=(120, 40)) as pilot:
        started = time.perf_counter()
        await fill(app, count)
        await pilot.pause()
        filled = time.perf_counter() - started
        scroll = app.query_one("#t")
        scroll.scroll_end(animate=False)
        await pilot.pause()
        started = time.perf_counter()
        scroll.scroll_page_up(animate=False)
        await pilot.pause()
        page_up = time.perf_counter() - started
    # ru_maxrss is in KiB on Linux. Both variants import the same modules, so the peak resident
    # set of the whole process compares like with like.
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"fill_s": filled, "page_up_ms": page_up * 1000, "peak_mb": peak * 1024 / 1e6}


def core_throughput(chunks: int) -> dict[str, float]:
    """Decode and fold a streamed reply of ``chunks`` output.chunk events."""
    frames = []
    for seq in range(chunks):
        doc = {
            "type": "output.chunk",
            "runId": "r",
            "sequence": seq,
            "nodeId": "n",
            "payload": {"nodeId": "n", "chunk": f"token{seq} "},
        }
        frames.append(f"id: {seq}\nevent: output.chunk\ndata: {json.dumps(doc)}\n\n")
    text = "".join(frames)
    started = time.perf_counter()
    decoder = SSEDecoder()
    transcript = Transcript()
    for frame in [*decoder.feed(text), *decoder.close()]:
        for event in events_from_frame(frame.event, frame.data, frame.id).events:
            transcript.apply(event)
    elapsed = time.perf_counter() - started
    return {"events": chunks, "seconds": elapsed, "events_per_s": chunks / elapsed}


VARIANTS = {"ours": (OursApp, fill_ours), "baseline": (BaselineApp, fill_baseline)}


def run_variant(name: str, count: int) -> dict[str, float]:
    """Measure one variant in a fresh interpreter, so memory figures do not mix."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.transcript",
            "--variant",
            name,
            "--messages",
            str(count),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    figures: dict[str, float] = json.loads(result.stdout)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=300)
    parser.add_argument("--chunks", type=int, default=20000)
    parser.add_argument("--variant", choices=sorted(VARIANTS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.variant:
        app_class, fill = VARIANTS[args.variant]
        print(json.dumps(asyncio.run(measure(app_class, fill, args.messages))))
        return

    core = core_throughput(args.chunks)
    print(
        f"core: decoded and folded {core['events']:,} chunk events in {core['seconds']:.2f} s "
        f"({core['events_per_s']:,.0f} events/s)"
    )

    ours = run_variant("ours", args.messages)
    base = run_variant("baseline", args.messages)
    print(f"\n{args.messages:,} finished messages     ours        baseline    baseline/ours")
    for key, label in (
        ("fill_s", "add all (s)"),
        ("peak_mb", "peak RSS MB"),
        ("page_up_ms", "one Page Up (ms)"),
    ):
        ratio = base[key] / ours[key] if ours[key] else float("inf")
        print(f"  {label:<22} {ours[key]:>10.2f}  {base[key]:>10.2f}  {ratio:>10.1f}x")


if __name__ == "__main__":
    main()
