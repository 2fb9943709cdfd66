"""The ``GET /.well-known/openwop`` document (protocol.md §1.1).

A v1 document with every family at the root (the layout RFC 0073 makes normative); no legacy
``capabilities`` wrapper, since a client reading the root is exactly what should be exercised.
`v2_root` turns it into the closed v2 root a dual-stack host (``--protocol 2``) serves to a
request with ``OpenWOP-Version: 2``.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import metadata
from typing import Any

from openwop_tui.demo_host.catalog import discovery_fields
from openwop_tui.demo_host.sse import SUPPORTED_MODES

#: Envelope kinds advertised: the four universals (required when the list is non-empty) plus
#: the media families the tour produces.
SUPPORTED_ENVELOPES = (
    "clarification.request",
    "schema.request",
    "schema.response",
    "error",
    "media.image",
    "media.audio",
    "media.file",
)

#: Inline-base64 cap for media payloads: the spec's default, stated explicitly.
MAX_INLINE_MEDIA_BYTES = 262144


def _version() -> str:
    try:
        return metadata.version("openwop-tui")
    except metadata.PackageNotFoundError:  # running from a source tree that is not installed
        return "0.0.0"


def discovery_document(workflows: Iterable[str]) -> dict[str, Any]:
    """Build the discovery document (cheap; built per request so the version is current)."""
    workflows = list(workflows)
    return {
        "protocolVersion": "1.0",
        "implementation": {
            "name": "openwop-tui demo host",
            "version": _version(),
            "vendor": "openwop-tui",
        },
        "supportedEnvelopes": list(SUPPORTED_ENVELOPES),
        "schemaVersions": dict.fromkeys(SUPPORTED_ENVELOPES, 1),
        "limits": {
            "clarificationRounds": 3,
            "schemaRounds": 3,
            "envelopesPerTurn": 32,
            "maxRequestBodyBytes": 1048576,
        },
        "aiProviders": {"supported": ["demo"], "maxInlineMediaBytes": MAX_INLINE_MEDIA_BYTES},
        "modelCapabilities": {
            "supported": True,
            "advertised": ["image-output", "audio-output"],
            "substitutionSupported": False,
        },
        "supportedTransports": ["rest"],
        # fixtures, conversationPrimitive, interrupts and agents (catalog.py).
        **discovery_fields(workflows),
        # Not a spec field (stream modes are discovered by asking, protocol.md §1.1); a hint
        # for humans reading the document.
        "x-openwop-tui": {"workflows": list(workflows), "streamModes": list(SUPPORTED_MODES)},
    }


#: Metadata keys of the closed v2 root (spec/v2/core/capabilities.md §1); every other root
#: key is a capability family.
V2_METADATA_KEYS = frozenset(
    {
        "protocolVersion",
        "protocolVersions",
        "preferredVersion",
        "extensions",
        "implementation",
        "engineVersion",
        "eventLogSchemaVersion",
        "configurable",
        "observability",
        "minClientVersion",
        "runtimeCapabilities",
        "testing",
        "conformance",
        "fixtures",
        "compliance",
        "discovery",
        "supportedTransports",
    }
)


def _record(facets: Any) -> dict[str, Any]:
    """A v2 capability record: presence is the claim, so v1's ``supported`` flag goes."""
    record: dict[str, Any] = {"status": "stable", "since": "2.0"}
    if isinstance(facets, dict):
        record.update((k, v) for k, v in facets.items() if k != "supported")
    return record


def v2_root(v1: dict[str, Any], versions: Iterable[str]) -> dict[str, Any]:
    """The closed v2 discovery root made from the v1 document (capabilities.md §1-§5).

    Metadata keys are copied; every family becomes a record ``{status, since, …facets}``:
    ``supportedEnvelopes`` and ``schemaVersions`` with a ``kinds`` facet, ``aiProviders`` with
    ``providers`` for v1's ``supported``. Vendor keys (``x-…``) move under ``extensions``.
    Through the overlap ``protocolVersion`` and ``preferredVersion`` stay the 1.x.
    """
    root: dict[str, Any] = {
        "protocolVersions": list(versions),
        "preferredVersion": v1.get("protocolVersion", "1.0"),
    }
    extensions: dict[str, Any] = {}
    for key, value in v1.items():
        if key in V2_METADATA_KEYS:
            root[key] = value
        elif key.startswith("x-"):
            extensions[key.removeprefix("x-")] = value
        elif key in ("supportedEnvelopes", "schemaVersions"):
            root[key] = {**_record(None), "kinds": value}
        elif key == "aiProviders" and isinstance(value, dict):
            facets = dict(value)
            if "supported" in facets:
                facets["providers"] = facets.pop("supported")
            root[key] = _record(facets)
        else:
            root[key] = _record(value)
    if extensions:
        root["extensions"] = {**root.get("extensions", {}), **extensions}
    return root
