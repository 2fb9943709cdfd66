"""A stand-in for sounddevice: `FakeBackend`'s stream never touches a sound card, and a test
pulls buffers from the player's callback (what PortAudio's thread does) with `FakeStream.pull`,
so every position is exact and nothing waits on time.

A plain module (tests/ is on ``sys.path``), used by ``devices/test_audio_controls`` and
``ui/test_app_playback``. `StubPlayer` stands in for the whole player, where an app test only
needs to know what was played.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class CallbackStop(Exception):
    """sounddevice.CallbackStop's stand-in: the callback raises it when the sound ran out."""


class FakeStream:
    """An output stream that plays only when pulled, recording what the player gave it."""

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs
        self.started = self.aborted = self.closed = self.finished = False
        self.out: list[Any] = []

    def start(self) -> None:
        self.started = True

    def pull(self, frames: int) -> Any:
        """One buffer of ``frames``, as PortAudio's thread would ask for it."""
        assert self.started and not self.aborted and not self.finished
        buffer = np.full((frames, self.kwargs["channels"]), 7, dtype="int16")  # stale data
        try:
            self.kwargs["callback"](buffer, frames, None, None)
        except CallbackStop:
            self.finished = True
            self.kwargs["finished_callback"]()
        self.out.append(buffer)
        return buffer

    def abort(self, ignore_errors: bool = False) -> None:
        self.aborted = True
        if not self.finished:
            self.finished = True
            self.kwargs["finished_callback"]()

    def close(self, ignore_errors: bool = False) -> None:
        self.closed = True


class FakeBackend:
    CallbackStop = CallbackStop

    def __init__(self) -> None:
        self.streams: list[FakeStream] = []

    def OutputStream(self, **kwargs: Any) -> FakeStream:
        stream = FakeStream(**kwargs)
        self.streams.append(stream)
        return stream


class StubPlayer:
    """Stands in for `openwop_tui.devices.audio.Player`: "plays" until stopped, no sound card."""

    def __init__(self) -> None:
        self.playing = False
        self.played: list[bytes] = []
        self.key: object = None
        self.paused = False
        self.checks = 0
        """How often the app asked whether it is playing (its playback timer does, each tick)."""

    @property
    def is_playing(self) -> bool:
        self.checks += 1
        return self.playing

    position = 1.5
    duration = 5.0

    def play(self, data: bytes, key: object = None) -> float:
        self.played.append(data)
        self.playing, self.key = True, key
        return self.duration

    def stop(self) -> None:
        self.playing = False

    def wait(self, timeout: float | None = None) -> bool:
        return True
