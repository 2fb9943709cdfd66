"""Which image formats are decoded: web formats only, named from their bytes before decoding.

Pillow knows dozens of formats, several with large, rarely exercised parsers (EPS runs
Ghostscript, PSD, TIFF, JPEG 2000 …). A chat client shows what a web page would show, so only
`WEB_FORMATS` are handed to Pillow, and Pillow is told so (``Image.open(formats=...)``) so it
never tries another parser. `sniff` names the format from the first bytes without parsing, so the
user is told what the file is ("TIFF is not a web image format") instead of "unknown".
"""

from __future__ import annotations

__all__ = ["WEB_FORMATS", "WEB_NAMES", "sniff"]

WEB_FORMATS = ("PNG", "JPEG", "GIF", "WEBP")
"""Pillow's names of the formats decoded (the ones every browser shows)."""

WEB_NAMES = "PNG, JPEG, GIF and WebP"
"""The same, as a user reads them."""

# (prefix, offset, name): enough of each format's signature to name it, not to trust it.
_SIGNATURES: tuple[tuple[bytes, int, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0, "PNG"),
    (b"\xff\xd8\xff", 0, "JPEG"),
    (b"GIF87a", 0, "GIF"),
    (b"GIF89a", 0, "GIF"),
    (b"WEBP", 8, "WEBP"),
    (b"BM", 0, "BMP"),
    (b"II*\x00", 0, "TIFF"),
    (b"MM\x00*", 0, "TIFF"),
    (b"II+\x00", 0, "TIFF"),
    (b"MM\x00+", 0, "TIFF"),
    (b"%!PS", 0, "EPS"),
    (b"\xc5\xd0\xd3\xc6", 0, "EPS"),
    (b"%PDF", 0, "PDF"),
    (b"8BPS", 0, "PSD"),
    (b"\x00\x00\x00\x0cjP  \r\n\x87\n", 0, "JPEG 2000"),
    (b"\xff\x4f\xff\x51", 0, "JPEG 2000"),
    (b"\x00\x00\x01\x00", 0, "ICO"),
    (b"\x00\x00\x02\x00", 0, "CUR"),
    (b"icns", 0, "ICNS"),
    (b"DDS ", 0, "DDS"),
    (b"qoif", 0, "QOI"),
    (b"gimp xcf", 0, "XCF"),
    (b"\x76\x2f\x31\x01", 0, "OpenEXR"),
    (b"#?RADIANCE", 0, "Radiance HDR"),
    (b"SIMPLE  =", 0, "FITS"),
    (b"\x59\xa6\x6a\x95", 0, "Sun raster"),
    (b"\x0a\x05\x01", 0, "PCX"),
    (b"P1", 0, "PBM"),
    (b"P4", 0, "PBM"),
    (b"P2", 0, "PGM"),
    (b"P5", 0, "PGM"),
    (b"P3", 0, "PPM"),
    (b"P6", 0, "PPM"),
)

_ISO_BRANDS = {b"avif": "AVIF", b"avis": "AVIF", b"heic": "HEIC", b"heix": "HEIC", b"mif1": "HEIF"}


def sniff(data: bytes) -> str | None:
    """The format ``data`` looks like from its first bytes (``"PNG"``, ``"TIFF"``, ``"SVG"`` …),
    or ``None`` when it looks like nothing known. Nothing is parsed: a name, not a verdict."""
    head = data[:64]
    if head[8:12] == b"WEBP" and head[:4] == b"RIFF":
        return "WEBP"
    if head[4:8] == b"ftyp" and (brand := _ISO_BRANDS.get(head[8:12])):
        return brand
    for prefix, offset, name in _SIGNATURES:
        if name != "WEBP" and head[offset : offset + len(prefix)] == prefix:
            return name
    text = head.lstrip().lower()
    if text.startswith((b"<svg", b"<?xml")) or b"<svg" in data[:1024].lower():
        return "SVG"
    return None
