"""Which host a run came from, so the media URLs its events carry resolve against that host.

A host may name an asset by a relative reference (``/v1/host/…/assets/<token>``). Live, the
fetch resolves it against the connected host; a reopened session may be shown offline or while
connected to another host, and then the connected host is the wrong base (or there is none).
So every ``run`` entry of a session's log records the base URL of the host that ran it (without
credentials), and a media URL is made absolute against the host of the run whose event carried
it: shown, stored, exported and fetched as the URL of the host that sent it.

Logs written before the run entries recorded it fall back to the session's own host when that
is a URL. Pure: no I/O.
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

from openwop_tui.text.redact import display_url

#: Where the base URL of a run's host is kept in its ``run`` entry's ``meta``.
HOST_KEY = "host"


def host_url(value: object) -> str | None:
    """``value`` (a stored host) when it is an ``http(s)`` URL with a host name, without
    credentials; ``None`` for anything else (``"embedded demo host"``, damage, nothing)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return None
    except ValueError:
        return None
    return display_url(value).rstrip("/")


def absolute(url: str, base: str | None) -> str:
    """``url`` made absolute against ``base`` (its run's host) when it is a relative reference;
    as given when it already has a scheme, when there is no base, or when joining fails (the
    media policy then refuses it with its own reason)."""
    if base is None:
        return url
    try:
        if urlsplit(url).scheme:
            return url
        # As `openwop_tui.protocol.media_policy.resolve_media_url` joins it against the connected
        # host.
        joined = urljoin(base, url.strip())
    except ValueError:
        return url
    return joined if joined.startswith(("http://", "https://")) else url
