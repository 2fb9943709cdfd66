"""Benchmark: streaming a long reply, the bounded way against the naive one, in the same run.

Prints figures, never asserts:

* the fold: 100,000 token chunks into one reply, `TextBuffer` parts against ``str +=`` on an
  attribute (what the fold did before: every token copies the reply so far);
* the widget: the same tokens streamed into `StreamedMarkdown` against Textual's `Markdown`
  (whose ``append`` concatenates and splits the whole source on every append), headless;
* one 15 MB chunk through the fold and into the app's `TranscriptView`, capped at 1 MiB.

    python -m benchmarks.bounds [--tokens 100000]
"""

from __future__ import annotations

import argparse
import asyncio
import time

from textual.app import App, ComposeResult
from textual.widgets import Markdown

from openwop_tui.protocol.events import normalize
from openwop_tui.transcript import Transcript
from openwop_tui.widgets.items import StreamedMarkdown
from openwop_tui.widgets.transcript_view import TranscriptView


def tokens(count: int) -> list[str]:
    """Words, with a paragraph break every 50 tokens, as a model writes."""
    return [("\n\n" if n % 50 == 49 else "") + f"word{n % 97} " for n in range(count)]


def chunk_event(text: str, seq: int) -> object:
    return normalize(
        {"type": "output.chunk", "sequence": seq, "nodeId": "n", "payload": {"chunk": text}}
    )


class _Naive:
    text = ""


def fold_figures(parts: list[str]) -> tuple[float, float]:
    events = [chunk_event(part, seq) for seq, part in enumerate(parts, 1)]
    transcript = Transcript()
    start = time.perf_counter()
    for event in events:
        transcript.apply(event)  # type: ignore[arg-type]
    ours = time.perf_counter() - start
    naive = _Naive()
    start = time.perf_counter()
    for part in parts:
        naive.text += part
    baseline = time.perf_counter() - start
    return ours, baseline


class StreamApp(App[None]):
    def __init__(self, widget: Markdown) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        yield self.widget


async def stream_into(widget: Markdown, parts: list[str]) -> tuple[float, float]:
    """Total time, and the longest a single write kept the caller (the event loop) waiting."""
    app = StreamApp(widget)
    async with app.run_test(size=(100, 40)) as pilot:
        stream = Markdown.get_stream(widget)
        longest = 0.0
        start = time.perf_counter()
        for part in parts:
            before = time.perf_counter()
            await stream.write(part)
            longest = max(longest, time.perf_counter() - before)
        await stream.stop()
        await pilot.pause()
        return time.perf_counter() - start, longest


async def big_chunk() -> float:
    app = BigApp()
    async with app.run_test(size=(100, 40)) as pilot:
        view = app.query_one(TranscriptView)
        transcript = Transcript()
        text = "Some **markdown** words in a very long line. " * 330_000  # about 15 MB
        start = time.perf_counter()
        await view.apply(transcript.apply(chunk_event(text, 1)))  # type: ignore[arg-type]
        await pilot.pause()
        return time.perf_counter() - start


class BigApp(App[None]):
    def compose(self) -> ComposeResult:
        yield TranscriptView()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokens", type=int, default=100_000)
    args = parser.parse_args()
    parts = tokens(args.tokens)
    ours, baseline = fold_figures(parts)
    print(f"fold {args.tokens:,} chunks: {ours:.2f} s (str += baseline {baseline:.2f} s)")
    ours_total, ours_wait = asyncio.run(stream_into(StreamedMarkdown(""), parts))
    base_total, base_wait = asyncio.run(stream_into(Markdown(""), parts))
    print(
        f"stream {args.tokens:,} tokens into markdown: {ours_total:.2f} s, longest write "
        f"{ours_wait * 1000:.0f} ms (Textual Markdown: {base_total:.2f} s, longest write "
        f"{base_wait * 1000:.0f} ms; ratio {base_total / max(ours_total, 1e-9):.1f}x)"
    )
    print(f"one 15 MB chunk into the transcript view (capped): {asyncio.run(big_chunk()):.2f} s")


if __name__ == "__main__":
    main()
