"""The workflows this host runs, by id: ``demo.chat``, ``demo.text``, ``demo.tour``, the
human-in-the-loop demos (``demo.clarify``, ``demo.approve``, ``demo.low-confidence``,
``demo.conversation``), the reference hosts' conformance fixtures it mirrors, and the
benchmarks' workflows (``bench.*``; ``bench.rich``'s answer is in `rich_answer.py`).

``demo.chat`` lives in `chat.py` (what it reads of attachments: `attachments.py` and
`describe.py`), ``demo.text`` in `text_only.py`, the tour's items in `tour.py`, the asking
workflows in `hitl.py` and `conversation.py`; their labels in `catalog.py`. This module holds
the registry and the small workflows.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Iterable, Mapping
from types import MappingProxyType

from openwop_tui.demo_host import code_answer, hitl, list_answer, rich_answer, tour
from openwop_tui.demo_host.chat import demo_chat
from openwop_tui.demo_host.conversation import demo_conversation
from openwop_tui.demo_host.openclaw import demo_openclaw
from openwop_tui.demo_host.runs import Workflow
from openwop_tui.demo_host.steps import Emit, Pause, Step, WorkflowContext, text_node
from openwop_tui.demo_host.text_only import demo_text

#: The tour's opening text, streamed as markdown chunks on the `intro` node.
INTRO = """\
# Welcome to the OpenWOP tour

Everything below arrives as **run events** from a real OpenWOP host on your machine, and each
item is an *envelope* drawn by its own renderer:

- a `code` block and two `card`s (one with a markdown body, one from a plain JSON object)
- a chart fetched **by URL**, a small picture sent **inline**, and a spoken clip
- a CSV `file` you can save
- a `hologram` (a display value nobody knows) and an envelope with **no hint at all**

Then come the things a careful client must *refuse or degrade*: a 48 MiB image, bytes that are
not an image, audio the host has lost, and a `file://` URL.
"""


def demo_tour(ctx: WorkflowContext) -> Generator[Step, None, None]:
    """Every envelope family at once, then the media a client must degrade on."""
    yield from text_node(ctx, "intro", INTRO)
    yield from tour.tour(ctx)
    yield Emit(
        "run.completed",
        {
            "outputs": {"nodes": 1 + len(tour.ITEMS), "envelopes": len(tour.ITEMS)},
            "durationMs": ctx.elapsed_ms(),
        },
    )


def conformance_noop(ctx: WorkflowContext) -> Generator[Step, None, None]:
    """One node that does nothing, like the reference hosts' ``conformance-noop``."""
    yield Emit("node.started", {"nodeId": "noop", "typeId": "core.noop", "attempt": 0}, "noop")
    yield Pause(0.05)
    yield Emit("node.completed", {"nodeId": "noop", "outputs": {}, "durationMs": 0}, "noop")
    yield Emit("run.completed", {"outputs": {}, "durationMs": ctx.elapsed_ms()})


def _bench_end(ctx: WorkflowContext) -> Generator[Step, None, None]:
    """The end of every benchmark workflow: its one node, then the run, completed."""
    yield Emit("node.completed", {"nodeId": "bench", "outputs": {}, "durationMs": 0}, "bench")
    yield Emit("run.completed", {"outputs": {}, "durationMs": ctx.elapsed_ms()})


def bench_events(ctx: WorkflowContext) -> Generator[Step, None, None]:
    """``inputs.count`` small chunk events (default 20,000) at once: the ingest benchmark's
    stream (``python -m benchmarks``), also a quick way to see the client under load."""
    count = ctx.inputs.get("count", 20_000)
    count = count if isinstance(count, int) and 0 < count <= 1_000_000 else 20_000
    for n in range(count):
        yield Emit("output.chunk", {"nodeId": "bench", "chunk": f"w{n % 100} "}, "bench")
    yield from _bench_end(ctx)


def _number(ctx: WorkflowContext, name: str, default: float, most: float) -> float:
    """A number input of the run, or ``default`` when it is missing or out of range.

    Args:
        ctx: The run's context, whose inputs are read.
        name: The input's name.
        default: The value used when the input is missing, not a number, or out of range.
        most: The largest value accepted (the smallest is just above 0).
    """
    value = ctx.inputs.get(name, default)
    ok = isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= most
    return float(value) if ok else default


#: ``bench.flood``'s rate and length when its inputs do not say (a chat turn's inputs do not).
FLOOD_RATE = 10_000
FLOOD_SECONDS = 15.0


def bench_flood(ctx: WorkflowContext) -> Generator[Step, None, None]:
    """``inputs.rate`` chunk events a second (default 10,000) for ``inputs.seconds`` (default
    15), on a schedule of 100 batches a second: the fast host of ``python -m benchmarks``
    (issue 13). The schedule is the wall clock's, so a client that reads slowly sees the host
    run ahead of it (its events wait in the run's log), never slow down; ``--demo-pace 0``
    sends it all at once. The run's end is its last chunk, ``flood over``."""
    rate = _number(ctx, "rate", FLOOD_RATE, 1_000_000)
    seconds = _number(ctx, "seconds", FLOOD_SECONDS, 600)
    batch = max(1, round(rate / 100))
    total = round(rate * seconds)
    sent = 0
    while sent < total:
        due = sent / rate  # when, in seconds since the start, this batch is due
        wait = due - (time.monotonic() - ctx.started)
        if wait > 0:
            yield Pause(wait)
        for n in range(sent, min(total, sent + batch)):
            yield Emit("output.chunk", {"nodeId": "bench", "chunk": f"w{n % 100} "}, "bench")
        sent += batch
    yield Emit("output.chunk", {"nodeId": "bench", "chunk": "\n\nflood over"}, "bench")
    yield from _bench_end(ctx)


def bench_big(ctx: WorkflowContext) -> Generator[Step, None, None]:
    """A reply of ``inputs.megabytes`` (default 15) of markdown paragraphs in 64 KB chunks, at
    once: the big document of ``python -m benchmarks`` (issue 13). It ends ``big reply over``."""
    size = int(_number(ctx, "megabytes", 15, 200) * 1_000_000)
    line = "A paragraph of a very long reply, with **some** emphasis and `code` in it. " * 4
    paragraph = line.strip() + "\n\n"
    chunk = paragraph * max(1, 65_536 // len(paragraph))
    for _ in range(max(1, size // len(chunk))):
        yield Emit("output.chunk", {"nodeId": "bench", "chunk": chunk}, "bench")
    yield Emit("output.chunk", {"nodeId": "bench", "chunk": "big reply over"}, "bench")
    yield from _bench_end(ctx)


def bench_answer(ctx: WorkflowContext) -> Generator[Step, None, None]:
    """A 2,200-token markdown answer in 1,177 chunks (the peers' comparison of issue 13), at
    the host's pace; it ends ``answer over``."""
    words = [("word " if n % 12 else "word.\n\n") for n in range(2_200)]
    for n in range(0, len(words) - 2, 2):
        yield Emit("output.chunk", {"nodeId": "bench", "chunk": "".join(words[n : n + 2])}, "bench")
        if n % 20 == 0:
            yield Pause(0.01)
    yield Emit("output.chunk", {"nodeId": "bench", "chunk": "answer over"}, "bench")
    yield from _bench_end(ctx)


#: ``bench.code``'s chunks a second when its inputs do not say: a fast model's pace (about 150
#: tokens a second), which a chat turn's inputs do not set.
CODE_RATE = 100


def bench_code(ctx: WorkflowContext) -> Generator[Step, None, None]:
    """An answer that is mostly a 600-line code block (`code_answer`), in one- and two-word
    chunks, ``inputs.rate`` a second (default `CODE_RATE`), at the host's pace; it ends
    ``answer over``."""
    yield from _at_a_models_pace(ctx, code_answer.chunks(code_answer.TEXT))


def bench_list(ctx: WorkflowContext) -> Generator[Step, None, None]:
    """An answer that is mostly a 100-item numbered list (`list_answer`), in two-word chunks,
    ``inputs.rate`` a second (default `CODE_RATE`), at the host's pace; it ends ``answer
    over``."""
    yield from _at_a_models_pace(ctx, rich_answer.chunks(list_answer.TEXT))


def _at_a_models_pace(ctx: WorkflowContext, chunks: Iterable[str]) -> Generator[Step, None, None]:
    """``chunks`` as chunk events, ``inputs.rate`` a second (default `CODE_RATE`), then the
    benchmark run's end."""
    rate = _number(ctx, "rate", CODE_RATE, 100_000)
    for n, chunk in enumerate(chunks):
        yield Emit("output.chunk", {"nodeId": "bench", "chunk": chunk}, "bench")
        if n % 10 == 9:
            yield Pause(10 / rate)
    yield from _bench_end(ctx)


def bench_rich(ctx: WorkflowContext) -> Generator[Step, None, None]:
    """A rich markdown answer of about 2,200 tokens (headings, lists, a table, code in six
    languages: `rich_answer`) in two-word chunks, at the host's pace; it ends ``answer over``."""
    for n, chunk in enumerate(rich_answer.chunks()):
        yield Emit("output.chunk", {"nodeId": "bench", "chunk": chunk}, "bench")
        if n % 10 == 9:
            yield Pause(0.01)
    yield from _bench_end(ctx)


#: Workflow id → workflow, in the order the "unknown workflow" error lists them.
WORKFLOWS: Mapping[str, Workflow] = MappingProxyType(
    {
        "demo.chat": demo_chat,
        "demo.text": demo_text,
        "demo.tour": demo_tour,
        "demo.clarify": hitl.demo_clarify,
        "demo.approve": hitl.demo_approve,
        "demo.low-confidence": hitl.demo_low_confidence,
        "demo.conversation": demo_conversation,
        "demo.openclaw": demo_openclaw,
        "conformance-noop": conformance_noop,
        "conformance-clarification": hitl.conformance_clarification,
        "conformance-approval": hitl.conformance_approval,
        "conformance-agent-low-confidence": hitl.conformance_low_confidence,
        "bench.events": bench_events,
        "bench.flood": bench_flood,
        "bench.big": bench_big,
        "bench.answer": bench_answer,
        "bench.rich": bench_rich,
        "bench.code": bench_code,
        "bench.list": bench_list,
    }
)
