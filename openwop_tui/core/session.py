"""The network side of a conversation with one host: runs, cancel, media assets.

`Session.start` creates a run with one ``Idempotency-Key``, subscribes to its events and yields
them (telling ``on_arrival`` the raw frames, for the event log). It also fetches media assets
under the media policy, caching by URL, so a renderer is only ever handed bytes (or the reason
there are none). The chat history, the fold and the log are the `Conversation`'s
(`openwop_tui.core.conversation`), which owns a session. No Textual here.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

from openwop_tui.protocol.client import TERMINAL_STATUSES, Discovery, HostClient, RunHandle
from openwop_tui.protocol.envelopes import Envelope, MediaRef
from openwop_tui.protocol.events import RunEvent
from openwop_tui.protocol.media import DEFAULT_MAX_BYTES, Asset
from openwop_tui.protocol.stream import DEFAULT_BUDGET, subscribe
from openwop_tui.protocol.stream_items import ArrivalSink, StreamNotice

#: How many bytes of fetched media the session keeps for redrawing (least recently used go).
ASSET_CACHE_BYTES = 64_000_000


@dataclass(frozen=True, slots=True)
class RunCreated:
    """The host accepted a run; the stream follows."""

    handle: RunHandle


StreamItem = RunCreated | RunEvent | StreamNotice


class Session:
    """Talks to one host for one workflow."""

    def __init__(
        self,
        client: HostClient,
        *,
        workflow_id: str,
        max_asset_bytes: int = DEFAULT_MAX_BYTES,
        stream_modes: str = "updates,messages",
        idle_timeout: float | None = None,
        reconnect_budget: float = DEFAULT_BUDGET,
    ) -> None:
        """A session that starts runs of one workflow on one host.

        Args:
            client: The host client.
            workflow_id: The workflow this session runs.
            max_asset_bytes: The most bytes one media asset may be; a larger one is not downloaded.
            stream_modes: The ``streamMode`` list a run's stream asks for, comma-separated.
            idle_timeout: Seconds a run's stream may bring no bytes before the run is checked
                (`subscribe`); None waits as long as the host keeps the stream open.
            reconnect_budget: Seconds a stream keeps reconnecting before it gives up.
        """
        self.client = client
        self.workflow_id = workflow_id
        self.discovery: Discovery | None = None
        self.current_run: RunHandle | None = None
        self._stream_modes = stream_modes
        self._idle_timeout = idle_timeout
        self._reconnect_budget = reconnect_budget
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

    async def start(
        self,
        inputs: Mapping[str, Any] | None = None,
        *,
        last_event_id: int | None = None,
        on_arrival: ArrivalSink | None = None,
    ) -> AsyncIterator[StreamItem]:
        """Create a run of the session's workflow with ``inputs`` and stream it to the end.

        ``on_arrival`` is told each raw frame (or document) before its events are yielded.
        Raises `HostError` when the run cannot be created or its stream cannot be reached.
        """
        handle = await self.client.create_run(
            self.workflow_id, dict(inputs or {}), idempotency_key=str(uuid.uuid4())
        )
        self.current_run = handle  # cancellable from the moment the host confirmed it
        yield RunCreated(handle)
        async for item in self.follow(handle, last_event_id=last_event_id, on_arrival=on_arrival):
            yield item

    async def follow(
        self,
        handle: RunHandle,
        *,
        last_event_id: int | None = None,
        on_arrival: ArrivalSink | None = None,
    ) -> AsyncIterator[RunEvent | StreamNotice]:
        """Stream an existing run (one this session started, or one being attached to) to its
        end, after sequence ``last_event_id`` (``None``: its whole history). It is the
        `current_run` until its terminal event is handed on: what the consumer does with it
        (draw the end, store the fold) happens with the run over on the host, so a quit then
        does not ask about a run in flight. A run the host already said is over (an ended
        run attached to: its history is read) is never the `current_run`: nothing of it is in
        flight to cancel or to ask about at a quit. Raises `HostError` as `subscribe` does."""
        self.current_run = None if handle.status in TERMINAL_STATUSES else handle
        try:
            async for item in subscribe(
                self.client,
                handle.run_id,
                modes=self._stream_modes,
                last_event_id=last_event_id,
                idle_timeout=self._idle_timeout,
                reconnect_budget=self._reconnect_budget,
                on_arrival=on_arrival,
            ):
                if isinstance(item, RunEvent) and item.is_terminal and self.current_run is handle:
                    self.current_run = None
                yield item
        finally:
            if self.current_run is handle:
                self.current_run = None

    async def cancel(self) -> bool:
        """Ask the host to cancel the current run; ``False`` when there is none."""
        handle = self.current_run
        if handle is None:
            return False
        await self.client.cancel_run(handle.run_id, reason="cancelled from openwop-tui")
        return True

    async def asset_for(self, envelope: Envelope, media: MediaRef | None = None) -> Asset | None:
        """Fetch the bytes behind a media envelope's ``url`` (cached); ``None`` if it has none.
        ``media`` is where they are, when the caller already knows (`Envelope.bytes_ref`)."""
        media = media if media is not None else envelope.media_ref
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
