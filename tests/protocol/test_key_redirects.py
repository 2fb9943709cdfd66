"""The API key goes only on requests the client itself addresses to the host's origin
(issue 14 item 7): a media URL on another site that redirects back to the configured host is
that site's request, and the host gets it without the key; every hop is checked.

Two real HTTP servers on loopback: the configured host on 127.0.0.1 and "another site" on
127.0.0.2. The media policy refuses loopback addresses that are not the configured host, so the
other site is reached as a public name (``https://cdn.example.org``, resolved by the test to a
public address) and the transport carries that connection to 127.0.0.2: everything the client
decides, it decides as it would for a real public site.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from patience import PATIENCE

from openwop_tui.protocol.media import fetch_asset
from openwop_tui.protocol.media_policy import MediaPolicy

KEY = "secret-key-for-the-host-only"
PUBLIC = "93.184.216.34"  # what the test's resolver answers for cdn.example.org
OTHER = "https://cdn.example.org"
BODY = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


@dataclass
class Site:
    """One loopback server: its routes (path -> (status, Location or body)) and what it saw."""

    address: str
    routes: dict[str, tuple[int, str]] = field(default_factory=dict)
    seen: list[tuple[str, str | None]] = field(default_factory=list)
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://{self.address}:{self.port}"


def serve(site: Site) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            site.seen.append((self.path, self.headers.get("Authorization")))
            status, target = site.routes.get(self.path, (404, ""))
            self.send_response(status)
            if 300 <= status < 400:
                self.send_header("Location", target)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = BODY if status == 200 else b""
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    try:
        server = ThreadingHTTPServer((site.address, 0), Handler)
    except OSError:  # no 127.0.0.2 on this system (macOS): another port is another origin too
        site.address = "127.0.0.1"
        server = ThreadingHTTPServer((site.address, 0), Handler)
    site.port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def sites() -> Iterator[tuple[Site, Site]]:
    host, other = Site("127.0.0.1"), Site("127.0.0.2")
    servers = [serve(host), serve(other)]
    try:
        yield host, other
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


class ToOtherSite(httpx.AsyncBaseTransport):
    """A real HTTP transport that carries connections for the public address to 127.0.0.2
    (the peer-address check, which would see loopback, is left out for those alone)."""

    def __init__(self, other: Site) -> None:
        self.other = other
        self.inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        mapped = request.url.host == PUBLIC
        if mapped:
            request.url = request.url.copy_with(
                scheme="http", host=self.other.address, port=self.other.port
            )
            request.extensions.pop("sni_hostname", None)
        response = await self.inner.handle_async_request(request)
        if mapped:
            response.extensions.pop("network_stream", None)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


async def resolver(host: str, port: int) -> list[str]:
    assert host == "cdn.example.org"
    return [PUBLIC]


async def fetch(url: str, host: Site, other: Site) -> bytes | None:
    transport = ToOtherSite(other)
    try:
        asset = await fetch_asset(
            url,
            policy=MediaPolicy(base_url=host.url, timeout=PATIENCE),
            advertised_bytes=None,
            api_key=KEY,
            transport=transport,
            resolver=resolver,
        )
    finally:
        await transport.aclose()
    assert asset.error is None, asset.error
    return asset.data


async def test_a_redirect_from_another_site_back_to_the_host_gets_no_key(
    sites: tuple[Site, Site],
) -> None:
    host, other = sites
    host.routes["/v1/assets/a"] = (200, "")
    other.routes["/to-host"] = (302, f"{host.url}/v1/assets/a")
    assert await fetch(f"{OTHER}/to-host", host, other) == BODY
    assert other.seen == [("/to-host", None)]
    assert host.seen == [("/v1/assets/a", None)]  # the other site's request, not the client's


async def test_the_hosts_own_asset_gets_the_key(sites: tuple[Site, Site]) -> None:
    host, other = sites
    host.routes["/v1/assets/a"] = (200, "")
    host.routes["/v1/assets/moved"] = (307, "/v1/assets/a")  # the host to itself: still keyed
    assert await fetch("/v1/assets/moved", host, other) == BODY
    assert host.seen == [("/v1/assets/moved", f"Bearer {KEY}"), ("/v1/assets/a", f"Bearer {KEY}")]
    assert other.seen == []


async def test_once_a_chain_leaves_the_host_no_later_hop_is_keyed(
    sites: tuple[Site, Site],
) -> None:
    host, other = sites
    host.routes["/v1/assets/bounce"] = (302, f"{OTHER}/to-host")
    other.routes["/to-host"] = (301, f"{host.url}/v1/assets/a")
    host.routes["/v1/assets/a"] = (200, "")
    assert await fetch("/v1/assets/bounce", host, other) == BODY
    assert host.seen == [("/v1/assets/bounce", f"Bearer {KEY}"), ("/v1/assets/a", None)]
    assert other.seen == [("/to-host", None)]
