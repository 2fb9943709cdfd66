"""SVG snapshots of the attachment chips above the prompt (issue 25, part 1), at 80x24 and
120x40: a picture with its half-block thumbnail, a Markdown file and a voice clip, the picture
marked as one the host's model may not read, the chips focused with the clip chosen. A minimal
app in the client's default theme holds them above an input, as the chat app places them.
Update with ``--snapshot-update`` and look at every SVG first.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import soundfile
from PIL import Image
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Input

from openwop_tui.core.attachments import attachment_of
from openwop_tui.themes import DEFAULT, THEMES
from openwop_tui.ui.widgets.chips import AttachmentChips

Snap = Callable[..., bool]
SIZES = [(80, 24), (120, 40)]


def _picture() -> bytes:
    image = Image.new("RGB", (48, 32), (20, 60, 160))
    image.paste((230, 120, 20), (24, 0, 48, 16))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def _clip() -> bytes:
    buffer = io.BytesIO()
    samples = np.zeros(16_000 * 3, dtype="float32")
    soundfile.write(buffer, samples, 16_000, format="WAV", subtype="PCM_16")
    return buffer.getvalue()


class ChipsShown(App[None]):
    """The chips above an input at the bottom of the screen."""

    CSS = "Screen { align-vertical: bottom; } Input { margin: 0 1; }"

    def compose(self) -> ComposeResult:
        yield AttachmentChips(id="chips")
        yield Input(placeholder="Enter sends 3 attachments (words optional)", id="prompt")

    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = DEFAULT
        chips = self.query_one(AttachmentChips)
        attachments = [
            attachment_of(_picture(), "chart.png"),
            attachment_of(b"# Notes\n\n## Part one\n", "notes.md"),
            attachment_of(_clip(), "voice 2026-12-05 15-30-00.wav", "audio/wav"),
        ]
        chips.show(attachments, ["no vision-input", None, None])


async def _chosen(pilot: Pilot[Any]) -> None:
    app = pilot.app
    app.query_one(Input).cursor_blink = False
    app.query_one(AttachmentChips).focus()
    await pilot.press("right", "right")
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
def test_attachment_chips(snap_compare: Snap, size: tuple[int, int]) -> None:
    assert snap_compare(ChipsShown(), terminal_size=size, run_before=_chosen)
