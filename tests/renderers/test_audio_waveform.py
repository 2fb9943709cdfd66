"""`openwop_tui.renderers.waveform`: peaks that follow the sound, at a cost bounded by the width.

Cost is counted in samples read (never timed): a ten-minute clip touches no more frames than
`RESOLUTION` x `PROBES` x `WINDOW`, through the pure `column_peaks` and through soundfile.
"""

from __future__ import annotations

import io
import wave
from typing import Any

import numpy as np
import pytest
import soundfile
from test_renderers_audio import burst_then_silence

from openwop_tui.renderers import waveform
from openwop_tui.renderers.waveform import (
    PROBES,
    RESOLUTION,
    WINDOW,
    clip_peaks,
    column_peaks,
    draw,
    fit,
)

BOUND = RESOLUTION * PROBES * WINDOW


def sine_burst_reader(frames: int, loud_until: int) -> tuple[Any, list[int]]:
    """A reader over a sine (period 100 frames) up to ``loud_until``, then silence; it counts."""
    touched: list[int] = []

    def read(start: int, count: int) -> float:
        assert start >= 0 and start + count <= frames  # never outside the clip
        touched.append(count)
        index = np.arange(start, start + count)
        samples = np.where(index < loud_until, np.sin(2 * np.pi * index / 100), 0.0)
        return float(np.abs(samples).max()) if count else 0.0

    return read, touched


def test_a_sine_burst_then_silence_is_high_then_low() -> None:
    frames = 48_000 * 4
    read, _ = sine_burst_reader(frames, loud_until=frames // 4)
    peaks = column_peaks(frames, read, 16)
    assert all(peak > 0.99 for peak in peaks[:4])
    assert all(peak == 0.0 for peak in peaks[4:])
    assert draw(peaks, 16).plain == "████" + "▁" * 12


def test_the_cost_of_a_ten_minute_clip_is_bounded_by_the_width() -> None:
    frames = 48_000 * 600
    read, touched = sine_burst_reader(frames, loud_until=frames)
    peaks = column_peaks(frames, read)
    assert len(peaks) == RESOLUTION and min(peaks) > 0.99
    assert sum(touched) <= BOUND
    assert len(touched) == RESOLUTION * PROBES


def test_a_short_clip_is_read_whole_once() -> None:
    read, touched = sine_burst_reader(1000, loud_until=1000)
    assert len(column_peaks(1000, read)) == RESOLUTION
    assert sum(touched) == 1000
    read, touched = sine_burst_reader(10, loud_until=10)
    assert len(column_peaks(10, read)) == 10  # fewer frames than columns: one column a frame
    assert column_peaks(0, read) == ()


def long_wav(seconds: int, rate: int = 8000) -> bytes:
    samples = (np.arange(seconds * rate) % 200 * 100 - 10000).astype("<i2")
    out = io.BytesIO()
    with wave.open(out, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(rate)
        writer.writeframes(samples.tobytes())
    return out.getvalue()


def test_soundfile_reads_only_the_probed_frames(monkeypatch: pytest.MonkeyPatch) -> None:
    read = soundfile.SoundFile.read
    touched: list[int] = []

    def counting(self: Any, frames: int = -1, *args: Any, **kwargs: Any) -> Any:
        block = read(self, frames, *args, **kwargs)
        touched.append(len(block))
        return block

    monkeypatch.setattr(soundfile.SoundFile, "read", counting)
    data = long_wav(600)
    peaks = clip_peaks(data)
    assert len(peaks) == RESOLUTION and min(peaks) > 0.3
    assert 0 < sum(touched) <= BOUND
    touched.clear()
    assert clip_peaks(data) == peaks  # computed once per clip: the second call reads nothing
    assert touched == []


def test_the_peaks_of_real_bytes_follow_the_sound() -> None:
    text = draw(clip_peaks(burst_then_silence()), 8).plain
    assert text == "████▁▁▁▁"


def test_undecodable_bytes_have_no_waveform() -> None:
    assert clip_peaks(b"definitely not audio") == ()
    assert draw((), 40).plain == ""


def test_the_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(waveform, "_cache", type(waveform._cache)())
    for index in range(waveform._CACHE_SIZE + 5):
        clip_peaks(b"not audio %d" % index)
    assert len(waveform._cache) == waveform._CACHE_SIZE


def test_fit_keeps_the_loudest_peak_of_each_column() -> None:
    peaks = (0.0, 0.1, 0.9, 0.0, 0.0, 0.5)
    assert fit(peaks, 3) == (0.1, 0.9, 0.5)
    assert fit(peaks, 10) == peaks
    assert fit(peaks, 0) == ()


def test_the_played_part_is_styled_apart() -> None:
    text = draw((1.0,) * 10, 10, played=0.3, style="dim", played_style="bold")
    assert text.plain == "█" * 10
    assert [(span.start, span.end, str(span.style)) for span in text.spans] == [(0, 3, "bold")]
    assert text.style == "dim"
    assert draw((1.0,) * 10, 10, played=7.0, played_style="bold").spans[0].end == 10
    assert draw((1.0,) * 10, 10, played=-1, played_style="bold").spans == []
