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
  the client probe the user's network or a cloud metadata endpoint. A name is resolved once per
  hop, every answer is checked, and the connection goes to a checked address (the URL's host
  replaced by it; the name kept for the ``Host`` header, TLS SNI and the certificate check), so
  a DNS-rebinding name cannot answer "public" to the check and "private" to the connection. The
  address the socket really reached is looked at too, before any body is read. Two exceptions
  connect by name: the configured host (the user chose it; every API request reaches it by name
  anyway), and requests through a proxy (``HTTPS_PROXY`` and co.), where the proxy resolves and
  the client cannot pin: there the check of this machine's DNS answer is all there is;
* every value is an answer, never an exception: not text, longer than `MAX_URL_CHARS`, brackets
  that hold no IPv6 address, a port that is no number or out of range, a host that is no DNS
  name (``%zz``, a label over 63 characters, failed IDNA) or a numeric one (``2130706433``);
* redirects are followed by hand, at most five, each hop re-checked;
* the Bearer key goes only to the configured host's origin (asset URLs are normally bearer-less:
  the token in the path is the credential), never to another origin, and only while every hop so
  far was that origin: a URL on another site that redirects back to the host is the other
  site's request, so it goes without the key (the client did not address the host itself);
* downloads are streamed and capped at the advertised ``bytes`` (plus a little slack) and at a
  ceiling, with one overall timeout.

`fetch_asset` never raises: every failure is an `Asset` with a short ``error`` the renderer shows.
No Textual here.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import re
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urldefrag, urljoin, urlsplit

import httpx

from openwop_tui.protocol.asset import OFFLINE_REASON, Asset
from openwop_tui.protocol.budgets import DEFAULT_MAX_BYTES as DEFAULT_MAX_BYTES
from openwop_tui.protocol.events import parse_int
from openwop_tui.text.sanitize import HostText, clean
from openwop_tui.text.units import human_size

__all__ = [
    "DEFAULT_MAX_BYTES",
    "MAX_REDIRECTS",
    "MAX_URL_CHARS",
    "Asset",
    "MediaPolicy",
    "RefusedURL",
    "Resolver",
    "fetch_asset",
    "offline_asset",
    "resolve_media_url",
]

#: Redirect hops followed before giving up.
MAX_REDIRECTS = 5
#: How far past the advertised ``bytes`` a body may run before it is called a lie.
SLACK_BYTES = 1024
#: Longer URLs are refused unread (servers commonly stop at 8 KB request lines too).
MAX_URL_CHARS = 8192
#: Checked addresses of one name tried in turn when the connection to one is refused.
_MAX_ADDRESSES = 8
_MAX_NAME = 253
_MAX_LABEL = 63
_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?")
#: A last label the C resolver reads as part of an IPv4 address (``127.1``, ``0x7f.1``).
_NUMERIC_LABEL = re.compile(r"0x[0-9a-f]*|[0-9]+")
#: How much of an error body is read to find the host's ``error`` code.
_ERROR_BODY_MAX = 4096

#: How httpx 0.28 words a Location header it cannot parse.
_BAD_LOCATION = "Invalid URL in location header"
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

    def __init__(self, reason: str, url: str | None = None, *, lookup: bool = False) -> None:
        # A boundary: reasons quote the URL, its host and exception details; cleaned once here.
        self.reason: HostText = clean(reason)
        super().__init__(self.reason)
        self.url = url
        self.lookup = lookup
        """The name did not resolve: a failure to fetch, not a refusal of the URL."""


@dataclass(frozen=True, slots=True)
class MediaPolicy:
    """Where media may be fetched from, how much, and for how long."""

    base_url: str
    """The configured host: relative URLs resolve against it; it alone may be http or local."""
    max_bytes: int = DEFAULT_MAX_BYTES
    timeout: float = 15.0
    """Seconds for the whole download, redirects included."""


@dataclass(frozen=True, slots=True)
class _Target:
    """Where a URL goes, as httpx will read it: the parse every decision here is made on."""

    scheme: str
    host: str
    """ASCII (IDNA-encoded) host name or bare IP literal, lower case; what is resolved."""
    port: int
    netloc: str
    """``host[:port]`` as httpx writes it in the ``Host`` header (IPv6 in brackets)."""

    @property
    def key(self) -> str:
        """The host for comparisons: ``example.org.`` and ``example.org`` are one host."""
        return self.host.rstrip(".")


def _detail(error: BaseException) -> str:
    """A parser's complaint, short and safe to show (it may quote the hostile URL)."""
    text = clean(str(error)) or type(error).__name__
    return text if len(text) <= 80 else text[:79] + "…"


def _target(url: str) -> _Target:
    """Parse ``url`` the way httpx will connect to it, or raise `RefusedURL` saying why.

    httpx is lenient about host names (it passes ``%zz`` or a 64-letter label through to the
    resolver, which then fails in its own way), so the name is held to DNS syntax here: labels
    of letters, digits, ``-`` and ``_``, at most 63 each and 253 in all. A name whose last label
    is a number (``2130706433``, ``127.1``, ``0x7f.1``) is refused: the C resolver reads those
    as IPv4 addresses, a second syntax for the address checks to miss.
    """
    try:
        parsed = httpx.URL(url)
        host = parsed.raw_host.decode("ascii").lower()
        netloc = parsed.netloc.decode("ascii")
    except (httpx.InvalidURL, ValueError) as error:  # UnicodeError is a ValueError
        raise RefusedURL(f"refused: the URL is malformed ({_detail(error)})", url=url) from None
    scheme = parsed.scheme.lower()
    port = parsed.port if parsed.port is not None else _DEFAULT_PORTS.get(scheme, 0)
    if not 0 < port <= 65535:
        raise RefusedURL("refused: the URL's port is not a valid number", url=url)
    target = _Target(scheme=scheme, host=host, port=port, netloc=netloc)
    if _ip_literal(host) is None:
        _check_host_name(target.key, url)
    return target


def _check_host_name(name: str, url: str) -> None:
    shown = clean(name[:80])
    if not name:
        raise RefusedURL("refused: the URL has no host", url=url)
    if len(name) > _MAX_NAME:
        raise RefusedURL(f"refused: the host name is longer than {_MAX_NAME} characters", url=url)
    for label in name.split("."):
        if len(label) > _MAX_LABEL:
            raise RefusedURL(
                f"refused: the host name {shown} has a label longer than {_MAX_LABEL} characters",
                url=url,
            )
        if not _LABEL.fullmatch(label):
            raise RefusedURL(f"refused: {shown} is not a valid host name", url=url)
    if _NUMERIC_LABEL.fullmatch(name.rsplit(".", 1)[-1]):
        raise RefusedURL(
            f"refused: {shown} is a numeric host name but not a standard IP address", url=url
        )


def _key(url: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of ``url`` for origin comparisons; ``None`` when unparsable."""
    try:
        target = _target(url)
    except RefusedURL:
        return None
    return target.scheme, target.key, target.port


def _is_configured_host(url: str, policy: MediaPolicy) -> bool:
    here, base = _key(url), _key(policy.base_url)
    return here is not None and base is not None and here[1:] == base[1:]


def _same_origin(url: str, policy: MediaPolicy) -> bool:
    here = _key(url)
    return here is not None and here == _key(policy.base_url)


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


def _shown(url: object) -> str | None:
    """The caller's ``url`` as `Asset.url`, when it is text of a showable length."""
    return url if isinstance(url, str) and len(url) <= MAX_URL_CHARS else None


def resolve_media_url(url: object, policy: MediaPolicy) -> str:
    """Return the absolute URL to fetch for a media ``url``, or raise `RefusedURL` saying why.

    Pure: no DNS. Names other than the configured host are checked by `fetch_asset`, which
    resolves them. Any value is accepted: not text, too long, or malformed (an IPv6 literal
    that is not one, a port that is not a number, a host name that is not one) is a
    `RefusedURL` like every other refusal, never another exception.
    """
    if not isinstance(url, str):
        raise RefusedURL(f"refused: the URL is not text ({type(url).__name__})")
    if len(url) > MAX_URL_CHARS:
        raise RefusedURL(
            f"refused: the URL is too long ({len(url)} characters, limit {MAX_URL_CHARS})"
        )
    try:
        return _resolve(url, policy)
    except RefusedURL:
        raise
    except ValueError as error:  # urlsplit and urljoin on brackets that hold no address
        raise RefusedURL(
            f"refused: the URL is malformed ({_detail(error)})", url=url.strip()
        ) from None


def _resolve(url: str, policy: MediaPolicy) -> str:
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
        raise RefusedURL(reason, url=text)  # cleaned by RefusedURL
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise RefusedURL("refused: the URL carries a user name or password", url=text)
    if not parts.hostname:
        raise RefusedURL("refused: the URL has no host", url=text)
    try:
        parts.port  # noqa: B018 - the property raises on a port out of range or not a number
    except ValueError:
        raise RefusedURL("refused: the URL's port is not a valid number", url=text) from None
    # From here on, httpx's reading of the URL decides: it is the one the connection uses.
    target = _target(text)
    host = clean(parts.hostname)

    configured = _is_configured_host(text, policy)
    base = _key(policy.base_url)
    if scheme == "http" and not (configured and base is not None and base[0] == "http"):
        literal = _ip_literal(target.host)
        kind = _non_public(literal) if literal is not None and not configured else None
        if kind is not None:
            # Say the address first: https: would not make a private address fetchable.
            raise RefusedURL(
                f"refused: {host} is a {kind} address and not the configured host "
                "(and plain http: is only fetched from the configured host)",
                url=text,
            )
        raise RefusedURL(
            f"refused: plain http: is only fetched from the configured host; {host} needs https:",
            url=text,
        )
    if configured:
        return text
    address = _ip_literal(target.host)
    if address is not None:
        kind = _non_public(address)
        if kind is not None:
            raise RefusedURL(
                f"refused: {host} is a {kind} address and not the configured host", url=text
            )
    elif target.key == "localhost" or target.key.endswith(".localhost"):
        raise RefusedURL(
            f"refused: {host} is a loopback name and not the configured host", url=text
        )
    return text


async def _system_resolver(host: str, port: int) -> list[str]:
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


async def _check_addresses(url: str, policy: MediaPolicy, resolver: Resolver) -> tuple[str, ...]:
    """Resolve a URL's host name once, refuse local answers, return the addresses to connect to.

    Every answer is checked (a name with one public and one private address is refused: the
    connection could use either). The result is the checked addresses, in the resolver's order,
    without duplicates, IPv4-mapped IPv6 written as IPv4; `_download` connects to these and
    never resolves the name again. ``()`` means "request the URL as it stands": the configured
    host (trusted, reached by name like every other request to it) and IP literals (checked
    by `resolve_media_url`, nothing to resolve). Raises `RefusedURL`.
    """
    if _is_configured_host(url, policy):
        return ()
    target = _target(url)
    if _ip_literal(target.host) is not None:
        return ()
    host = clean(target.host)
    try:
        answers = list(await resolver(target.host, target.port))
    except Exception:  # OSError, UnicodeError, or whatever a custom resolver raises
        raise RefusedURL(f"cannot resolve {host}", lookup=True) from None
    if not answers:
        raise RefusedURL(f"cannot resolve {host}: no addresses", lookup=True)
    checked: dict[str, None] = {}
    for item in answers:
        shown = clean(str(item))[:64]
        address = _ip_literal(item.split("%", 1)[0]) if isinstance(item, str) else None
        if address is None:
            raise RefusedURL(f"refused: {host} resolves to {shown!r}, which is not an IP address")
        kind = _non_public(address)
        if kind is not None:
            raise RefusedURL(f"refused: {host} resolves to {shown}, a {kind} address")
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        checked[str(address)] = None
    return tuple(checked)[:_MAX_ADDRESSES]


def _pinned(
    http: httpx.AsyncClient, url: str, address: str, headers: dict[str, str]
) -> httpx.Request:
    """A request for ``url`` that connects to ``address`` and still speaks to the name.

    The URL's host becomes the address (so nothing resolves the name again); the ``Host``
    header carries the name, and TLS sends it as SNI and verifies the certificate against
    it (httpcore's ``sni_hostname`` extension). ``Connection: close``: httpcore pools
    connections by URL origin, here the address, so a later request for another name on the
    same address must not reuse a TLS session whose certificate was checked for this one.
    """
    target = _target(url)
    return http.build_request(
        "GET",
        httpx.URL(url).copy_with(host=address),
        headers={**headers, "Host": target.netloc, "Connection": "close"},
        extensions={"sni_hostname": target.host},
    )


async def _send_first(http: httpx.AsyncClient, requests: list[httpx.Request]) -> httpx.Response:
    """Send the first request that connects: the next checked address only when one refuses."""
    for request in requests[:-1]:
        try:
            return await http.send(request, stream=True)
        except httpx.ConnectError:
            continue  # nothing was sent; the name has other checked addresses
    return await http.send(requests[-1], stream=True)


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

    A second look after pinning (a custom transport may resolve on its own): uses the address
    the socket is connected to (``network_stream`` → ``server_addr``, as httpx's default
    transport reports it). Without that information (a mock transport) or through a proxy,
    nothing more can be known.
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
    host = clean(urlsplit(url).hostname or "the server")
    return f"refused: {host} connected to a {kind} address {peer}"


#: Stands in for the configured host when an offline transcript does not know its host: a name
#: that is never a real host (RFC 2606), so nothing is taken for the configured host.
_NO_HOST = "https://host.invalid/"


def offline_asset(url: str, host: str | None) -> Asset:
    """What a transcript shown without its host says of a media URL it cannot fetch.

    A URL the policy refuses whatever the network (a ``file:``, ``data:`` or ``javascript:``
    URL, a loopback or private address that is not the host, plain ``http:`` elsewhere, a
    user name in it) gets the refusal, in the words `fetch_asset` would use online; any other
    gets `OFFLINE_REASON`. ``host``: the base URL of the host that ran the envelope's run, the
    one that would be configured to fetch it (``None``: unknown; then no address is that host,
    and a relative URL, which only that host could resolve, is simply not fetched)."""
    try:
        relative = not urlsplit(url.strip()).scheme
    except ValueError:  # a bracket that holds no address: the policy words it below
        relative = False
    if not (host is None and relative):
        try:
            resolve_media_url(url, MediaPolicy(base_url=host or _NO_HOST))
        except RefusedURL as refused:
            return Asset(
                url=refused.url if refused.url is not None else _shown(url),
                error=refused.reason,
                failure="refused",
            )
    return Asset(url=url, error=OFFLINE_REASON, failure="not-fetched")


async def fetch_asset(
    url: object,
    *,
    policy: MediaPolicy,
    advertised_bytes: int | None,
    api_key: str | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    resolver: Resolver | None = None,
) -> Asset:
    """Download a media URL under ``policy``. Never raises: failures are ``Asset(error=…)``.

    ``url`` may be any value (the envelope is the host's word): see `resolve_media_url`.
    ``advertised_bytes`` is the envelope's ``bytes``: larger than the ceiling is refused before
    any request; a body longer than it (plus `SLACK_BYTES`) is cut off and refused; anything
    but a non-negative integer counts as not advertised.
    ``resolver`` (default: the event loop's ``getaddrinfo``) resolves names, once per hop: the
    connection goes to the addresses it answered and the policy checked.
    """
    try:
        absolute = resolve_media_url(url, policy)
    except RefusedURL as refused:
        return Asset(
            url=refused.url if refused.url is not None else _shown(url),
            error=refused.reason,
            failure="refused",
        )
    except Exception as error:  # the contract is "never raises", even on a bug in the policy
        return Asset(
            url=_shown(url),
            error=f"refused: the URL cannot be read ({_detail(error)})",
            failure="refused",
        )
    advertised = (
        advertised_bytes
        if isinstance(advertised_bytes, int)
        and not isinstance(advertised_bytes, bool)
        and advertised_bytes >= 0
        else None
    )
    if advertised is not None and advertised > policy.max_bytes:
        return Asset(
            url=absolute,
            error=(
                f"too large: {human_size(advertised)} advertised, "
                f"limit {human_size(policy.max_bytes)}"
            ),
            failure="too-large",
        )
    timed_out = f"timed out after {policy.timeout:g} s"
    try:
        async with asyncio.timeout(policy.timeout):
            return await _download(
                absolute, policy, advertised, api_key, transport, resolver or _system_resolver
            )
    except (TimeoutError, httpx.TimeoutException):
        return Asset(url=absolute, error=timed_out)
    except httpx.ConnectError as error:
        reason = "connection refused" if "refused" in str(error).lower() else "cannot connect"
        return Asset(url=absolute, error=f"{reason}: {clean(urlsplit(absolute).hostname or '')}")
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
    # The key rides only a chain the client itself addressed to the host: once a hop has left
    # the host's origin, a redirect back to it is that other site's doing and gets no key.
    keyed = bool(api_key)
    # Two clients: `routed` honours the environment's proxy settings (requests by name: the
    # configured host, IP literals, anything behind a proxy); `direct` ignores them, so a
    # pinned request to a checked address goes straight there and nowhere else. httpx applies
    # environment proxies only when it builds the transport itself, so without an injected
    # transport each builds its own, sharing one TLS context (building one costs the most).
    if transport is not None:
        settings: dict[str, Any] = {"transport": transport}
    else:
        settings = {"verify": httpx.create_ssl_context()}
    settings.update(timeout=policy.timeout, follow_redirects=False)
    async with (
        httpx.AsyncClient(**settings) as routed,
        httpx.AsyncClient(**settings, trust_env=False) as direct,
    ):
        for hop in range(MAX_REDIRECTS + 1):
            prefix = "" if hop == 0 else f"redirected to {clean(current)}: "
            # Identity encoding: the cap then counts what the host sent, with no zip bomb inside.
            headers = {"Accept": "*/*", "Accept-Encoding": "identity"}
            keyed = keyed and _same_origin(current, policy)
            if keyed and api_key:
                headers["Authorization"] = f"Bearer {api_key}"
            try:
                addresses = await _check_addresses(current, policy, resolver)
            except RefusedURL as refused:
                failure: Literal["refused", "failed"] = "failed" if refused.lookup else "refused"
                return Asset(url=absolute, error=prefix + refused.reason, failure=failure)
            # Through a proxy the proxy resolves and connects: the client cannot pin, and the
            # name must reach the proxy (its allow-lists and NO_PROXY speak names). What is
            # left is the DNS check above, made with this machine's resolver.
            proxied = _proxied(routed, current)
            if addresses and not proxied:
                http = direct
                requests = [_pinned(direct, current, address, headers) for address in addresses]
            else:
                http = routed
                requests = [routed.build_request("GET", current, headers=headers)]
            try:
                response = await _send_first(http, requests)
            except httpx.RemoteProtocolError as error:
                # httpx parses a redirect's Location even when it follows none, and a
                # Location it cannot parse fails the whole send: that is a refused redirect.
                if not str(error).startswith(_BAD_LOCATION):
                    raise
                detail = _detail(error).removeprefix(_BAD_LOCATION).strip(" :.")
                return Asset(
                    url=absolute,
                    error=f"{prefix}refused: the redirect's Location is malformed ({detail})",
                    failure="refused",
                )
            try:
                refusal = _check_peer(response, current, policy, proxied=proxied)
                if refusal is not None:
                    return Asset(url=absolute, error=prefix + refusal, failure="refused")
                status = response.status_code
                if status in _REDIRECT_STATUSES:
                    location = response.headers.get("location")
                    if not location:
                        return Asset(url=absolute, error=f"HTTP {status} without a Location")
                    try:
                        current = resolve_media_url(_join(current, location), policy)
                    except RefusedURL as refused:
                        where = clean(refused.url or location)[:200]
                        return Asset(
                            url=absolute,
                            error=f"redirected to {where}: {refused.reason}",
                            failure="refused",
                        )
                    continue
                if not 200 <= status < 300:
                    return Asset(url=absolute, error=await _http_error(response, current, policy))
                content_type = response.headers.get("content-type")
                if content_type:
                    content_type = content_type.partition(";")[0].strip().lower() or None
                declared = parse_int(response.headers.get("content-length", ""), signed=False)
                if declared is not None and declared > limit:
                    return Asset(
                        url=absolute, error=too_much, content_type=content_type, failure="too-large"
                    )
                body = bytearray()
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) > limit:
                        return Asset(
                            url=absolute,
                            error=too_much,
                            content_type=content_type,
                            failure="too-large",
                        )
                return Asset(url=absolute, data=bytes(body), content_type=content_type)
            finally:
                await response.aclose()
    return Asset(url=absolute, error=f"too many redirects (more than {MAX_REDIRECTS})")


def _join(current: str, location: str) -> str:
    """``location`` against the URL that sent it; a Location that cannot be joined is refused."""
    try:
        return urljoin(current, location)
    except ValueError as error:
        raise RefusedURL(
            f"refused: the URL is malformed ({_detail(error)})", url=location
        ) from None


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
