"""`fetch_asset` connects to the address the policy checked, never to a second DNS answer.

The regression (issue #5): the policy resolved a name, checked the answer, then let httpx
connect by name, which resolved again; a rebinding name answers "public" to the check and
"loopback" to the connection.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import Any

import httpx
import pytest

from openwop_tui.protocol import media
from openwop_tui.protocol.media import Asset, fetch_asset
from openwop_tui.protocol.media_policy import MediaPolicy

REMOTE = MediaPolicy(base_url="https://api.example.com")
PUBLIC_IP = "93.184.216.34"
OTHER_PUBLIC_IP = "93.184.216.35"
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


class SequenceResolver:
    """Answers from a list, one answer per call, and records every call."""

    def __init__(self, *answers: list[str]) -> None:
        self.answers: Iterator[list[str]] = iter(answers)
        self.calls: list[tuple[str, int]] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.calls.append((host, port))
        return next(self.answers)


def ok(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, content=b"data")


async def fetch(
    url: str,
    handler: Callable[[httpx.Request], httpx.Response],
    resolver: Callable[[str, int], Any],
    policy: MediaPolicy = REMOTE,
) -> tuple[Asset, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return handler(request)

    asset = await fetch_asset(
        url,
        policy=policy,
        advertised_bytes=None,
        transport=httpx.MockTransport(record),
        resolver=resolver,
    )
    return asset, seen


# -- what the request carries (MockTransport) -----------------------------------------------------


async def test_connects_to_the_checked_address_not_a_second_answer() -> None:
    resolver = SequenceResolver([PUBLIC_IP], ["127.0.0.1"])
    asset, seen = await fetch("https://cdn.example.org:8443/a.png?sig=1", ok, resolver)
    assert asset.data == b"data"
    assert resolver.calls == [("cdn.example.org", 8443)]  # resolved once, by the policy
    (request,) = seen
    assert str(request.url) == f"https://{PUBLIC_IP}:8443/a.png?sig=1"
    # The name stays what the server is spoken to as: Host header, SNI, certificate check.
    assert request.headers["host"] == "cdn.example.org:8443"
    assert request.extensions["sni_hostname"] == "cdn.example.org"
    # No pooled TLS session is reused for another name on the same address.
    assert request.headers["connection"] == "close"
    assert asset.url == "https://cdn.example.org:8443/a.png?sig=1"


async def test_an_ipv6_answer_is_bracketed_and_mapped_ipv4_is_written_as_ipv4() -> None:
    v6 = "2606:4700::1111"
    _, seen = await fetch("https://cdn.example.org/a.png", ok, SequenceResolver([v6]))
    assert str(seen[0].url) == f"https://[{v6}]/a.png"
    assert seen[0].headers["host"] == "cdn.example.org"
    _, seen = await fetch(
        "https://cdn.example.org/a.png", ok, SequenceResolver([f"::ffff:{PUBLIC_IP}"])
    )
    assert seen[0].url.host == PUBLIC_IP


async def test_every_answer_is_checked_before_any_connection() -> None:
    resolver = SequenceResolver([PUBLIC_IP, "10.0.0.7"])
    asset, seen = await fetch("https://cdn.example.org/a.png", ok, resolver)
    assert asset.error == "refused: cdn.example.org resolves to 10.0.0.7, a private address"
    assert seen == []


async def test_the_next_checked_address_is_tried_when_one_refuses() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == PUBLIC_IP:
            raise httpx.ConnectError("[Errno 111] Connection refused")
        return ok(request)

    resolver = SequenceResolver([PUBLIC_IP, PUBLIC_IP, OTHER_PUBLIC_IP])
    asset, seen = await fetch("https://cdn.example.org/a.png", handler, resolver)
    assert asset.data == b"data"
    assert [r.url.host for r in seen] == [PUBLIC_IP, OTHER_PUBLIC_IP]  # duplicates tried once
    assert {r.headers["host"] for r in seen} == {"cdn.example.org"}


async def test_each_redirect_hop_is_resolved_checked_and_pinned_again() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.headers["host"] == "cdn.example.org":
            return httpx.Response(302, headers={"location": "https://files.example.net/b.png"})
        return ok(request)

    resolver = SequenceResolver([PUBLIC_IP], [OTHER_PUBLIC_IP], ["127.0.0.1"])
    asset, seen = await fetch("https://cdn.example.org/a.png", handler, resolver)
    assert asset.data == b"data"
    assert resolver.calls == [("cdn.example.org", 443), ("files.example.net", 443)]
    second = seen[1]
    assert str(second.url) == f"https://{OTHER_PUBLIC_IP}/b.png"
    assert second.headers["host"] == "files.example.net"
    assert second.extensions["sni_hostname"] == "files.example.net"


async def test_a_redirect_hop_resolving_to_loopback_is_refused_before_connecting() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(302, headers={"location": "https://rebind.example/x"})

    resolver = SequenceResolver([PUBLIC_IP], ["127.0.0.1"])
    asset, seen = await fetch("https://cdn.example.org/a.png", handler, resolver)
    assert asset.error == (
        "redirected to https://rebind.example/x: "
        "refused: rebind.example resolves to 127.0.0.1, a loopback address"
    )
    assert len(seen) == 1


async def test_the_idna_name_is_what_is_resolved_and_sent() -> None:
    # One reading of the name for the check, the Host header and SNI: httpx's IDNA 2008 one
    # (Python's own codec would resolve `fass.de` for `faß.de`, another host).
    resolver = SequenceResolver([PUBLIC_IP])
    _, seen = await fetch("https://faß.de/a.png", ok, resolver)
    assert resolver.calls == [("xn--fa-hia.de", 443)]
    assert seen[0].headers["host"] == "xn--fa-hia.de"
    assert seen[0].extensions["sni_hostname"] == "xn--fa-hia.de"


async def test_the_configured_host_and_ip_literals_are_requested_as_they_stand() -> None:
    resolver = SequenceResolver()  # any call would raise StopIteration: none is made
    _, seen = await fetch("/v1/assets/tok", ok, resolver)
    assert str(seen[0].url) == "https://api.example.com/v1/assets/tok"
    assert "sni_hostname" not in seen[0].extensions
    _, seen = await fetch(f"https://{PUBLIC_IP}/a.png", ok, resolver)
    assert str(seen[0].url) == f"https://{PUBLIC_IP}/a.png"


async def test_through_a_proxy_the_name_goes_to_the_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    # The proxy resolves and connects; it must see the name (allow-lists, NO_PROXY speak names).
    monkeypatch.setattr(media, "_proxied", lambda http, url: True)
    resolver = SequenceResolver([PUBLIC_IP])
    asset, seen = await fetch("https://cdn.example.org/a.png", ok, resolver)
    assert asset.data == b"data"
    assert str(seen[0].url) == "https://cdn.example.org/a.png"
    # The DNS check still ran and still refuses a local answer.
    resolver = SequenceResolver(["10.0.0.9"])
    asset, seen = await fetch("https://cdn.example.org/a.png", ok, resolver)
    assert asset.error == "refused: cdn.example.org resolves to 10.0.0.9, a private address"
    assert seen == []


# -- a real connection on loopback ----------------------------------------------------------------


class Listener:
    """A TCP server that keeps the first bytes of each connection (a ClientHello), then hangs up."""

    def __init__(self) -> None:
        self.received: list[bytes] = []
        self.server: asyncio.Server | None = None

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.received.append(await reader.read(65536))
        writer.close()
        await writer.wait_closed()

    async def start(self, host: str, port: int) -> int:
        self.server = await asyncio.start_server(self.handle, host, port)
        return int(self.server.sockets[0].getsockname()[1])

    async def stop(self) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()


class Loopback:
    """Loopback servers standing in for the internet, all on one port but the proxy.

    ``checked`` (127.0.0.1, counted as public here) is the address the policy's resolver
    answers for ``rebind.test``; ``second`` (127.0.0.2) is what any later resolution of the
    name answers; ``proxy`` listens for proxy requests.
    """

    def __init__(self) -> None:
        self.checked, self.second, self.proxy = Listener(), Listener(), Listener()
        self.port = 0
        self.proxy_port = 0

    async def fetch(self) -> Asset:
        return await fetch_asset(
            f"https://rebind.test:{self.port}/a.png",
            policy=REMOTE,
            advertised_bytes=None,
            resolver=SequenceResolver(["127.0.0.1"]),
        )


@pytest.fixture
async def loopback(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Loopback]:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    net = Loopback()
    net.port = await net.checked.start("127.0.0.1", 0)
    await net.second.start("127.0.0.2", net.port)
    net.proxy_port = await net.proxy.start("127.0.0.1", 0)

    real_non_public = media.non_public

    def non_public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
        return None if str(address) == "127.0.0.1" else real_non_public(address)

    monkeypatch.setattr(media, "non_public", non_public)
    real_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Iterable[Any]:
        # Whoever resolves `rebind.test` after the policy's check gets the second answer.
        if host in ("rebind.test", b"rebind.test"):
            host = "127.0.0.2"
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    try:
        yield net
    finally:
        for listener in (net.checked, net.second, net.proxy):
            await listener.stop()


async def test_a_real_connection_reaches_the_checked_address(loopback: Loopback) -> None:
    asset = await loopback.fetch()
    assert asset.data is None  # the listener is no TLS server; only where it went matters
    assert loopback.second.received == []
    assert len(loopback.checked.received) == 1
    # The TLS ClientHello names the host (SNI): the certificate is checked against the name.
    assert b"rebind.test" in loopback.checked.received[0]


async def test_a_pinned_request_is_not_rerouted_by_proxy_settings(
    loopback: Loopback, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A proxy for everything but the name: the name goes direct, so its checked address must be
    # reached direct too (not through the proxy because the address is not in NO_PROXY).
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{loopback.proxy_port}")
    monkeypatch.setenv("NO_PROXY", "rebind.test")
    await loopback.fetch()
    assert loopback.proxy.received == []
    assert loopback.second.received == []
    assert len(loopback.checked.received) == 1


async def test_through_a_real_proxy_the_name_is_asked_for(
    loopback: Loopback, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The proxy resolves and connects; the client cannot pin, and the proxy gets the name.
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{loopback.proxy_port}")
    asset = await loopback.fetch()
    assert asset.data is None
    (request,) = loopback.proxy.received
    assert request.startswith(f"CONNECT rebind.test:{loopback.port} ".encode())
    assert loopback.checked.received == loopback.second.received == []
