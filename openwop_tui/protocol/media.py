"""Fetching a media envelope's bytes under the media URL policy
(`openwop_tui.protocol.media_policy`, which decides what may be fetched at all):

* a name other than the configured host is resolved once per hop, every answer is checked
  (loopback, private, link-local and reserved addresses are refused), and the connection goes
  to a checked address (the URL's host replaced by it; the name kept for the ``Host`` header,
  TLS SNI and the certificate check), so a DNS-rebinding name cannot answer "public" to the
  check and "private" to the connection. The address the socket really reached is looked at
  too, before any body is read. Two exceptions connect by name: the configured host (the user
  chose it; every API request reaches it by name anyway), and requests through a proxy
  (``HTTPS_PROXY`` and co.), where the proxy resolves and the client cannot pin: there the
  check of this machine's DNS answer is all there is;
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
import socket
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urljoin, urlsplit

from openwop_tui.protocol.asset import Asset
from openwop_tui.protocol.budgets import DEFAULT_MAX_BYTES as DEFAULT_MAX_BYTES
from openwop_tui.protocol.events import parse_int
from openwop_tui.protocol.media_policy import (
    MediaPolicy,
    RefusedURL,
    error_detail,
    ip_literal,
    is_configured_host,
    non_public,
    parse_target,
    resolve_media_url,
    same_origin,
    shown_url,
)
from openwop_tui.text.sanitize import clean
from openwop_tui.text.units import human_size

if TYPE_CHECKING:
    # Imported where a request is made, not here: the app's first frame does not wait for
    # httpx (and the ssl, email and cookie modules behind it; tests/ui/test_first_frame.py).
    import httpx

__all__ = [
    "DEFAULT_MAX_BYTES",
    "MAX_REDIRECTS",
    "Asset",
    "Resolver",
    "fetch_asset",
]

#: Redirect hops followed before giving up.
MAX_REDIRECTS = 5
#: How far past the advertised ``bytes`` a body may run before it is called a lie.
SLACK_BYTES = 1024
#: Checked addresses of one name tried in turn when the connection to one is refused.
_MAX_ADDRESSES = 8
#: How much of an error body is read to find the host's ``error`` code.
_ERROR_BODY_MAX = 4096

#: How httpx 0.28 words a Location header it cannot parse.
_BAD_LOCATION = "Invalid URL in location header"
_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})

#: Resolves a host name to IP address strings: ``await resolver(host, port)``.
Resolver = Callable[[str, int], Awaitable[Iterable[str]]]


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
    if is_configured_host(url, policy):
        return ()
    target = parse_target(url)
    if ip_literal(target.host) is not None:
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
        address = ip_literal(item.split("%", 1)[0]) if isinstance(item, str) else None
        if address is None:
            raise RefusedURL(f"refused: {host} resolves to {shown!r}, which is not an IP address")
        kind = non_public(address)
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

    Args:
        http: The client that sends it (the one that ignores proxy settings).
        url: The URL asked for.
        address: The checked address to connect to.
        headers: The request's headers (``Host`` and ``Connection`` are added).
    """
    import httpx  # here, not at the top: the first frame does not wait for it

    target = parse_target(url)
    return http.build_request(
        "GET",
        httpx.URL(url).copy_with(host=address),
        headers={**headers, "Host": target.netloc, "Connection": "close"},
        extensions={"sni_hostname": target.host},
    )


async def _send_first(http: httpx.AsyncClient, requests: list[httpx.Request]) -> httpx.Response:
    """Send the first request that connects: the next checked address only when one refuses."""
    import httpx  # here, not at the top: the first frame does not wait for it

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
    import httpx  # here, not at the top: the first frame does not wait for it

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

    Args:
        response: The response whose connection is looked at.
        url: The URL it answers.
        policy: The media policy (the configured host is let through).
        proxied: Whether the request went through a proxy.
    """
    if proxied or is_configured_host(url, policy):
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
    address = ip_literal(peer.split("%", 1)[0])
    if address is None:
        return None
    kind = non_public(address)
    if kind is None:
        return None
    host = clean(urlsplit(url).hostname or "the server")
    return f"refused: {host} connected to a {kind} address {peer}"


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

    Args:
        url: The envelope's URL, any value.
        policy: Where media may come from, how much and for how long.
        advertised_bytes: The envelope's ``bytes``.
        api_key: The host's API key (sent only to the host's origin).
        transport: The httpx transport to use (tests pass a mock).
        resolver: Resolves host names (default: the event loop's ``getaddrinfo``).
    """
    import httpx  # here, not at the top: the first frame does not wait for it

    try:
        absolute = resolve_media_url(url, policy)
    except RefusedURL as refused:
        return Asset(
            url=refused.url if refused.url is not None else shown_url(url),
            error=refused.reason,
            failure="refused",
        )
    except Exception as error:  # the contract is "never raises", even on a bug in the policy
        return Asset(
            url=shown_url(url),
            error=f"refused: the URL cannot be read ({error_detail(error)})",
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
    """`fetch_asset`'s download, within its timeout: the hops of redirects, each checked,
    pinned and capped.

    Args:
        absolute: The resolved URL.
        policy: Where media may come from, how much and for how long.
        advertised: The advertised size (``None``: none usable).
        api_key: The host's API key (sent only to the host's origin).
        transport: The httpx transport to use (``None``: httpx builds its own).
        resolver: Resolves host names.
    """
    import httpx  # here, not at the top: the first frame does not wait for it

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
            keyed = keyed and same_origin(current, policy)
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
                detail = error_detail(error).removeprefix(_BAD_LOCATION).strip(" :.")
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
            f"refused: the URL is malformed ({error_detail(error)})", url=location
        ) from None


async def _http_error(response: httpx.Response, url: str, policy: MediaPolicy) -> str:
    """``HTTP 404 from host (not_found)``: the status, who said it, and the host's error code."""
    where = "host" if is_configured_host(url, policy) else (urlsplit(url).hostname or "server")
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
