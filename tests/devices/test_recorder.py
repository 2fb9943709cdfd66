"""Recording a voice message (issue 25, part 2): the recorder over a stand-in input stream.

A generated signal is pumped through `recorder_support.FakeInput`, so every figure here is
counted in frames: no sound card, no sleeps, no clock.
"""

from __future__ import annotations

from io import BytesIO

import numpy as np
import pytest
import soundfile
from recorder_support import BLOCK, RATE, FakeInput, Flags, raising, sine

from openwop_tui.devices.recorder import (
    Recorder,
    RecordingError,
    encode,
    level_of,
)

ONE_BLOCK = BLOCK / RATE


def recording(cap_seconds: float = 120.0) -> tuple[Recorder, FakeInput]:
    source = FakeInput()
    recorder = Recorder(source, cap_seconds=cap_seconds)
    recorder.start()
    return recorder, source


def test_three_seconds_of_a_sine_become_a_three_second_clip() -> None:
    recorder, source = recording()
    assert source.stream.started
    assert source.stream.settings["channels"] == 1
    assert source.stream.settings["dtype"] == "float32"
    assert recorder.recording and recorder.rate == RATE
    source.stream.pump(sine(3.0))
    assert recorder.elapsed == pytest.approx(3.0, abs=ONE_BLOCK)
    clip = recorder.stop()
    assert not recorder.recording and source.stream.closed
    assert clip.mime in ("audio/ogg", "audio/wav")
    assert clip.note is None
    assert clip.duration == pytest.approx(3.0, abs=ONE_BLOCK)
    info = soundfile.info(BytesIO(clip.data))
    assert info.duration == pytest.approx(3.0, abs=ONE_BLOCK)
    assert info.channels == 1
    expected = {"audio/ogg": ("OGG", ".ogg"), "audio/wav": ("WAV", ".wav")}[clip.mime]
    assert (info.format, clip.extension) == expected


def test_the_clip_sounds_like_what_was_recorded() -> None:
    recorder, source = recording()
    source.stream.pump(sine(1.0, amplitude=0.5))
    clip = recorder.stop()
    samples, rate = soundfile.read(BytesIO(clip.data), dtype="float32")
    middle = samples[rate // 4 : 3 * rate // 4]
    # Not the 99s the stand-in writes over its buffer after each block: the blocks were copied.
    assert float(np.sqrt(np.mean(middle**2))) == pytest.approx(0.5 / np.sqrt(2), rel=0.1)
    spectrum = np.abs(np.fft.rfft(middle))
    assert np.fft.rfftfreq(len(middle), 1 / rate)[spectrum.argmax()] == pytest.approx(440, abs=5)


def test_without_vorbis_the_clip_is_a_speech_rate_wav() -> None:
    data, mime = encode(sine(3.0), RATE, vorbis=False)
    assert mime == "audio/wav" and data[:4] == b"RIFF" and data[8:12] == b"WAVE"
    info = soundfile.info(BytesIO(data))
    assert (info.samplerate, info.subtype) == (16_000, "PCM_16")
    assert info.duration == pytest.approx(3.0, abs=ONE_BLOCK)
    samples, rate = soundfile.read(BytesIO(data), dtype="float32")
    spectrum = np.abs(np.fft.rfft(samples))
    assert np.fft.rfftfreq(len(samples), 1 / rate)[spectrum.argmax()] == pytest.approx(440, abs=5)


def test_with_vorbis_the_clip_is_ogg() -> None:
    if not soundfile.check_format("OGG", "VORBIS"):
        pytest.skip("this libsndfile writes no Vorbis")
    data, mime = encode(sine(0.5), RATE)
    assert mime == "audio/ogg" and data[:4] == b"OggS"


def test_the_level_rises_with_the_amplitude() -> None:
    recorder, source = recording()
    levels = []
    for amplitude in (0.001, 0.01, 0.1, 0.9):
        source.stream.pump(sine(0.2, amplitude=amplitude))
        levels.append(recorder.level)
    assert levels == sorted(levels) and len(set(levels)) == 4
    assert levels[0] < 0.1 and levels[-1] > 0.9
    source.stream.pump(np.zeros(BLOCK, dtype=np.float32))
    assert recorder.level == 0.0


def test_the_meter_spans_sixty_decibels() -> None:
    assert level_of(0.0) == 0.0
    assert level_of(float("nan")) == 0.0
    assert level_of(1e-4) == 0.0  # -80 dBFS: below the floor
    assert level_of(10 ** (-30 / 20)) == pytest.approx(0.5)
    assert level_of(1.0) == 1.0
    assert level_of(2.0) == 1.0  # a driver past full scale


def test_the_history_keeps_one_peak_a_tenth_of_a_second() -> None:
    source = FakeInput()
    recorder = Recorder(source, history=8)
    recorder.start()
    source.stream.pump(sine(0.5, amplitude=0.001))
    source.stream.pump(sine(0.5, amplitude=0.9))
    history = recorder.peak_history
    assert len(history) == 8  # the last 8 of 10 tenths
    assert history[:3] == pytest.approx([0.0] * 3, abs=0.01)
    assert min(history[-4:]) > 0.9


def test_capture_stops_at_the_cap_and_says_so() -> None:
    recorder, source = recording(cap_seconds=2.0)
    source.stream.pump(sine(1.5))
    assert recorder.ended is None and not recorder.capped
    source.stream.pump(sine(1.5))
    assert recorder.capped
    assert recorder.elapsed == 2.0  # exactly: the block across the cap is cut at it
    assert recorder.ended == "Recording stopped at its 0:02 limit."
    source.stream.pump(sine(1.0))
    assert recorder.elapsed == 2.0
    clip = recorder.stop()
    assert clip.duration == 2.0
    assert clip.note == "Recording stopped at its 0:02 limit."
    assert soundfile.info(BytesIO(clip.data)).duration == pytest.approx(2.0, abs=ONE_BLOCK)


def test_the_default_cap_is_two_minutes() -> None:
    assert Recorder(FakeInput()).cap_seconds == 120.0


def test_a_missing_portaudio_says_what_to_install() -> None:
    recorder = Recorder(raising(OSError("PortAudio library not found")))
    with pytest.raises(RecordingError) as caught:
        recorder.start()
    assert "libportaudio2" in str(caught.value)
    assert str(caught.value).startswith("Cannot record: the PortAudio library is not installed")
    assert not recorder.recording


def test_no_input_device_says_to_connect_one() -> None:
    sounddevice = pytest.importorskip("sounddevice")
    recorder = Recorder(raising(sounddevice.PortAudioError("Error querying device -1")))
    with pytest.raises(RecordingError, match="no microphone the system can use; connect"):
        recorder.start()
    no_channels = sounddevice.PortAudioError(
        "Error opening InputStream: Invalid number of channels [PaErrorCode -9998]", -9998
    )
    with pytest.raises(RecordingError, match="no microphone"):
        Recorder(raising(no_channels)).start()


def test_a_device_that_refuses_to_open_says_why() -> None:
    sounddevice = pytest.importorskip("sounddevice")
    busy = sounddevice.PortAudioError(
        "Error opening InputStream: Device unavailable [PaErrorCode -9985]", -9985
    )
    with pytest.raises(RecordingError) as caught:
        Recorder(raising(busy)).start()
    sentence = str(caught.value)
    assert "would not open (Error opening InputStream: Device unavailable" in sentence
    assert sentence.endswith("close any other program using it, then try again.")


def test_a_stream_that_will_not_start_is_closed_and_said() -> None:
    sounddevice = pytest.importorskip("sounddevice")
    source = FakeInput()

    def refuse() -> None:
        raise sounddevice.PortAudioError("Error starting stream: Unanticipated host error", -9999)

    def factory(**settings: object) -> object:
        stream = source(**settings)
        stream.start = refuse  # type: ignore[method-assign]
        return stream

    recorder = Recorder(factory)
    with pytest.raises(RecordingError, match="would not open"):
        recorder.start()
    assert source.stream.closed and not recorder.recording


def test_a_device_lost_mid_recording_keeps_what_was_recorded() -> None:
    recorder, source = recording()
    source.stream.pump(sine(1.2))
    source.stream.vanish()
    assert recorder.ended == (
        "The microphone went away after 1.2 s; what was recorded until then is kept."
    )
    clip = recorder.stop()
    assert clip.duration == pytest.approx(1.2, abs=ONE_BLOCK)
    assert clip.note == recorder.ended
    assert soundfile.info(BytesIO(clip.data)).duration == pytest.approx(1.2, abs=ONE_BLOCK)


def test_a_device_lost_too_soon_keeps_nothing() -> None:
    recorder, source = recording()
    source.stream.pump(sine(0.4))
    source.stream.vanish()
    with pytest.raises(RecordingError, match=r"went away after 0\.4 s, too soon to keep anything"):
        recorder.stop()
    assert not recorder.recording


def test_blocks_with_no_input_behind_them_are_a_lost_device() -> None:
    recorder, source = recording()
    source.stream.pump(sine(1.0))
    source.stream.pump(np.zeros(BLOCK, dtype=np.float32), status=Flags(input_underflow=True))
    assert recorder.ended is None  # one glitch is not a missing device
    source.stream.pump(sine(0.5))
    source.stream.pump(np.zeros(RATE // 2, dtype=np.float32), status=Flags(input_underflow=True))
    assert recorder.ended is not None and "went away after 1.5 s" in recorder.ended
    clip = recorder.stop()
    assert clip.duration == pytest.approx(1.5, abs=ONE_BLOCK)  # the made-up silence is not kept


def test_a_clip_too_short_to_send_is_said() -> None:
    recorder, source = recording()
    source.stream.pump(sine(0.2))
    with pytest.raises(RecordingError, match=r"too short to send \(0\.2 s\)"):
        recorder.stop()
    assert not recorder.recording


def test_stopping_by_hand_is_not_a_lost_device() -> None:
    recorder, source = recording()
    source.stream.pump(sine(1.0))
    assert recorder.stop().note is None


def test_discard_keeps_nothing_and_the_recorder_starts_again() -> None:
    recorder, source = recording()
    source.stream.pump(sine(1.0))
    recorder.discard()
    assert not recorder.recording and source.stream.closed
    recorder.discard()  # twice: still nothing
    with pytest.raises(RecordingError, match="Nothing is being recorded"):
        recorder.stop()
    recorder.start()
    assert len(source.streams) == 2
    assert recorder.elapsed == 0.0 and recorder.level == 0.0 and recorder.peak_history == ()
    source.stream.pump(sine(0.5))
    assert recorder.stop().duration == pytest.approx(0.5, abs=ONE_BLOCK)


def test_a_stream_without_a_rate_records_at_48_khz() -> None:
    source = FakeInput(rate=0)
    recorder = Recorder(source)
    recorder.start()
    assert source.stream.settings["samplerate"] is None  # the device's own rate was asked for
    assert recorder.rate == 48_000


def test_the_device_rate_is_used() -> None:
    source = FakeInput(rate=44_100)
    recorder = Recorder(source)
    recorder.start()
    source.stream.pump(sine(1.0, rate=44_100))
    assert recorder.elapsed == pytest.approx(1.0, abs=BLOCK / 44_100)
    clip = recorder.stop()
    assert soundfile.info(BytesIO(clip.data)).duration == pytest.approx(1.0, abs=BLOCK / 44_100)


def test_starting_twice_opens_one_stream() -> None:
    recorder, source = recording()
    recorder.start()
    assert len(source.streams) == 1


def test_a_block_ending_on_the_cap_stops_capture_there() -> None:
    recorder, source = recording(cap_seconds=BLOCK * 4 / RATE)
    source.stream.pump(sine(BLOCK * 4 / RATE))
    assert recorder.capped and recorder.ended is not None
