"""The media URL policy: which media URLs may be fetched, decided without the network.

The spec says little about what a consumer may load (protocol.md §7, last bullet); this is the
client's own policy (design.md, Security posture):

* relative URLs resolve against the host's base URL (the reference host hands out
  ``/v1/host/sample/assets/<token>``, protocol.md §4.6);
* ``https:`` is fetched from anywhere public; ``http:`` only from the configured host's own
  origin (a local dev host), never from elsewhere;
* ``file:``, ``data:`` (inline media comes as ``base64``, not as a URL), ``javascript:`` and every
  other scheme are refused, as are URLs carrying a user name or password;
* loopback, private, link-local and reserved addresses, as IP literals or as names that resolve to
  them, are refused unless they are the configured host itself (names are resolved and their
  answers checked when the bytes are fetched: `openwop_tui.protocol.media`);
* every value is an answer, never an exception: not text, longer than `MAX_URL_CHARS`, brackets
  that hold no IPv6 address, a port that is no number or out of range, a host that is no DNS
  name (``%zz``, a label over 63 characters, failed IDNA) or a numeric one (``2130706433``).

`resolve_media_url` applies it to one URL; `offline_asset` says what a transcript shown without
its host says of a media URL. No Textual here.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import urldefrag, urljoin, urlsplit

from openwop_tui.protocol.asset import OFFLINE_REASON, Asset
from openwop_tui.protocol.budgets import DEFAULT_MAX_BYTES
from openwop_tui.text.sanitize import HostText, clean

#: Longer URLs are refused unread (servers commonly stop at 8 KB request lines too).
MAX_URL_CHARS = 8192
_MAX_NAME = 253
_MAX_LABEL = 63
_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?")
#: A last label the C resolver reads as part of an IPv4 address (``127.1``, ``0x7f.1``).
_NUMERIC_LABEL = re.compile(r"0x[0-9a-f]*|[0-9]+")

_DEFAULT_PORTS = {"http": 80, "https": 443}
_SCHEME_REASONS = {
    "file": "refused: file: URLs are never fetched",
    "data": "refused: data: URLs are never fetched (inline media must come as base64)",
    "javascript": "refused: javascript: URLs are never fetched",
}


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
class Target:
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


def error_detail(error: BaseException) -> str:
    """A parser's complaint, short and safe to show (it may quote the hostile URL)."""
    text = clean(str(error)) or type(error).__name__
    return text if len(text) <= 80 else text[:79] + "…"


def parse_target(url: str) -> Target:
    """Parse ``url`` the way httpx will connect to it, or raise `RefusedURL` saying why
    (`_parse_target`; the answer for each URL is worked out once: a stream names the same
    media URLs again and again, and the lint asked up to four times an envelope, a third of
    its time)."""
    found = _parsed(url)
    if isinstance(found, Target):
        return found
    raise RefusedURL(found, url=url)  # (a new one each time: a raise adds to its traceback)


@functools.lru_cache(maxsize=512)
def _parsed(url: str) -> Target | str:
    """`_parse_target`'s answer: the target, or the reason it refused ``url``."""
    try:
        return _parse_target(url)
    except RefusedURL as refused:
        return refused.reason


def _parse_target(url: str) -> Target:
    """Parse ``url`` the way httpx will connect to it, or raise `RefusedURL` saying why.

    httpx is lenient about host names (it passes ``%zz`` or a 64-letter label through to the
    resolver, which then fails in its own way), so the name is held to DNS syntax here: labels
    of letters, digits, ``-`` and ``_``, at most 63 each and 253 in all. A name whose last label
    is a number (``2130706433``, ``127.1``, ``0x7f.1``) is refused: the C resolver reads those
    as IPv4 addresses, a second syntax for the address checks to miss.
    """
    import httpx  # here, not at the top: the first frame does not wait for it

    try:
        parsed = httpx.URL(url)
        host = parsed.raw_host.decode("ascii").lower()
        netloc = parsed.netloc.decode("ascii")
    except (httpx.InvalidURL, ValueError) as error:  # UnicodeError is a ValueError
        raise RefusedURL(
            f"refused: the URL is malformed ({error_detail(error)})", url=url
        ) from None
    scheme = parsed.scheme.lower()
    port = parsed.port if parsed.port is not None else _DEFAULT_PORTS.get(scheme, 0)
    if not 0 < port <= 65535:
        raise RefusedURL("refused: the URL's port is not a valid number", url=url)
    target = Target(scheme=scheme, host=host, port=port, netloc=netloc)
    if ip_literal(host) is None:
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
        target = parse_target(url)
    except RefusedURL:
        return None
    return target.scheme, target.key, target.port


def is_configured_host(url: str, policy: MediaPolicy) -> bool:
    """Whether ``url`` is on the configured host (its name and port, whatever the scheme)."""
    here, base = _key(url), _key(policy.base_url)
    return here is not None and base is not None and here[1:] == base[1:]


def same_origin(url: str, policy: MediaPolicy) -> bool:
    """Whether ``url`` is on the configured host's origin (scheme, name and port)."""
    here = _key(url)
    return here is not None and here == _key(policy.base_url)


def non_public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
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


def ip_literal(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``host`` as an IP address, or ``None`` when it is a name."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def shown_url(url: object) -> str | None:
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
    found = _resolved(url, policy)  # (pure: worked out once for each URL, as `parse_target`)
    if isinstance(found, str):
        return found
    reason, resolved = found
    raise RefusedURL(reason, url=resolved)


@functools.lru_cache(maxsize=512)
def _resolved(url: str, policy: MediaPolicy) -> str | tuple[str, str | None]:
    """`_resolve`'s answer: the URL to fetch, or the reason it refused and the URL it says."""
    try:
        return _resolve(url, policy)
    except RefusedURL as refused:
        return refused.reason, refused.url
    except ValueError as error:  # urlsplit and urljoin on brackets that hold no address
        return f"refused: the URL is malformed ({error_detail(error)})", url.strip()


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
    target = parse_target(text)
    host = clean(parts.hostname)

    configured = is_configured_host(text, policy)
    base = _key(policy.base_url)
    if scheme == "http" and not (configured and base is not None and base[0] == "http"):
        literal = ip_literal(target.host)
        kind = non_public(literal) if literal is not None and not configured else None
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
    address = ip_literal(target.host)
    if address is not None:
        kind = non_public(address)
        if kind is not None:
            raise RefusedURL(
                f"refused: {host} is a {kind} address and not the configured host", url=text
            )
    elif target.key == "localhost" or target.key.endswith(".localhost"):
        raise RefusedURL(
            f"refused: {host} is a loopback name and not the configured host", url=text
        )
    return text


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
                url=refused.url if refused.url is not None else shown_url(url),
                error=refused.reason,
                failure="refused",
            )
    return Asset(url=url, error=OFFLINE_REASON, failure="not-fetched")
