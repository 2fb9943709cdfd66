"""Attachments for the demo host's media tests, made here with known facts: a picture of known
size and colours (Pillow), a PDF of known pages, sound of known length and rate (numpy and
soundfile), and the content parts and run inputs that carry them (protocol.md §12).

Everything is deterministic (fixed seeds, no clock), and a plain module (``tests/`` is on
``sys.path``).
"""

from __future__ import annotations

import base64
import io
from typing import Any

import httpx
import numpy as np
import soundfile
from PIL import Image

#: The upload route the demo host advertises (read from discovery in the tests that check it).
UPLOAD = "/v1/host/demo/media/upload"


def b64(data: bytes) -> str:
    """``data`` as standard base64 text."""
    return base64.b64encode(data).decode("ascii")


def two_colour_png(size: tuple[int, int] = (64, 32), split: float = 0.75) -> bytes:
    """A PNG of ``size``: pure red on the left ``split`` of its width, pure blue on the rest."""
    width, height = size
    image = Image.new("RGB", size, (255, 0, 0))
    image.paste((0, 0, 255), (round(width * split), 0, width, height))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def noise_png(size: tuple[int, int]) -> bytes:
    """A PNG of random pixels (fixed seed): it does not compress, so its size is about
    3 bytes a pixel (1000x700 is about 2 MB)."""
    pixels = np.random.default_rng(7).integers(0, 256, (size[1], size[0], 3), dtype=np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels, "RGB").save(out, format="PNG")
    return out.getvalue()


def pdf(pages: int) -> bytes:
    """A PDF of ``pages`` pages (Pillow writes one page object per frame)."""
    frames = [Image.new("RGB", (120, 160), (40 * n % 256, 90, 200)) for n in range(pages)]
    out = io.BytesIO()
    frames[0].save(out, format="PDF", save_all=True, append_images=frames[1:])
    return out.getvalue()


def tone(seconds: float, rate: int, fmt: str, channels: int = 1) -> bytes:
    """A 440 Hz sine at half scale (-9.03 dBFS RMS) as a ``fmt`` file (``WAV`` or ``OGG``).

    Args:
        seconds: Its length.
        rate: Its sample rate.
        fmt: ``WAV`` (16-bit PCM) or ``OGG`` (Vorbis).
        channels: 1 for mono, 2 for stereo.
    """
    t = np.arange(round(seconds * rate)) / rate
    wave = 0.5 * np.sin(2 * np.pi * 440 * t)
    samples = np.repeat(wave[:, None], channels, axis=1)
    out = io.BytesIO()
    subtype = "PCM_16" if fmt == "WAV" else "VORBIS"
    soundfile.write(out, samples, rate, format=fmt, subtype=subtype)
    return out.getvalue()


def part(kind: str, mime: str, data: bytes | None = None, **fields: Any) -> dict[str, Any]:
    """A content part: ``{"type": kind, "mimeType": mime}``, ``dataBase64`` when ``data`` is
    given, and ``fields`` (``url``, ``name``, ``alt``…)."""
    made: dict[str, Any] = {"type": kind, "mimeType": mime, **fields}
    if data is not None:
        made["dataBase64"] = b64(data)
    return made


def said(*parts: dict[str, Any], text: str | None = None) -> dict[str, Any]:
    """Run inputs whose last user message is ``text`` (when given) and ``parts``."""
    content = ([{"type": "text", "text": text}] if text is not None else []) + list(parts)
    return {
        "messages": [
            {"role": "user", "content": "an earlier turn"},
            {"role": "assistant", "content": "an earlier answer"},
            {"role": "user", "content": content},
        ]
    }


def upload(
    http: httpx.Client, data: bytes, content_type: str, name: str = "upload"
) -> httpx.Response:
    """``POST`` ``data`` to the demo host's upload route with ``http``'s key.

    Args:
        http: A client of the host, with its key (or another's, or none).
        data: The file's bytes.
        content_type: Its declared media type.
        name: Its file name.
    """
    body = {"contentBase64": b64(data), "contentType": content_type, "name": name}
    return http.post(UPLOAD, json=body)
