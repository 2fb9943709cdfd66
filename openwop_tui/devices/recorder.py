"""The microphone side of a voice message: recording from the default input device into a clip.

`Recorder` opens one input stream (mono, float32, at the device's own rate) and gathers the
blocks PortAudio hands its callback, on PortAudio's thread, under a lock held for one append.
Everything it reports is counted in frames, never read off the wall clock: `Recorder.elapsed`
is the audio captured so far, `Recorder.level` the loudness of the last block for a meter and
`Recorder.peak_history` the loudest block of each tenth of a second for a sparkline. Capture
stops by itself at `Recorder.cap_seconds` (two minutes by default) and when the device goes
away; `Recorder.ended` then says why, and `Recorder.stop` still gives what was captured.

`Recorder.stop` encodes the clip with soundfile: Ogg Vorbis, small enough that two minutes of
speech are a few hundred kilobytes, or WAV (16-bit at 16 kHz, so two minutes stay under the
attachment ceiling) when the libsndfile build lacks Vorbis. Encoding two minutes takes about a
third of a second: the app calls it off its event loop.

As in `openwop_tui.devices.audio`, nothing heavy is imported with this module: sounddevice (which
loads PortAudio) is imported when the first stream is opened, numpy and soundfile when a
recording starts and ends. The stream comes from a factory (by default sounddevice's
``InputStream``), so tests feed the callback a generated signal through a stand-in stream.

Every failure is a `RecordingError` whose text is one sentence saying why and what to do: no
PortAudio library, no microphone, a microphone that would not open, one that went away too soon
for anything to be kept, a clip too short to send.
"""

from __future__ import annotations

import math
import sys
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from io import BytesIO
from typing import Any

from openwop_tui.text.sanitize import clean_label

__all__ = [
    "CAP_SECONDS",
    "FALLBACK_RATE",
    "KEEP_LOST_SECONDS",
    "MIN_SECONDS",
    "Clip",
    "Recorder",
    "RecordingError",
    "StreamFactory",
    "encode",
    "level_of",
]

#: The longest a recording runs before capture stops by itself.
CAP_SECONDS = 120.0
#: Shorter clips are not sent: a tap of the key, not a message.
MIN_SECONDS = 0.3
#: A device that goes away before this much was captured leaves nothing worth keeping.
KEEP_LOST_SECONDS = 0.5
#: The rate used when the stream does not say its own.
FALLBACK_RATE = 48_000
#: The meter's range: this many dB below full scale reads as silence (0), full scale as 1.
FLOOR_DB = -60.0
#: Seconds of audio each entry of `Recorder.peak_history` covers.
HISTORY_STEP = 0.1
#: Seconds of consecutive blocks PortAudio flags as having no input before the device is
#: taken as gone (one flagged block is a glitch; half a second of them is a missing device).
LOST_AFTER_SECONDS = 0.5
#: The WAV fallback's rate: speech's band, and two minutes of 16-bit mono are 3.8 MB, under
#: the 6 MiB an attachment may be (at 48 kHz they would be 11.5 MB).
WAV_RATE = 16_000
#: Frames handed to the Vorbis encoder per write: libsndfile 1.2.2 crashes the process
#: (a segmentation fault, not an error) when one write holds a few million frames.
_ENCODE_CHUNK = 65_536

#: PortAudio's error codes that mean there is no usable input device (rather than one that
#: refused): ``paInvalidDevice`` (no default input, "device -1") and ``paInvalidChannelCount``
#: (the default device has no input channels).
_NO_DEVICE_CODES = frozenset({-9996, -9998})

StreamFactory = Callable[..., Any]
"""Makes an input stream as ``sounddevice.InputStream`` does (keyword arguments ``samplerate``,
``channels``, ``dtype``, ``callback``, ``finished_callback``); the stream has ``start``,
``stop``, ``abort`` and ``close`` (each taking ``ignore_errors``) and ``samplerate``."""


class RecordingError(Exception):
    """Recording failed or gave nothing to send; ``str()`` is one sentence for the user."""


@dataclass(frozen=True, slots=True)
class Clip:
    """One finished recording, encoded."""

    data: bytes
    """The encoded file's bytes."""
    mime: str
    """``audio/ogg`` (Vorbis) or ``audio/wav`` (the fallback)."""
    duration: float
    """Seconds of sound in it."""
    note: str | None = None
    """A sentence for the user when capture ended by itself: at the cap, or when the device went
    away (what was captured until then is the clip); ``None`` when the user stopped it."""

    @property
    def extension(self) -> str:
        """The file name ending its type goes by: ``.ogg`` or ``.wav``."""
        return ".ogg" if self.mime == "audio/ogg" else ".wav"


def _open_input_stream(**settings: Any) -> Any:
    """sounddevice's ``InputStream``, imported now: importing it loads PortAudio (and raises
    ``OSError`` when the library is missing), which start-up must not wait for."""
    import sounddevice

    return sounddevice.InputStream(**settings)


def level_of(rms: float) -> float:
    """A block's loudness for a meter: its RMS in dBFS over `FLOOR_DB`..0 dB, as 0..1."""
    if not rms > 0:  # silence, or NaN from a broken driver
        return 0.0
    decibels = 20 * math.log10(rms)
    return min(max((decibels - FLOOR_DB) / -FLOOR_DB, 0.0), 1.0)


class Recorder:
    """Records one clip at a time from the default input device: `start`, then `stop` (the clip)
    or `discard` (nothing).

    ``elapsed``, ``level``, ``peak_history``, ``recording`` and ``ended`` may be read from any
    thread while PortAudio's thread records; `start`, `stop` and `discard` are called from one
    thread at a time (the app's, or a worker it waits for).
    """

    def __init__(
        self,
        stream_factory: StreamFactory | None = None,
        *,
        cap_seconds: float = CAP_SECONDS,
        history: int = 24,
    ) -> None:
        """A recorder that has not started.

        Args:
            stream_factory: Makes the input stream; ``None``: sounddevice's ``InputStream``.
            cap_seconds: Capture stops by itself after this many seconds.
            history: How many tenths of a second `peak_history` keeps.
        """
        self._factory = stream_factory if stream_factory is not None else _open_input_stream
        self.cap_seconds = cap_seconds
        """Capture stops by itself after this many seconds (`ended` then says so)."""
        self._lock = threading.Lock()
        self._stream: Any = None
        self._rate = FALLBACK_RATE
        self._blocks: list[Any] = []
        self._frames = 0
        self._level = 0.0
        self._history: deque[float] = deque(maxlen=max(history, 1))
        self._slot_frames = 0
        self._slot_peak = 0.0
        self._missing = 0
        self._capped = False
        self._lost = False
        self._stopping = False

    # ------------------------------------------------------------------ state

    @property
    def recording(self) -> bool:
        """True from `start` until `stop` or `discard` (capture may have ended by itself)."""
        return self._stream is not None

    @property
    def rate(self) -> int:
        """Frames a second of the current (or last) recording."""
        return self._rate

    @property
    def elapsed(self) -> float:
        """Seconds of audio captured so far (counted in frames, not read off a clock)."""
        with self._lock:
            return self._frames / self._rate

    @property
    def level(self) -> float:
        """How loud the last block was, 0 (-60 dBFS or quieter) to 1 (full scale)."""
        return self._level

    @property
    def peak_history(self) -> tuple[float, ...]:
        """The loudest block of each of the last tenths of a second, oldest first (0..1)."""
        with self._lock:
            return tuple(self._history)

    @property
    def capped(self) -> bool:
        """Capture stopped at `cap_seconds`."""
        return self._capped

    @property
    def ended(self) -> str | None:
        """Why capture stopped by itself (the cap, the device gone), as a sentence; ``None``
        while it goes on or before it started. `stop` still gives what was captured."""
        if self._lost:
            return self._lost_sentence(self.elapsed)
        if self._capped:
            return f"Recording stopped at its {_clock(self.cap_seconds)} limit."
        return None

    # --------------------------------------------------------------- controls

    def start(self) -> None:
        """Open the default input device and start capturing (a no-op while recording).

        Raises `RecordingError`: no PortAudio library, no input device, a device that would not
        open.
        """
        if self._stream is not None:
            return
        try:
            import numpy  # noqa: F401  (the blocks are numpy arrays: fail here, not in the callback)
        except ImportError as error:
            raise RecordingError(
                f"Cannot record: numpy is not usable here ({error}); reinstall openwop-tui."
            ) from error
        self._reset()
        try:
            stream = self._factory(
                samplerate=None,  # the device's own rate: no resampling in PortAudio
                channels=1,
                dtype="float32",
                callback=self._capture,
                finished_callback=self._finished,
            )
        except Exception as error:
            raise RecordingError(_open_failure(error)) from error
        rate = getattr(stream, "samplerate", None)
        self._rate = int(rate) if isinstance(rate, int | float) and rate > 0 else FALLBACK_RATE
        self._stream = stream
        try:
            stream.start()
        except Exception as error:  # PortAudioError: the device exists but would not start
            self._close(abort=True)
            raise RecordingError(_open_failure(error)) from error

    def stop(self) -> Clip:
        """Stop capturing (the blocks still in flight are captured first) and return the
        clip, encoded: a third of a second for two minutes, so call it off the event loop.

        Raises `RecordingError`: not recording, too short to send, the device went away before
        half a second was captured, or the clip could not be encoded.
        """
        if self._stream is None:
            raise RecordingError("Nothing is being recorded; start a recording first.")
        self._close(abort=False)
        with self._lock:
            blocks, self._blocks = self._blocks, []
            frames, lost = self._frames, self._lost
        seconds = frames / self._rate
        if lost and seconds < KEEP_LOST_SECONDS:
            raise RecordingError(
                f"The microphone went away after {seconds:.1f} s, too soon to keep anything; "
                "reconnect it and record again."
            )
        if seconds < MIN_SECONDS:
            raise RecordingError(
                f"The recording was too short to send ({seconds:.1f} s); record again and "
                "speak for at least a second."
            )
        note = self.ended
        import numpy

        samples = numpy.concatenate(blocks) if blocks else numpy.zeros(0, dtype="float32")
        data, mime = encode(samples, self._rate)
        return Clip(data, mime, seconds, note)

    def discard(self) -> None:
        """Stop capturing and drop what was captured (a no-op when not recording)."""
        if self._stream is None:
            return
        self._close(abort=True)
        with self._lock:
            self._blocks = []

    # --------------------------------------------------------- PortAudio's side

    def _capture(self, indata: Any, frames: int, _time: Any, status: Any) -> None:
        """PortAudio's callback, on its thread: keep a copy of the block and measure it.

        Args:
            indata: The block, float32 frames by one channel (PortAudio reuses the buffer).
            frames: How many frames it holds.
            _time: PortAudio's timing information (unused).
            status: PortAudio's flags: ``input_underflow`` means the block is made-up silence.
        """
        if getattr(status, "input_underflow", False):
            # No input behind this block: not kept (it is zeros), and enough of them in a row
            # means the device is gone (some hosts go on calling rather than stop the stream).
            with self._lock:
                self._missing += frames
                if self._missing >= LOST_AFTER_SECONDS * self._rate and not self._stopping:
                    self._lost = True
                self._level = 0.0
            return
        with self._lock:
            if self._capped or self._lost:
                return
            cap = int(self.cap_seconds * self._rate)
            block = indata[: min(frames, cap - self._frames), 0].copy()
            count = len(block)
            self._missing = 0
            self._frames += count
            if self._frames >= cap:
                self._capped = True
            if count:
                self._blocks.append(block)
                self._level = level_of(float((block * block).mean()) ** 0.5)
                self._remember(count)

    def _remember(self, count: int) -> None:
        """Fold the last block's level into the history, one entry per `HISTORY_STEP` of
        audio (held under the lock, by `_capture`)."""
        step = max(int(HISTORY_STEP * self._rate), 1)
        self._slot_peak = max(self._slot_peak, self._level)
        self._slot_frames += count
        while self._slot_frames >= step:
            self._history.append(self._slot_peak)
            self._slot_frames -= step
            self._slot_peak = self._level if self._slot_frames else 0.0

    def _finished(self) -> None:
        """PortAudio's stream ended: by `stop`/`discard`, or by itself (the device went away)."""
        with self._lock:
            if not self._stopping:
                self._lost = True

    # ------------------------------------------------------------------ helpers

    def _close(self, *, abort: bool) -> None:
        """Stop and close the stream: ``abort`` drops the buffers still in flight, else they are
        captured first. Errors are ignored: a device that went away cannot be stopped cleanly."""
        stream, self._stream = self._stream, None
        with self._lock:
            self._stopping = True
        if stream is None:
            return
        try:
            if abort:
                stream.abort(ignore_errors=True)
            else:
                stream.stop(ignore_errors=True)
        finally:
            stream.close(ignore_errors=True)

    def _reset(self) -> None:
        with self._lock:
            self._blocks = []
            self._frames = 0
            self._level = 0.0
            self._history.clear()
            self._slot_frames = 0
            self._slot_peak = 0.0
            self._missing = 0
            self._capped = self._lost = self._stopping = False

    @staticmethod
    def _lost_sentence(seconds: float) -> str:
        if seconds < KEEP_LOST_SECONDS:
            return f"The microphone went away after {seconds:.1f} s, too soon to keep anything."
        return (
            f"The microphone went away after {seconds:.1f} s; what was recorded until then is kept."
        )


def _open_failure(error: Exception) -> str:
    """The sentence for a stream that could not be made or started."""
    if isinstance(error, OSError):  # sounddevice's import: OSError('PortAudio library not found')
        return (
            "Cannot record: the PortAudio library is not installed; install it (libportaudio2 "
            "on Debian and Ubuntu, portaudio on Fedora and Homebrew) and start openwop-tui again."
        )
    sounddevice = sys.modules.get("sounddevice")  # loaded already if it raised this
    port_audio_error = getattr(sounddevice, "PortAudioError", None)
    if not isinstance(port_audio_error, type) or not isinstance(error, port_audio_error):
        reason = clean_label(str(error)) or type(error).__name__
        return f"Cannot record: the microphone would not open ({reason}); try again."
    message = str(error.args[0]) if error.args else str(error)
    code = error.args[1] if len(error.args) > 1 else None
    if code in _NO_DEVICE_CODES or "device -1" in message:
        return (
            "Cannot record: there is no microphone the system can use; connect or enable one "
            "(and let the terminal use it), then try again."
        )
    return (
        f"Cannot record: the microphone would not open ({clean_label(message)}); close any "
        "other program using it, then try again."
    )


def encode(samples: Any, rate: int, *, vorbis: bool | None = None) -> tuple[bytes, str]:
    """Mono float32 ``samples`` at ``rate`` as a file: ``(bytes, media type)``.

    Ogg Vorbis when the libsndfile build writes it (``vorbis``: ``None`` asks the build; tests
    force the fallback with ``False``), else 16-bit WAV at `WAV_RATE`. Raises `RecordingError`
    when neither can be written.
    """
    try:
        import soundfile
    except (ImportError, OSError) as error:
        raise RecordingError(
            f"Cannot save the recording: soundfile is not usable here ({error})."
        ) from error
    if vorbis is None:
        vorbis = bool(soundfile.check_format("OGG", "VORBIS"))
    if vorbis:
        try:
            return _written(soundfile, samples, rate, "OGG", "VORBIS"), "audio/ogg"
        except (RuntimeError, TypeError, ValueError):  # an encoder that fails: WAV still may not
            pass
    try:
        wav = _written(soundfile, _resampled(samples, rate, WAV_RATE), min(rate, WAV_RATE), "WAV")
    except (RuntimeError, TypeError, ValueError) as error:
        reason = getattr(error, "error_string", None) or str(error)
        raise RecordingError(f"Cannot save the recording: {reason}.") from error
    return wav, "audio/wav"


def _written(soundfile: Any, samples: Any, rate: int, kind: str, subtype: str = "PCM_16") -> bytes:
    """``samples`` written by soundfile into memory as ``kind``/``subtype``, in chunks.

    Args:
        soundfile: The soundfile module (imported by the caller).
        samples: Mono float32 frames.
        rate: Their frames a second.
        kind: soundfile's format name (``OGG``, ``WAV``).
        subtype: soundfile's subtype name (``VORBIS``, ``PCM_16``).
    """
    buffer = BytesIO()
    with soundfile.SoundFile(
        buffer, "w", samplerate=rate, channels=1, format=kind, subtype=subtype
    ) as sound:
        for start in range(0, len(samples), _ENCODE_CHUNK):
            sound.write(samples[start : start + _ENCODE_CHUNK])
    return buffer.getvalue()


def _resampled(samples: Any, rate: int, target: int) -> Any:
    """``samples`` at ``target`` frames a second (as they are when ``rate`` is not above it).

    A moving average over one output frame's worth of input first (a crude low-pass, enough for
    speech: without it, what is above half the target rate folds back as noise), then linear
    interpolation at the output frames' times.
    """
    if rate <= target or not len(samples):
        return samples
    import numpy

    width = max(round(rate / target), 1)
    smoothed = numpy.convolve(samples, numpy.ones(width, dtype="float32") / width, mode="same")
    count = max(round(len(samples) * target / rate), 1)
    times = numpy.arange(count, dtype="float64") * (rate / target)
    return numpy.interp(times, numpy.arange(len(samples)), smoothed).astype("float32")


def _clock(seconds: float) -> str:
    """``2:00``: minutes and whole seconds."""
    minutes, secs = divmod(int(max(seconds, 0.0)), 60)
    return f"{minutes}:{secs:02d}"
