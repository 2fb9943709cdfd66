"""The media URL policy, and fetching a media envelope's bytes under it.

The spec says little about what a consumer may load (protocol.md §7, last bullet); this is the
client's own policy (design.md, Security posture):

* relative URLs resolve against the host's base URL (the reference host hands out
  ``/v1/host/sample/assets/<token>``, protocol.md §4.6);
* ``https:`` is fetched from anywhere public; ``http:`` only from the configured host's own
  origin (a local dev host), never from elsewhere;
* ``file:``, ``data:`` (inline media comes as ``base64``, not as a URL), ``javascript:`` and every
  other scheme are refused, as are URLs carrying a user name or password;
* loopback, private, link-local and reserved addresses, as IP literals or as names that resolve to
  them, are refused unless they are the configured host itself: a hostile envelope must not make
  the client probe the user's network or a cloud metadata endpoint. httpx resolves a name again
  to connect, so a DNS-rebinding name could pass the check; the address the connection really
  reached is checked too, once the response headers are in and before any body is read (when
  the transport reports it and no proxy is in between);
* redirects are followed by hand, at most five, each hop re-checked;
* the Bearer key goes only to the configured host's origin (asset URLs are normally bearer-less:
  the token in the path is the credential), never to another origin;
* downloads are streamed and capped at the advertised ``bytes`` (plus a little slack) and at a
  ceiling, with one overall timeout.

`fetch_asset` never raises: every failure is an `Asset` with a short ``error`` the renderer shows.
No Textual here.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urldefrag, urljoin, urlsplit

import httpx

from openwop_tui.protocol.events import parse_int
from openwop_tui.sanitize import clean
from openwop_tui.units import human_size


@dataclass(frozen=True, slots=True)
class Asset:
    """The outcome of fetching a media envelope's ``url``.

    Exactly one of ``data`` and ``error`` is set. ``error`` is a short human reason
    ("refused: file: URLs are never fetched", "HTTP 404 from host", "too large: 48.0 MB
    advertised, limit 16.0 MB"); ``url`` is the absolute URL the client resolved, shown so the
    user can get the thing some other way.
    """

    url: str | None
    data: bytes | None = None
    error: str | None = None
    content_type: str | None = None


__all__ = [
    "DEFAULT_MAX_BYTES",
    "MAX_REDIRECTS",
    "Asset",
    "MediaPolicy",
    "RefusedURL",
    "Resolver",
    "fetch_asset",
    "resolve_media_url",
]

#: The download ceiling when none is configured.
DEFAULT_MAX_BYTES = 16_000_000
#: Redirect hops followed before giving up.
MAX_REDIRECTS = 5
#: How far past the advertised ``bytes`` a body may run before it is called a lie.
SLACK_BYTES = 1024
#: How much of an error body is read to find the host's ``error`` code.
_ERROR_BODY_MAX = 4096

_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_SCHEME_REASONS = {
    "file": "refused: file: URLs are never fetched",
    "data": "refused: data: URLs are never fetched (inline media must come as base64)",
    "javascript": "refused: javascript: URLs are never fetched",
}

#: Resolves a host name to IP address strings: ``await resolver(host, port)``.
Resolver = Callable[[str, int], Awaitable[Iterable[str]]]


class RefusedURL(Exception):
    """The policy refuses a URL; ``reason`` is the sentence to show, ``url`` the resolved URL."""

    def __init__(self, reason: str, url: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.url = url


@dataclass(frozen=True, slots=True)
class MediaPolicy:
    """Where media may be fetched from, how much, and for how long."""

    base_url: str
    """The configured host: relative URLs resolve against it; it alone may be http or local."""
    max_bytes: int = DEFAULT_MAX_BYTES
    timeout: float = 15.0
    """Seconds for the whole download, redirects included."""


def _authority(scheme: str, host: str, port: int | None) -> tuple[str, int]:
    return host.lower().rstrip("."), port if port is not None else _DEFAULT_PORTS.get(scheme, 0)


def _base_parts(policy: MediaPolicy) -> tuple[str, tuple[str, int]]:
    base = urlsplit(policy.base_url)
    scheme = base.scheme.lower()
    return scheme, _authority(scheme, base.hostname or "", base.port)


def _non_public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Name the kind of a non-public address (``loopback``, ``private`` …), or ``None``."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_loopback:
        return "loopback"
    if address.is_link_local:
        return "link-local"
    if address.is_unspecified:
        return "unspecified"
    if address.is_multicast:
        return "multicast"
    if address.is_reserved:  # before is_private: Python counts 240.0.0.0/4 as both
        return "reserved"
    if address.is_private:
        return "private"
    if not address.is_global:
        return "non-public"
    return None


def _ip_literal(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _is_configured_host(url: str, policy: MediaPolicy) -> bool:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return _authority(scheme, parts.hostname or "", parts.port) == _base_parts(policy)[1]


def _same_origin(url: str, policy: MediaPolicy) -> bool:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    base_scheme, base_authority = _base_parts(policy)
    return (scheme, _authority(scheme, parts.hostname or "", parts.port)) == (
        base_scheme,
        base_authority,
    )


def resolve_media_url(url: str, policy: MediaPolicy) -> str:
    """Return the absolute URL to fetch for a media ``url``, or raise `RefusedURL` saying why.

    Pure: no DNS. Names other than the configured host are checked by `fetch_asset`, which
    resolves them.
    """
    text = url.strip()
    if not text:
        raise RefusedURL("refused: the URL is empty")
    if any(not ch.isprintable() or ch.isspace() for ch in text):
        raise RefusedURL("refused: the URL contains spaces or control characters")
    if "\\" in text:
        # Browsers read `\` as `/`; other parsers do not. Ambiguity is refused, not guessed.
        raise RefusedURL("refused: the URL contains a backslash")
    parts = urlsplit(text)
    if not parts.scheme:
        # Relative (`/v1/host/…/assets/<token>`, or scheme-relative `//other/x`): against the host.
        text = urljoin(policy.base_url, text)
        parts = urlsplit(text)
    text = urldefrag(text)[0]
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        reason = _SCHEME_REASONS.get(
            scheme, f"refused: {scheme}: URLs are never fetched (only https:, or http: to the host)"
        )
        raise RefusedURL(reason, url=text)
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise RefusedURL("refused: the URL carries a user name or password", url=text)
    host = parts.hostname
    if not host:
        raise RefusedURL("refused: the URL has no host", url=text)
    try:
        port = parts.port
    except ValueError:
        raise RefusedURL("refused: the URL's port is not a valid number", url=text) from None

    base_scheme, base_authority = _base_parts(policy)
    configured = _authority(scheme, host, port) == base_authority
    if scheme == "http" and not (configured and base_scheme == "http"):
        raise RefusedURL(
            f"refused: plain http: is only fetched from the configured host; {host} needs https:",
            url=text,
        )
    if configured:
        return text
    address = _ip_literal(host)
    if address is not None:
        kind = _non_public(address)
        if kind is not None:
            raise RefusedURL(
                f"refused: {host} is a {kind} address and not the configured host", url=text
            )
    elif host.lower().rstrip(".") == "localhost" or host.lower().rstrip(".").endswith(".localhost"):
        raise RefusedURL(
            f"refused: {host} is a loopback name and not the configured host", url=text
        )
    return text


async def _system_resolver(host: str, port: int) -> list[str]:
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


async def _check_addresses(url: str, policy: MediaPolicy, resolver: Resolver) -> str | None:
    """Resolve a URL's host name (not an IP literal, not the configured host); refuse local ones."""
    if _is_configured_host(url, policy):
        return None
    parts = urlsplit(url)
    host = parts.hostname or ""
    if _ip_literal(host) is not None:
        return None  # already checked by resolve_media_url
    port = parts.port or _DEFAULT_PORTS.get(parts.scheme.lower(), 443)
    try:
        addresses = list(await resolver(host, port))
    except (OSError, UnicodeError):
        return f"cannot resolve {host}"
    if not addresses:
        return f"cannot resolve {host}: no addresses"
    for item in addresses:
        address = _ip_literal(item.split("%", 1)[0])
        if address is None:
            return f"refused: {host} resolves to {item!r}, which is not an IP address"
        kind = _non_public(address)
        if kind is not None:
            return f"refused: {host} resolves to {item}, a {kind} address"
    return None


def _proxied(http: httpx.AsyncClient, url: str) -> bool:
    """Whether ``http`` sends requests for ``url`` through a proxy (``HTTPS_PROXY`` and co.).

    Through a proxy the connection's peer is the proxy, often on a private address by design,
    so the peer check cannot say anything about the asset's host. httpx has no public way to
    ask; if its private one is gone, the answer is "no proxy" (strict: the check still runs).
    """
    pick = getattr(http, "_transport_for_url", None)
    default = getattr(http, "_transport", None)
    if pick is None or default is None:
        return False
    try:
        return pick(httpx.URL(url)) is not default
    except Exception:
        return False


def _check_peer(
    response: httpx.Response, url: str, policy: MediaPolicy, *, proxied: bool
) -> str | None:
    """Refuse a response whose connection reached a non-public address for another host.

    Uses the address the socket is connected to (``network_stream`` → ``server_addr``, as
    httpx's default transport reports it). Without that information (a mock or custom
    transport) or through a proxy, nothing more can be known: the DNS check has to do.
    """
    if proxied or _is_configured_host(url, policy):
        return None
    stream = response.extensions.get("network_stream")
    get_extra_info = getattr(stream, "get_extra_info", None)
    if not callable(get_extra_info):
        return None
    try:
        server_addr = get_extra_info("server_addr")
    except Exception:
        return None
    if not isinstance(server_addr, tuple | list) or not server_addr:
        return None
    peer = str(server_addr[0])
    address = _ip_literal(peer.split("%", 1)[0])
    if address is None:
        return None
    kind = _non_public(address)
    if kind is None:
        return None
    host = urlsplit(url).hostname or "the server"
    return f"refused: {host} connected to a {kind} address {peer}"


async def fetch_asset(
    url: str,
    *,
    policy: MediaPolicy,
    advertised_bytes: int | None,
    api_key: str | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    resolver: Resolver | None = None,
) -> Asset:
    """Download a media URL under ``policy``. Never raises: failures are ``Asset(error=…)``.

    ``advertised_bytes`` is the envelope's ``bytes``: larger than the ceiling is refused before
    any request; a body longer than it (plus `SLACK_BYTES`) is cut off and refused.
    ``resolver`` (default: the event loop's ``getaddrinfo``) resolves names for the address check.
    """
    try:
        absolute = resolve_media_url(url, policy)
    except RefusedURL as refused:
        return Asset(url=refused.url or url, error=refused.reason)
    if advertised_bytes is not None and advertised_bytes > policy.max_bytes:
        return Asset(
            url=absolute,
            error=(
                f"too large: {human_size(advertised_bytes)} advertised, "
                f"limit {human_size(policy.max_bytes)}"
            ),
        )
    timed_out = f"timed out after {policy.timeout:g} s"
    try:
        async with asyncio.timeout(policy.timeout):
            return await _download(
                absolute,
                policy,
                advertised_bytes,
                api_key,
                transport,
                resolver or _system_resolver,
            )
    except (TimeoutError, httpx.TimeoutException):
        return Asset(url=absolute, error=timed_out)
    except httpx.ConnectError as error:
        reason = "connection refused" if "refused" in str(error).lower() else "cannot connect"
        return Asset(url=absolute, error=f"{reason}: {urlsplit(absolute).hostname}")
    except httpx.HTTPError as error:
        return Asset(url=absolute, error=f"download failed: {type(error).__name__}")
    except Exception as error:  # the contract is "never raises": report, do not crash the view
        return Asset(url=absolute, error=f"download failed: {type(error).__name__}: {error}")


async def _download(
    absolute: str,
    policy: MediaPolicy,
    advertised: int | None,
    api_key: str | None,
    transport: httpx.AsyncBaseTransport | None,
    resolver: Resolver,
) -> Asset:
    if advertised is not None and advertised + SLACK_BYTES <= policy.max_bytes:
        limit = advertised + SLACK_BYTES
        too_much = f"host sent more than the advertised {advertised} bytes"
    else:
        limit = policy.max_bytes
        too_much = f"too large: more than the {human_size(policy.max_bytes)} limit"

    current = absolute
    async with httpx.AsyncClient(
        transport=transport, timeout=policy.timeout, follow_redirects=False
    ) as http:
        for hop in range(MAX_REDIRECTS + 1):
            refusal = await _check_addresses(current, policy, resolver)
            if refusal is not None:
                prefix = "" if hop == 0 else f"redirected to {current}: "
                return Asset(url=absolute, error=prefix + refusal)
            # Identity encoding: the cap then counts what the host sent, with no zip bomb inside.
            headers = {"Accept": "*/*", "Accept-Encoding": "identity"}
            if api_key and _same_origin(current, policy):
                headers["Authorization"] = f"Bearer {api_key}"
            async with http.stream("GET", current, headers=headers) as response:
                # httpx resolved the name again to connect: a rebinding name can pass the check
                # above and still reach a private address. Look at where it really went.
                refusal = _check_peer(response, current, policy, proxied=_proxied(http, current))
                if refusal is not None:
                    prefix = "" if hop == 0 else f"redirected to {current}: "
                    return Asset(url=absolute, error=prefix + refusal)
                status = response.status_code
                if status in _REDIRECT_STATUSES:
                    location = response.headers.get("location")
                    if not location:
                        return Asset(url=absolute, error=f"HTTP {status} without a Location")
                    try:
                        current = resolve_media_url(urljoin(current, location), policy)
                    except RefusedURL as refused:
                        where = clean(refused.url or location)
                        return Asset(url=absolute, error=f"redirected to {where}: {refused.reason}")
                    continue
                if not 200 <= status < 300:
                    return Asset(url=absolute, error=await _http_error(response, current, policy))
                content_type = response.headers.get("content-type")
                if content_type:
                    content_type = content_type.partition(";")[0].strip().lower() or None
                declared = parse_int(response.headers.get("content-length", ""), signed=False)
                if declared is not None and declared > limit:
                    return Asset(url=absolute, error=too_much, content_type=content_type)
                body = bytearray()
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) > limit:
                        return Asset(url=absolute, error=too_much, content_type=content_type)
                return Asset(url=absolute, data=bytes(body), content_type=content_type)
    return Asset(url=absolute, error=f"too many redirects (more than {MAX_REDIRECTS})")


async def _http_error(response: httpx.Response, url: str, policy: MediaPolicy) -> str:
    """``HTTP 404 from host (not_found)``: the status, who said it, and the host's error code."""
    where = "host" if _is_configured_host(url, policy) else (urlsplit(url).hostname or "server")
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) >= _ERROR_BODY_MAX:
            break
    code = None
    try:
        doc = json.loads(bytes(body[:_ERROR_BODY_MAX]).decode("utf-8", errors="replace"))
    except (json.JSONDecodeError, ValueError):
        doc = None
    if isinstance(doc, dict):
        error = doc.get("error")
        if isinstance(error, dict):
            error = error.get("code")
        if isinstance(error, str) and error.isprintable() and len(error) <= 64:
            code = error
    return f"HTTP {response.status_code} from {where}" + (f" ({code})" if code else "")
