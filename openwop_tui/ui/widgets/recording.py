"""The line above the prompt while a voice message is being recorded.

One line, shown only while recording (as `openwop_tui.ui.widgets.queued.QueuedMessages` is
only while messages wait): a red dot and the word, the time recorded and the cap, a sparkline of
the last seconds' loudness and a bar for the loudness now, and the keys that stop and discard::

    ● Recording 0:03 of 2:00  ▁▂▃▅▇▆▅▃▂▁▃▅ █████▍    F7 stops · Esc discards

The recording controller (`openwop_tui.ui.controllers.recording`) hands the bar a `Reading`
about ten times a second; the line is `recording_line`, a pure function of the reading, the
keys and the width, so it is tested without an app. The sparkline takes whatever room the rest
leaves, so a wide terminal shows more of the past. Colours are theme variables.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from textual.content import Content
from textual.widget import Widget

from openwop_tui.text.sanitize import clean_own, one_line

__all__ = ["DEFAULT_KEYS", "Reading", "RecordingBar", "clock", "recording_line"]

#: What the keys line says when the app names no keys of its own.
DEFAULT_KEYS = "F7 stops · Esc discards"
#: Cells of the level bar.
BAR_CELLS = 8
#: The last seconds before the cap, when the time is drawn as a warning.
WARN_SECONDS = 10.0
#: Cells of the sparkline when there is room: 3.2 s of tenths.
SPARK_CELLS = 32
#: A sparkline narrower than this says nothing: it is left out instead.
SPARK_MIN = 4
_SPARKS = "▁▂▃▄▅▆▇█"
_EIGHTHS = " ▏▎▍▌▋▊▉"
_GAP = "  "


@dataclass(frozen=True, slots=True)
class Reading:
    """What the bar shows of a recording at one moment (the recorder's figures)."""

    elapsed: float
    """Seconds recorded."""
    level: float
    """The loudness now, 0..1."""
    history: tuple[float, ...] = ()
    """The loudness of the last tenths of a second, oldest first, 0..1."""
    cap: float = 120.0
    """Seconds at which recording stops by itself."""


def clock(seconds: float) -> str:
    """``0:03``, ``2:00``: minutes and whole seconds (a recording is never an hour)."""
    minutes, secs = divmod(int(max(seconds, 0.0)), 60)
    return f"{minutes}:{secs:02d}"


def sparkline(levels: tuple[float, ...]) -> str:
    """One block character per level, ``▁`` (silence) to ``█`` (full scale)."""
    top = len(_SPARKS) - 1
    return "".join(_SPARKS[round(min(max(level, 0.0), 1.0) * top)] for level in levels)


def level_bar(level: float, cells: int = BAR_CELLS) -> str:
    """``level`` (0..1) as a bar ``cells`` wide, in eighths of a cell, padded with spaces."""
    eighths = round(min(max(level, 0.0), 1.0) * cells * 8)
    full, part = divmod(eighths, 8)
    bar = "█" * full + (_EIGHTHS[part] if part else "")
    return bar.ljust(cells)


def recording_line(reading: Reading, keys: str = DEFAULT_KEYS, width: int = 0) -> Content:
    """The bar's line for ``reading``, fitted to ``width`` cells (``0``: no limit).

    The sparkline is `SPARK_CELLS` wide, its newest level on the right (a recording just begun
    fills it from the right), so the level bar and the keys keep their place. What does not fit
    goes, least useful first: the sparkline narrows (and goes below `SPARK_MIN` cells), then the
    level bar, then the word "Recording"; the dot, the time and the keys stay (the widget ends a
    line still too long with an ellipsis).

    Args:
        reading: The recording's figures.
        keys: How to stop and discard, as the app's keymap names them.
        width: The cells there are.
    """
    time_style = "bold $text-warning" if reading.cap - reading.elapsed <= WARN_SECONDS else "bold"
    times = [(clock(reading.elapsed), time_style), (f" of {clock(reading.cap)}", "$text-muted")]
    word: list[tuple[str, str]] = [("Recording ", "bold")]
    bar: list[tuple[str, str]] = [(_GAP, ""), (level_bar(reading.level), "$text-accent")]
    shown_keys = one_line(clean_own(keys))  # the user's own key names: still one safe line
    tail: list[tuple[str, str]] = [(_GAP, ""), (shown_keys, "$text-muted")] if keys else []

    def length(*groups: list[tuple[str, str]]) -> int:
        return 2 + sum(cell_len(text) for group in groups for text, _ in group)  # 2: "● "

    room = 10_000 if width <= 0 else width
    if length(word, times, bar, tail) > room:
        bar = []  # (before the word goes: the word says what the red dot means)
    if length(word, times, bar, tail) > room:
        word = []
    cells = min(room - length(word, times, bar, tail) - len(_GAP) + 1, SPARK_CELLS)
    spark: list[tuple[str, str]] = []
    if cells >= SPARK_MIN:
        shown = sparkline(reading.history[-cells:]).rjust(cells)
        spark = [(_GAP, ""), (shown, "$text-accent")]
        if bar:
            bar[0] = (" ", "")  # the sparkline and the bar are one meter
    return Content.assemble(("● ", "$text-error"), *word, *times, *spark, *bar, *tail)


class RecordingBar(Widget):
    """One line above the prompt, shown while a voice message is being recorded."""

    DEFAULT_CSS = """
    RecordingBar {
        height: 1; margin: 0 2; display: none; text-wrap: nowrap; text-overflow: ellipsis;
    }
    RecordingBar.-recording { display: block; }
    """

    def __init__(self, keys: str = DEFAULT_KEYS, *, id: str | None = None) -> None:
        """A hidden bar.

        Args:
            keys: What the line says stops and discards (``F7 stops · Esc discards``).
            id: The widget's id.
        """
        super().__init__(id=id)
        self._keys = keys
        self._reading: Reading | None = None

    @property
    def keys(self) -> str:
        """The keys the line names; set it when the user rebinds them."""
        return self._keys

    @keys.setter
    def keys(self, keys: str) -> None:
        self._keys = keys
        self.refresh()

    @property
    def reading(self) -> Reading | None:
        """What the bar shows; ``None`` while hidden."""
        return self._reading

    def show(self, reading: Reading) -> None:
        """Show the bar (if hidden) with ``reading``."""
        self._reading = reading
        self.add_class("-recording")
        self.refresh()

    def hide(self) -> None:
        """Hide the bar (recording stopped or discarded)."""
        self._reading = None
        self.remove_class("-recording")

    def render(self) -> Content:
        if self._reading is None:
            return Content()
        return recording_line(self._reading, self.keys, self.content_size.width)
