"""A stand-in for sounddevice's ``InputStream`` that a test pumps by hand, and signals to pump.

`FakeInput` is the stream factory a `Recorder` is given: each stream it makes remembers the
callback the recorder passed and calls it only when the test calls `FakeStream.pump`, so a
recording advances exactly as far as the test says, without a sound card or the clock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

RATE = 48_000
BLOCK = 1_024


@dataclass
class Flags:
    """sounddevice's ``CallbackFlags``, as far as the recorder reads them."""

    input_underflow: bool = False
    input_overflow: bool = False


@dataclass
class FakeStream:
    """One input stream: started, pumped by the test, stopped or aborted, closed."""

    callback: Callable[..., None]
    finished_callback: Callable[[], None] | None
    samplerate: float
    settings: dict[str, Any]
    started: bool = False
    closed: bool = False
    ended: bool = False

    def start(self) -> None:
        self.started = True

    def pump(self, samples: Any, block: int = BLOCK, status: Flags | None = None) -> None:
        """Hand ``samples`` (mono float32) to the callback in blocks of ``block`` frames, as
        PortAudio's thread would (here on the test's thread)."""
        flags = status or Flags()
        for start in range(0, len(samples), block):
            chunk = np.asarray(samples[start : start + block], dtype=np.float32)
            indata = chunk.reshape(-1, 1).copy()
            self.callback(indata, len(chunk), None, flags)
            indata.fill(99.0)  # PortAudio reuses its buffer: a recorder must have copied it

    def vanish(self) -> None:
        """The device went away: PortAudio ends the stream by itself."""
        self._end()

    def stop(self, ignore_errors: bool = True) -> None:
        self._end()

    def abort(self, ignore_errors: bool = True) -> None:
        self._end()

    def close(self, ignore_errors: bool = True) -> None:
        self._end()
        self.closed = True

    def _end(self) -> None:
        if not self.ended:
            self.ended = True
            if self.finished_callback is not None:
                self.finished_callback()


@dataclass
class FakeInput:
    """A stream factory: ``FakeInput()(**settings)`` makes a `FakeStream` at ``rate``."""

    rate: float = RATE
    streams: list[FakeStream] = field(default_factory=list)

    def __call__(self, **settings: Any) -> FakeStream:
        stream = FakeStream(
            settings["callback"],
            settings.get("finished_callback"),
            settings.get("samplerate") or self.rate,
            settings,
        )
        self.streams.append(stream)
        return stream

    @property
    def stream(self) -> FakeStream:
        """The last stream made."""
        return self.streams[-1]


def raising(error: BaseException) -> Callable[..., Any]:
    """A stream factory that fails as sounddevice does (``OSError`` for a missing PortAudio,
    ``PortAudioError`` for no device or one that refuses)."""

    def factory(**_settings: Any) -> Any:
        raise error

    return factory


def sine(seconds: float, amplitude: float = 0.5, hz: float = 440.0, rate: int = RATE) -> Any:
    """``seconds`` of a sine at ``hz``, mono float32."""
    times = np.arange(round(seconds * rate)) / rate
    return (amplitude * np.sin(2 * np.pi * hz * times)).astype(np.float32)
