"""The attachments the next message carries, shown as chips above the prompt.

One chip each: a small picture of an image (half-blocks, which every terminal draws), its
name, type and size, a clip's length, and a mark when the host's model cannot read it
(``vision-input`` or ``audio-input`` not advertised). The chips take the focus (Tab and
Shift+Tab reach them, or a click): Left and Right choose one, Delete or Backspace removes it
(`Removed`), Enter or Esc goes back to the prompt. What is attached is the attaching
controller's (`openwop_tui.ui.controllers.attaching`); this only shows it.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from openwop_tui.core.attachments import Attachment
from openwop_tui.text.sanitize import clean_label
from openwop_tui.text.units import human_size

if TYPE_CHECKING:
    # Pillow and rich-pixels are imported when a picture is attached, not with the prompt: the
    # app's first frame does not wait for them (tests/ui/test_first_frame.py).
    from rich_pixels import Pixels

__all__ = ["AttachmentChips", "chip_label", "thumbnail"]

#: A chip's picture, in cells (half-blocks: twice as many pixels high).
THUMB_CELLS = (6, 2)
#: The widest a chip's words go (a longer name ends in "…").
LABEL_CELLS = 28
#: Pixels an image may hold for its chip's picture to be drawn (Pillow's own limit is larger).
THUMB_MAX_PIXELS = 40_000_000
#: The glyph before each kind's name.
_GLYPHS = {"image": "▣", "audio": "♪", "file": "▤"}


def thumbnail(data: bytes, cells: tuple[int, int] = THUMB_CELLS) -> Pixels | None:
    """A picture of an image's bytes ``cells`` wide and high, in half-blocks; ``None`` when it
    cannot be drawn (not an image Pillow reads, or too many pixels)."""
    from PIL import Image  # (see TYPE_CHECKING)
    from rich_pixels import HalfcellRenderer, Pixels

    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            if width * height > THUMB_MAX_PIXELS:
                return None
            image.draft("RGB", (cells[0] * 4, cells[1] * 8))  # (a JPEG decodes small)
            picture = image.convert("RGB").resize((cells[0], cells[1] * 2))
    except Exception:  # whatever Pillow raises on a file it cannot read: no picture
        return None
    pixels: Pixels = Pixels.from_image(picture, renderer=HalfcellRenderer())
    return pixels


def chip_label(attachment: Attachment, mark: str | None = None) -> Text:
    """The chip's words: glyph, name, type and size (and length), and the mark if any."""
    label = Text(no_wrap=True, overflow="ellipsis")
    label.append(f"{_GLYPHS[attachment.kind]} ", style="bold")
    label.append(clean_label(attachment.name), style="bold")
    kind = attachment.mime.split("/")[-1].upper()
    length = f" · {attachment.duration:.1f} s" if attachment.duration is not None else ""
    label.append(f"\n{kind} · {human_size(attachment.size)}{length}", style="dim")
    if mark:
        label.append(f"\n⚠ {clean_label(mark)}", style="bold yellow")
    return label


class AttachmentChips(Widget, can_focus=True):
    """A row of chips, one per pending attachment (hidden while there is none)."""

    DEFAULT_CSS = """
    AttachmentChips { height: auto; margin: 0 2; display: none; }
    AttachmentChips.-pending { display: block; }
    AttachmentChips:focus { background: $boost; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "choose(-1)", "Previous", show=False, tooltip="the previous attachment"),
        Binding("right", "choose(1)", "Next", show=False, tooltip="the next attachment"),
        Binding(
            "delete,backspace,x", "remove", "Remove attachment", tooltip="remove the attachment"
        ),
        Binding("enter,escape", "leave", "Back to the message", tooltip="back to the input"),
    ]

    chosen: reactive[int] = reactive(0)

    @dataclass
    class Removed(Message):
        """The user removed the chip at ``index``."""

        index: int

    @dataclass
    class Left(Message):
        """The user went back to the prompt."""

    def __init__(self, keys: str = "Alt+↑", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.keys = keys
        """The key that brings the focus here, as the hint names it (the app's keymap's)."""
        self._attachments: tuple[Attachment, ...] = ()
        self._marks: tuple[str | None, ...] = ()
        self._pictures: dict[int, Pixels | None] = {}

    @property
    def attachments(self) -> tuple[Attachment, ...]:
        return self._attachments

    def show(self, attachments: Sequence[Attachment], marks: Sequence[str | None]) -> None:
        """Show ``attachments`` (each with its mark, or ``None``); nothing to do (a message sent
        without attachments, none shown) leaves the screen's layout alone: a layout of the whole
        screen is what the key typed next would wait for."""
        if not attachments and not self._attachments:
            return
        self._attachments = tuple(attachments)
        self._marks = tuple(marks)
        pictures = {id(a.data): self._pictures.get(id(a.data)) for a in attachments}
        for attachment in attachments:
            if attachment.kind == "image" and pictures[id(attachment.data)] is None:
                pictures[id(attachment.data)] = thumbnail(attachment.data)
        self._pictures = pictures
        self.chosen = min(self.chosen, max(len(self._attachments) - 1, 0))
        self.set_class(bool(self._attachments), "-pending")
        if not self._attachments and self.has_focus:
            self.post_message(self.Left())
        self.refresh(layout=True)

    def render(self) -> RenderableType:
        chips: list[RenderableType] = []
        for index, attachment in enumerate(self._attachments):
            mark = self._marks[index] if index < len(self._marks) else None
            label = chip_label(attachment, mark)
            if self.has_focus and index == self.chosen:
                label.stylize("reverse")
            chip = Table.grid(padding=(0, 1))
            picture = self._pictures.get(id(attachment.data))
            if picture is not None:
                chip.add_column(width=THUMB_CELLS[0])
                chip.add_column(max_width=LABEL_CELLS)
                chip.add_row(picture, label)
            else:
                chip.add_column(max_width=LABEL_CELLS + THUMB_CELLS[0] + 1)
                chip.add_row(label)
            chips.append(chip)
        hint = f"{self.keys} to the chips: ←/→ choose, Del removes, Enter back"
        return Group(
            Columns(chips, padding=(0, 3)),
            Text(hint, style="dim", no_wrap=True, overflow="ellipsis"),
        )

    def watch_chosen(self) -> None:
        self.refresh()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def action_choose(self, step: int) -> None:
        if self._attachments:
            self.chosen = (self.chosen + step) % len(self._attachments)

    def action_remove(self) -> None:
        if self._attachments:
            self.post_message(self.Removed(self.chosen))

    def action_leave(self) -> None:
        self.post_message(self.Left())
