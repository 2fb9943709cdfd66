"""The sound-card side of audio envelopes: probing for an output device, and playing bytes.

Renderers never play: they describe a sound and offer ``play``/``stop`` actions, which the app
carries out here. Nothing heavy is imported with this module: sounddevice (which loads PortAudio
and scans devices when imported) and soundfile (with numpy) are imported on first use, so start-up
stays fast and a machine without ``libportaudio2`` still starts.

`probe` never raises: it answers an `AudioSupport` whose ``reason`` is shown to the user verbatim
("PortAudio library not found", "no audio output device (Error querying device -1)"). Setting
``OPENWOP_TUI_AUDIO=off`` turns audio off without probing, for demos and CI.

`Player` owns one output stream fed from a callback over the decoded frames (what
``sounddevice.play`` does inside, but with the playback state in the player rather than in
sounddevice's module globals), so the app can pause, resume, seek, ask the `state`, ``position``
and ``duration`` and wait for the end without polling PortAudio. One sound plays at a time:
playing another stops the first. Every method is safe to call from any thread (the app calls
`Player.play`, which decodes, from a worker thread so the UI never waits on it); the audio
callback copies one buffer of samples and advances a counter under a lock held for no more.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from io import BytesIO
from typing import Any, Literal

from openwop_tui.devices.capabilities import AudioSupport
from openwop_tui.text.units import duration as format_duration
from openwop_tui.text.units import human_size

__all__ = [
    "ENV_SWITCH",
    "MAX_DECODED_BYTES",
    "PlaybackError",
    "Player",
    "PlayerState",
    "probe",
]

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


PlayerState = Literal["idle", "playing", "paused", "ended", "stopped"]
"""``idle`` before the first sound; ``ended`` when the sound ran out; ``stopped`` by `stop`."""


def _sounddevice() -> Any:
    try:
        import sounddevice
    except OSError as error:
        raise PlaybackError(f"cannot play: {error}") from error
    return sounddevice


@dataclass(slots=True)
class _Playback:
    """One sound being played: the samples, how far the device has taken them, and the end.

    ``frame`` and ``paused`` are written by the app's threads (seek, pause) and by PortAudio's
    callback thread (advancing): every read-modify-write of them holds ``lock``, which is only
    ever held for a few attribute updates and one slice copy, so the callback never waits long.
    """

    samples: Any
    """int16 frames, shape (frames, channels)."""
    rate: int
    key: object = None
    """Whatever the caller named the sound by (the app: the transcript item's id)."""
    frame: int = 0
    paused: bool = False
    stopped: bool = False
    """Cut by `Player.stop` (or by playing another sound), not run out."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    done: threading.Event = field(default_factory=threading.Event)
    stream: Any = None

    @property
    def frames(self) -> int:
        return len(self.samples)

    @property
    def duration(self) -> float:
        return self.frames / self.rate

    def feed(self, outdata: Any, frames: int, stop: type[BaseException]) -> None:
        """Fill ``outdata`` (PortAudio's buffer) with the next ``frames``; silence while paused.

        Raises ``stop`` (sounddevice's ``CallbackStop``) once the samples ran out, which ends
        the stream after this buffer has played.
        """
        with self.lock:
            if self.paused:
                outdata.fill(0)
                return
            start = self.frame
            chunk = self.samples[start : start + frames]
            count = len(chunk)
            outdata[:count] = chunk
            self.frame = start + count
        if count < frames:
            outdata[count:] = 0
            raise stop


#: Sounds beyond these are refused before decoding (they would not fit any sound card anyway).
MAX_CHANNELS = 8
MAX_RATE = 384_000

#: The most memory one decoded sound may take (int16 frames x channels x 2 bytes): 128 MiB is
#: about 11 minutes of 48 kHz stereo, hours of speech. A compressed file is small whatever it
#: decodes to (a 2 MB FLAC of silence can hold GiBs), so the bound is on decoded bytes.
MAX_DECODED_BYTES = 128 * 1024 * 1024

_SAMPLE_BYTES = 2  # int16, what the player decodes to


class Player:
    """Plays one sound at a time through the default output device: play, pause, seek, stop.

    A sound is held whole, as int16: ``max_decoded_bytes`` bounds that memory and ``max_seconds``
    its length, both checked against the file's header before anything is decoded. Playing a
    sound stops the one before it. Pausing keeps the stream open and feeds it silence, so
    resuming is immediate and PortAudio is never asked to stop and restart from the app's
    thread; seeking moves the frame the callback reads next.

    ``backend`` is the module the stream comes from (sounddevice, imported on first play);
    tests pass a stand-in with an ``OutputStream`` and a ``CallbackStop``.
    """

    def __init__(
        self,
        *,
        max_seconds: float = 600.0,
        max_decoded_bytes: int = MAX_DECODED_BYTES,
        backend: Any = None,
    ) -> None:
        self.max_seconds = max_seconds
        self.max_decoded_bytes = max_decoded_bytes
        self._backend = backend
        self._lock = threading.Lock()
        self._current: _Playback | None = None

    # ------------------------------------------------------------------ state

    @property
    def state(self) -> PlayerState:
        """Where the current (or last) sound is: playing, paused, ended, stopped; or idle."""
        current = self._current
        if current is None:
            return "idle"
        if current.done.is_set():
            return "stopped" if current.stopped else "ended"
        return "paused" if current.paused else "playing"

    @property
    def is_playing(self) -> bool:
        """True from `play` until the sound ends or `stop` is called (paused included)."""
        current = self._current
        return current is not None and not current.done.is_set()

    @property
    def paused(self) -> bool:
        """True while the current sound is paused."""
        return self.state == "paused"

    @property
    def key(self) -> object:
        """What the current (or last) sound was named by in `play`; ``None`` before the first."""
        current = self._current
        return None if current is None else current.key

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

    # --------------------------------------------------------------- controls

    def play(self, data: bytes, key: object = None) -> float:
        """Start playing ``data`` (wav, flac, ogg, mp3…), stopping any sound already playing.

        Decodes first (call it from a worker thread: a long clip takes a while), then starts
        the stream and returns at once with the duration in seconds. ``key`` names the sound
        (see `key`). Raises `PlaybackError` when the bytes cannot be decoded or the device
        refuses them.
        """
        samples, rate = self._decode(data)  # outside the lock: decoding can take a while
        backend = self._backend if self._backend is not None else _sounddevice()
        playback = _Playback(samples, rate, key)
        stop = backend.CallbackStop

        def feed(outdata: Any, frames: int, _time: Any, _status: Any) -> None:
            """PortAudio's callback, on its thread: fill its buffer from the playback.

            Args:
                outdata: PortAudio's output buffer.
                frames: How many frames it wants.
                _time: PortAudio's timing information (unused).
                _status: PortAudio's underflow and overflow flags (unused).
            """
            playback.feed(outdata, frames, stop)  # on PortAudio's thread

        with self._lock:
            self._halt(self._current)
            self._current = playback
            try:
                playback.stream = backend.OutputStream(
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

    def pause(self) -> bool:
        """Pause the playing sound where it is; False when nothing was playing."""
        return self._set_paused(True)

    def resume(self) -> bool:
        """Go on from where the sound was paused; False when nothing was paused."""
        return self._set_paused(False)

    def toggle_pause(self) -> PlayerState:
        """Pause a playing sound or resume a paused one; the state after."""
        if not self.pause():
            self.resume()
        return self.state

    def seek(self, seconds: float) -> float:
        """Move to ``seconds`` from the start, clamped to [0, duration]; the position after.

        Only a sound still playing or paused moves (an ended one has closed its stream).
        Seeking to the end ends the sound at the next buffer.
        """
        current = self._current
        if current is None or current.done.is_set():
            return self.position
        target = 0.0 if math.isnan(seconds) else seconds * current.rate
        frame = int(min(max(target, 0.0), float(current.frames)))
        with current.lock:
            current.frame = frame
        return frame / current.rate

    def seek_by(self, seconds: float) -> float:
        """Move ``seconds`` forward (negative: back), clamped; the position after."""
        return self.seek(self.position + seconds)

    def stop(self) -> None:
        """Stop the sound at once (no-op when nothing plays)."""
        with self._lock:
            self._halt(self._current)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the current sound ends or is stopped; False if ``timeout`` ran out."""
        current = self._current
        return True if current is None else current.done.wait(timeout)

    def _set_paused(self, paused: bool) -> bool:
        current = self._current
        if current is None or current.done.is_set():
            return False
        with current.lock:
            if current.paused == paused:
                return False
            current.paused = paused
        return True

    @staticmethod
    def _halt(playback: _Playback | None) -> None:
        if playback is None:
            return
        if not playback.done.is_set():
            playback.stopped = True
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
