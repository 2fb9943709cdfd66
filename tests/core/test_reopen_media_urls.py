"""Reopened media keep absolute URLs (issue 14, "reopened media keep absolute URLs").

A host may name its assets by relative references. Live, the fetch resolves them against the
connected host; a reopened session used to show them relative (offline), or to resolve them
against whatever host the app was connected to then. Each run's ``run`` entry now records the
host that ran it, and its media URLs resolve against that host: offline, connected to another
host, through a kept fold, and for logs that predate the record (the session's own host).

Each test fails without that: the URL shown is the relative one, or the other host's.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from cut_support import run_frames, start_run, store_session

from openwop_tui.core.conversation import Conversation
from openwop_tui.core.fold import EnvelopeItem
from openwop_tui.core.opening import stored
from openwop_tui.core.session import Session
from openwop_tui.demo_host import DemoHost
from openwop_tui.protocol.client import HostClient
from openwop_tui.protocol.media import Asset
from openwop_tui.store.sessions import Store


def _relative(host: DemoHost) -> object:
    # The demo host names its assets absolutely; a host that names them relatively sends this.
    return lambda data: data.replace(host.url, "")


@pytest.fixture
def other_host() -> Iterator[DemoHost]:
    """A second host, on another port: the one the app is connected to when it reopens."""
    with DemoHost(pace=0) as running:
        yield running


def _stored_image_session(store: Store, host: DemoHost, client: httpx.Client, **kw: object) -> str:
    run_id = start_run(client, "an image please")
    frames = run_frames(client, run_id)
    assert any(host.url in f.data for f in frames)  # absolute on the wire, before the rewrite
    return store_session(
        store,
        host=host.url,
        text="an image please",
        run_id=run_id,
        frames=frames,
        rewrite=_relative(host),  # type: ignore[arg-type]
        **kw,  # type: ignore[arg-type]
    )


def _images(chat: Conversation) -> list[EnvelopeItem]:
    found = [
        i
        for i in chat.transcript.items
        if isinstance(i, EnvelopeItem) and i.envelope.media and i.envelope.media.url
    ]
    assert found, [type(i).__name__ for i in chat.transcript.items]
    assert all(not i.envelope.media.url.startswith("http") for i in found if i.envelope.media)
    return found


async def _urls(chat: Conversation) -> list[Asset]:
    assets = [await chat.asset_for(item.envelope, lambda _d: True) for item in _images(chat)]
    assert all(a is not None for a in assets)
    return [a for a in assets if a is not None]


async def test_offline_a_reopened_relative_url_names_the_host_that_sent_it(
    host: DemoHost, client: httpx.Client
) -> None:
    store = Store()
    session_id = _stored_image_session(store, host, client)
    for _ in range(2):  # folded from the log, then restored from the fold kept by the first open
        chat = stored(store, session_id)
        for asset in await _urls(chat):
            assert asset.url is not None and asset.url.startswith(host.url + "/v1/"), asset.url
            assert asset.data is None and asset.error  # offline: shown where it is, not fetched


async def test_connected_to_another_host_the_url_still_names_the_run_s_host(
    host: DemoHost, client: httpx.Client, other_host: DemoHost
) -> None:
    store = Store()
    session_id = _stored_image_session(store, host, client)
    async with HostClient(other_host.url, other_host.api_key) as other:
        session = Session(other, workflow_id="demo.chat")
        chat = stored(store, session_id, session=session)
        for asset in await _urls(chat):
            assert asset.url is not None and asset.url.startswith(host.url + "/v1/"), asset.url
            assert other_host.url not in asset.url
            # The other host is never asked for it; the original (loopback, not the configured
            # host) is not fetched either: the media policy refuses and says why.
            assert asset.data is None and asset.error


async def test_connected_to_the_host_that_sent_it_the_bytes_come_and_are_kept(
    host: DemoHost, client: httpx.Client
) -> None:
    store = Store()
    session_id = _stored_image_session(store, host, client)
    async with HostClient(host.url, host.api_key) as own:
        chat = stored(store, session_id, session=Session(own, workflow_id="demo.chat"))
        for asset in await _urls(chat):
            assert asset.data, asset.error
            assert asset.url is not None and asset.url.startswith(host.url)
    # Kept under the absolute URL: offline later, the bytes are there, shown at that URL.
    again = stored(store, session_id)
    for asset in await _urls(again):
        assert asset.data and asset.url is not None and asset.url.startswith(host.url)


async def test_a_log_from_before_runs_named_their_host_uses_the_session_s_host(
    host: DemoHost, client: httpx.Client
) -> None:
    store = Store()
    session_id = _stored_image_session(store, host, client, run_meta={"workflow": "demo.chat"})
    chat = stored(store, session_id)
    for asset in await _urls(chat):
        assert asset.url is not None and asset.url.startswith(host.url + "/v1/"), asset.url


async def test_a_live_run_records_its_host_in_the_log(host: DemoHost) -> None:
    store = Store()
    async with HostClient(host.url, host.api_key) as own:
        chat = stored(store, None, session=Session(own, workflow_id="demo.chat"))
        await chat.connect()
        async for _ in chat.send("an image please"):
            pass
    (info,) = store.sessions()
    (run,) = [e for e in store.entries(info.id) if e.kind == "run"]
    assert run.meta.get("host") == host.url
