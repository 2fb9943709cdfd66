"""The workflows this host runs, by id: ``demo.chat``, ``demo.tour``, the human-in-the-loop
demos (``demo.clarify``, ``demo.approve``, ``demo.low-confidence``, ``demo.conversation``), the
reference hosts' conformance fixtures it mirrors, and ``bench.events``.

``demo.chat`` lives in `chat.py`, the tour's items in `tour.py`, the asking workflows in
`hitl.py` and `conversation.py`; their labels in `catalog.py`. This module holds the registry
and the small workflows.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from types import MappingProxyType

from openwop_tui.demo_host import hitl, tour
from openwop_tui.demo_host.chat import demo_chat
from openwop_tui.demo_host.conversation import demo_conversation
from openwop_tui.demo_host.openclaw import demo_openclaw
from openwop_tui.demo_host.runs import Workflow
from openwop_tui.demo_host.steps import Emit, Pause, Step, WorkflowContext, text_node

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


def bench_events(ctx: WorkflowContext) -> Generator[Step, None, None]:
    """``inputs.count`` small chunk events (default 20,000) at once: the ingest benchmark's
    stream (``python -m benchmarks``), also a quick way to see the client under load."""
    count = ctx.inputs.get("count", 20_000)
    count = count if isinstance(count, int) and 0 < count <= 1_000_000 else 20_000
    for n in range(count):
        yield Emit("output.chunk", {"nodeId": "bench", "chunk": f"w{n % 100} "}, "bench")
    yield Emit("node.completed", {"nodeId": "bench", "outputs": {}, "durationMs": 0}, "bench")
    yield Emit("run.completed", {"outputs": {}, "durationMs": ctx.elapsed_ms()})


#: Workflow id → workflow, in the order the "unknown workflow" error lists them.
WORKFLOWS: Mapping[str, Workflow] = MappingProxyType(
    {
        "demo.chat": demo_chat,
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
    }
)
