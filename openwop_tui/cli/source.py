"""Where ``lint`` and ``stats`` read a run's events from: a recording, stdin, or the host.

`read_source` takes what the user typed: a file (a recording `openwop_tui.store.record` wrote,
or any SSE capture), ``-`` for stdin, or a run id, read from ``--host`` over the same
subscription the app uses (``debug`` mode, so every event the host keeps comes, and its raw
frames as they arrived). What comes back is a `Source`: every event as observed
(`openwop_tui.inspect.log.Observed`), and what the host said about its inline cap. Input that
cannot be read raises `SourceError` with one sentence for the user.
"""

from __future__ import annotations

import asyncio
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from openwop_tui.config import Config
from openwop_tui.core.origins import HOST_KEY, host_url
from openwop_tui.inspect.log import Observed, observed, observed_entries
from openwop_tui.protocol.hostdata import secrets_of
from openwop_tui.protocol.stream_items import Arrival
from openwop_tui.store.record import read_recording
from openwop_tui.text.sanitize import clean_own


class SourceError(Exception):
    """The input cannot be read; ``str()`` says why, in one sentence."""


@dataclass(frozen=True, slots=True)
class Source:
    """A run's events as observed, and what is known about the host they came from."""

    name: str
    """What was read, for messages (a path, ``stdin``, ``run ID on HOST``)."""
    items: list[Observed]
    max_inline_bytes: int | None = None
    """The host's ``maxInlineMediaBytes``, when the host was asked."""
    base_url: str | None = None
    """The host the run came from: ``--host``'s, or the one a recording names."""
    supported_envelopes: frozenset[str] | None = None
    """The host's ``supportedEnvelopes``, when the host was asked."""
    major: int | None = None
    """The protocol major the host said it speaks: the one negotiated with it, or the
    ``OpenWOP-Version`` response header of a capture's ``FILE.headers`` (``curl -D``)."""


def read_source(spec: str, config: Config) -> Source:
    """Read ``spec`` (a path, ``-`` or a run id); raises `SourceError`."""
    secrets = secrets_of(config.api_key)
    if spec == "-":
        try:
            text = sys.stdin.read()
        except (OSError, UnicodeDecodeError) as error:
            raise SourceError(f"cannot read stdin: {error}") from None
        return _from_text(text, "stdin", secrets)
    path = Path(spec)
    shown = clean_own(spec)  # the user's own argument (a file name or a run id)
    if path.is_file():
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as error:
            raise SourceError(f"cannot read {shown}: {error.strerror or error}") from None
        return replace(_from_text(text, shown, secrets), major=_header_major(path))
    if path.exists():
        raise SourceError(f"{shown} is not a file")
    if config.host is None:
        raise SourceError(
            f"{shown} is not a file; to read run {shown} from a host, give --host URL"
        )
    return asyncio.run(_from_host(spec, config))


def _from_text(text: str, name: str, secrets: tuple[str, ...]) -> Source:
    if not text.strip():
        raise SourceError(f"{name} is empty: it holds no SSE events")
    entries = read_recording(text).entries
    if not any(entry.kind in ("frame", "document") for entry in entries):
        raise SourceError(
            f"{name} holds no SSE frames: is it a recording (openwop-tui run "
            "--record FILE.sse) or an event stream?"
        )
    # A recording names the host each run came from: its own media URLs (loopback, for the
    # demo host) are that host's, not strangers'. One host for the whole file, or none known.
    hosts = {host_url(entry.meta.get(HOST_KEY)) for entry in entries if entry.kind == "run"}
    hosts.discard(None)
    base_url = hosts.pop() if len(hosts) == 1 else None
    return Source(name, list(observed_entries(entries, secrets)), base_url=base_url)


def _header_major(path: Path) -> int | None:
    """The major of the ``OpenWOP-Version`` header kept beside a capture (``run.sse`` and
    ``run.headers``, as ``curl -D run.headers`` writes them), if there is one."""
    try:
        with path.with_suffix(".headers").open(encoding="utf-8", errors="replace") as file:
            text = file.read(64 * 1024)  # response headers; a bigger file is not one
    except (OSError, ValueError):
        return None
    for line in text.splitlines():
        name, colon, value = line.partition(":")
        if colon and name.strip().lower() == "openwop-version":
            major = value.strip().partition(".")[0]
            return int(major) if major in ("1", "2") else None
    return None


async def _from_host(run_id: str, config: Config) -> Source:
    from openwop_tui.protocol.client import HostClient
    from openwop_tui.protocol.errors import HostError
    from openwop_tui.protocol.stream import subscribe

    assert config.host is not None
    arrivals: list[tuple[Arrival, float]] = []

    def keep(arrival: Arrival) -> None:
        arrivals.append((arrival, time.time()))

    try:
        async with HostClient(config.host, config.api_key) as client:
            discovery = await client.discover()
            # Every event the host keeps (debug), each frame kept as it arrived.
            async for _ in subscribe(client, run_id, modes="debug", on_arrival=keep):
                pass
            origin = client.origin
            major = client.major
    except HostError as error:
        raise SourceError(str(error)) from None
    secrets = secrets_of(config.api_key)
    items = [
        item
        for arrival, at in arrivals
        for item in observed(arrival, run_id=run_id, secrets=secrets, at=at)
    ]
    return Source(
        f"run {clean_own(run_id)} on {origin}",  # the user's own run id
        items,
        max_inline_bytes=discovery.max_inline_media_bytes,
        base_url=config.host,
        supported_envelopes=frozenset(discovery.supported_envelopes),
        major=major,
    )
