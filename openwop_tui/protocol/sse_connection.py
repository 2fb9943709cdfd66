"""One SSE connection of a run's subscription (`openwop_tui.protocol.stream.subscribe`): what
it yields, and in `Outcome` how it ended (the run's end, a close, an error worth a retry, a
stream mode to fall back from, a JSON answer, a silence); a silent stream is looked into
(`waiting_for_human`). No Textual here.
"""

from __future__ import annotations

import asyncio
import codecs
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote

from openwop_tui.protocol.acceptance import StreamState
from openwop_tui.protocol.client import HostClient
from openwop_tui.protocol.errors import HostError
from openwop_tui.protocol.sse import SSEDecoder
from openwop_tui.protocol.stream_items import StreamItem, StreamNotice

#: Statuses worth reconnecting on; everything else is final (protocol.md §2.6, §3.3).
RETRYABLE_STATUSES = frozenset({429, 500, 502, 503, 504})
FATAL_STATUSES = frozenset({401, 403, 404})


@dataclass(slots=True)
class Outcome:
    """How one connection ended."""

    kind: Literal["terminal", "closed", "retry", "fallback", "json", "idle"] = "closed"
    error: HostError | None = None
    body: str = ""
    snapshot: Mapping[str, Any] | None = None
    """``idle``: the run's snapshot read when the stream fell silent."""


def _query(modes: str | None) -> str:
    return f"?streamMode={quote(modes, safe=',')}" if modes else ""


def status_of(snapshot: Mapping[str, Any]) -> str | None:
    status = snapshot.get("status", snapshot.get("runStatus"))
    return status if isinstance(status, str) else None


def waiting_for_human(status: str | None) -> bool:
    """Whether a run status means the run waits for a person (approval, input, a pause).

    Hosts spell these differently (``waiting-approval``, ``waiting-input``, ``suspended``,
    ``paused``…; protocol.md §2.3), so any status naming a wait, a suspension or a pause counts.
    """
    lowered = (status or "").lower()
    return any(word in lowered for word in _WAITING_WORDS)


#: Words of a run status that mean "waiting for a human" (see `waiting_for_human`).
_WAITING_WORDS = ("wait", "suspend", "pause", "interrupt", "approval", "input")


async def _next_chunk(chunks: AsyncIterator[bytes]) -> bytes | None:
    return await anext(chunks, None)


class _Silence:
    """What to do when an open stream brings no bytes for ``idle_timeout`` seconds."""

    def __init__(self, client: HostClient, state: StreamState, idle_timeout: float) -> None:
        self.client, self.state, self.idle_timeout = client, state, idle_timeout
        self.told = False
        """Whether this silent stretch was already reported (any byte starts a new one)."""

    async def check(self, outcome: Outcome) -> tuple[list[StreamItem], bool]:
        """Notices to give, and whether to keep waiting on this connection."""
        items: list[StreamItem] = []
        seconds = f"{self.idle_timeout:g}"
        if not self.told:
            items.append(
                StreamNotice(
                    "info",
                    f"The event stream of run {self.state.run_id!r} has been silent for "
                    f"{seconds} s; checking the run.",
                )
            )
        try:
            snapshot = await self.client.get_run(self.state.run_id)
        except HostError as error:
            if error.status in FATAL_STATUSES:
                raise
            outcome.kind, outcome.error = "retry", error
            return items, False
        status = status_of(snapshot)
        if waiting_for_human(status):
            if not self.told:
                items.append(
                    StreamNotice(
                        "info",
                        f"The run is waiting for a human (status: {status}); still listening.",
                    )
                )
            self.told = True
            return items, True
        outcome.kind, outcome.snapshot = "idle", snapshot
        return items, False


async def connect_once(
    client: HostClient,
    state: StreamState,
    outcome: Outcome,
    read_timeout: float | None,
    idle_timeout: float | None,
) -> AsyncIterator[StreamItem]:
    """One SSE connection: yield what it brings and record in ``outcome`` how it ended.

    Args:
        client: The client of the run's host.
        state: The subscription's state (the run, its modes, the sequence to resume after).
        outcome: Filled in with how the connection ended.
        read_timeout: Seconds of silence the transport allows (``None``: no limit).
        idle_timeout: Seconds without a byte before the run is checked (``None`` or 0: never).
    """
    # Here, not at the top: the app's first frame does not wait for httpx.
    import httpx
    from httpx_sse import aconnect_sse

    url = client.events_url(state.run_id) + _query(state.modes)
    headers = client.request_headers()
    if state.highest is not None:
        headers["Last-Event-ID"] = str(state.highest)
    # No read timeout by default: a run waiting for a human keeps the stream open and silent
    # (the Python host sends no keep-alives), exactly as a browser EventSource would wait.
    timeout = httpx.Timeout(client.timeout, read=read_timeout)
    action = f"stream the events of run {state.run_id!r}"
    reading: asyncio.Task[bytes | None] | None = None
    try:
        async with aconnect_sse(client.http, "GET", url, headers=headers, timeout=timeout) as sse:
            response = sse.response
            if response.status_code != 200:
                body = await response.aread()
                error = client.error_for_response(
                    response, body, action=action, subject=state.run_id
                )
                if response.status_code == 400 and error.code == "unsupported_stream_mode":
                    outcome.kind, outcome.error = "fallback", error
                elif response.status_code in RETRYABLE_STATUSES:
                    outcome.kind, outcome.error = "retry", error
                else:
                    raise error
                return
            content_type = response.headers.get("content-type", "").partition(";")[0].strip()
            if content_type.lower() != "text/event-stream":
                body = await response.aread()
                outcome.kind, outcome.body = "json", body.decode("utf-8", errors="replace")
                return
            decoder = SSEDecoder()
            # Bytes, not text: silence is measured in bytes (a keep-alive comment is life), and
            # SSE is UTF-8 whatever the headers say (WHATWG), decoded across chunk boundaries.
            text = codecs.getincrementaldecoder("utf-8")(errors="replace")
            chunks = response.aiter_bytes()
            silence = _Silence(client, state, idle_timeout) if idle_timeout else None
            while True:
                # The read runs as a task so a silent spell can be looked into without
                # cancelling it: httpcore closes a response whose read was cancelled.
                reading = reading or asyncio.ensure_future(_next_chunk(chunks))
                done, _ = await asyncio.wait({reading}, timeout=idle_timeout or None)
                if not done:
                    assert silence is not None
                    notices, keep_waiting = await silence.check(outcome)
                    for item in notices:
                        yield item
                    if keep_waiting:
                        continue
                    return
                chunk, reading = reading.result(), None
                if chunk is None:
                    break
                if silence is not None:
                    silence.told = False
                for frame in decoder.feed(text.decode(chunk)):
                    for item in state.accept_frame(frame):
                        yield item
                    if state.terminal:
                        outcome.kind = "terminal"
                        return
            # The host closed the stream before the run's end: a last frame without its blank
            # line may have been cut in two by the disconnect.
            for frame in decoder.feed(text.decode(b"", final=True)) + decoder.close():
                for item in state.accept_frame(frame, cut=True):
                    yield item
            outcome.kind = "terminal" if state.terminal else "closed"
    except httpx.UnsupportedProtocol as exc:
        raise client.error_for_exception(exc, action=action) from None
    except httpx.TransportError as exc:
        # What the decoder holds of an unfinished frame is dropped with it: no notice.
        outcome.kind, outcome.error = "retry", client.error_for_exception(exc, action=action)
    finally:
        if reading is not None and not reading.done():
            reading.cancel()
