"""Recording a voice message in the app: the recorder, its bar, and what becomes of the clip.

`RecordingController` owns one `openwop_tui.devices.recorder.Recorder` and the
`openwop_tui.ui.widgets.recording.RecordingBar` that shows it. `RecordingController.toggle`
(the record key) starts a recording or stops it; `RecordingController.discard` (Escape while
recording) drops it. While it records, a timer on the bar redraws the line ten times a second
from the recorder's figures, and notices when capture ended by itself (the two-minute cap, the
microphone gone) to stop as the key would.

Stopping encodes the clip in a worker thread (two minutes take a third of a second, which the
app's keys must not wait behind), then hands it to ``on_clip(data, name, mime, duration)``: the
app makes it an attachment (``openwop_tui.core.attachments.attachment_of(data, name, mime)``) and
adds it to the draft. A sentence about how capture ended goes to ``on_note``; every failure
(no PortAudio, no microphone, too short…) to ``on_error``, as the one sentence the recorder
wrote. The controller holds nothing else of the app: the bar runs its timer and its worker.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from openwop_tui.devices.recorder import Recorder, RecordingError
from openwop_tui.ui.widgets.recording import Reading, RecordingBar

if TYPE_CHECKING:
    from textual.timer import Timer

__all__ = ["TICK_SECONDS", "ClipHandler", "RecordingController"]

#: How often the bar is redrawn while recording, in seconds.
TICK_SECONDS = 0.1

ClipHandler = Callable[[bytes, str, str, float], None]
"""``on_clip(data, name, mime, duration)``: a finished clip, its file name (``voice
2025-03-14 09-26-53.ogg``), its media type (``audio/ogg`` or ``audio/wav``) and its seconds."""


class RecordingController:
    """Starts, stops and discards the voice message being recorded, and keeps its bar drawn."""

    def __init__(
        self,
        bar: RecordingBar,
        *,
        on_clip: ClipHandler,
        on_error: Callable[[str], None],
        on_note: Callable[[str], None] | None = None,
        recorder: Recorder | None = None,
        now: Callable[[], datetime] = datetime.now,
    ) -> None:
        """A controller that is not recording.

        Args:
            bar: The line that shows the recording (mounted before the first `toggle`).
            on_clip: Given each finished clip: its bytes, file name, media type and seconds.
            on_error: Given the sentence of a recording that failed or gave nothing to send.
            on_note: Given the sentence saying capture ended by itself (the cap, the device
                gone) when the clip was still kept; ``None``: it goes to ``on_error``.
            recorder: The recorder (tests give one over a stand-in stream); ``None``: one over
                the default input device, with a history as long as the bar's sparkline.
            now: The clock the clip's name is read from.
        """
        self._bar = bar
        self._on_clip = on_clip
        self._on_error = on_error
        self._on_note = on_note if on_note is not None else on_error
        self._recorder = recorder if recorder is not None else Recorder(history=32)
        self._now = now
        self._timer: Timer | None = None
        self._started: datetime | None = None
        self._saving = False

    @property
    def recording(self) -> bool:
        """True from a `toggle` that started until the one that stops (or `discard`)."""
        # Not while saving: the recorder closes its stream in the worker's thread, a moment
        # after the key that stopped it.
        return self._recorder.recording and not self._saving

    @property
    def saving(self) -> bool:
        """A stopped recording is being encoded; `on_clip` is called when it is done."""
        return self._saving

    def toggle(self) -> None:
        """Start recording, or stop and hand the clip on: what the record key does."""
        if self.recording:
            self.stop()
        else:
            self.start()

    def start(self) -> bool:
        """Start recording and show the bar; False (and `on_error` told why) when it could not,
        or while the last clip is still being saved."""
        if self.recording or self._saving:
            return False
        try:
            self._recorder.start()
        except RecordingError as error:
            self._on_error(str(error))
            return False
        self._started = self._now()
        self.refresh()
        self._timer = self._bar.set_interval(TICK_SECONDS, self.refresh)
        return True

    def stop(self) -> None:
        """Stop recording, hide the bar and save the clip in a worker; `on_clip` gets it (or
        `on_error` the reason there is none). Nothing happens when not recording."""
        if not self.recording:
            return
        self._quiet()
        started = self._started or self._now()
        stem = f"voice {started:%Y-%m-%d %H-%M-%S}"
        self._saving = True
        # A worker of the bar's: the app's keys and redraws go on while the clip is encoded.
        self._bar.run_worker(self._save(stem), group="recording", name="save voice message")

    def discard(self) -> bool:
        """Drop the recording and hide the bar; False when nothing was being recorded (so the
        key can do what it does otherwise)."""
        if not self.recording:
            return False
        self._quiet()
        self._recorder.discard()
        return True

    def close(self) -> None:
        """The app is closing: drop any recording, so the device is let go."""
        self.discard()

    def refresh(self) -> None:
        """Redraw the bar from the recorder; stop when capture ended by itself (the timer's
        tick)."""
        recorder = self._recorder
        if not recorder.recording:
            return
        if recorder.ended is not None:
            self.stop()  # the clip keeps what was captured; its note says why it ended
            return
        reading = Reading(
            recorder.elapsed, recorder.level, recorder.peak_history, recorder.cap_seconds
        )
        self._bar.show(reading)

    async def _save(self, stem: str) -> None:
        """Encode the clip off the event loop and hand it on (the stop's worker)."""
        try:
            clip = await asyncio.to_thread(self._recorder.stop)
        except RecordingError as error:
            self._on_error(str(error))
            return
        finally:
            self._saving = False
        self._on_clip(clip.data, f"{stem}{clip.extension}", clip.mime, clip.duration)
        if clip.note is not None:
            self._on_note(clip.note)

    def _quiet(self) -> None:
        """Stop the timer and hide the bar."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._bar.hide()
