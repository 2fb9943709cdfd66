"""The sound-card side of audio envelopes: probing for an output device, and playing bytes.

Renderers never play: they describe a sound and offer ``play``/``stop`` actions, which the app
carries out here. Nothing heavy is imported with this module: sounddevice (which loads PortAudio
and scans devices when imported) and soundfile (with numpy) are imported on first use, so start-up
stays fast and a machine without ``libportaudio2`` still starts.

`probe` never raises: it answers an `AudioSupport` whose ``reason`` is shown to the user verbatim
("PortAudio library not found", "no audio output device (Error querying device -1)"). Setting
``OPENWOP_TUI_AUDIO=off`` turns audio off without probing, for demos and CI.

`Player` owns one output stream fed from a callback (what ``sounddevice.play`` does inside, but
with the playback state in the player rather than in sounddevice's module globals), so the app
can ask ``is_playing`` and ``position`` and wait for the end without polling PortAudio. Every
method is safe to call from the asyncio thread; the audio callback only reads the samples and
advances a counter.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from io import BytesIO
from typing import Any

from openwop_tui.renderers.base import AudioSupport
from openwop_tui.units import duration as format_duration
from openwop_tui.units import human_size

__all__ = ["ENV_SWITCH", "MAX_DECODED_BYTES", "PlaybackError", "Player", "probe"]

#: The environment variable that turns audio off (``off``, ``0``, ``false``, ``no``).
ENV_SWITCH = "OPENWOP_TUI_AUDIO"
_OFF = frozenset({"off", "0", "false", "no", "none"})


class PlaybackError(Exception):
    """Playing failed; the message is meant for the user."""


def probe(environ: Mapping[str, str] | None = None) -> AudioSupport:
    """Whether this machine can play sound, and if not, why. Never raises.

    ``environ`` defaults to ``os.environ``. Importing sounddevice initialises PortAudio, which
    enumerates the devices once: call this before the app takes the terminal.
    """
    env = os.environ if environ is None else environ
    setting = env.get(ENV_SWITCH, "").strip()
    if setting.lower() in _OFF:
        return AudioSupport(False, f"audio disabled by {ENV_SWITCH}={setting}")
    try:
        import sounddevice
    except OSError as error:  # sounddevice raises OSError('PortAudio library not found')
        return AudioSupport(False, str(error) or "PortAudio library not found")
    except Exception as error:  # a broken install must not stop the client from starting
        return AudioSupport(False, f"sounddevice is not usable here ({error})")
    try:
        device = sounddevice.query_devices(kind="output")
    except Exception as error:  # PortAudioError('Error querying device -1') when there is none
        return AudioSupport(False, f"no audio output device ({error})")
    channels = device.get("max_output_channels", 0) if isinstance(device, Mapping) else 0
    if not channels:
        name = device.get("name", "default") if isinstance(device, Mapping) else "default"
        return AudioSupport(False, f"no audio output device ({name} has no output channels)")
    return AudioSupport(True)


def _sounddevice() -> Any:
    try:
        import sounddevice
    except OSError as error:
        raise PlaybackError(f"cannot play: {error}") from error
    return sounddevice


@dataclass(slots=True)
class _Playback:
    """One sound being played: the samples, how far the device has taken them, and the end."""

    samples: Any
    """int16 frames, shape (frames, channels)."""
    rate: int
    frame: int = 0
    done: threading.Event = field(default_factory=threading.Event)
    stream: Any = None

    @property
    def duration(self) -> float:
        return len(self.samples) / self.rate


#: Sounds beyond these are refused before decoding (they would not fit any sound card anyway).
MAX_CHANNELS = 8
MAX_RATE = 384_000

#: The most memory one decoded sound may take (int16 frames x channels x 2 bytes): 128 MiB is
#: about 11 minutes of 48 kHz stereo, hours of speech. A compressed file is small whatever it
#: decodes to (a 2 MB FLAC of silence can hold GiBs), so the bound is on decoded bytes.
MAX_DECODED_BYTES = 128 * 1024 * 1024

_SAMPLE_BYTES = 2  # int16, what the player decodes to


class Player:
    """Plays one sound at a time through the default output device.

    A sound is held whole, as int16: ``max_decoded_bytes`` bounds that memory and ``max_seconds``
    its length, both checked against the file's header before anything is decoded.
    """

    def __init__(
        self, *, max_seconds: float = 600.0, max_decoded_bytes: int = MAX_DECODED_BYTES
    ) -> None:
        self.max_seconds = max_seconds
        self.max_decoded_bytes = max_decoded_bytes
        self._lock = threading.Lock()
        self._current: _Playback | None = None

    @property
    def is_playing(self) -> bool:
        """True from `play` until the sound ends or `stop` is called."""
        current = self._current
        return current is not None and not current.done.is_set()

    @property
    def position(self) -> float:
        """Seconds of the current (or last) sound handed to the device so far."""
        current = self._current
        return 0.0 if current is None else current.frame / current.rate

    @property
    def duration(self) -> float:
        """Length in seconds of the current (or last) sound; 0 before the first."""
        current = self._current
        return 0.0 if current is None else current.duration

    def play(self, data: bytes) -> float:
        """Start playing ``data`` (wav, flac, ogg, mp3…), stopping any sound already playing.

        Returns at once with the duration in seconds; raises `PlaybackError` when the bytes
        cannot be decoded or the device refuses them.
        """
        samples, rate = self._decode(data)  # outside the lock: decoding can take a while
        sd = _sounddevice()
        playback = _Playback(samples, rate)

        def feed(outdata: Any, frames: int, _time: Any, _status: Any) -> None:
            # Runs on PortAudio's thread: no locks, no allocation beyond a slice.
            start = playback.frame
            chunk = playback.samples[start : start + frames]
            count = len(chunk)
            outdata[:count] = chunk
            playback.frame = start + count
            if count < frames:
                outdata[count:] = 0
                raise sd.CallbackStop

        with self._lock:
            self._halt(self._current)
            self._current = playback
            try:
                playback.stream = sd.OutputStream(
                    samplerate=rate,
                    channels=samples.shape[1],
                    dtype="int16",
                    callback=feed,
                    finished_callback=playback.done.set,
                )
                playback.stream.start()
            except Exception as error:  # PortAudioError, ValueError (channels, rate)
                self._halt(playback)
                raise PlaybackError(f"cannot play: {error}") from error
        return playback.duration

    def stop(self) -> None:
        """Stop the sound at once (no-op when nothing plays)."""
        with self._lock:
            self._halt(self._current)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the current sound ends or is stopped; False if ``timeout`` ran out."""
        current = self._current
        return True if current is None else current.done.wait(timeout)

    @staticmethod
    def _halt(playback: _Playback | None) -> None:
        if playback is None:
            return
        if playback.stream is not None:
            playback.stream.abort(ignore_errors=True)
            playback.stream.close(ignore_errors=True)
            playback.stream = None
        playback.done.set()

    def _decode(self, data: bytes) -> tuple[Any, int]:
        try:
            import soundfile
        except (ImportError, OSError) as error:
            raise PlaybackError(f"cannot decode audio here ({error})") from error
        try:
            with soundfile.SoundFile(BytesIO(data)) as sound:
                rate = int(sound.samplerate)
                channels = int(sound.channels)
                if not 0 < channels <= MAX_CHANNELS or not 0 < rate <= MAX_RATE:
                    # A header can claim anything; memory is frames x channels x 2 bytes.
                    raise PlaybackError(
                        f"cannot play {channels} channels at {rate} Hz here: save it instead"
                    )
                limit = self._frame_budget(sound, rate, channels)
                # Read at most one frame past the limit: soundfile never reads more frames
                # than the header claims, and the claim was checked, so this allocation is
                # bounded by the budget whatever the file holds.
                samples = sound.read(frames=limit + 1, dtype="int16", always_2d=True)
        except (RuntimeError, TypeError, ValueError) as error:
            reason = getattr(error, "error_string", None) or str(error)
            raise PlaybackError(f"cannot decode audio: {reason}") from error
        if len(samples) > limit:
            raise PlaybackError(
                f"too long to play here (over {self.max_seconds:g} s): save it instead"
            )
        if len(samples) == 0:
            raise PlaybackError("cannot play: the sound is empty")
        return samples, rate

    def _frame_budget(self, sound: Any, rate: int, channels: int) -> int:
        """How many frames may be decoded; refuse, before decoding, a sound past the budget.

        The header's frame count is what soundfile will decode (it reads no further), so a
        claim past the budget is refused with what the clip is and what it would take.
        """
        frame_bytes = channels * _SAMPLE_BYTES
        by_bytes = self.max_decoded_bytes // frame_bytes
        by_seconds = int(self.max_seconds * rate)
        claimed = int(sound.frames)
        if claimed > by_bytes:
            seconds = claimed / rate
            kind = " ".join(
                str(part) for part in (sound.format, sound.subtype) if isinstance(part, str)
            )
            raise PlaybackError(
                f"too big to play here: {kind or 'audio'}, {channels} channel"
                f"{'s' if channels != 1 else ''} at {rate:,} Hz for {format_duration(seconds)} "
                f"would take {human_size(claimed * frame_bytes)} decoded, over the "
                f"{human_size(self.max_decoded_bytes)} allowed: save it instead"
            )
        return min(by_seconds, by_bytes)
