"""How a message's attachments travel to a host: inline, uploaded first, or refused before
anything goes (protocol.md §12).

An attachment up to the host's inline cap (``aiProviders.maxInlineMediaBytes``, 256 KiB when
not advertised) goes in the message as ``dataBase64``; a bigger one is uploaded to the route
the host names (``aiProviders.mediaUpload``) and referenced by the ``url`` it answers; one
that can go neither way is refused with a sentence saying why. Every attachment is checked
before the first upload, so a message is sent whole or not at all: a refusal leaves the draft
and its attachments as they were. `unreadable` says which attachments the host's model cannot
read (RFC 0055 §A: ``vision-input``, ``audio-input``), for the front end to ask about once.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from openwop_tui.core.attachments import Attachment, AttachmentError
from openwop_tui.protocol.client import HostClient
from openwop_tui.protocol.content_parts import media_part
from openwop_tui.protocol.discovery import (
    DEFAULT_MAX_INLINE_MEDIA_BYTES,
    Discovery,
    MediaUpload,
)
from openwop_tui.protocol.errors import HostError
from openwop_tui.text.units import human_size

__all__ = ["Sent", "content_parts", "logged", "unreadable"]

#: The model capability each kind of attachment needs (RFC 0055 §A); a file needs none known.
NEEDS = {"image": "vision-input", "audio": "audio-input"}


@dataclass(frozen=True, slots=True)
class Sent:
    """One attachment as it went: its wire part, and how."""

    attachment: Attachment
    part: dict[str, Any]
    how: Literal["inline", "uploaded"]


async def content_parts(
    attachments: Sequence[Attachment], client: HostClient, discovery: Discovery | None
) -> list[Sent]:
    """The content parts for ``attachments``, uploading those over the inline cap. Raises
    `AttachmentError` (nothing uploaded) when one can go neither inline nor by upload, or (after
    the uploads before it) when the host refuses an upload."""
    cap = discovery.max_inline_media_bytes if discovery else DEFAULT_MAX_INLINE_MEDIA_BYTES
    upload = discovery.media_upload if discovery else None
    for attachment in attachments:
        if attachment.size > cap:
            _check_upload(attachment, cap, upload)
    sent: list[Sent] = []
    for attachment in attachments:
        kind, mime, name = attachment.kind, attachment.mime, attachment.name
        if attachment.size <= cap:
            part = media_part(kind, mime, name, data=attachment.data, duration=attachment.duration)
            sent.append(Sent(attachment, part, "inline"))
            continue
        assert upload is not None  # (checked above)
        try:
            url = await client.upload_media(upload, attachment.data, mime, name)
        except HostError as error:
            raise AttachmentError(
                f"{name} was not sent: the host refused its upload "
                f"({error.status or 'no answer'}: {error.message.rstrip('.')}); nothing was sent"
            ) from None
        part = media_part(kind, mime, name, url=url, duration=attachment.duration)
        sent.append(Sent(attachment, part, "uploaded"))
    return sent


def _check_upload(attachment: Attachment, cap: int, upload: MediaUpload | None) -> None:
    """Raise `AttachmentError` unless ``attachment`` (over the inline ``cap``) can be uploaded."""
    name, size = attachment.name, human_size(attachment.size)
    over = f"it is {size}, over the {human_size(cap)} this host takes inline"
    if upload is None:
        raise AttachmentError(
            f"{name} cannot be sent to this host: {over} "
            "(aiProviders.maxInlineMediaBytes), and it names no upload route for larger files"
        )
    if upload.max_bytes is not None and attachment.size > upload.max_bytes:
        raise AttachmentError(
            f"{name} cannot be sent to this host: it is {size}, over the "
            f"{human_size(upload.max_bytes)} its upload route takes"
        )
    if upload.content_types and attachment.mime not in upload.content_types:
        raise AttachmentError(
            f"{name} cannot be sent to this host: {over}, and its upload route does not take "
            f"{attachment.mime}"
        )


def unreadable(attachments: Sequence[Attachment], capabilities: Sequence[str]) -> list[str]:
    """One sentence per attachment the model cannot read: an image without ``vision-input``,
    sound without ``audio-input`` among ``capabilities`` (the host's, or its workflow's)."""
    found: list[str] = []
    for attachment in attachments:
        needed = NEEDS.get(attachment.kind)
        if needed is not None and needed not in capabilities:
            found.append(
                f"{attachment.name}: this host does not say its model reads "
                f"{'pictures' if attachment.kind == 'image' else 'sound'} ({needed} is not "
                "among modelCapabilities.advertised)"
            )
    return found


def logged(sent: Sequence[Sent]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The wire parts of ``sent``, and the user entry's meta that keeps every attachment byte
    for byte: ``parts`` as sent, and ``uploaded``, the base64 of each part sent by ``url``
    (``None`` for one sent inline, whose bytes are its ``dataBase64``); ``{}`` with none. The
    chat history re-sends the wire parts only."""
    parts = [each.part for each in sent]
    if not parts:
        return parts, {}
    uploaded = [
        base64.b64encode(each.attachment.data).decode("ascii") if each.how == "uploaded" else None
        for each in sent
    ]
    return parts, {"parts": parts, **({"uploaded": uploaded} if any(uploaded) else {})}
