"""The media policy for references an agent writes in its text (`openwop_tui.openclaw.reader`).

Stricter than the host's own media (`openwop_tui.protocol.media_policy`), because the text is the
agent's, not the host's, and the host's exemptions (plain ``http:`` and loopback for a local dev
host) must not reach it: remote references must be public ``https:`` URLs; ``http:``, other
schemes, IP literals that are loopback, private, link-local, CGNAT, multicast, reserved or
unspecified (IPv4-mapped, NAT64 and 6to4 forms looked into), internal names (``localhost``,
``*.local``, ``*.internal``, ``*.lan``, ``*.home.arpa``, single labels) are refused with the
reason; a local path is never read from this machine's disk (the host named it; the path means
nothing here). The URL syntax checks of `resolve_media_url` (credentials, ports, numeric host
names, label lengths) apply too. An accepted URL is fetched by the ordinary media path, which
resolves the name once and connects to the checked address. Pure: no DNS, no I/O.
"""

from __future__ import annotations

import ipaddress
import mimetypes
import posixpath
import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote, urlsplit, urlunsplit

import idna  # httpx's own IDNA codec: the name shown is the name connected to

from openwop_tui.protocol.media_policy import MediaPolicy, RefusedURL, resolve_media_url
from openwop_tui.text.redact import display_url
from openwop_tui.text.sanitize import HostText, clean, clean_label, clip

__all__ = ["MAX_CANDIDATE", "MAX_FIELD", "Family", "MediaCheck", "check_media", "media_family"]

#: A media candidate longer than this is not one.
MAX_CANDIDATE = 4096
#: The longest title and ref kept (cut with an ellipsis).
MAX_FIELD = 200

Family = Literal["image", "audio", "file"]

# A policy whose configured host is nothing real: no directive URL gets the host's exemptions
# (plain http:, loopback for a local dev host) through `resolve_media_url`.
_NO_HOST = MediaPolicy(base_url="https://directive.invalid")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_WINDOWS_DRIVE = re.compile(r"[A-Za-z]:[\\/]")
_FILE_EXT = re.compile(r"\.\w{1,10}$")
_INTERNAL_SUFFIXES = (".localhost", ".local", ".internal", ".lan", ".home.arpa", ".localdomain")
_INTERNAL_NAMES = frozenset({"localhost", "localhost.localdomain", "home.arpa"})
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_SIXTOFOUR = ipaddress.ip_network("2002::/16")
_IMAGE_EXTS = frozenset({"png", "jpg", "jpeg", "gif", "webp", "bmp", "svg", "avif", "heic", "ico"})
_AUDIO_EXTS = frozenset({"mp3", "wav", "ogg", "oga", "opus", "m4a", "aac", "flac", "weba", "mpga"})


@dataclass(frozen=True, slots=True)
class MediaCheck:
    """What the policy says of one media reference: the URL to fetch, or why not."""

    url: str | None
    """The absolute ``https:`` URL to fetch (``None`` when refused)."""
    refused: str | None
    """Why it is not fetched, a sentence (``None`` when accepted)."""
    reference: str | None
    """The URL to show the user when the reference is a URL (never a local path)."""


def cut(text: str, limit: int = MAX_FIELD) -> str:
    # A boundary: `check_media` also judges the URLs renderers offer a browser (`check_link`),
    # which are a renderer's text, not the boundary's.
    text = clean(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shown_url(text: str, limit: int = 2048) -> str:
    """A URL as the user may be shown it: without ``user:password@`` (it reaches the screen,
    the inspector and exports), cleaned and cut."""
    return cut(display_url(text), limit)


def ascii_host(url: str) -> str | None:
    """``url`` with an international host name in its ASCII (``xn--``) form, which is what is
    connected to and what the user is shown: ``ex\u0430mple.com`` (a Cyrillic ``a``) reads
    as ``example.com`` but is ``xn--exmple-4nf.com``. ``url`` itself when the host is ASCII;
    ``None`` when the name has no ASCII form."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if host.isascii():
        return url
    try:
        encoded = idna.encode(host, uts46=True).decode("ascii")
    except (idna.IDNAError, UnicodeError, ValueError):
        return None
    # Everything around the name is kept as written (user info too, which is then refused).
    userinfo, at, _ = parts.netloc.rpartition("@")
    netloc = userinfo + at + (encoded if parts.port is None else f"{encoded}:{parts.port}")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def _address_kind(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Name the kind of a non-public address, looking inside IPv6 forms that carry an IPv4."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped
        if embedded is None and address in _NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is None and address in _SIXTOFOUR:
            embedded = address.sixtofour
        if embedded is not None:
            return _address_kind(embedded)
    if isinstance(address, ipaddress.IPv4Address) and address in _CGNAT:
        return "shared (CGNAT)"
    checks = (
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("unspecified", address.is_unspecified),
        ("multicast", address.is_multicast),
        ("reserved", address.is_reserved),
        ("private", address.is_private),
        ("non-public", not address.is_global),
    )
    return next((kind for kind, hit in checks if hit), None)


def looks_local(candidate: str) -> bool:
    """A path on some machine's disk: absolute, relative, home, Windows, UNC, ``file:``."""
    if candidate.lower().startswith("file:"):
        return True
    return (
        candidate.startswith(("/", "./", "../", "~", "\\\\"))
        or _WINDOWS_DRIVE.match(candidate) is not None
        or (_SCHEME.match(candidate) is None and ("/" in candidate or "\\" in candidate))
    )


def is_candidate(candidate: str, *, bare: bool = False) -> bool:
    """Whether a part of a ``MEDIA:`` line is a reference at all (else it stays text); a bare
    file name (``x.png``, a local path too) only with ``bare``, as OpenClaw's last resort."""
    if not candidate or len(candidate) > MAX_CANDIDATE:
        return False
    if looks_local(candidate):
        return True
    scheme = _SCHEME.match(candidate)
    if scheme is not None:
        return len(candidate) > scheme.end()
    return bare and _FILE_EXT.search(candidate) is not None


def check_media(candidate: str) -> MediaCheck:
    """Apply the directive media policy to one reference (pure: no DNS)."""
    shown = cut(candidate, 120)
    if looks_local(candidate) or _SCHEME.match(candidate) is None:
        return MediaCheck(
            None,
            f"refused: {shown} is a local path; a path the host names is never read from "
            "this machine's disk",
            None,
        )
    if any(not ch.isprintable() or ch.isspace() for ch in candidate):
        return MediaCheck(None, "refused: the URL contains spaces or control characters", None)
    scheme = candidate.split(":", 1)[0].lower()
    if scheme == "http":
        return MediaCheck(
            None,
            "refused: plain http: is not fetched for a MEDIA: reference; it must be https:",
            shown_url(candidate),
        )
    if scheme != "https":
        reference = None if scheme in ("data", "javascript", "blob") else shown_url(candidate)
        return MediaCheck(
            # Printable: a candidate with any control or space was refused above.
            None,
            f"refused: {scheme[:20]}: references are never fetched",
            reference,
        )
    reference = shown_url(candidate)
    try:
        host = (urlsplit(candidate).hostname or "").rstrip(".")
        ascii_url = ascii_host(candidate)
    except ValueError:
        return MediaCheck(None, "refused: the URL is malformed", reference)
    if ascii_url is None:
        return MediaCheck(None, "refused: the host name is not a valid international name", None)
    if ascii_url != candidate:
        # From here on the URL is its ASCII form: what is checked, fetched and shown.
        candidate, reference = ascii_url, shown_url(ascii_url)
        host = (urlsplit(candidate).hostname or "").rstrip(".")
    name = host[:80]  # printable, like the scheme
    try:
        address: ipaddress.IPv4Address | ipaddress.IPv6Address | None = ipaddress.ip_address(
            host.split("%", 1)[0]
        )
    except ValueError:
        address = None
    if address is not None:
        kind = _address_kind(address)
        if kind is not None:
            return MediaCheck(
                None, f"refused: {name} is a {kind} address; media must be public", reference
            )
    elif host in _INTERNAL_NAMES or host.endswith(_INTERNAL_SUFFIXES):
        return MediaCheck(None, f"refused: {name} is an internal host name", reference)
    try:
        url = resolve_media_url(candidate, _NO_HOST)
    except RefusedURL as refusal:
        return MediaCheck(None, refusal.reason, reference)  # cleaned where it was raised
    if address is None and "." not in host:
        return MediaCheck(
            None, f"refused: {name} is a single-label (internal) host name", reference
        )
    return MediaCheck(url, None, reference)


def media_family(reference: str, *, voice: bool = False) -> tuple[Family, str | None]:
    """The display family and a guessed media type from a reference's extension."""
    try:
        path = urlsplit(reference).path if _SCHEME.match(reference) else reference
    except ValueError:
        path = reference
    ext = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    guessed = mimetypes.guess_type(f"x.{ext}", strict=False)[0] if ext else None
    if ext in _IMAGE_EXTS or (guessed or "").startswith("image/"):
        return "image", guessed
    if ext in _AUDIO_EXTS or (guessed or "").startswith("audio/"):
        return "audio", guessed or ("audio/ogg" if ext == "opus" else None)
    return ("audio" if voice and not ext else "file"), guessed


def name_of(reference: str) -> HostText | None:
    try:
        path = urlsplit(reference).path if _SCHEME.match(reference) else reference
    except ValueError:
        return None
    base = posixpath.basename(unquote(path).replace("\\", "/"))
    # A boundary: unquoting the path decodes %1b and the like into controls.
    return clip(clean_label(base), MAX_FIELD) if base else None
