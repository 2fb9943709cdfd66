"""What fetching a media URL gave: the bytes, or why there are none.

A plain record, apart from `openwop_tui.protocol.media` (which fetches, with httpx), so the
renderers can take it without importing the HTTP client (the import contracts in
pyproject.toml say they never do).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["OFFLINE_REASON", "Asset"]

OFFLINE_REASON = "not fetched: this transcript is shown offline, without its host"
"""Why a media URL has no bytes when nothing could fetch it (no host, none stored)."""


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
    failure: Literal["refused", "too-large", "failed", "not-fetched"] = "failed"
    """What kind of failure ``error`` is (the renderers turn it into a degradation code):
    the policy refused the URL, it was over the size ceiling, the download failed, or the
    client did not try (offline, media fetching off)."""
