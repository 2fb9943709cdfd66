"""SVG snapshots of the recording bar mid-recording (issue 25, part 2), at 80x24 and 120x40.

A minimal app in the client's default theme holds the bar above an input; the recorder runs
over `recorder_support.FakeInput`, pumped with 3.2 s of a 440 Hz sine whose loudness rises and
falls like speech, so the time, the level and the sparkline are the same on every run (no
device, no clock: the bar's timer redraws what was pumped, nothing else). Update with
``--snapshot-update`` and look at every SVG first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from recorder_support import RATE, FakeInput, sine
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Input

from openwop_tui.devices.recorder import Recorder
from openwop_tui.themes import DEFAULT, THEMES
from openwop_tui.ui.controllers.recording import RecordingController
from openwop_tui.ui.widgets.recording import RecordingBar

Snap = Callable[..., bool]
SIZES = [(80, 24), (120, 40)]


class RecordingShown(App[None]):
    """The bar above an input at the bottom of the screen, as the chat app places them."""

    CSS = "Screen { align-vertical: bottom; } Input { margin: 0 1; }"

    def __init__(self) -> None:
        super().__init__()
        self.source = FakeInput()
        self.bar = RecordingBar("F7 stops · Esc discards")
        self.recording = RecordingController(
            self.bar,
            on_clip=lambda *_clip: None,
            on_error=lambda _sentence: None,
            recorder=Recorder(self.source, history=32),
        )

    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = DEFAULT

    def compose(self) -> ComposeResult:
        yield self.bar
        yield Input(placeholder="Type a message", id="prompt")


def _syllables(seconds: float) -> Any:
    """A sine whose loudness rises and falls as speech does: between -48 dBFS and full scale,
    a swell a second (the meter is in decibels, so the sparkline spans its range)."""
    signal = sine(seconds, amplitude=1.0)
    times = np.arange(len(signal)) / RATE
    decibels = -48 * (1 - np.abs(np.sin(np.pi * times)))
    return (signal * 10 ** (decibels / 20)).astype(np.float32)


async def _mid_recording(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, RecordingShown)
    app.query_one(Input).cursor_blink = False
    app.recording.toggle()
    app.source.stream.pump(_syllables(3.2))
    app.recording.refresh()
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
def test_recording_bar(snap_compare: Snap, size: tuple[int, int]) -> None:
    assert snap_compare(RecordingShown(), terminal_size=size, run_before=_mid_recording)
