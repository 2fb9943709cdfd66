"""What a person attached to a chat turn (protocol.md §12): the non-text content parts of the
last user message, with their bytes when the host may read them.

A part carries its bytes inline (``dataBase64``) or names them by ``url``. A URL is read only
when it is one of this host's own assets that the run's tenant may read (its own uploads, or
what the workflows made: `resolve_url`); any other URL is never fetched. `admission` refuses
such a URL, and an inline part over the host's cap, before the run is created; should one
reach a workflow all the same, the answer says it was not read. A part that cannot be read
(bad base64, a type not on the list, bytes that are not what they say) becomes an
`Attachment` with a ``problem``: the run still completes and says what was wrong.

Every part of every run is logged at INFO (type, media type, name, bytes and how it came:
inline, uploaded, or a URL not fetched), the check that a big picture went by upload and a
small one inline.
"""

from __future__ import annotations

import base64
import binascii
import logging
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from openwop_tui.demo_host.assets import ASSET_PREFIX, Asset, AssetStore
from openwop_tui.demo_host.mediatypes import ALLOWED_TYPES, MAX_UPLOAD_BYTES, mismatch, normalise
from openwop_tui.demo_host.steps import WorkflowContext

logger = logging.getLogger(__name__)

#: The part types that carry media (``text`` parts are the message's words).
MEDIA_PARTS = ("image", "file", "audio")

#: How each way a part came is said in the log and in replies.
VIA_INLINE, VIA_UPLOAD, VIA_URL, VIA_NONE = "inline", "upload", "url", "none"

_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,128}")

#: Why a URL names no asset the caller may read (`resolve_url`): it is on another origin, or
#: it names nothing of this host the caller may read (never made, another tenant's upload, a
#: path that is not an asset's).
ELSEWHERE, NOT_YOURS = "elsewhere", "not yours"


@dataclass(frozen=True, slots=True)
class Attachment:
    """One non-text part of the message, read or not."""

    index: int
    """Its position among the message's parts (1 for the first)."""
    kind: str
    """The part's ``type`` (``image``, ``file``, ``audio``, or whatever else it said)."""
    mime_type: str
    """Its declared media type, normalised (empty when it said none)."""
    name: str | None
    """Its ``name`` (an image's ``alt`` when it has no name), made safe to show."""
    via: str
    """How it came: `VIA_INLINE`, `VIA_UPLOAD` (this host's asset), `VIA_URL` (not fetched),
    `VIA_NONE` (neither)."""
    size: int | None
    """Its size in bytes, when known."""
    data: bytes | None = None
    """Its bytes, when they were read and are what they say; ``None`` otherwise."""
    problem: str | None = None
    """Why it could not be read (a sentence fragment), or ``None``."""


def clean(text: str, most: int = 80) -> str:
    """Person-supplied text made safe for one markdown code span: no control characters or
    backticks, whitespace collapsed, at most ``most`` characters."""
    kept = "".join(
        " " if unicodedata.category(c).startswith(("C", "Z")) else c for c in text if c != "`"
    )
    short = " ".join(kept.split())
    return short if len(short) <= most else short[: most - 1] + "…"


def media_parts(inputs: Mapping[str, Any]) -> list[Any]:
    """The non-text parts of the last user message (empty for string content)."""
    messages = inputs.get("messages")
    if not isinstance(messages, list):
        return []
    for message in reversed(messages):
        if isinstance(message, Mapping) and message.get("role") == "user":
            content = message.get("content")
            if not isinstance(content, list):
                return []
            return [p for p in content if not (isinstance(p, Mapping) and p.get("type") == "text")]
    return []


def _encoded_size(text: str) -> int | None:
    """The number of bytes a base64 text decodes to, without decoding it; ``None`` when it
    cannot be base64 (its length is wrong)."""
    stripped = text.strip()
    if len(stripped) % 4:
        return None
    return len(stripped) // 4 * 3 - (len(stripped) - len(stripped.rstrip("=")))


def decoded_size(text: str) -> int:
    """The bytes a ``dataBase64`` text decodes to, without decoding it. For text that cannot be
    base64 (its length is wrong) the most it could hold, so that garbage is held to a size cap
    as strictly as valid base64 is."""
    size = _encoded_size(text)
    return size if size is not None else len(text.strip()) * 3 // 4


def part_name(part: Mapping[str, Any]) -> str | None:
    """A part's ``name`` (an image's ``alt`` when it has none), made safe to show; ``None``
    when it says neither."""
    for key in ("name", "alt"):
        value = part.get(key)
        if isinstance(value, str) and value.strip():
            return clean(value)
    return None


def _elsewhere(base_url: str, url: str) -> bool:
    """Whether ``url`` is absolute on another origin than ``base_url``'s (a relative URL is
    on this host)."""
    parts = urlsplit(url)
    if not (parts.scheme or parts.netloc):
        return False
    base = urlsplit(base_url)
    return (parts.scheme.lower(), parts.netloc.lower()) != (base.scheme, base.netloc.lower())


def _own_token(base_url: str, url: str) -> str | None:
    """The token of the asset of the host at ``base_url`` that ``url`` names (absolute on that
    origin, or relative), or ``None`` when it names anything else."""
    if _elsewhere(base_url, url):
        return None
    parts = urlsplit(url)
    token = parts.path.removeprefix(ASSET_PREFIX)
    if token == parts.path or parts.query or parts.fragment or not _TOKEN.fullmatch(token):
        return None
    return token


def origin(url: str) -> str:
    """Where ``url`` points (its scheme and host, or its start), made safe to show."""
    parts = urlsplit(url)
    return clean(f"{parts.scheme}://{parts.netloc}" if parts.netloc else url[:60])


def resolve_url(url: str, *, base_url: str, assets: AssetStore, tenant: str) -> Asset | str:
    """The asset ``url`` names that ``tenant`` may read (its own upload, or one a workflow
    made), or why it names none: `ELSEWHERE` (another origin) or `NOT_YOURS` (anything else
    on this host: no such asset, another tenant's upload, a path that is not an asset's).

    Args:
        url: A part's ``url``.
        base_url: This host's origin (``http://127.0.0.1:<port>``).
        assets: This host's assets.
        tenant: The tenant whose key asks.
    """
    if _elsewhere(base_url, url):
        return ELSEWHERE
    token = _own_token(base_url, url)
    asset = assets.get(token) if token is not None else None
    if asset is None or asset.tenant not in (None, tenant):
        # Another tenant's upload reads exactly like one never made.
        return NOT_YOURS
    return asset


def _by_url(
    ctx: WorkflowContext, url: str, *, contents: bool
) -> tuple[str, int | None, Any, str | None]:
    """(via, size, bytes or a problem string, the name it was uploaded with) for a part given
    by URL.

    Args:
        ctx: The run's context: its host's origin, assets and tenant.
        url: The part's ``url``.
        contents: False: only the size is looked up, the bytes are not read.
    """
    asset = resolve_url(url, base_url=ctx.base_url, assets=ctx.assets, tenant=ctx.tenant)
    if asset == ELSEWHERE:
        where = origin(url)
        said = f"not fetched: `{where}` is not this host; I read only what came inline or uploaded"
        return VIA_URL, None, said, None
    if not isinstance(asset, Asset):
        return VIA_UPLOAD, None, "its URL names no upload of yours on this host", None
    name = clean(asset.name) if asset.name else None
    if asset.size > MAX_UPLOAD_BYTES:
        return VIA_UPLOAD, asset.size, f"at {asset.size:,} bytes it is too big for me to read", name
    return VIA_UPLOAD, asset.size, b"".join(asset.chunks()) if contents else None, name


def _by_value(value: str, *, contents: bool) -> tuple[int | None, Any]:
    """(size, bytes or a problem string) for inline ``dataBase64``.

    Args:
        value: The part's ``dataBase64``.
        contents: False: only the size is worked out, nothing is decoded.
    """
    size = _encoded_size(value)
    if not contents:
        return size, None
    try:
        return size, base64.b64decode(value.strip(), validate=True)
    except (binascii.Error, ValueError):
        return size, "its dataBase64 is not valid base64"


def read_part(ctx: WorkflowContext, index: int, part: Any, *, contents: bool = True) -> Attachment:
    """One part as an `Attachment`: its bytes read and checked against its type when
    ``contents``, else only what it is (type, name, size) without touching its bytes.

    Args:
        ctx: The run's context.
        index: The part's position among the message's parts (1 for the first).
        part: The part as sent.
        contents: True: decode or look up its bytes and check them; False: describe only.
    """
    if not isinstance(part, Mapping):
        return Attachment(index, "?", "", None, VIA_NONE, None, problem="it is not an object")
    kind = clean(str(part.get("type", "?")), 20)
    declared = part.get("mimeType")
    mime = clean(normalise(declared), 60) if isinstance(declared, str) else ""
    name = part_name(part)
    inline, url = part.get("dataBase64"), part.get("url")
    if isinstance(inline, str) == isinstance(url, str):
        said = "both dataBase64 and url" if isinstance(inline, str) else "no dataBase64 or url"
        return Attachment(index, kind, mime, name, VIA_NONE, None, problem=f"it has {said}")
    if isinstance(inline, str):
        via = VIA_INLINE
        size, got = _by_value(inline, contents=contents)
    else:
        via, size, got, uploaded_as = _by_url(ctx, str(url), contents=contents)
        name = name or uploaded_as
    problem = None
    if isinstance(got, str):
        problem = got
    elif kind not in MEDIA_PARTS:
        problem = f"`{kind}` is not a part type I know"
    elif mime not in ALLOWED_TYPES:
        problem = f"`{mime or 'no type'}` is not a media type I read"
    elif isinstance(got, bytes):
        problem = mismatch(got, mime)
        size = len(got)
    data = got if isinstance(got, bytes) and problem is None else None
    return Attachment(index, kind, mime, name, via, size, data, problem)


def read_parts(ctx: WorkflowContext, *, contents: bool = True) -> list[Attachment]:
    """Every non-text part of the run's last user message, read (`read_part`) and logged."""
    found = [
        read_part(ctx, index, part, contents=contents)
        for index, part in enumerate(media_parts(ctx.inputs), start=1)
    ]
    log_parts(ctx, found)
    return found


def log_parts(ctx: WorkflowContext, parts: Sequence[Attachment]) -> None:
    """One INFO line per part: the run, its type, media type, name, bytes and how it came."""
    for part in parts:
        logger.info(
            "run %s (%s) part %d: type=%s mime=%s name=%r bytes=%s via=%s",
            ctx.run_id,
            ctx.workflow_id,
            part.index,
            part.kind,
            part.mime_type or "-",
            part.name,
            "?" if part.size is None else part.size,
            part.via,
        )


def label(part: Attachment) -> str:
    """How a part is named in a reply: ``**image** `photo.png` (image/png, 1,234 bytes,
    inline)``."""
    name = f" `{part.name}`" if part.name else ""
    facts = [part.mime_type or "no type"]
    if part.size is not None:
        facts.append(f"{part.size:,} bytes")
    facts.append({VIA_UPLOAD: "uploaded", VIA_URL: "by URL"}.get(part.via, part.via))
    return f"**{part.kind}**{name} ({', '.join(facts)})"
