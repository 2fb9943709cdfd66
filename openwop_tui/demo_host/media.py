"""The demo host's media: pictures drawn with Pillow, one spoken clip, a CSV report.

Everything is made on first use and cached, never at import: importing the package must stay
cheap and side-effect free (design.md, "Side effects at import"), and a host that only ever runs
``conformance-noop`` should not pay for drawing.

The oversized image is the interesting one. It must be a genuine 48 MiB PNG (a client that
ignores the advertised ``bytes`` and downloads anyway should get what was promised) without the
host ever holding 48 MiB: a small valid PNG is split after its header and a private ancillary
chunk of zeros is streamed in between, its CRC computed once, block by block.
"""

from __future__ import annotations

import functools
import io
import struct
import zlib
from collections.abc import Iterator
from importlib import resources

from PIL import Image, ImageDraw, ImageFont, ImageOps

#: Advertised (and served) size of the oversized image: far beyond any sane inline or fetch cap.
OVERSIZED_BYTES = 48 * 1024 * 1024

#: Length of ``media/hello.ogg`` as soundfile reports it (81,388 frames at 16 kHz), rounded.
AUDIO_DURATION_SECONDS = 5.09

#: What the clip says, for alt text.
AUDIO_TRANSCRIPT = (
    "Hello from the open WOP demo host. This clip was played through your sound card."
)

# A private, ancillary, safe-to-copy chunk type (lower/lower/UPPER/lower per the PNG spec):
# decoders must skip it, so the padded file still decodes as the small picture it wraps.
_PAD_CHUNK_TYPE = b"owPd"
_PAD_BLOCK = bytes(64 * 1024)
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    # Pillow's bundled default font scales when FreeType is present and falls back to a fixed
    # bitmap font otherwise; either is fine for labels.
    return ImageFont.load_default(size=size)


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


@functools.cache
def chart_png() -> bytes:
    """A 480x300 bar chart on a gradient, with shapes and text labels (served by URL)."""
    gradient = Image.linear_gradient("L").resize((480, 300))
    image = ImageOps.colorize(gradient, black="#16324f", white="#6ea8d8")
    draw = ImageDraw.Draw(image)
    draw.text((20, 14), "Demo revenue by region", fill="white", font=_font(20))
    draw.ellipse((404, 14, 456, 66), fill="#ffd166", outline="#f4a261", width=3)
    draw.line((50, 260, 430, 260), fill="white", width=2)
    draw.line((50, 80, 50, 260), fill="white", width=2)
    bars = [
        ("North", 42, "#ef476f"),
        ("South", 67, "#06d6a0"),
        ("East", 55, "#ffd166"),
        ("West", 88, "#118ab2"),
    ]
    for index, (label, value, colour) in enumerate(bars):
        left = 75 + index * 95
        top = 260 - value * 2
        draw.rectangle((left, top, left + 60, 259), fill=colour, outline="white")
        draw.text((left + 18, top - 20), str(value), fill="white", font=_font(14))
        draw.text((left + 6, 268), label, fill="white", font=_font(14))
    draw.polygon([(438, 258), (456, 222), (474, 258)], fill="#8338ec", outline="white")
    return _png(image)


@functools.cache
def badge_png() -> bytes:
    """A small picture sent inline as base64 (a few KB, far under the 256 KiB cap)."""
    image = Image.new("RGB", (160, 64), "#2a9d8f")
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((4, 4, 155, 59), radius=12, outline="white", width=3)
    draw.line((18, 32, 28, 44, 46, 18), fill="white", width=5)
    draw.text((58, 20), "inline", fill="white", font=_font(20))
    return _png(image)


@functools.cache
def _oversized_parts() -> tuple[bytes, int, bytes]:
    """Return (head, padding length, tail) of the oversized PNG; their sizes sum to 48 MiB."""
    image = Image.new("RGB", (64, 64), "#e63946")
    draw = ImageDraw.Draw(image)
    draw.line((8, 8, 56, 56), fill="white", width=6)
    draw.line((8, 56, 56, 8), fill="white", width=6)
    small = _png(image)
    ihdr_end = len(_PNG_SIGNATURE) + 4 + 4 + 13 + 4  # signature + IHDR (length, type, data, CRC)
    rest = small[ihdr_end:]
    pad_length = OVERSIZED_BYTES - ihdr_end - 8 - 4 - len(rest)
    crc = zlib.crc32(_PAD_CHUNK_TYPE)
    remaining = pad_length
    while remaining:
        block = _PAD_BLOCK[: min(remaining, len(_PAD_BLOCK))]
        crc = zlib.crc32(block, crc)
        remaining -= len(block)
    head = small[:ihdr_end] + struct.pack(">I", pad_length) + _PAD_CHUNK_TYPE
    tail = struct.pack(">I", crc & 0xFFFFFFFF) + rest
    return head, pad_length, tail


def oversized_png_chunks() -> Iterator[bytes]:
    """Yield the 48 MiB PNG in 64 KiB pieces, never more than one block in memory."""
    head, pad_length, tail = _oversized_parts()
    yield head
    remaining = pad_length
    while remaining:
        block = _PAD_BLOCK if remaining >= len(_PAD_BLOCK) else _PAD_BLOCK[:remaining]
        yield block
        remaining -= len(block)
    yield tail


def undecodable_bytes() -> bytes:
    """Bytes served as ``image/png`` that are not an image at all."""
    return b"This is plain text pretending to be a PNG. A careful client says so.\n" * 4


@functools.cache
def audio_ogg() -> bytes:
    """The spoken clip (espeak-ng, 16 kHz mono Ogg Vorbis), from package data."""
    return resources.files("openwop_tui.demo_host").joinpath("media/hello.ogg").read_bytes()


@functools.cache
def report_csv() -> bytes:
    """A small CSV report, offered as a downloadable ``media.file``."""
    rows = [
        ("family", "display", "delivery", "expected in a terminal"),
        ("markdown", "markdown", "streamed chunks", "rendered text"),
        ("code", "code", "completion", "highlighted block"),
        ("card", "card", "completion", "bordered card"),
        ("image", "image", "asset URL", "pixels"),
        ("image", "image", "inline base64", "pixels"),
        ("audio", "audio", "asset URL", "played through the sound card"),
        ("file", "file", "asset URL", "saved on request"),
        ("unknown", "hologram", "completion", "text fallback"),
        ("none", "(absent)", "payload", "raw JSON"),
    ]
    return "".join(",".join(row) + "\r\n" for row in rows).encode("utf-8")
