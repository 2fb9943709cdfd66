"""A sound's waveform in a line of block characters (``▁▂▃▄▅▆▇█``): one peak per column.

The peaks are computed once per clip, at `RESOLUTION` columns, and kept (`clip_peaks`, keyed by
the bytes' digest): the renderer draws them at its width and the app's playback line draws the
same peaks again, coloured up to the playing position, without decoding anything twice. Any
narrower width is drawn by taking the loudest of the stored peaks under each column (`fit`).
A voice note (`is_voice`: the payload says ``"audioAsVoice": true``) gets a compact one.

The cost is bounded by the width, not by the clip: a column's peak is the loudest sample in at
most `PROBES` windows of `WINDOW` frames spread across its span (read after a seek), so a clip
of ten minutes touches no more samples than `RESOLUTION` x `PROBES` x `WINDOW`; a short clip
is read whole. A probe can miss a click between windows; for speech and music, whose loudness
changes over tens of milliseconds, the shape is right.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from io import BytesIO

from rich.text import Text

from openwop_tui.protocol.envelopes import Envelope

__all__ = [
    "BLOCKS",
    "PROBES",
    "RESOLUTION",
    "VOICE_COLUMNS",
    "WINDOW",
    "clip_peaks",
    "column_peaks",
    "draw",
    "fit",
    "is_voice",
    "waveform_columns",
]

BLOCKS = "▁▂▃▄▅▆▇█"
#: Columns computed per clip; drawings are at most this wide.
RESOLUTION = 64
#: Windows read per column, and frames per window: the most a column costs.
PROBES = 4
WINDOW = 64

#: Columns of a voice note's waveform (a clip's is as wide as the body, up to `RESOLUTION`).
VOICE_COLUMNS = 24
VOICE_LABEL = "🎤 voice note"

_CACHE_SIZE = 32
_cache: OrderedDict[bytes, tuple[float, ...]] = OrderedDict()
_cache_lock = threading.Lock()

Reader = Callable[[int, int], float]
"""``read(start, count)``: the loudest absolute sample (0..1) of ``count`` frames at ``start``."""


def is_voice(envelope: Envelope) -> bool:
    """Whether the envelope is a voice note: its payload says ``"audioAsVoice": true``."""
    payload = envelope.payload
    return isinstance(payload, Mapping) and payload.get("audioAsVoice") is True


def waveform_columns(width: int, voice: bool) -> int:
    """How many columns the waveform of a clip drawn ``width`` cells wide takes."""
    return max(1, min(VOICE_COLUMNS if voice else RESOLUTION, width))


def column_peaks(frames: int, read: Reader, columns: int = RESOLUTION) -> tuple[float, ...]:
    """The peak of each of ``columns`` equal spans of a sound ``frames`` long.

    A span no longer than `PROBES` x `WINDOW` frames is read whole; a longer one through
    `PROBES` windows spread from its start to its end. Fewer columns than asked when the
    sound has fewer frames than columns.
    """
    columns = min(columns, frames)
    if columns <= 0:
        return ()
    peaks: list[float] = []
    budget = PROBES * WINDOW
    for column in range(columns):
        start = column * frames // columns
        span = (column + 1) * frames // columns - start
        if span <= budget:
            peaks.append(read(start, span))
            continue
        step = (span - WINDOW) // (PROBES - 1)
        peaks.append(max(read(start + probe * step, WINDOW) for probe in range(PROBES)))
    return tuple(peaks)


def _soundfile_peaks(data: bytes) -> tuple[float, ...]:
    """Decode only the probed windows of ``data``; ``()`` when it cannot be read."""
    try:
        import numpy
        import soundfile
    except (ImportError, OSError):
        return ()
    try:
        with soundfile.SoundFile(BytesIO(data)) as sound:
            if not sound.seekable():  # libsndfile seeks in all its formats; decode nothing else
                return ()

            def read(start: int, count: int) -> float:
                sound.seek(start)
                block = sound.read(frames=count, dtype="float32", always_2d=True)
                return float(numpy.abs(block).max()) if block.size else 0.0

            return column_peaks(int(sound.frames), read)
    except (RuntimeError, TypeError, ValueError):
        return ()


def clip_peaks(data: bytes) -> tuple[float, ...]:
    """The clip's `RESOLUTION` column peaks, computed on the first call for these bytes."""
    digest = hashlib.blake2b(data, digest_size=16).digest()
    with _cache_lock:
        found = _cache.get(digest)
        if found is not None:
            _cache.move_to_end(digest)
            return found
    peaks = _soundfile_peaks(data)  # outside the lock: other clips need not wait
    with _cache_lock:
        _cache[digest] = peaks
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return peaks


def fit(peaks: Sequence[float], columns: int) -> tuple[float, ...]:
    """``peaks`` drawn in ``columns``: the loudest of the peaks under each column."""
    count = len(peaks)
    if columns >= count:
        return tuple(peaks)
    if columns <= 0:
        return ()
    return tuple(
        max(peaks[column * count // columns : (column + 1) * count // columns])
        for column in range(columns)
    )


def draw(
    peaks: Sequence[float],
    columns: int,
    *,
    played: float | None = None,
    style: str = "",
    played_style: str = "",
) -> Text:
    """The waveform in ``columns`` block characters, scaled to the clip's loudest peak.

    Args:
        peaks: The clip's peaks, fitted to ``columns``.
        columns: Characters wide.
        played: The fraction of the clip heard (0 to 1), drawn in ``played_style``; None draws it
            all in ``style``.
        style: The style of the waveform (the part not heard, when ``played`` is given).
        played_style: The style of the part heard.
    """
    fitted = fit(peaks, columns)
    loudest = max(fitted, default=0.0)
    top = len(BLOCKS) - 1
    chars = "".join(
        BLOCKS[min(top, round(peak / loudest * top)) if loudest > 0 else 0] for peak in fitted
    )
    text = Text(chars, style=style)
    if played is not None:
        heard = round(min(max(played, 0.0), 1.0) * len(chars))
        text.stylize(played_style, 0, heard)
    return text
