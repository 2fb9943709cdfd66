"""What a run's messages may carry, checked when the run is asked for (``POST …/runs``), before
any run exists: for a part this host will not take, `refusal` says why, and the route answers
``400 validation_error`` with it, the way it refuses any other bad input (the sentence names
the part and what to do instead). Pure: no HTTP here.

- **Inline bytes over the cap.** A ``dataBase64`` part of more bytes than discovery's
  ``aiProviders.maxInlineMediaBytes`` (`MAX_INLINE_MEDIA_BYTES`), in *any* message of
  ``inputs.messages``: the host said it takes no more, so it does not. The answer names the
  size, the cap and the upload route the client should have used.
- **A URL that is not the caller's own.** A ``url`` part in the message the workflows read (the
  last user message) that is not one of this host's assets the caller's tenant may read: one on
  another origin (never fetched), or an upload that does not exist or is another tenant's (the
  two read alike, so a tenant learns nothing of another's uploads). Earlier messages' URLs are
  not checked, since no workflow reads them and a session continued after the host restarted
  carries upload URLs this host never made in its history: refusing them would refuse every
  turn after.

Everything else wrong with a part (base64 that is not, a type not on the list, bytes that are
not what they say) is left to the run, which completes and says what it could not read.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from openwop_tui.demo_host.assets import AssetStore
from openwop_tui.demo_host.attachments import (
    ELSEWHERE,
    clean,
    decoded_size,
    origin,
    part_name,
    resolve_url,
)
from openwop_tui.demo_host.mediatypes import MAX_INLINE_MEDIA_BYTES, UPLOAD_ROUTE

logger = logging.getLogger(__name__)

_UPLOAD = f"POST {UPLOAD_ROUTE}"


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a run is not started: the error body's ``message`` and ``details``."""

    message: str
    details: dict[str, Any]


def refusal(
    inputs: Mapping[str, Any], *, base_url: str, assets: AssetStore, tenant: str
) -> Refusal | None:
    """Why the run inputs' messages carry a part this host will not take (the first such part);
    ``None`` when they carry none (messages that are not a list of objects are the workflows'
    to read as they can). Each refusal is logged at INFO.

    Args:
        inputs: The run's ``inputs``.
        base_url: This host's origin: a part's absolute URL must be on it.
        assets: This host's assets, where a part's URL must name one the caller may read.
        tenant: The tenant whose key asks for the run.
    """
    messages = inputs.get("messages")
    if not isinstance(messages, list):
        return None
    read = _last_user(messages)
    for m, message in enumerate(messages):
        content = message.get("content") if isinstance(message, Mapping) else None
        if not isinstance(content, list):
            continue
        for p, part in enumerate(content):
            if not isinstance(part, Mapping):
                continue
            inline, url = part.get("dataBase64"), part.get("url")
            found = _inline(inline) if isinstance(inline, str) else None
            if found is None and m == read and isinstance(url, str):
                known = resolve_url(url, base_url=base_url, assets=assets, tenant=tenant)
                found = _by_url(url, known) if isinstance(known, str) else None
            if found is not None:
                said, facet, details = found
                field = f"inputs.messages[{m}].content[{p}].{facet}"
                where = _where(m, len(messages), p, part)
                refused = Refusal(f"{where} {said}", {"field": field, **details})
                logger.info("run refused: %s", refused.message)
                return refused
    return None


#: What a check finds wrong with a part: the rest of the sentence after the part is named, the
#: part's field at fault (``dataBase64``, ``url``), and the error's ``details``.
_Found = tuple[str, str, dict[str, Any]]


def _last_user(messages: list[Any]) -> int | None:
    """The index of the last ``user`` message (the one the workflows read), or ``None``."""
    for m in range(len(messages) - 1, -1, -1):
        message = messages[m]
        if isinstance(message, Mapping) and message.get("role") == "user":
            return m
    return None


def _where(m: int, count: int, p: int, part: Mapping[str, Any]) -> str:
    """How a refusal names a part: ``the message's part 2 (picture.png)`` for the newest
    message, ``message 1's part 2 (picture.png)`` for one before it (both counted from 1).

    Args:
        m: The message's index in ``inputs.messages``.
        count: How many messages there are.
        p: The part's index in the message's ``content``.
        part: The part, for its name (or its media type, or its type).
    """
    message = "the message's" if m == count - 1 else f"message {m + 1}'s"
    said = part_name(part)
    for key in ("mimeType", "type"):
        value = part.get(key)
        if said is None and isinstance(value, str) and value.strip():
            said = clean(value, 60)
    return f"{message} part {p + 1} ({said or 'no name'})"


def _inline(text: str) -> _Found | None:
    """What is wrong with a part's ``dataBase64``: it holds more than the inline cap."""
    size, cap = decoded_size(text), MAX_INLINE_MEDIA_BYTES
    if size <= cap:
        return None
    said = (
        f"is {size:,} bytes inline, over the {cap:,} bytes ({cap // 1024} KiB) this host takes "
        f"inline (aiProviders.maxInlineMediaBytes): upload it ({_UPLOAD}) and send the url it "
        "answers instead"
    )
    details = {"maxInlineMediaBytes": cap, "receivedBytes": size, "uploadRoute": UPLOAD_ROUTE}
    return said, "dataBase64", details


def _by_url(url: str, why: str) -> _Found:
    """What is wrong with a part's ``url``: it names nothing the caller may read (``why``:
    `resolve_url`'s answer, `ELSEWHERE` or `NOT_YOURS`)."""
    if why == ELSEWHERE:
        said = (
            f"names a URL on `{origin(url)}`, not this host: it reads only parts sent inline or "
            f"uploaded to it ({_UPLOAD}), and fetches nothing elsewhere"
        )
    else:
        said = (
            f"names no upload of yours on this host: upload the file with your own key "
            f"({_UPLOAD}) and send the url it answers"
        )
    return said, "url", {"uploadRoute": UPLOAD_ROUTE}
