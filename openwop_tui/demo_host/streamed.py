"""A streamed envelope: one code block emitted in three fragments (protocol.md §4.3, rule E1).

Every fragment is a whole envelope with the emission's ``correlationId`` and a ``partial``
marker; each carries the source written so far, and the last one (``isPartial: false``)
completes the emission. A client may draw the fragments as they come but must end on the last
one, and must not offer actions (save, copy) before it arrives.

No spec'd event carries envelope fragments to a client; like every envelope of this host they
ride on ``node.completed`` (``outputs.envelope``), one event per fragment, each recording the
emission (``causationId`` = its correlation id).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from openwop_tui.demo_host.steps import VENDOR, Emit, Pause, Step, WorkflowContext, since

STREAMED_PY = '''\
"""Written in three fragments."""


def greet(name: str) -> str:
    return f"hello, {name}"


if __name__ == "__main__":
    print(greet("streamed world"))
'''

#: How many lines of `STREAMED_PY` each fragment has so far (the last is all of it).
_CUTS = (3, 6, len(STREAMED_PY.splitlines()))


def streamed(ctx: WorkflowContext) -> Iterator[Step]:
    """The ``stream`` item: `STREAMED_PY` arriving as one emission in three fragments."""
    node = "streamed"
    started = time.monotonic()
    yield Emit("node.started", {"nodeId": node, "typeId": "core.ai.callPrompt", "attempt": 0}, node)
    correlation = ctx.correlation_id(node)
    lines = STREAMED_PY.splitlines(keepends=True)
    for index, cut in enumerate(_CUTS):
        yield Pause(0.3)
        last = index == len(_CUTS) - 1
        envelope: dict[str, Any] = {
            "type": f"{VENDOR}.snippet",
            "schemaVersion": 1,
            "envelopeId": f"env_{node}_{ctx.run_id}_{index}",
            "correlationId": correlation,
            "nodeId": node,
            "payload": {"path": "stream.py", "lang": "python", "source": "".join(lines[:cut])},
            "meta": {
                "source": "ai-generation",
                "ts": ctx.identity.now(),
                "rendering": {"display": "code", "lang": "python", "title": "stream.py"},
            },
            "partial": {"isPartial": not last, "index": index, "total": len(_CUTS)},
        }
        outputs = {"envelope": envelope}
        payload = {"nodeId": node, "durationMs": since(started), "outputs": outputs}
        yield Emit("node.completed", payload, node, correlation)
