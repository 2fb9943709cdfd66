"""Recording a voice message (issue 25, part 2): the bar's line, the bar in an app, and the
controller that turns the record key into a clip.

The recorder runs over `recorder_support.FakeInput`, pumped by the test: the figures on the bar
are the frames pumped, whatever the timer did meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from io import BytesIO

import pytest
import soundfile
from app_support import settle
from recorder_support import BLOCK, RATE, FakeInput, raising, sine
from textual.app import App, ComposeResult
from textual.widgets import Input

from openwop_tui.devices.recorder import Recorder
from openwop_tui.ui.controllers.recording import RecordingController
from openwop_tui.ui.widgets.recording import (
    DEFAULT_KEYS,
    Reading,
    RecordingBar,
    clock,
    recording_line,
)

HISTORY = tuple(index / 20 for index in range(21))


# ------------------------------------------------------------------ the line


def test_the_line_shows_the_dot_time_meter_cap_and_keys() -> None:
    line = recording_line(Reading(3.7, 0.5, HISTORY, 120.0), "F7 stops · Esc discards", 76)
    # The last 16 levels (all there is room for at 76 cells), then half the bar.
    assert line.plain == (
        "● Recording 0:03 of 2:00  ▃▃▃▄▄▅▅▅▆▆▆▇▇▇██ ████      F7 stops · Esc discards"
    )
    assert line.cell_length == 76
    dot = line.spans[0]
    assert (line.plain[dot.start : dot.end], dot.style) == ("● ", "$text-error")


def test_the_sparkline_runs_from_silence_to_full_scale_newest_on_the_right() -> None:
    line = recording_line(Reading(1.0, 1.0, (0.0, 0.5, 1.0), 120.0), "", 0).plain
    assert "      ▁▅█ ████████" in line  # a short history fills from the right


def test_the_level_bar_is_drawn_in_eighths() -> None:
    line = recording_line(Reading(0.0, 1 / 16, (), 120.0), "", 0).plain
    assert line.endswith(" ▌       ")  # half of the first of eight cells
    assert recording_line(Reading(0.0, 0.0, (), 120.0), "", 0).plain.endswith(" " * 8)


def test_a_narrow_line_keeps_the_time_and_the_keys() -> None:
    reading = Reading(65.0, 0.8, HISTORY, 120.0)
    widths = [recording_line(reading, DEFAULT_KEYS, width).plain for width in (60, 50, 20)]
    assert widths[0] == "● Recording 1:05 of 2:00  ██████▍   F7 stops · Esc discards"
    assert widths[1] == "● Recording 1:05 of 2:00  F7 stops · Esc discards"
    assert widths[2] == "● 1:05 of 2:00  F7 stops · Esc discards"  # the widget ends it with …


def test_the_keys_are_the_ones_given() -> None:
    line = recording_line(Reading(1.0, 0.1), "ctrl+r stops · Esc discards", 0).plain
    assert line.endswith("  ctrl+r stops · Esc discards")
    hostile = recording_line(Reading(1.0, 0.1), "\x1b]52;c;AAAA\x07evil\nkeys").plain
    assert hostile.endswith("  ␛]52;c;AAAA␇evil␊keys")  # shown, not obeyed, on one line


def test_the_time_warns_near_the_cap() -> None:
    calm = recording_line(Reading(100.0, 0.1), "", 0)
    near = recording_line(Reading(111.0, 0.1), "", 0)
    assert [span.style for span in calm.spans if span.style.startswith("bold $text-warning")] == []
    assert any(span.style == "bold $text-warning" for span in near.spans)


def test_clock() -> None:
    assert [clock(s) for s in (0, 3.9, 59.99, 60, 120, -1)] == [
        "0:00",
        "0:03",
        "0:59",
        "1:00",
        "2:00",
        "0:00",
    ]


# ------------------------------------------------------------------- the app


@dataclass
class Told:
    """What the controller handed the app."""

    clips: list[tuple[bytes, str, str, float]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def clip(self, data: bytes, name: str, mime: str, duration: float) -> None:
        self.clips.append((data, name, mime, duration))


class RecordingHost(App[None]):
    """A minimal app: the bar above an input, and the controller over a stand-in stream."""

    def __init__(self, recorder: Recorder) -> None:
        super().__init__()
        self.told = Told()
        self.bar = RecordingBar("F7 stops · Esc discards")
        self.recorder = recorder
        self.recording = RecordingController(
            self.bar,
            on_clip=self.told.clip,
            on_error=self.told.errors.append,
            on_note=self.told.notes.append,
            recorder=recorder,
            now=lambda: datetime(2025, 3, 14, 9, 26, 53),
        )

    def compose(self) -> ComposeResult:
        yield self.bar
        yield Input(placeholder="Type a message")


def hosted(cap_seconds: float = 120.0) -> tuple[RecordingHost, FakeInput]:
    source = FakeInput()
    return RecordingHost(Recorder(source, cap_seconds=cap_seconds)), source


async def test_the_bar_is_shown_only_while_recording() -> None:
    app, source = hosted()
    async with app.run_test(size=(80, 24)) as pilot:
        assert not app.bar.display and app.bar.reading is None
        app.recording.toggle()
        await pilot.pause()
        assert app.recording.recording
        assert app.bar.display and app.bar.region.height == 1
        source.stream.pump(sine(1.5))
        app.recording.refresh()
        reading = app.bar.reading
        assert reading is not None and reading.elapsed == pytest.approx(1.5, abs=BLOCK / RATE)
        assert reading.level > 0.8 and reading.cap == 120.0  # a 0.5 sine: -9 dBFS
        app.recording.toggle()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not app.bar.display and not app.recording.recording


async def test_the_timer_redraws_the_bar_as_audio_arrives() -> None:
    app, source = hosted()
    async with app.run_test(size=(80, 24)) as pilot:
        app.recording.toggle()
        source.stream.pump(sine(2.0))
        await settle(
            pilot,
            app,
            lambda: app.bar.reading is not None and app.bar.reading.elapsed >= 1.9,
            what="the bar's next tick",
            workers=False,
        )
        app.recording.discard()


async def test_toggle_twice_hands_on_the_clip() -> None:
    app, source = hosted()
    async with app.run_test(size=(80, 24)):
        app.recording.toggle()
        source.stream.pump(sine(3.0))
        app.recording.toggle()
        assert app.recording.saving and not app.recording.recording
        app.recording.toggle()  # pressed again while saving: no second stop, no new recording
        await app.workers.wait_for_complete()
        assert len(source.streams) == 1
        ((data, name, mime, duration),) = app.told.clips
        assert name == f"voice 2025-03-14 09-26-53{'.ogg' if mime == 'audio/ogg' else '.wav'}"
        assert mime in ("audio/ogg", "audio/wav")
        assert duration == pytest.approx(3.0, abs=BLOCK / RATE)
        assert soundfile.info(BytesIO(data)).duration == pytest.approx(3.0, abs=BLOCK / RATE)
        assert app.told.errors == [] and app.told.notes == []
        assert not app.recording.saving


async def test_discard_hands_on_nothing() -> None:
    app, source = hosted()
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.recording.discard() is False  # nothing recording: the key does its usual
        app.recording.toggle()
        source.stream.pump(sine(2.0))
        assert app.recording.discard() is True
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert source.stream.closed and not app.bar.display
        assert app.told == Told()


async def test_the_cap_stops_the_recording_and_says_so() -> None:
    app, source = hosted(cap_seconds=2.0)
    async with app.run_test(size=(80, 24)):
        app.recording.toggle()
        source.stream.pump(sine(3.0))
        app.recording.refresh()  # what the next tick does
        await app.workers.wait_for_complete()
        ((_data, _name, _mime, duration),) = app.told.clips
        assert duration == 2.0
        assert app.told.notes == ["Recording stopped at its 0:02 limit."]
        assert not app.bar.display


async def test_a_lost_microphone_keeps_the_clip_or_says_why_not() -> None:
    app, source = hosted()
    async with app.run_test(size=(80, 24)):
        app.recording.toggle()
        source.stream.pump(sine(1.0))
        source.stream.vanish()
        app.recording.refresh()
        await app.workers.wait_for_complete()
        assert len(app.told.clips) == 1
        assert app.told.notes == [
            "The microphone went away after 1.0 s; what was recorded until then is kept."
        ]
        app.recording.toggle()
        source.stream.pump(sine(0.2))
        source.stream.vanish()
        app.recording.refresh()
        await app.workers.wait_for_complete()
        assert len(app.told.clips) == 1
        assert app.told.errors == [
            "The microphone went away after 0.2 s, too soon to keep anything; reconnect it and "
            "record again."
        ]


async def test_a_clip_too_short_is_said_not_handed_on() -> None:
    app, source = hosted()
    async with app.run_test(size=(80, 24)):
        app.recording.toggle()
        source.stream.pump(sine(0.1))
        app.recording.toggle()
        await app.workers.wait_for_complete()
        assert app.told.clips == []
        assert app.told.errors == [
            "The recording was too short to send (0.1 s); record again and speak for at least "
            "a second."
        ]


async def test_no_portaudio_is_said_and_nothing_is_shown() -> None:
    app = RecordingHost(Recorder(raising(OSError("PortAudio library not found"))))
    async with app.run_test(size=(80, 24)) as pilot:
        app.recording.toggle()
        await pilot.pause()
        assert not app.recording.recording and not app.bar.display
        (error,) = app.told.errors
        assert "libportaudio2" in error


async def test_the_bar_names_rebound_keys() -> None:
    app, source = hosted()
    async with app.run_test(size=(80, 24)) as pilot:
        app.recording.toggle()
        source.stream.pump(sine(0.5))
        app.bar.keys = "ctrl+r stops · Esc discards"
        await pilot.pause()
        assert app.bar.render().plain.endswith("ctrl+r stops · Esc discards")
        app.recording.close()
        assert not app.recording.recording and source.stream.closed
