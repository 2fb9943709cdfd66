"""What an attachment holds, said truthfully without a model: the demo host's "vision" and
"hearing" for ``demo.chat``.

Each reader looks at the bytes with an ordinary library and states facts: a picture's format,
size and dominant colours (Pillow's median-cut ``quantize``, each colour named by the nearest
of a small palette, with its hex); a text's lines, words and (markdown) headings; JSON's
top-level type and keys; CSV's rows and columns; a PDF's page count (its page objects); a
sound's duration, sample rate, channels and loudness (RMS dBFS, `soundfile`). A file a reader
cannot make sense of gets a sentence saying so, never an exception.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Callable

from PIL import GifImagePlugin, Image, JpegImagePlugin, PngImagePlugin, WebPImagePlugin

from openwop_tui.demo_host.attachments import Attachment, clean, label

#: Pictures with more pixels than this are sized but not decoded (a decompression bomb's shape).
MAX_PIXELS = 16_000_000

#: Sound beyond this many seconds is not decoded for its loudness.
MAX_LOUDNESS_SECONDS = 300

#: The colour names a dominant colour is called by (the nearest in RGB).
PALETTE: dict[str, tuple[int, int, int]] = {
    "black": (0, 0, 0),
    "dark grey": (64, 64, 64),
    "grey": (128, 128, 128),
    "light grey": (200, 200, 200),
    "white": (255, 255, 255),
    "red": (255, 0, 0),
    "dark red": (139, 0, 0),
    "orange": (255, 165, 0),
    "brown": (139, 69, 19),
    "yellow": (255, 255, 0),
    "olive": (128, 128, 0),
    "green": (0, 128, 0),
    "lime": (0, 255, 0),
    "teal": (0, 128, 128),
    "cyan": (0, 255, 255),
    "blue": (0, 0, 255),
    "navy": (0, 0, 128),
    "purple": (128, 0, 128),
    "magenta": (255, 0, 255),
    "pink": (255, 192, 203),
}

#: Each picture type's own reader: chosen by the declared (and checked) type, so Pillow's
#: format guessing never runs, and with it its decompression-bomb warning (`MAX_PIXELS` is
#: checked here first, far below it).
_IMAGE_READERS: dict[str, Callable[[io.BytesIO], Image.Image]] = {
    "image/png": PngImagePlugin.PngImageFile,
    "image/jpeg": JpegImagePlugin.JpegImageFile,
    "image/gif": GifImagePlugin.GifImageFile,
    "image/webp": WebPImagePlugin.WebPImageFile,
}

#: The multiplication sign of "64 by 32 pixels" (an escape: ruff flags the character as ambiguous).
TIMES = "\u00d7"

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_OBJECT = re.compile(r"<[^<>]* at 0x[0-9A-Fa-f]+>")
_PAGE = re.compile(rb"/Type\s*/Page(?![A-Za-z])")
_PDF_VERSION = re.compile(rb"%PDF-(\d\.\d)")


def colour_name(rgb: tuple[int, int, int]) -> str:
    """The `PALETTE` name nearest to ``rgb``."""

    def distance(name: str) -> int:
        return sum((a - b) ** 2 for a, b in zip(PALETTE[name], rgb, strict=True))

    return min(PALETTE, key=distance)


def dominant_colours(image: Image.Image, most: int = 4) -> list[tuple[tuple[int, int, int], float]]:
    """Up to ``most`` dominant colours of ``image`` and the share of the picture each covers,
    largest first; colours under 5% are left out (one is always kept)."""
    if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info:
        rgba = image.convert("RGBA")
        backdrop = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        backdrop.alpha_composite(rgba)  # transparent parts count as the white they show on
        rgb = backdrop.convert("RGB")
    else:
        rgb = image.convert("RGB")
    # Nearest-neighbour keeps colours exact (a filter would blend edges into new ones).
    rgb.thumbnail((128, 128), Image.Resampling.NEAREST)
    quantized = rgb.quantize(colors=most, method=Image.Quantize.MEDIANCUT)
    palette = quantized.getpalette() or []
    counts = sorted(quantized.getcolors() or [], reverse=True)
    total = sum(count for count, _ in counts) or 1
    found = []
    for count, index in counts:
        if not isinstance(index, int):  # (a "P" image's colours are palette indexes)
            continue
        r, g, b = palette[3 * index : 3 * index + 3]
        found.append(((r, g, b), count / total))
    return [c for i, c in enumerate(found) if i == 0 or c[1] >= 0.05]


def _image(data: bytes, mime: str) -> str:
    with _IMAGE_READERS[mime](io.BytesIO(data)) as image:
        width, height = image.size
        facts = f"a {image.format} picture, {width}{TIMES}{height} pixels"
        if getattr(image, "is_animated", False):
            facts += ", animated"
        if width * height > MAX_PIXELS:
            return facts + f"; more than {MAX_PIXELS:,} pixels, so I did not look at its colours"
        if mime == "image/jpeg":
            image.draft("RGB", (256, 256))  # decode at a fraction of the size: enough for colours
        colours = ", ".join(
            f"{colour_name(rgb)} `#{rgb[0]:02x}{rgb[1]:02x}{rgb[2]:02x}` ({share:.0%})"
            for rgb, share in dominant_colours(image)
        )
    return f"{facts}; its main colours: {colours}"


def _text(data: bytes, mime: str) -> str:
    text = data.decode("utf-8-sig")
    lines, words = len(text.splitlines()), len(text.split())
    facts = f"{lines:,} line{'s' * (lines != 1)}, {words:,} word{'s' * (words != 1)}"
    if mime == "text/markdown":
        headings = _headings(text)
        shown = ", ".join(f"`{'#' * level} {clean(title, 60)}`" for level, title in headings[:8])
        more = f" and {len(headings) - 8} more" if len(headings) > 8 else ""
        facts += f"; headings: {shown}{more}" if headings else "; no headings"
    return facts


def _headings(text: str) -> list[tuple[int, str]]:
    """The ATX headings of a markdown text (``# Title``), outside fenced code blocks."""
    found, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (match := _HEADING.match(line)):
            found.append((len(match.group(1)), match.group(2)))
    return found


def _json(data: bytes, mime: str) -> str:
    value = json.loads(data.decode("utf-8-sig"))
    if isinstance(value, dict):
        keys = ", ".join(f"`{clean(str(k), 40)}`" for k in list(value)[:10])
        more = f" and {len(value) - 10} more" if len(value) > 10 else ""
        return f"a JSON object with {len(value)} keys: {keys}{more}" if value else "an empty object"
    if isinstance(value, list):
        return f"a JSON array of {len(value):,} items"
    kinds = {str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    return "JSON " + kinds.get(type(value), "null")


def _csv(data: bytes, mime: str) -> str:
    rows = [row for row in csv.reader(io.StringIO(data.decode("utf-8-sig"))) if row]
    if not rows:
        return "an empty table"
    columns = max(len(row) for row in rows)
    first = ", ".join(clean(cell, 30) for cell in rows[0][:8])
    return f"a table of {len(rows):,} rows {TIMES} {columns} columns; its first row: {first}"


def _pdf(data: bytes, mime: str) -> str:
    version = _PDF_VERSION.match(data)
    said = f"a PDF {version.group(1).decode()} document" if version else "a PDF document"
    pages = len(_PAGE.findall(data))
    if not pages:  # page objects inside compressed object streams are not visible as bytes
        return f"{said}; its pages are in compressed streams, so I could not count them"
    return f"{said} of {pages} page{'s' * (pages != 1)}"


def _audio(data: bytes, mime: str) -> str:
    # Imported here: numpy and libsndfile are a host's start-up cost only once a sound arrives.
    import numpy as np
    import soundfile

    info = soundfile.info(io.BytesIO(data))
    frames = min(info.frames, MAX_LOUDNESS_SECONDS * info.samplerate)
    samples, _ = soundfile.read(io.BytesIO(data), frames=frames, dtype="float32", always_2d=True)
    rms = math.sqrt(float(np.mean(np.square(samples, dtype=np.float64)))) if samples.size else 0
    loudness = f"loudness {20 * math.log10(rms):.1f} dBFS (RMS)" if rms > 0 else "silent"
    if info.frames > frames:
        loudness += f" over its first {MAX_LOUDNESS_SECONDS} s"
    channels = {1: "mono", 2: "stereo"}.get(info.channels, f"{info.channels} channels")
    return (
        f"{info.format} {info.subtype} sound of {info.duration:.2f} s, "
        f"{info.samplerate:,} Hz, {channels}, {loudness}"
    )


_READERS: dict[str, Callable[[bytes, str], str]] = {
    **dict.fromkeys(_IMAGE_READERS, _image),
    "text/plain": _text,
    "text/markdown": _text,
    "application/json": _json,
    "text/csv": _csv,
    "application/pdf": _pdf,
    "audio/ogg": _audio,
    "audio/wav": _audio,
}


def describe(part: Attachment) -> str:
    """One markdown list item: the part named (`label`), then what it holds, or why it could
    not be read."""
    if part.data is None:
        return f"- {label(part)}: I could not read it: {part.problem or 'it has no bytes'}."
    try:
        said = _READERS[part.mime_type](part.data, part.mime_type)
    except Exception as error:  # a reader's failure is the answer's sentence, never the run's
        # libsndfile's own words, without the "Error opening <_io.BytesIO object at 0x…>: "
        said = getattr(error, "error_string", None) or str(error)
        reason = clean(_OBJECT.sub("the bytes", str(said)), 120) or type(error).__name__
        return f"- {label(part)}: I could not read it: it does not decode ({reason})."
    return f"- {label(part)}: {said}."


def section(parts: list[Attachment]) -> str:
    """The reply's ``## What you sent`` section, one line a part."""
    lines = "\n".join(describe(part) for part in parts)
    return f"## What you sent\n\n{lines}\n\n"
