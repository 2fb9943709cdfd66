"""The media types a person may send the demo host (protocol.md §12), and whether bytes are
what their declared type says.

The list is the reference web chat's allow-list plus the two audio types of a recorded voice
clip; both ends fail closed on anything else. A declared type is checked against the bytes
themselves: the binary types by their signature (PNG, JPEG, GIF, WebP, PDF, Ogg, RIFF/WAVE),
the text types by being UTF-8, JSON by parsing. A client that labels a PDF ``image/png`` is
refused at upload and told so in a run, never believed.
"""

from __future__ import annotations

import json
from typing import Any

#: Every media type the upload route takes and a run reads, in the order discovery lists them.
ALLOWED_TYPES = (
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "application/pdf",
    "text/plain",
    "text/markdown",
    "application/json",
    "text/csv",
    "audio/ogg",
    "audio/wav",
)

#: Where a person's attachment too big to go inline is uploaded (`uploads`). A host route, not
#: a spec path: discovery names it (``aiProviders.mediaUpload.route``) and clients read it there.
UPLOAD_ROUTE = "/v1/host/demo/media/upload"

#: The most bytes one upload may hold: the reference web chat's per-file ceiling, 6 MiB.
MAX_UPLOAD_BYTES = 6 * 1024 * 1024

#: The most bytes one part may carry inline (``dataBase64``): the spec's default, stated
#: explicitly (``aiProviders.maxInlineMediaBytes``) and enforced when a run starts (`admission`).
MAX_INLINE_MEDIA_BYTES = 262144

#: The upload route's own request body limit (not ``limits.maxRequestBodyBytes``): 6 MiB as
#: base64 is 8 MiB, plus the JSON around it.
UPLOAD_BODY_LIMIT = 9 * 1024 * 1024

#: What a person may send as content parts (v2's ``aiProviders.input.modalities``).
INPUT_MODALITIES = ("text", "image", "audio", "document")

#: The media types whose bytes must be UTF-8 text.
TEXT_TYPES = frozenset({"text/plain", "text/markdown", "application/json", "text/csv"})

#: What each binary type's bytes start with (WebP and WAV: a RIFF header, then their form).
_SIGNATURES: dict[str, tuple[bytes, ...]] = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "application/pdf": (b"%PDF-",),
    "audio/ogg": (b"OggS",),
}
_RIFF_FORMS = {"image/webp": b"WEBP", "audio/wav": b"WAVE"}


def upload_facet() -> dict[str, Any]:
    """Discovery's ``aiProviders.mediaUpload``: where uploads go, how big, which types."""
    return {
        "route": UPLOAD_ROUTE,
        "maxBytes": MAX_UPLOAD_BYTES,
        "contentTypes": list(ALLOWED_TYPES),
    }


def normalise(content_type: str) -> str:
    """A declared type without parameters, in lower case (``Text/Plain; charset=utf-8`` →
    ``text/plain``)."""
    return content_type.split(";", 1)[0].strip().lower()


def looks_like(data: bytes) -> str | None:
    """The binary type ``data``'s signature names, or ``None`` when it names none of them."""
    for content_type, prefixes in _SIGNATURES.items():
        if data.startswith(prefixes):
            return content_type
    if data[:4] == b"RIFF":
        for content_type, form in _RIFF_FORMS.items():
            if data[8:12] == form:
                return content_type
    return None


def mismatch(data: bytes, content_type: str) -> str | None:
    """Why ``data`` is not a ``content_type`` (an allowed, normalised type); ``None`` when it is.

    The reason is a sentence fragment for an error message or a reply: ``"the bytes are a PNG
    image, not application/pdf"``."""
    found = looks_like(data)
    if content_type in TEXT_TYPES:
        if found is not None:
            return f"the bytes are {_named(found)}, not {content_type}"
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            return f"the bytes are not UTF-8 text (byte {error.start} is not valid UTF-8)"
        if content_type == "application/json":
            try:
                json.loads(text)
            except ValueError as error:
                return f"the text is not valid JSON ({error})"
        return None
    if found == content_type:
        return None
    if found is None:
        return f"the bytes are not {_named(content_type)} (they do not start as one does)"
    return f"the bytes are {_named(found)}, not {content_type}"


def _named(content_type: str) -> str:
    names = {
        "image/png": "a PNG image",
        "image/jpeg": "a JPEG image",
        "image/gif": "a GIF image",
        "image/webp": "a WebP image",
        "application/pdf": "a PDF document",
        "audio/ogg": "an Ogg stream",
        "audio/wav": "a WAV file",
    }
    return names.get(content_type, content_type)
