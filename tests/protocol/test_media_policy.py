"""The media URL policy and `fetch_asset`: every refusal, redirects, size caps, the Bearer key."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openwop_tui.protocol.client import HostClient
from openwop_tui.protocol.media import Asset, fetch_asset
from openwop_tui.protocol.media_policy import MediaPolicy, RefusedURL, resolve_media_url

LOCAL = MediaPolicy(base_url="http://127.0.0.1:8765")
REMOTE = MediaPolicy(base_url="https://api.example.com")
KEY = "sk-media-key"
PUBLIC_IP = "93.184.216.34"
USERINFO = "refused: the URL carries a user name or password"
SPACES = "refused: the URL contains spaces or control characters"

Handler = Callable[[httpx.Request], httpx.Response]


def refused(url: str, policy: MediaPolicy = REMOTE) -> str:
    with pytest.raises(RefusedURL) as caught:
        resolve_media_url(url, policy)
    return caught.value.reason


# -- resolve_media_url -----------------------------------------------------------------------------


def test_relative_url_resolves_against_the_host() -> None:
    url = "/v1/host/sample/assets/Pk2Wn8sLx4TqV0bZr7Yc1Md9Ga3Hf6Ju5Ee2Oi8Ut0Q"
    assert resolve_media_url(url, LOCAL) == "http://127.0.0.1:8765" + url
    assert resolve_media_url("assets/a.png", MediaPolicy("https://api.example.com/v1/")) == (
        "https://api.example.com/v1/assets/a.png"
    )


def test_https_allowed_anywhere_public() -> None:
    url = "https://cdn.example.org/a.png?sig=1"
    assert resolve_media_url(url, LOCAL) == url


def test_fragment_is_dropped() -> None:
    assert resolve_media_url("https://cdn.example.org/a.png#x", REMOTE) == (
        "https://cdn.example.org/a.png"
    )


def test_http_only_to_the_configured_host() -> None:
    assert resolve_media_url("http://127.0.0.1:8765/a.png", LOCAL) == "http://127.0.0.1:8765/a.png"
    assert "plain http:" in refused("http://cdn.example.org/a.png", LOCAL)
    assert "plain http:" in refused("http://127.0.0.1:9999/a.png", LOCAL)  # another port
    # A host reached over https never downgrades its own assets to http.
    assert "plain http:" in refused("http://api.example.com/a.png", REMOTE)


def test_scheme_relative_url_takes_the_host_scheme() -> None:
    assert resolve_media_url("//cdn.example.org/a.png", REMOTE) == "https://cdn.example.org/a.png"
    assert "plain http:" in refused("//cdn.example.org/a.png", LOCAL)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("file:///etc/passwd", "refused: file: URLs are never fetched"),
        ("FILE:///etc/passwd", "refused: file: URLs are never fetched"),
        ("data:image/png;base64,AAAA", "refused: data: URLs are never fetched"),
        ("javascript:alert(1)", "refused: javascript: URLs are never fetched"),
        ("ftp://example.org/a.png", "refused: ftp: URLs are never fetched"),
        ("blob:https://example.org/1", "refused: blob: URLs are never fetched"),
        ("https://user:pw@cdn.example.org/a.png", USERINFO),
        ("https://token@cdn.example.org/a.png", USERINFO),
        ("", "refused: the URL is empty"),
        ("https://cdn.example.org/a b.png", SPACES),
        ("https://cdn.example.org/\x1b[2J", SPACES),
        ("https:\\\\evil.example\\a.png", "refused: the URL contains a backslash"),
        ("https:///a.png", "refused: the URL has no host"),
        ("https://cdn.example.org:99999/a.png", "refused: the URL's port is not a valid number"),
    ],
)
def test_refusals(url: str, reason: str) -> None:
    assert refused(url).startswith(reason)


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("https://127.0.0.1/a.png", "loopback"),
        ("https://[::1]/a.png", "loopback"),
        ("https://[::ffff:127.0.0.1]/a.png", "loopback"),
        ("https://10.1.2.3/a.png", "private"),
        ("https://192.168.0.10/a.png", "private"),
        ("https://169.254.169.254/latest/meta-data/", "link-local"),
        ("https://[fe80::1]/a.png", "link-local"),
        ("https://0.0.0.0/a.png", "unspecified"),
        ("https://224.0.0.1/a.png", "multicast"),
        ("https://240.0.0.1/a.png", "reserved"),
        ("https://100.64.0.1/a.png", "non-public"),
    ],
)
def test_non_public_ip_literals_refused(url: str, kind: str) -> None:
    assert f"a {kind} address and not the configured host" in refused(url)


def test_localhost_names_refused_unless_configured() -> None:
    assert "loopback name" in refused("https://localhost/a.png")
    assert "loopback name" in refused("https://assets.localhost/a.png")
    local_name = MediaPolicy("http://localhost:8765")
    assert resolve_media_url("http://localhost:8765/a.png", local_name)


def test_the_configured_loopback_host_is_allowed() -> None:
    assert resolve_media_url("https://127.0.0.1:8765/a.png", MediaPolicy("https://127.0.0.1:8765"))
    assert resolve_media_url("http://127.0.0.1:8765/a.png", LOCAL)


def test_public_ip_literal_allowed() -> None:
    assert resolve_media_url(f"https://{PUBLIC_IP}/a.png", REMOTE)


# -- fetch_asset -----------------------------------------------------------------------------------


class Recorder:
    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.handler(request)


def public_resolver(address: str = PUBLIC_IP) -> Callable[[str, int], asyncio.Future[list[str]]]:
    async def resolve(host: str, port: int) -> list[str]:
        return [address]

    return resolve  # type: ignore[return-value]


async def fetch(
    url: str,
    handler: Handler,
    *,
    policy: MediaPolicy = LOCAL,
    advertised: int | None = None,
    api_key: str | None = KEY,
    resolver: Callable[[str, int], object] | None = None,
) -> tuple[Asset, Recorder]:
    recorder = Recorder(handler)
    asset = await fetch_asset(
        url,
        policy=policy,
        advertised_bytes=advertised,
        api_key=api_key,
        transport=httpx.MockTransport(recorder),
        resolver=resolver or public_resolver(),  # type: ignore[arg-type]
    )
    return asset, recorder


def png(request: httpx.Request) -> httpx.Response:
    return httpx.Response(
        200, content=b"\x89PNG" + b"0" * 60, headers={"content-type": "image/png"}
    )


def never(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"no request should be made, got {request.url}")


async def test_fetch_relative_url_from_the_host_with_bearer() -> None:
    asset, recorder = await fetch("/v1/host/sample/assets/tok", png, advertised=64)
    assert asset.error is None
    assert asset.data is not None and asset.data.startswith(b"\x89PNG")
    assert asset.content_type == "image/png"
    assert asset.url == "http://127.0.0.1:8765/v1/host/sample/assets/tok"
    # Same origin as the host: the key may go (assets usually ignore it).
    assert recorder.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert recorder.requests[0].headers["accept-encoding"] == "identity"


async def test_bearer_never_sent_cross_origin() -> None:
    asset, recorder = await fetch("https://cdn.example.org/a.png", png)
    assert asset.error is None
    assert "authorization" not in recorder.requests[0].headers


async def test_bearer_dropped_when_redirected_to_another_origin() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "127.0.0.1":
            return httpx.Response(302, headers={"location": "https://cdn.example.org/a.png"})
        return png(request)

    asset, recorder = await fetch("/v1/assets/x", handler)
    assert asset.data is not None
    first, second = recorder.requests
    assert "authorization" in first.headers
    assert "authorization" not in second.headers


async def test_redirect_to_a_refused_url_is_not_followed() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(302, headers={"location": "http://169.254.169.254/latest/meta-data/"})

    asset, recorder = await fetch("https://cdn.example.org/a.png", handler)
    assert asset.data is None
    assert asset.error is not None
    assert asset.error.startswith("redirected to http://169.254.169.254/latest/meta-data/: refused")
    assert len(recorder.requests) == 1


async def test_redirect_to_a_name_resolving_to_a_private_address() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        # Pinned: the URL names the checked address, the Host header the name.
        if request.headers["host"] == "cdn.example.org":
            return httpx.Response(307, headers={"location": "https://intranet.example/x"})
        raise AssertionError("the private host must not be contacted")

    async def resolver(host: str, port: int) -> list[str]:
        return ["10.0.0.5"] if host == "intranet.example" else [PUBLIC_IP]

    asset, _ = await fetch("https://cdn.example.org/a.png", handler, resolver=resolver)
    assert asset.error == (
        "redirected to https://intranet.example/x: "
        "refused: intranet.example resolves to 10.0.0.5, a private address"
    )


async def test_relative_redirect_resolves_against_the_current_url() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/a/start":
            return httpx.Response(301, headers={"location": "next.png"})
        return png(request)

    asset, recorder = await fetch("https://cdn.example.org/a/start", handler)
    assert asset.data is not None
    second = recorder.requests[1]
    assert (second.headers["host"], second.url.path) == ("cdn.example.org", "/a/next.png")


async def test_too_many_redirects() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(302, headers={"location": "/loop"})

    asset, recorder = await fetch("/loop", handler)
    assert asset.error == "too many redirects (more than 5)"
    assert len(recorder.requests) == 6


async def test_oversize_by_advertised_bytes_refused_before_download() -> None:
    asset, recorder = await fetch("/big", never, advertised=48 * 1024 * 1024)
    assert asset.error == "too large: 50.3 MB advertised, limit 16.0 MB"
    assert recorder.requests == []


async def test_oversize_by_content_length() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"x" * 5000)

    asset, _ = await fetch("/a", handler, advertised=1024)
    assert asset.error == "host sent more than the advertised 1024 bytes"


class Endless(httpx.AsyncByteStream):
    """A body with no Content-Length that never ends."""

    def __init__(self) -> None:
        self.sent = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:
            self.sent += 1
            yield b"x" * 1000


async def test_oversize_by_actual_stream_is_cut_off() -> None:
    body = Endless()

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=body)

    asset, _ = await fetch("/a", handler, advertised=1024)
    assert asset.error == "host sent more than the advertised 1024 bytes"
    assert body.sent <= 3  # stopped reading once past 1024 + slack

    small = MediaPolicy(base_url=LOCAL.base_url, max_bytes=2048)
    asset, _ = await fetch("/a", lambda r: httpx.Response(200, stream=Endless()), policy=small)
    assert asset.error == "too large: more than the 2.0 KB limit"


async def test_slightly_more_than_advertised_is_tolerated() -> None:
    asset, _ = await fetch(
        "/a", lambda r: httpx.Response(200, content=b"x" * 1100), advertised=1024
    )
    assert asset.data is not None and len(asset.data) == 1100


async def test_http_404_with_host_error_code() -> None:
    asset, _ = await fetch("/gone", lambda r: httpx.Response(404, json={"error": "not_found"}))
    assert asset.error == "HTTP 404 from host (not_found)"
    assert asset.url == "http://127.0.0.1:8765/gone"


async def test_http_error_from_another_server() -> None:
    asset, _ = await fetch("https://cdn.example.org/a.png", lambda r: httpx.Response(500, text="x"))
    assert asset.error == "HTTP 500 from cdn.example.org"


async def test_timeout_reported() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow")

    asset, _ = await fetch("/a", handler)
    assert asset.error == "timed out after 15 s"


class Hanging(httpx.AsyncByteStream):
    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield b"x"
        await asyncio.Event().wait()  # never set: a host that stops sending
        yield b""  # pragma: no cover


async def test_overall_timeout_covers_a_stalled_body() -> None:
    quick = MediaPolicy(base_url=LOCAL.base_url, timeout=0.05)
    asset, _ = await fetch("/a", lambda r: httpx.Response(200, stream=Hanging()), policy=quick)
    assert asset.error == "timed out after 0.05 s"


async def test_hostname_resolving_to_loopback_refused() -> None:
    asset, recorder = await fetch(
        "https://rebind.example/a.png", never, resolver=public_resolver("127.0.0.1")
    )
    assert asset.error == "refused: rebind.example resolves to 127.0.0.1, a loopback address"
    assert recorder.requests == []


async def test_unresolvable_name() -> None:
    async def resolver(host: str, port: int) -> Iterable[str]:
        raise OSError("Name or service not known")

    asset, _ = await fetch("https://nope.example/a.png", never, resolver=resolver)
    assert asset.error == "cannot resolve nope.example"
    assert asset.failure == "failed"  # a lookup that failed, not a URL the policy refused


async def test_refused_url_never_raises_and_keeps_the_url() -> None:
    asset, recorder = await fetch("file:///etc/passwd", never)
    assert asset == Asset(
        url="file:///etc/passwd", error="refused: file: URLs are never fetched", failure="refused"
    )
    assert recorder.requests == []


async def test_unexpected_errors_become_messages() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise RuntimeError("kaboom")

    asset, _ = await fetch("/a", handler)
    assert asset.error == "download failed: RuntimeError: kaboom"


async def test_connection_refused() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno 111] Connection refused")

    asset, _ = await fetch("/a", handler)
    assert asset.error == "connection refused: 127.0.0.1"


async def test_host_client_fetch_asset_uses_its_transport_and_key() -> None:
    recorder = Recorder(png)
    async with HostClient(LOCAL.base_url, KEY, transport=httpx.MockTransport(recorder)) as client:
        asset = await client.fetch_asset("/v1/host/sample/assets/tok", 64)
    assert asset.data is not None
    assert recorder.requests[0].headers["authorization"] == f"Bearer {KEY}"


# -- the address the connection really reached (DNS rebinding) -------------------------------------


class FakeNetworkStream:
    """What httpx's default transport puts in ``response.extensions["network_stream"]``."""

    def __init__(self, server_addr: object) -> None:
        self.server_addr = server_addr

    def get_extra_info(self, info: str) -> object:
        return self.server_addr if info == "server_addr" else None


def connected_to(peer: str, body: bytes = b"\x89PNG" + b"0" * 60) -> Handler:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200,
            content=body,
            headers={"content-type": "image/png"},
            extensions={"network_stream": FakeNetworkStream((peer, 443))},
        )

    return handler


@pytest.mark.parametrize(
    ("peer", "kind"),
    [
        ("10.0.0.5", "private"),
        ("127.0.0.1", "loopback"),
        ("169.254.169.254", "link-local"),
        ("::1", "loopback"),
        ("::ffff:192.168.1.1", "private"),
        ("240.0.0.1", "reserved"),
    ],
)
async def test_rebinding_name_that_connects_to_a_private_address_is_refused(
    peer: str, kind: str
) -> None:
    # Regression: the DNS check saw a public address; httpx resolved again and got a private one.
    asset, recorder = await fetch("https://rebind.example/a.png", connected_to(peer))
    assert asset.data is None
    assert asset.error == f"refused: rebind.example connected to a {kind} address {peer}"
    assert len(recorder.requests) == 1


async def test_rebinding_after_a_redirect_is_refused_with_the_hop_named() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.headers["host"] == "cdn.example.org":
            return httpx.Response(
                302,
                headers={"location": "https://rebind.example/x"},
                extensions={"network_stream": FakeNetworkStream((PUBLIC_IP, 443))},
            )
        return connected_to("10.0.0.5")(request)

    asset, _ = await fetch("https://cdn.example.org/a.png", handler)
    assert asset.error == (
        "redirected to https://rebind.example/x: "
        "refused: rebind.example connected to a private address 10.0.0.5"
    )


async def test_public_peer_and_the_configured_local_host_are_fetched() -> None:
    asset, _ = await fetch("https://cdn.example.org/a.png", connected_to(PUBLIC_IP))
    assert asset.error is None and asset.data is not None
    # The configured host may be local: its own loopback peer is expected.
    asset, _ = await fetch("/v1/host/sample/assets/tok", connected_to("127.0.0.1"))
    assert asset.error is None and asset.data is not None


@pytest.mark.parametrize("stream", [None, object(), FakeNetworkStream(None), FakeNetworkStream(())])
async def test_without_peer_information_the_dns_check_alone_decides(stream: object) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"data", extensions={"network_stream": stream})

    asset, _ = await fetch("https://cdn.example.org/a.png", handler)
    assert asset.error is None and asset.data == b"data"


async def test_non_ascii_digit_content_length_is_not_a_crash() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        # Latin-1 on the wire: the header arrives as "²", which `str.isdigit` accepts.
        return httpx.Response(200, content=b"data", headers=[(b"content-length", b"\xb2")])

    asset, _ = await fetch("/a", handler)
    assert asset.error is None and asset.data == b"data"


async def test_peer_check_is_skipped_through_a_proxy() -> None:
    # Through a proxy the peer is the proxy (often on a private address by design).
    from openwop_tui.protocol.media import _proxied

    url = "https://cdn.example.org/a.png"
    async with httpx.AsyncClient(proxy="http://10.1.2.3:3128", trust_env=False) as http:
        assert _proxied(http, url)
    async with httpx.AsyncClient(trust_env=False) as http:
        assert not _proxied(http, url)
    async with httpx.AsyncClient(transport=httpx.MockTransport(png)) as http:
        assert not _proxied(http, url)


# -- malformed URLs: every value is an answer, never an exception ----------------------------------

MALFORMED = "refused: the URL is malformed"
BAD_PORT = "refused: the URL's port is not a valid number"
NUMERIC = "is a numeric host name but not a standard IP address"


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("https://[x]/a.png", MALFORMED),
        ("https://[::1/a.png", MALFORMED),
        ("https://a]b/a.png", MALFORMED),
        ("https://[fe80::1%25eth0]/a.png", "refused"),
        ("http://127.0.0.1:notaport/", BAD_PORT),
        ("https://cdn.example.org:notaport/", BAD_PORT),
        ("https://cdn.example.org:99999/", BAD_PORT),
        ("https://cdn.example.org:0/", BAD_PORT),
        ("https://%zz/", "refused: %zz is not a valid host name"),
        ("https://ex%41mple.com/", "is not a valid host name"),
        ("https://a..b/", "is not a valid host name"),
        ("https://-a.example/", "is not a valid host name"),
        ("https://" + "a" * 64 + ".example/", "has a label longer than 63 characters"),
        ("https://" + ("a" * 60 + ".") * 5 + "example/", "longer than 253 characters"),
        ("https://☃.example/a.png", MALFORMED),  # IDNA 2008 refuses the snowman
        ("https://a\u00ad.example/a.png", SPACES),  # soft hyphen: invisible, not printable
        ("https://cdn.example.org/\x00a.png", SPACES),
        ("https://cdn.example.org/\u202ea.png", SPACES),
        ("https://2130706433/a.png", NUMERIC),  # 127.0.0.1 to the C resolver
        ("https://127.1/a.png", NUMERIC),
        ("https://0x7f.0.0.1/a.png", NUMERIC),
        ("https://cdn.example.org/" + "a" * 100_000, "refused: the URL is too long"),
    ],
    ids=lambda value: ascii(value)[:40],  # not 100 KB of test name
)
async def test_malformed_urls_are_refused_not_raised(url: str, reason: str) -> None:
    assert reason in refused(url)
    asset, recorder = await fetch(url, never)
    assert asset.data is None and asset.error is not None and reason in asset.error
    assert recorder.requests == []


@pytest.mark.parametrize("value", [None, 42, b"https://cdn.example.org/a.png", ["x"], {"u": 1}])
async def test_a_url_that_is_not_text_is_refused(value: object) -> None:
    kind = type(value).__name__
    assert refused(value) == f"refused: the URL is not text ({kind})"  # type: ignore[arg-type]
    asset, _ = await fetch(value, never)  # type: ignore[arg-type]
    assert asset == Asset(
        url=None, error=f"refused: the URL is not text ({kind})", failure="refused"
    )


async def test_an_overlong_url_is_not_echoed_back() -> None:
    asset, _ = await fetch("https://cdn.example.org/" + "a" * 100_000, never)
    assert asset.url is None
    assert asset.error == "refused: the URL is too long (100024 characters, limit 8192)"


@pytest.mark.parametrize(
    ("location", "reason"),
    [
        (
            "https://[x]/a.png",
            "refused: the redirect's Location is malformed (Invalid IPv6 address",
        ),
        (
            "https://cdn.example.org:x/",
            "refused: the redirect's Location is malformed (Invalid port",
        ),
        ("https://%zz/", "redirected to https://%zz/: refused: %zz is not a valid host name"),
        ("https://cdn.example.org:99999/", "redirected to https://cdn.example.org:99999/: refused"),
    ],
)
async def test_a_malformed_redirect_is_refused(location: str, reason: str) -> None:
    asset, recorder = await fetch(
        "https://cdn.example.org/a.png",
        lambda r: httpx.Response(302, headers={"location": location}),
    )
    assert asset.error is not None and asset.error.startswith(reason)
    assert len(recorder.requests) == 1


@pytest.mark.parametrize("advertised", ["64", -5, True, 1.5, None])
async def test_an_odd_advertised_size_counts_as_not_advertised(advertised: object) -> None:
    asset, _ = await fetch("/a", png, advertised=advertised)  # type: ignore[arg-type]
    assert asset.data is not None


async def test_a_resolver_that_breaks_is_a_resolution_failure() -> None:
    async def resolver(host: str, port: int) -> list[str]:
        raise RuntimeError("broken")

    asset, _ = await fetch("https://cdn.example.org/a.png", never, resolver=resolver)
    assert asset.error == "cannot resolve cdn.example.org"

    async def odd(host: str, port: int) -> list[object]:
        return [None]

    asset, _ = await fetch("https://cdn.example.org/a.png", never, resolver=odd)
    assert asset.error == (
        "refused: cdn.example.org resolves to 'None', which is not an IP address"
    )


# -- property: whatever the text, an absolute URL or a RefusedURL; an Asset from fetch_asset -------

_URL_CHARS = st.characters(codec="utf-8") | st.sampled_from(list(":/?#[]@%.-_~!$&'()*+,;=\\ "))
_URLISH = st.builds(
    "".join,
    st.lists(
        st.sampled_from(["https://", "http://", "//", "/", "[", "]", ":", "@", "%", "xn--", "."])
        | st.sampled_from(["cdn.example.org", "127.0.0.1", "::1", "0x7f", "8765", "localhost"])
        | st.text(_URL_CHARS, max_size=8),
        max_size=12,
    ),
)
_ANY_URL = st.text() | _URLISH | st.none() | st.integers() | st.binary()


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(url=_ANY_URL, base=st.sampled_from([LOCAL, REMOTE]))
def test_resolve_media_url_only_answers_or_refuses(url: object, base: MediaPolicy) -> None:
    try:
        absolute = resolve_media_url(url, base)
    except RefusedURL as refusal:
        assert refusal.reason.startswith(("refused: ", "cannot "))
    else:
        assert absolute.startswith(("http://", "https://"))


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(url=_ANY_URL, location=_URLISH)
def test_fetch_asset_only_returns_assets(url: object, location: str) -> None:
    # Every reachable server redirects once to arbitrary text, then serves bytes.
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/served"):
            return httpx.Response(200, content=b"data")
        return httpx.Response(302, headers=[(b"location", location.encode("utf-8"))])

    async def run() -> Asset:
        asset, _ = await fetch(url, handler, policy=REMOTE)  # type: ignore[arg-type]
        return asset

    asset = asyncio.run(run())
    assert isinstance(asset, Asset)
    assert (asset.data is None) != (asset.error is None)
    assert asset.url is None or isinstance(asset.url, str)


def test_plain_http_to_a_private_address_names_the_address_first() -> None:
    """``https:`` would not make a private address fetchable: the reason says what counts."""
    reason = refused("http://10.20.30.40/a.png")
    assert reason.startswith("refused: 10.20.30.40 is a private address")
    assert "needs https" not in reason
    assert "needs https:" in refused("http://cdn.example.org/a.png")


def test_a_url_asked_again_is_answered_as_before_without_parsing_it_again() -> None:
    # The lint asks for the same media URLs at every envelope of a stream: parsing each again
    # was a third of its time per event (issue 26).
    from openwop_tui.protocol import media_policy

    policy = MediaPolicy(base_url="https://host.example")
    url = "/v1/host/sample/assets/tok-cached-once"
    first = resolve_media_url(url, policy)
    misses = media_policy._resolved.cache_info().misses
    assert (
        resolve_media_url(url, policy)
        == first
        == "https://host.example/v1/host/sample/assets/tok-cached-once"
    )
    assert media_policy._resolved.cache_info().misses == misses


def test_a_refusal_asked_again_is_a_new_exception_saying_the_same() -> None:
    # (A cached exception raised again would gather every raise's traceback.)
    policy = MediaPolicy(base_url="https://host.example")
    url = "http://elsewhere.example/cached-refusal.png"
    refusals = []
    for _ in range(2):
        with pytest.raises(RefusedURL) as caught:
            resolve_media_url(url, policy)
        refusals.append(caught.value)
    assert refusals[0] is not refusals[1]
    assert refusals[0].reason == refusals[1].reason and refusals[0].url == refusals[1].url
    assert "http" in refusals[0].reason
