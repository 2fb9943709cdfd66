"""Capability-token asset store: the bytes behind ``media.*`` URLs.

OpenWOP requires asset URLs to be tenant-scoped and unguessable (protocol.md §4.6): the reference
host serves ``GET /v1/host/<app>/assets/<token>`` where the token, 32 random bytes in base64url,
*is* the credential, so a client fetches it without a Bearer header. This store mirrors that.

An asset is either plain bytes or a *lazy* body: a size plus a function producing the bytes in
pieces. The tour's oversized image advertises 48 MiB; a lazy body lets the route serve that many
bytes to whoever insists without the host ever holding them in memory.

An asset a person uploaded (`uploads`) belongs to a *tenant*, the API key that sent it: its
token alone opens nothing, the route also wants that tenant's Bearer key (RFC 0055 §C, a
tenant-scoped asset URL). The assets the workflows make have no tenant: their token is the
credential, as on the reference host.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from openwop_tui.demo_host.identity import Identity

#: The path prefix every asset URL starts with (the reference app uses ``openwop-app``).
ASSET_PREFIX = "/v1/host/openwop-tui-demo/assets/"


@dataclass(frozen=True, slots=True)
class Asset:
    """One stored asset: its media type, its exact size and a way to produce its bytes."""

    content_type: str
    size: int
    chunks: Callable[[], Iterator[bytes]]
    """Yields the body in pieces; their lengths must add up to ``size``."""
    tenant: str | None = None
    """The tenant that uploaded it, the only one it is served to; ``None``: anyone with the
    token (what workflows make)."""
    name: str | None = None
    """The file name it was uploaded with."""


class AssetStore:
    """Thread-safe token → asset map. Assets live as long as the host (a demo has no retention)."""

    def __init__(self, identity: Identity | None = None) -> None:
        self._identity = identity or Identity()
        self._lock = threading.Lock()
        self._assets: dict[str, Asset] = {}

    def put(
        self, data: bytes, content_type: str, *, tenant: str | None = None, name: str | None = None
    ) -> str:
        """Store ``data`` and return the token that names it.

        Args:
            data: The asset's bytes.
            content_type: Its media type, served as ``Content-Type``.
            tenant: The tenant it belongs to (served only to that tenant's key); None: served to
                whoever has the token.
            name: The file name it was uploaded with; None for none.
        """

        def chunks() -> Iterator[bytes]:
            yield data

        token = self._identity.token()
        asset = Asset(content_type, len(data), chunks, tenant, name)
        with self._lock:
            self._assets[token] = asset
        return token

    def put_lazy(self, size: int, content_type: str, chunks: Callable[[], Iterator[bytes]]) -> str:
        """Store a body produced on demand; ``size`` is what Content-Length will say."""
        token = self._identity.token()
        with self._lock:
            self._assets[token] = Asset(content_type=content_type, size=size, chunks=chunks)
        return token

    def get(self, token: str) -> Asset | None:
        """Return the asset named by ``token``, or ``None`` for an unknown token."""
        with self._lock:
            return self._assets.get(token)

    @staticmethod
    def path(token: str) -> str:
        """The relative URL of an asset, as most media payloads carry it."""
        return ASSET_PREFIX + token
