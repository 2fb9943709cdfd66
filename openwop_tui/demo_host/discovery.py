"""The ``GET /.well-known/openwop`` document (protocol.md §1.1).

A v1 document with every family at the root (the layout RFC 0073 makes normative); no legacy
``capabilities`` wrapper, since a client reading the root is exactly what should be exercised.
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
