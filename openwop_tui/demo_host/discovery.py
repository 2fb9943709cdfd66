"""The ``GET /.well-known/openwop`` document (protocol.md §1.1).

A v1 document with every family at the root (the layout RFC 0073 makes normative); no legacy
``capabilities`` wrapper, since a client reading the root is exactly what should be exercised.
`v2_root` turns it into the closed v2 root a dual-stack host (``--protocol 2``) serves to a
request with ``OpenWOP-Version: 2``: every family a complete record (``status``, ``since``,
``witness``, and only the facets its schema names), everything else under ``extensions``.

What a person may send (protocol.md §12): ``modelCapabilities.advertised`` holds
``vision-input`` and ``audio-input`` (RFC 0055 §A), and ``aiProviders`` says how big a part may
be (``maxInlineMediaBytes``, v2's ``input`` facet) and where a bigger one is uploaded
(``mediaUpload``: route, ``maxBytes``, ``contentTypes``). v2's ``aiProviders`` record is closed
and has no such facet, so in the v2 root the route is the extension
``openwop-tui.media-upload``, the same object.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import metadata
from typing import Any

from openwop_tui.demo_host.catalog import discovery_fields
from openwop_tui.demo_host.mediatypes import (
    INPUT_MODALITIES,
    MAX_INLINE_MEDIA_BYTES,
    MAX_UPLOAD_BYTES,
    upload_facet,
)
from openwop_tui.demo_host.runs import DRAIN_POLICY
from openwop_tui.demo_host.sse import SUPPORTED_MODES
from openwop_tui.demo_host.steps import VENDOR

#: Envelope kinds advertised: every kind a demo workflow emits (a test drives them all and
#: checks), led by the four universals the list must hold once it is non-empty.
SUPPORTED_ENVELOPES = (
    "clarification.request",
    "schema.request",
    "schema.response",
    "error",
    "media.image",
    "media.audio",
    "media.file",
    *(f"{VENDOR}.{kind}" for kind in ("snippet", "card", "status", "hologram", "metrics")),
    f"{VENDOR}.snapshot",
)

#: The biggest request body the host reads unless told otherwise (``limits.maxRequestBodyBytes``).
DEFAULT_MAX_BODY_BYTES = 1024 * 1024

#: ``GET /runs``: the largest page, and the filters it takes (runs.md §List).
MAX_RUN_PAGE = 100
RUN_FILTERS = ("workflowId", "status")


def host_version() -> str:
    """This package's version (the host's ``implementation.version``)."""
    try:
        return metadata.version("openwop-tui")
    except metadata.PackageNotFoundError:  # running from a source tree that is not installed
        return "0.0.0"


def discovery_document(
    workflows: Iterable[str], max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
) -> dict[str, Any]:
    """Build the discovery document (cheap; built per request so the version is current)."""
    workflows = list(workflows)
    return {
        "protocolVersion": "1.0",
        "implementation": {
            "name": "openwop-tui demo host",
            "version": host_version(),
            "vendor": "openwop-tui",
        },
        "supportedEnvelopes": list(SUPPORTED_ENVELOPES),
        "schemaVersions": dict.fromkeys(SUPPORTED_ENVELOPES, 1),
        "limits": {
            "clarificationRounds": 3,
            "schemaRounds": 3,
            "envelopesPerTurn": 32,
            # Enforced: a bigger body is refused with 413 before it is read (server.py).
            "maxRequestBodyBytes": max_body_bytes,
        },
        "aiProviders": {
            "supported": ["demo"],
            # Enforced: a run whose message carries a bigger inline part is refused (admission.py).
            "maxInlineMediaBytes": MAX_INLINE_MEDIA_BYTES,
            # What a person may attach (v2's facet, here too), and where a part too big to go
            # inline is uploaded first (protocol.md §12; a host route a client reads, not guesses).
            "input": {"modalities": list(INPUT_MODALITIES), "maxBytesPerPart": MAX_UPLOAD_BYTES},
            "mediaUpload": upload_facet(),
        },
        "modelCapabilities": {
            "supported": True,
            # RFC 0055 §A: demo.chat reads pictures and voice clips (without a model: it
            # describes them); per workflow, `GET /v1/workflows` says which do.
            "advertised": ["image-output", "audio-output", "vision-input", "audio-input"],
            "substitutionSupported": False,
        },
        "supportedTransports": ["rest"],
        "runList": {"supported": True, "maxPageSize": MAX_RUN_PAGE, "filters": list(RUN_FILTERS)},
        # `:pause` / `:resume` (pausing.py), as the reference hosts advertise them.
        "runs": {"pauseResume": {"supported": True, "drainPolicies": [DRAIN_POLICY]}},
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


#: The witness class of each family this host advertises (spec/v2/core/capabilities.md §5,
#: from spec/v2/declaration.json): the one corpus-derived field of a record.
WITNESS = {
    "supportedEnvelopes": "witnessable-gated",
    "schemaVersions": "witnessable-gated",
    "limits": "witnessable-gated",
    "aiProviders": "witnessable-gated",
    "modelCapabilities": "witnessable-gated",
    "conversationPrimitive": "claims-check",
    "agents": "witnessable-gated",
    "runList": "witnessable-gated",
}

#: v1 keys with no v2 family, and the ``extensions`` member (``<org>.<name>``) each moves to.
#: ``interrupts``: v2's ``interrupt`` family requires ``tokenAlgs`` for the ``ow2.`` token
#: grammar, which this host's tokens do not follow, so it is not claimed.
_TO_EXTENSIONS = {"interrupts": "openwop-tui.interrupts", "x-openwop-tui": "openwop-tui.demo"}

#: Facets of v1 families that v2's closed records have no place for, and the ``extensions``
#: member each moves to: the upload route is this host's own, not a spec facet.
_VENDOR_FACETS = {("aiProviders", "mediaUpload"): "openwop-tui.media-upload"}

#: v1 keys the v2 root deletes (capabilities.md §4: REST is the wire).
_DELETED = frozenset({"supportedTransports"})


def _facets(key: str, value: Any) -> dict[str, Any]:
    """A v1 family's fields as its v2 record's facets (capabilities.md §2, §5)."""
    if key in ("supportedEnvelopes", "schemaVersions"):
        return {"kinds": value}
    if not isinstance(value, dict):
        return {}  # `conversationPrimitive: true`: presence of the record is the claim
    facets = {k: v for k, v in value.items() if k != "supported" and (key, k) not in _VENDOR_FACETS}
    if key == "aiProviders" and "supported" in value:
        facets["providers"] = value["supported"]
    if key == "agents" and facets.get("manifestRuntime") is True:
        facets["manifestRuntime"] = {}  # an object in v2 (its options all at their defaults)
    return facets


def v2_root(v1: dict[str, Any], versions: Iterable[str]) -> dict[str, Any]:
    """The closed v2 discovery root made from the v1 document (capabilities.md §1-§5).

    Metadata keys are copied; every family becomes a record ``{status, since, witness,
    …facets}`` (``since`` the host's own v2 minor: it began serving each family at 2.0);
    v1 keys without a v2 family move under ``extensions``. Through the overlap
    ``protocolVersion`` and ``preferredVersion`` stay the 1.x.
    """
    root: dict[str, Any] = {
        "protocolVersions": list(versions),
        "preferredVersion": v1.get("protocolVersion", "1.0"),
    }
    extensions: dict[str, Any] = {}
    for key, value in v1.items():
        if key in _DELETED:
            continue
        if key in V2_METADATA_KEYS:
            root[key] = value
        elif key in WITNESS:
            record = {"status": "stable", "since": "2.0", "witness": WITNESS[key]}
            root[key] = {**record, **_facets(key, value)}
            for (family, facet), member in _VENDOR_FACETS.items():
                if family == key and isinstance(value, dict) and facet in value:
                    extensions[member] = value[facet]
        else:
            # A key this table does not know must not leak into the closed root.
            extensions[_TO_EXTENSIONS.get(key, f"openwop-tui.{key.removeprefix('x-')}")] = value
    if extensions:
        root["extensions"] = {**root.get("extensions", {}), **extensions}
    return root
