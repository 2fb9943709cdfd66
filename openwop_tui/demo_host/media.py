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

#: What the clip says (espeak-ng). Not its alt text: its second sentence claims a sound card,
#: which the machine showing it may not have (issue 27).
AUDIO_TRANSCRIPT = (
    "Hello from the open WOP demo host. This clip was played through your sound card."
)
#: The clip's alt text: what it is, true wherever it is shown, played or not.
AUDIO_ALT = "A synthetic voice greeting you from the open WOP demo host (5 seconds)."

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


@functools.cache
def bitmap_bmp() -> bytes:
    """A small Windows bitmap: a real image in a format that is not a web image format."""
    image = Image.new("RGB", (48, 32), "#264653")
    draw = ImageDraw.Draw(image)
    draw.rectangle((6, 6, 41, 25), outline="#e9c46a", width=3)
    out = io.BytesIO()
    image.save(out, format="BMP")
    return out.getvalue()


@functools.cache
def animated_gif() -> bytes:
    """A three-frame animated GIF (a dot moving across): a client draws the first frame."""
    frames = []
    for index, colour in enumerate(("#e76f51", "#f4a261", "#2a9d8f")):
        frame = Image.new("RGB", (60, 30), "#1d3557")
        ImageDraw.Draw(frame).ellipse((4 + index * 18, 7, 20 + index * 18, 23), fill=colour)
        frames.append(frame)
    out = io.BytesIO()
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:], duration=300, loop=0)
    return out.getvalue()


#: The pixel-bomb PNG's size: 48 million pixels, over the client's default 40 million cap.
HUGE_PIXELS = (8000, 6000)


def _chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


@functools.cache
def huge_pixels_png() -> bytes:
    """A valid 8000x6000 one-bit PNG of a few kilobytes: small to fetch, far too many pixels
    to decode (the decompression-bomb shape). Built directly, so nothing decodes it here."""
    width, height = HUGE_PIXELS
    row = b"\x00" + bytes((width + 7) // 8)  # filter byte, then one bit a pixel: all black
    compressor = zlib.compressobj(9)
    body = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)  # 1-bit greyscale
    return _PNG_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", body) + _chunk(b"IEND", b"")


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
