"""``GET /.well-known/openwop``: the public discovery resource, in the representation the
request's ``OpenWOP-Version`` selects, with a strong ``ETag`` (the documents themselves are
built in `discovery`)."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

from openwop_tui.demo_host.discovery import discovery_document, v2_root
from openwop_tui.demo_host.routes import Request, negotiated
from openwop_tui.demo_host.wire import protocol_versions

if TYPE_CHECKING:
    from openwop_tui.demo_host.server import DemoRequestHandler


def discovery(h: DemoRequestHandler, req: Request) -> None:
    """``GET /.well-known/openwop``: public and cacheable.

    A dual-stack host serves one resource in two representations, chosen by the request's
    ``OpenWOP-Version``: none (or 1) → the v1 document with ``protocolVersions`` and
    ``preferredVersion`` added; 2 → the closed v2 root (capabilities.md §1)."""
    document = discovery_document(h.host.store.workflows, h.host.max_body_bytes)
    headers = {"Cache-Control": "public, max-age=300"}
    if h.host.protocol == 2:
        h.wire = negotiated(h.headers.get("OpenWOP-Version"))
        headers["Vary"] = "OpenWOP-Version"
        versions = protocol_versions(2)
        if h.wire.major == 2:
            document = v2_root(document, versions)
        else:
            document = {**document, "protocolVersions": list(versions), "preferredVersion": "1.0"}
    # A strong validator of the representation's bytes; If-None-Match answers 304
    # (capabilities.md §1.1: REQUIRED in v2, and cheap for v1 readers too).
    digest = hashlib.sha256(json.dumps(document).encode()).hexdigest()[:32]
    headers["ETag"] = f'"{digest}"'
    asked = h.headers.get("If-None-Match", "")
    if headers["ETag"] in (tag.strip() for tag in asked.split(",")) or asked.strip() == "*":
        h.begin(304, headers)
        return
    h.send_json(200, document, headers)
