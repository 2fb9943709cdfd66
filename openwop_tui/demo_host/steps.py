"""The vocabulary workflows are written in: steps, a run context, and helpers for common nodes.

A workflow is a generator of `Step` values: `Emit` records a run event, `Pause` waits. It never
sleeps or touches the run store itself; the driver in `runs.py` does both. That keeps workflows
plain data producers, lets ``pace`` scale every delay in one place, and lets cancel take effect
between any two steps (the driver closes the generator).
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from openwop_tui.demo_host.assets import ASSET_PREFIX, AssetStore
from openwop_tui.demo_host.identity import Identity
from openwop_tui.demo_host.interrupts import Ask
from openwop_tui.demo_host.wire import TENANT

#: The model name the demo "provider" reports on chunks and usage.
MODEL = "demo-1"

#: Prefix of every vendor-namespaced envelope kind this host produces (protocol.md §4.4).
VENDOR = "vendor.openwop-tui-demo"


@dataclass(frozen=True, slots=True)
class Emit:
    """Record one run event."""

    type: str
    payload: dict[str, Any]
    node_id: str | None = None
    causation_id: str | None = None


@dataclass(frozen=True, slots=True)
class Pause:
    """Wait ``seconds`` (before pacing); a cancel or shutdown cuts the wait short."""

    seconds: float


#: `Ask` (in `interrupts.py`) suspends the node on an interrupt until a human answers it.
Step = Emit | Pause | Ask


@dataclass(slots=True)
class WorkflowContext:
    """What a workflow may know about its run and the host it runs on."""

    run_id: str
    workflow_id: str
    inputs: Mapping[str, Any]
    base_url: str
    """``http://127.0.0.1:<port>``: the origin every asset URL names."""
    assets: AssetStore
    identity: Identity = field(default_factory=Identity)
    """Clock and ids (deterministic in snapshot tests)."""
    started: float = field(default_factory=time.monotonic)
    tenant: str = TENANT
    """The tenant whose key started the run: its workflow reads that tenant's uploads only."""

    def elapsed_ms(self) -> int:
        """Milliseconds since the run started."""
        return int((time.monotonic() - self.started) * 1000)

    def correlation_id(self, node_id: str) -> str:
        """The correlation id of the (single) envelope a node emits: ``<runId>:<nodeId>:0``."""
        return f"{self.run_id}:{node_id}:0"

    def asset_url(self, token: str) -> str:
        """The absolute URL of an asset on this host's own origin.

        Absolute because media payloads declare ``url`` as ``format: uri`` (RFC 3986 §4.3: a
        URI has a scheme), so a relative reference fails the schema; the token is the
        credential, so no other origin ever names it."""
        return self.base_url + AssetStore.path(token)

    def store(self, data: bytes, content_type: str) -> str:
        """Store bytes as an asset and return its absolute URL."""
        return self.asset_url(self.assets.put(data, content_type))

    def missing_asset_url(self) -> str:
        """A well-formed asset URL whose token the store has never issued (serves 404)."""
        return self.base_url + ASSET_PREFIX + "missing-" + self.run_id.removeprefix("run_")


def split_words(text: str, words: int = 3) -> list[str]:
    """Cut text into pieces of a few words, keeping every character (they join back exactly)."""
    tokens = re.findall(r"\s+|\S+\s*", text)
    return ["".join(tokens[i : i + words]) for i in range(0, len(tokens), words)]


def text_node(
    ctx: WorkflowContext, node_id: str, text: str, *, chunk_delay: float = 0.035, words: int = 3
) -> Iterator[Step]:
    """A node that streams markdown as ``output.chunk`` events, then completes with the text.

    Args:
        ctx: The run's context.
        node_id: The node.
        text: The markdown it streams.
        chunk_delay: Seconds before each chunk (times the host's pace).
        words: Words per chunk.
    """
    started = time.monotonic()
    yield Emit(
        "node.started", {"nodeId": node_id, "typeId": "core.ai.callPrompt", "attempt": 0}, node_id
    )
    usage = _usage(ctx, text)
    pieces = split_words(text, words)
    for index, piece in enumerate(pieces):
        yield Pause(chunk_delay)
        chunk: dict[str, Any] = {
            "nodeId": node_id,
            "runId": ctx.run_id,
            "chunk": piece,
            "isLast": index == len(pieces) - 1,
        }
        if index == 0:
            chunk["meta"] = {"model": MODEL, "provider": "demo"}
        if index == len(pieces) - 1:
            chunk["meta"] = {
                **chunk.get("meta", {}),
                "finishReason": "stop",
                "usage": usage,
            }
        yield Emit("output.chunk", chunk, node_id)
    yield Emit(
        "provider.usage",
        {
            "provider": "demo",
            "model": MODEL,
            "nodeId": node_id,
            "inputTokens": usage["promptTokens"],
            "outputTokens": usage["completionTokens"],
            "totalTokens": usage["totalTokens"],
        },
        node_id,
    )
    yield Emit(
        "node.completed",
        {
            "nodeId": node_id,
            "durationMs": since(started),
            "outputs": {"completion": text, "rendering": {"display": "markdown"}},
        },
        node_id,
    )


def _usage(ctx: WorkflowContext, text: str) -> dict[str, int]:
    # Rough token counts (words), enough for a status line to show something plausible.
    messages = ctx.inputs.get("messages")
    history = messages if isinstance(messages, list) else []
    # (The words of each message's content: a long chat's history is counted at every turn.)
    prompt = sum(_words(m.get("content") if isinstance(m, dict) else m) for m in history) + 12
    completion = len(text.split())
    return {
        "promptTokens": prompt,
        "completionTokens": completion,
        "totalTokens": prompt + completion,
    }


def _words(value: Any) -> int:
    return _words_of(value) if isinstance(value, str) else len(str(value).split())


@functools.lru_cache(maxsize=4096)
def _words_of(text: str) -> int:
    # Remembered: every turn of a chat brings the whole history again, the same texts, and
    # splitting them all was most of what the host did at turn 500.
    return len(text.split())


def since(started: float) -> int:
    """Milliseconds since a `time.monotonic` reading."""
    return int((time.monotonic() - started) * 1000)


def envelope_node(
    ctx: WorkflowContext,
    node_id: str,
    kind: str,
    payload: Any,
    rendering: Mapping[str, str] | None,
    *,
    completion: str | None = None,
    delay: float = 0.25,
    lifted: Mapping[str, str] | None = None,
) -> Iterator[Step]:
    """A node whose completion carries one envelope on ``outputs.envelope`` (protocol.md §0).

    ``causationId`` is the envelope's correlation id, as the spec asks of events recording an
    accepted envelope.

    Args:
        ctx: The run's context.
        node_id: The node.
        kind: The envelope's type (``media.image``, ``table``…).
        payload: The envelope's payload.
        rendering: Becomes ``meta.rendering``; None omits it entirely.
        completion: The text form of text families, sent as ``outputs.completion``; None for none.
        delay: Seconds before the completion (times the host's pace).
        lifted: Becomes ``outputs.rendering`` (a hint beside the envelope, not in it); None for
            none.
    """
    started = time.monotonic()
    yield Emit(
        "node.started", {"nodeId": node_id, "typeId": "core.ai.callPrompt", "attempt": 0}, node_id
    )
    yield Pause(delay)
    correlation = ctx.correlation_id(node_id)
    meta: dict[str, Any] = {"source": "ai-generation", "ts": ctx.identity.now()}
    if rendering is not None:
        meta["rendering"] = dict(rendering)
    envelope = {
        "type": kind,
        "schemaVersion": 1,
        "envelopeId": f"env_{node_id}_{ctx.run_id}",
        "correlationId": correlation,
        "nodeId": node_id,
        "payload": payload,
        "meta": meta,
    }
    outputs: dict[str, Any] = {"envelope": envelope}
    if completion is not None:
        outputs["completion"] = completion
    if lifted is not None:
        outputs["rendering"] = dict(lifted)
    yield Emit(
        "node.completed",
        {"nodeId": node_id, "durationMs": since(started), "outputs": outputs},
        node_id,
        correlation,
    )


def media_payload(
    *,
    url: str | None = None,
    data: str | None = None,
    size: int,
    mime_type: str,
    name: str | None = None,
    duration: float | None = None,
) -> dict[str, Any]:
    """A ``media.*`` payload: ``url`` or inline ``base64``, plus ``bytes`` and ``mimeType``.

    Args:
        url: Where the bytes are served; None sends them inline as ``data``.
        data: The bytes in base64, used when ``url`` is None.
        size: The size in bytes, sent as ``bytes``.
        mime_type: The media type.
        name: A file name; None for none.
        duration: The length in seconds (``durationSeconds``); None for none.
    """
    payload: dict[str, Any] = {"url": url} if url is not None else {"base64": data}
    payload.update({"bytes": size, "mimeType": mime_type})
    if name is not None:
        payload["name"] = name
    if duration is not None:
        payload["durationSeconds"] = duration
    return payload
