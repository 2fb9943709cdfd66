"""Content parts: a user message's ``content`` when it carries more than text (protocol.md §12).

The reference web chat sends a message with attachments as a list of parts in
``inputs.messages[-1].content``: ``{"type": "text", "text"}``, ``{"type": "image", "mimeType",
"dataBase64" | "url", "alt"}``, ``{"type": "file", "mimeType", "dataBase64" | "url", "name"}``
and ``{"type": "audio", "mimeType", "dataBase64" | "url", "durationSeconds"}``; a message
without attachments stays a plain string, which every host takes (the reference hosts take
nothing else). Pure: the shapes, built and read back (a stored session's log is a file anyone
may have written, so what is read back is checked, not trusted).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ACCEPTED_TYPES",
    "KINDS",
    "MediaPart",
    "encoded_size",
    "media_part",
    "message_content",
    "read_parts",
    "summary",
    "text_of_content",
]

#: The part ``type`` of each kind of attachment.
KINDS = ("image", "file", "audio")

#: The media types the reference web chat sends, by the part type each goes as: its allow-list
#: (protocol.md §12, fail-closed on both ends), with the voice clips its recorder makes. What
#: `openwop_tui.core.attachments` accepts from disk, kept here too because the lint
#: (`openwop_tui.inspect`) does not import the conversation's packages.
ACCEPTED_TYPES: dict[str, frozenset[str]] = {
    "image": frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"}),
    "file": frozenset(
        {"application/pdf", "text/plain", "text/markdown", "application/json", "text/csv"}
    ),
    "audio": frozenset({"audio/ogg", "audio/wav"}),
}


@dataclass(frozen=True, slots=True)
class MediaPart:
    """An attachment part as read back: what it is, and where its bytes are."""

    kind: str
    """``image``, ``file`` or ``audio``."""
    mime: str
    name: str
    data: bytes | None
    """The bytes (an inline part); ``None`` for one sent by ``url``."""
    url: str | None
    duration: float | None = None


def media_part(
    kind: str,
    mime: str,
    name: str,
    *,
    data: bytes | None = None,
    url: str | None = None,
    duration: float | None = None,
) -> dict[str, Any]:
    """The wire part for one attachment: inline (``data``) or by ``url`` (uploaded first).

    Args:
        kind: ``image``, ``file`` or ``audio``.
        mime: Its media type.
        name: Its file name (an image's ``alt``, a file's ``name``).
        data: The bytes, sent as ``dataBase64``; ``None`` when ``url`` is given.
        url: Where the host keeps the bytes (its upload route's answer).
        duration: Seconds of sound (an audio part's ``durationSeconds``).
    """
    part: dict[str, Any] = {"type": kind, "mimeType": mime}
    if url is not None:
        part["url"] = url
    else:
        part["dataBase64"] = base64.b64encode(data or b"").decode("ascii")
    if kind == "image":
        part["alt"] = name
    else:
        part["name"] = name
    if kind == "audio" and duration is not None:
        part["durationSeconds"] = round(duration, 3)
    return part


def message_content(text: str, parts: Sequence[Mapping[str, Any]]) -> str | list[dict[str, Any]]:
    """A user message's ``content``: ``text`` alone as a string, or the text part (when there
    is text) before the attachment ``parts``."""
    if not parts:
        return text
    head: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    return head + [dict(part) for part in parts]


def text_of_content(content: Any) -> str:
    """The text of a message's ``content`` (a string, or the text parts of a list)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [p.get("text") for p in content if isinstance(p, Mapping)]
        return "\n".join(t for t in texts if isinstance(t, str))
    return ""


def encoded_size(text: str) -> int:
    """The bytes a base64 ``text`` holds, told from its length without decoding it (exact for
    well-formed base64; a guess, never an error, for anything else)."""
    return max(len(text) * 3 // 4 - text[-2:].count("="), 0)


def read_parts(content: Any) -> list[MediaPart]:
    """The attachment parts of a message's ``content`` read back (from a log): each well-formed
    image, file or audio part; anything else is left out (not guessed at)."""
    if not isinstance(content, list):
        return []
    found: list[MediaPart] = []
    for part in content:
        read = _read_part(part) if isinstance(part, Mapping) else None
        if read is not None:
            found.append(read)
    return found


def _read_part(part: Mapping[str, Any]) -> MediaPart | None:
    kind, mime = part.get("type"), part.get("mimeType")
    if kind not in KINDS or not isinstance(mime, str) or not mime:
        return None
    name = part.get("alt" if kind == "image" else "name")
    url = part.get("url")
    data: bytes | None = None
    encoded = part.get("dataBase64")
    if isinstance(encoded, str):
        try:
            data = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            return None
    elif not isinstance(url, str) or not url:
        return None
    duration = part.get("durationSeconds")
    seconds = float(duration) if isinstance(duration, int | float) and duration >= 0 else None
    return MediaPart(
        str(kind),
        mime,
        name if isinstance(name, str) and name else str(kind),
        data,
        url if isinstance(url, str) and url else None,
        seconds,
    )


def summary(part: MediaPart) -> dict[str, Any]:
    """A part as a line of JSON says it (``run --json``, ``export --format jsonl``): its type,
    media type and name, and its size (inline) or ``url`` (uploaded), never its bytes."""
    said: dict[str, Any] = {"type": part.kind, "mimeType": part.mime, "name": part.name}
    if part.data is not None:
        said["bytes"] = len(part.data)
        said["inline"] = True
    else:
        said["url"] = part.url
        said["inline"] = False
    if part.duration is not None:
        said["durationSeconds"] = part.duration
    return said
