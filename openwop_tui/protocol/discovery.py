"""Reading a host's discovery document (``GET /.well-known/openwop``) into a `Discovery`.

The document says which protocol versions the host speaks, what it is, which envelope kinds
its engine accepts and how large inline media may be. Real hosts lay it out in more than one
way, so `Discovery.from_document` is written against what they send (protocol.md §10), not only
the spec:

* capability families are read at the document root first, then in the deprecated
  ``capabilities`` wrapper that the SQLite and Python reference hosts still fill (§1.1, RFC 0073);
* ``supportedEnvelopes`` is a plain list on v1 hosts and a ``{status, since, kinds}`` record on
  v2 hosts; ``protocolVersion`` (v1) falls back to ``preferredVersion`` (v2);
* the protocol major is decided here, once (§1.4): 2 only when the document lists a 2.x version
  *and* the response's ``OpenWOP-Version`` header says 2, else 1;
* fields of the wrong type are treated as absent, never as errors: a sloppy document still
  yields a usable `Discovery` with defaults;
* ``limits.maxRequestBodyBytes`` (root, or the wrapper's ``limits``) bounds every request body:
  the chat history a run carries is cut to fit it (`openwop_tui.core.chat_history`).

This module only interprets a document; fetching it, and acting on the negotiated major, is
`openwop_tui.protocol.client.HostClient.discover`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from openwop_tui.protocol.hostdata import host_text

__all__ = ["DEFAULT_MAX_INLINE_MEDIA_BYTES", "DISCOVERY_PATH", "Discovery", "MediaUpload"]

#: `aiProviders.maxInlineMediaBytes` when a host does not say (protocol.md §1.1, §4.5).
DEFAULT_MAX_INLINE_MEDIA_BYTES = 262144

#: Where a v2 host names its media upload route (its ``aiProviders`` record is closed, so the
#: facet v1 hosts put there goes in ``extensions``); the same object as ``mediaUpload``.
UPLOAD_EXTENSION = "openwop-tui.media-upload"

#: The discovery path; public and unauthenticated (protocol.md §1).
DISCOVERY_PATH = "/.well-known/openwop"


@dataclass(frozen=True, slots=True)
class MediaUpload:
    """Where a host takes an attachment too big to go inline (``aiProviders.mediaUpload``):
    ``POST`` ``{contentBase64, contentType, name}`` to `route` answers ``{url}`` (protocol.md
    §12). Read from the host, never guessed: the reference web chat's route is its sample
    host's own, not a spec path."""

    route: str
    """A path on the host (or an absolute URL, used only when it is on the host's origin)."""
    max_bytes: int | None = None
    """The most bytes one upload may hold (``None``: not said)."""
    content_types: tuple[str, ...] = ()
    """The media types it takes (empty: not said)."""

    @classmethod
    def of(cls, value: Any) -> MediaUpload | None:
        """The facet read (``None``: absent, or without a usable route)."""
        if not isinstance(value, Mapping):
            return None
        route = value.get("route")
        if not isinstance(route, str) or not route.strip() or any(c in route for c in " \r\n"):
            return None
        most = value.get("maxBytes")
        limit = most if isinstance(most, int) and not isinstance(most, bool) and most > 0 else None
        types = tuple(t for t in _list(value.get("contentTypes")) if isinstance(t, str))
        return cls(route.strip(), limit, types)


@dataclass(frozen=True, slots=True)
class Discovery:
    """What ``GET /.well-known/openwop`` told us, with the fields a chat client needs lifted out."""

    protocol_version: str | None
    """The version spoken: on a v2 host the response's ``2.x`` (else the highest ``2.x`` listed);
    otherwise ``protocolVersion``, else ``preferredVersion``."""
    protocol_versions: tuple[str, ...]
    """``protocolVersions`` (present on v2-capable hosts only)."""
    major: int
    """The protocol major this client will speak to the host: 1 or 2 (protocol.md §1.4)."""
    implementation_name: str | None
    implementation_version: str | None
    supported_envelopes: tuple[str, ...]
    """Envelope kinds the engine accepts (v1 list, or the v2 record's ``kinds``)."""
    max_inline_media_bytes: int
    """``aiProviders.maxInlineMediaBytes``; 262144 when absent."""
    model_capabilities: tuple[str, ...]
    """``modelCapabilities.advertised``."""
    raw: Mapping[str, Any] = field(repr=False)
    """The whole document as received."""
    max_request_body_bytes: int | None = None
    """``limits.maxRequestBodyBytes``: the largest request body the host takes (a run's
    inputs carry the chat history, so the history sent is cut to fit); ``None`` when the host
    does not say."""
    media_upload: MediaUpload | None = None
    """``aiProviders.mediaUpload``: where an attachment over `max_inline_media_bytes` goes
    (``None``: the host takes none that large)."""

    def family(self, name: str) -> Any:
        """A capability family: at the document root first, else in the legacy ``capabilities``."""
        return _family(self.raw, name)

    @classmethod
    def from_document(cls, doc: Mapping[str, Any], *, version_header: str | None) -> Discovery:
        """Read a discovery document; ``version_header`` is the response's ``OpenWOP-Version``."""
        versions = tuple(v for v in _list(doc.get("protocolVersions")) if isinstance(v, str))
        lists_v2 = any(v == "2" or v.startswith("2.") for v in versions)
        speaks_v2 = (version_header or "").strip().startswith("2")
        major = 2 if lists_v2 and speaks_v2 else 1
        protocol_version = doc.get("protocolVersion")
        if not isinstance(protocol_version, str):
            preferred = doc.get("preferredVersion")
            protocol_version = preferred if isinstance(preferred, str) else None
        if major == 2:
            # The version spoken, not the header-less default: through the overlap a v2 host's
            # `protocolVersion` and `preferredVersion` name its 1.x (versioning.md §1.1).
            # A boundary: a response header is host text that `host_value` never saw (obs-text
            # bytes decode to C1 controls).
            header = host_text((version_header or "").strip())
            twos = [v for v in versions if v == "2" or v.startswith("2.")]
            protocol_version = header if header.startswith("2.") else max(twos, key=_version_key)

        implementation = _family(doc, "implementation")
        impl = implementation if isinstance(implementation, Mapping) else {}

        envelopes = _family(doc, "supportedEnvelopes")
        if isinstance(envelopes, Mapping):  # a v2 record: {status, since, kinds: [...]}
            envelopes = envelopes.get("kinds")

        models = _family(doc, "modelCapabilities")
        advertised = models.get("advertised") if isinstance(models, Mapping) else models

        inline = _facet(doc, "aiProviders", "maxInlineMediaBytes")
        if not isinstance(inline, int) or isinstance(inline, bool) or inline <= 0:
            inline = DEFAULT_MAX_INLINE_MEDIA_BYTES

        body = _facet(doc, "limits", "maxRequestBodyBytes")
        if not isinstance(body, int) or isinstance(body, bool) or body <= 0:
            body = None  # absent, or nonsense: no limit known (the host's 413 still says)

        return cls(
            protocol_version=protocol_version,
            protocol_versions=versions,
            major=major,
            implementation_name=_text(impl.get("name")),
            implementation_version=_text(impl.get("version")),
            supported_envelopes=tuple(e for e in _list(envelopes) if isinstance(e, str)),
            max_inline_media_bytes=inline,
            model_capabilities=tuple(m for m in _list(advertised) if isinstance(m, str)),
            raw=doc,
            max_request_body_bytes=body,
            media_upload=MediaUpload.of(
                _facet(doc, "aiProviders", "mediaUpload") or _extension(doc, UPLOAD_EXTENSION)
            ),
        )


def _version_key(version: str) -> tuple[int, ...]:
    """``"2.10"`` sorts after ``"2.9"``; a part that is not a number counts as 0."""
    return tuple(
        int(part) if part.isascii() and part.isdigit() and len(part) < 10 else 0
        for part in version.split(".")
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _family(doc: Mapping[str, Any], name: str) -> Any:
    # RFC 0073: families MUST be at the root; the wrapper is a legacy mirror real hosts still use.
    value = doc.get(name)
    if value is not None:
        return value
    wrapper = doc.get("capabilities")
    return wrapper.get(name) if isinstance(wrapper, Mapping) else None


def _extension(doc: Mapping[str, Any], name: str) -> Any:
    """An entry of the document's ``extensions`` (where a v2 host, whose families are closed
    records, puts what the spec has no field for)."""
    extensions = doc.get("extensions")
    return extensions.get(name) if isinstance(extensions, Mapping) else None


def _facet(doc: Mapping[str, Any], family: str, key: str) -> Any:
    """A key inside a family, looked for at the root family, then in the wrapper's copy."""
    wrapper = doc.get("capabilities")
    for holder in (doc.get(family), wrapper.get(family) if isinstance(wrapper, Mapping) else None):
        if isinstance(holder, Mapping) and holder.get(key) is not None:
            return holder.get(key)
    return None
