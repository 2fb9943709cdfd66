"""``POST /v1/host/demo/media/upload``: a person's attachment too big to go inline
(protocol.md §12), stored as a tenant-scoped asset whose URL a run's content part then names.

The body is JSON ``{contentBase64, contentType, name}``; the answer is ``201 {url, assetId,
contentType, bytes}``, ``url`` absolute on this host. Refusals use the host's error shape, each
saying what was wrong: ``400`` for a body that is not the JSON asked for (or base64 that is
not base64), ``413`` for more than `MAX_UPLOAD_BYTES` (the size and the cap), ``415`` for a
type not on the list or bytes that are not what the type says (`mediatypes.mismatch`).

The asset belongs to the tenant whose key uploaded it: ``GET`` on its URL wants that tenant's
Bearer key (`server`), so the URL is tenant-scoped, not a capability anyone holding it may use.
Every upload, and every refusal, is logged at INFO; nothing is written to the terminal.
"""

from __future__ import annotations

import base64
import binascii
import logging
from typing import TYPE_CHECKING, Any

from openwop_tui.demo_host.assets import AssetStore
from openwop_tui.demo_host.mediatypes import (
    ALLOWED_TYPES,
    MAX_UPLOAD_BYTES,
    mismatch,
    normalise,
)
from openwop_tui.demo_host.routes import HttpError, Request, json_body

if TYPE_CHECKING:
    from openwop_tui.demo_host.server import DemoRequestHandler

logger = logging.getLogger(__name__)

#: The longest file name kept (longer ones are cut).
MAX_NAME = 255


def _field(doc: dict[str, Any], name: str) -> str:
    value = doc.get(name)
    if not isinstance(value, str):
        said = "is missing" if value is None else "must be a string"
        raise HttpError(400, "validation_error", f"'{name}' {said}", {"field": name})
    return value


def _decoded(text: str) -> bytes:
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise HttpError(
            400,
            "validation_error",
            "'contentBase64' is not valid base64 (standard alphabet, padded, no line breaks)",
            {"field": "contentBase64"},
        ) from None
    if not data:
        raise HttpError(
            400, "validation_error", "'contentBase64' is empty", {"field": "contentBase64"}
        )
    return data


def _checked(doc: dict[str, Any]) -> tuple[bytes, str, str | None]:
    """The upload's bytes, media type and name, or the refusal."""
    declared = _field(doc, "contentType")
    encoded = _field(doc, "contentBase64")
    name = doc.get("name")
    if name is not None and not isinstance(name, str):
        raise HttpError(400, "validation_error", "'name' must be a string", {"field": "name"})
    content_type = normalise(declared)
    if content_type not in ALLOWED_TYPES:
        raise HttpError(
            415,
            "unsupported_media_type",
            f"'{declared[:100]}' is not a type this host takes; it takes "
            + ", ".join(ALLOWED_TYPES),
            {"contentType": declared[:100], "accepted": list(ALLOWED_TYPES)},
        )
    data = _decoded(encoded)
    if len(data) > MAX_UPLOAD_BYTES:
        raise HttpError(
            413,
            "payload_too_large",
            f"the file is {len(data)} bytes; uploads hold at most {MAX_UPLOAD_BYTES} "
            "(aiProviders.mediaUpload.maxBytes in discovery)",
            {"maxBytes": MAX_UPLOAD_BYTES, "receivedBytes": len(data)},
        )
    wrong = mismatch(data, content_type)
    if wrong is not None:
        raise HttpError(
            415,
            "unsupported_media_type",
            f"the upload says {content_type}, but {wrong}",
            {"contentType": content_type},
        )
    return data, content_type, (name[:MAX_NAME] if name else None)


def upload(h: DemoRequestHandler, req: Request) -> None:
    """``POST`` the upload route (the key already checked: ``h.tenant`` is the uploader)."""
    try:
        data, content_type, name = _checked(json_body(req, required=True))
    except HttpError as error:
        logger.info("media upload refused: %d %r", error.status, error.message)
        raise
    token = h.host.assets.put(data, content_type, tenant=h.tenant, name=name)
    url = h.host.store.base_url + AssetStore.path(token)
    logger.info(
        "media upload: name=%r type=%s bytes=%d asset=%s tenant=%s",
        name,
        content_type,
        len(data),
        token,
        h.tenant,
    )
    body = {"url": url, "assetId": token, "contentType": content_type, "bytes": len(data)}
    h.send_json(201, body, {"Location": url})
