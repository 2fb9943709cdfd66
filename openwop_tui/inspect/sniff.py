"""What a few bytes say they are: the media type and family of data, from its signature.

The lint compares what an envelope declares (its ``media.*`` kind, its ``mimeType``) with what its
bytes are. Only signatures that cannot be mistaken are read (the WHATWG MIME Sniffing standard's
"image type pattern" and "audio or video type pattern" tables, plus PDF and ZIP); anything else is
`None`, "no opinion", never a guess. Pure: bytes in, an answer out.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Sniffed:
    """The media type a signature names, and its family (``image``, ``audio``, ``file``)."""

    media_type: str
    family: str


_PREFIXES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"BM", "image/bmp"),
    (b"\x00\x00\x01\x00", "image/x-icon"),
    (b"OggS\x00", "audio/ogg"),
    (b"fLaC", "audio/flac"),
    (b"ID3", "audio/mpeg"),
    (b"MThd\x00\x00\x00\x06", "audio/midi"),
    (b"%PDF-", "application/pdf"),
    (b"PK\x03\x04", "application/zip"),
)

#: Types whose families differ from their top-level name, or that the lint treats as the same.
_SAME = {
    "audio/x-wav": "audio/wav",
    "audio/wave": "audio/wav",
    "audio/vnd.wave": "audio/wav",
    "audio/mp3": "audio/mpeg",
    "image/jpg": "image/jpeg",
    "image/x-ms-bmp": "image/bmp",
    "audio/x-flac": "audio/flac",
    "image/vnd.microsoft.icon": "image/x-icon",
}


def sniff(data: bytes) -> Sniffed | None:
    """The type ``data``'s signature names, or ``None`` when no signature here matches."""
    head = data[:16]
    for prefix, media_type in _PREFIXES:
        if head.startswith(prefix):
            return Sniffed(media_type, family_of(media_type))
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return Sniffed("audio/wav", "audio")
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return Sniffed("image/webp", "image")
    if len(head) >= 2 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0 and head[1] & 0x06:
        return Sniffed("audio/mpeg", "audio")  # an MPEG audio frame header (no ID3 tag)
    return None


def normal_type(media_type: str) -> str:
    """A media type without parameters, lower case, with common aliases folded together."""
    base = media_type.split(";", 1)[0].strip().lower()
    return _SAME.get(base, base)


def family_of(media_type: str) -> str:
    """``image`` or ``audio`` for those top-level types, ``file`` for everything else."""
    top = normal_type(media_type).partition("/")[0]
    return top if top in ("image", "audio") else "file"
