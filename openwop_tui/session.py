"""A chat session with one host: the run pipeline shared by the app and the command line.

One run per user turn (protocol.md §5 A): each send creates a run with the whole history in
``inputs.messages`` and one ``Idempotency-Key``, subscribes to its events and yields them. The
session remembers the assistant's reply (``outputs.completion``, else the streamed chunks) so
the next turn carries it in the history.

It also fetches media assets under the media policy, caching by URL, so a renderer is only ever
handed bytes (or the reason there are none). No Textual here: the app runs this in a worker and
the ``run`` command runs it with `asyncio.run`.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from openwop_tui.protocol.client import Discovery, HostClient, RunHandle
from openwop_tui.protocol.envelopes import Envelope, reply_completion
from openwop_tui.protocol.events import RunEvent, chunk_text
from openwop_tui.protocol.media import DEFAULT_MAX_BYTES, Asset
from openwop_tui.protocol.stream import StreamNotice, subscribe
from openwop_tui.renderers.base import RenderContext

#: How many bytes of fetched media the session keeps for redrawing (least recently used go).
ASSET_CACHE_BYTES = 64_000_000


@dataclass(frozen=True, slots=True)
class RunCreated:
    """The host accepted a run; the stream follows."""

    handle: RunHandle


StreamItem = RunCreated | RunEvent | StreamNotice


class Session:
    """Talks to one host for one workflow; owns the chat history."""

    def __init__(
        self,
        client: HostClient,
        *,
        workflow_id: str,
        max_asset_bytes: int = DEFAULT_MAX_BYTES,
        stream_modes: str = "updates,messages",
        idle_timeout: float | None = None,
    ) -> None:
        """``idle_timeout``: seconds a run's stream may bring no bytes before the run is
        checked (`subscribe`); ``None``: wait as long as the host keeps the stream open."""
        self.client = client
        self.workflow_id = workflow_id
        self.discovery: Discovery | None = None
        self.history: list[dict[str, str]] = []
        self.current_run: RunHandle | None = None
        self._stream_modes = stream_modes
        self._idle_timeout = idle_timeout
        self._max_asset_bytes = max_asset_bytes
        self._assets: OrderedDict[str, Asset] = OrderedDict()
        self._cached_bytes = 0

    async def connect(self) -> Discovery:
        """Read the host's discovery document (raises `HostError` when it cannot)."""
        self.discovery = await self.client.discover()
        return self.discovery

    @property
    def max_inline_bytes(self) -> int:
        """The host's inline media cap (protocol.md §4.5), or the spec default."""
        return self.discovery.max_inline_media_bytes if self.discovery else 262144

    async def send(self, text: str) -> AsyncIterator[StreamItem]:
        """Send one user message as a new run and yield what happens until it ends."""
        user = {"role": "user", "content": text}
        inputs = {"messages": [*self.history, user]}
        async for item in self.start(inputs):
            if isinstance(item, RunCreated):
                # Only a message the host accepted joins the history: a send that failed
                # (host down, bad key) must not be replayed in the next turn.
                self.history.append(user)
            yield item

    async def start(
        self, inputs: Mapping[str, Any] | None = None, *, last_event_id: int | None = None
    ) -> AsyncIterator[StreamItem]:
        """Create a run of the session's workflow with ``inputs`` and stream it to the end.

        Raises `HostError` when the run cannot be created or its stream cannot be reached.
        """
        handle = await self.client.create_run(
            self.workflow_id, dict(inputs or {}), idempotency_key=str(uuid.uuid4())
        )
        self.current_run = handle
        yield RunCreated(handle)
        streamed: list[str] = []
        completion: str | None = None
        try:
            async for item in subscribe(
                self.client,
                handle.run_id,
                modes=self._stream_modes,
                last_event_id=last_event_id,
                idle_timeout=self._idle_timeout,
            ):
                if isinstance(item, RunEvent):
                    completion = _collect_reply(item, streamed, completion)
                yield item
        finally:
            self.current_run = None
            reply = completion if completion is not None else "".join(streamed)
            if reply and self.history and self.history[-1]["role"] == "user":
                self.history.append({"role": "assistant", "content": reply})

    async def cancel(self) -> bool:
        """Ask the host to cancel the current run; ``False`` when there is none."""
        handle = self.current_run
        if handle is None:
            return False
        await self.client.cancel_run(handle.run_id, reason="cancelled from openwop-tui")
        return True

    async def asset_for(self, envelope: Envelope) -> Asset | None:
        """Fetch the bytes behind a media envelope's ``url`` (cached); ``None`` if it has none."""
        media = envelope.media_ref
        if media is None or media.url is None or media.base64 is not None:
            return None
        cached = self._assets.get(media.url)
        if cached is not None:
            self._assets.move_to_end(media.url)
            return cached
        asset = await self.client.fetch_asset(
            media.url, media.bytes, max_bytes=self._max_asset_bytes
        )
        if asset.data is not None:
            # Failures are not kept (a timeout or a 503 may pass); successes are, up to a
            # byte budget, so redrawing after a resize does not download again.
            self._assets[media.url] = asset
            self._cached_bytes += len(asset.data)
            while self._cached_bytes > ASSET_CACHE_BYTES and len(self._assets) > 1:
                _, dropped = self._assets.popitem(last=False)
                self._cached_bytes -= len(dropped.data or b"")
        return asset

    async def context_for(self, envelope: Envelope, base: RenderContext) -> RenderContext:
        """``base`` with the envelope's asset and the host's inline cap filled in."""
        return replace(
            base, asset=await self.asset_for(envelope), max_inline_bytes=self.max_inline_bytes
        )


def _collect_reply(event: RunEvent, streamed: list[str], completion: str | None) -> str | None:
    """Track the assistant's reply text for the history by the fold's own rules: chunks, then
    the completion that replaces them."""
    chunk = chunk_text(event)
    if chunk is not None:
        streamed.append(chunk)
    return reply_completion(event) or completion
