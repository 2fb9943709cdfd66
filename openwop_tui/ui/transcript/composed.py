"""The transcript's screen lines as composed, kept for the frames that paint them again.

A screen line is a block's line with the view's gutter before it and the widget's style over
it, cut to the width. Composing it cost more than drawing it from a block's cached lines: a
Page Up painted forty of them at about 0.1 ms each, a third of its frame. So the view keeps
each composed line (`ComposedLines`), keyed by block and line within it and checked against
what it was composed from (the block's drawing, and the frame's width, style and palette:
`Frame.key`); the prefetch composes the page above and the page below before they are needed.
A kept line notes which of its block's drawings it came from (`Block.drawing`) and the one
drawn line it was composed from, not the drawn lines themselves: a streamed reply is drawn
again several times a second, and each screen line that held the drawing it was composed from
kept that whole drawing alive (a flood's reply of 4,500 lines: six or seven old drawings of it,
40 MB, until 512 other lines were composed; the drawn lines' budget,
`openwop_tui.ui.transcript.budget`, could not free what they held). A reply's line is painted
again from a later drawing that kept it (its open paragraph keeps the lines new words do not
reach): composing the whole screen again at each redraw was about a fifth of the CPU a
streamed reply's frames took (in process, a flood's words into a view at 120x40).
The line's place for text selection (Textual's ``apply_offsets``) is put on as it is painted:
a block drawn above it moves it down (its estimate corrected), and Textual keeps a strip's
offset copies, so painting it at the same place again costs nothing.

A heading line with buttons is kept too, with what they follow beside the frame (a user
turn's whether it is the last message). Never kept: the selected item's lines (its gutter and
colours follow focus), and every line while a search highlights matches.

`compose` makes one screen line; `marker` and `selected` are the other things painted over or
instead of one. They read what the frame holds and draw nothing themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip

from openwop_tui.core.fold import AssistantTurn, EnvelopeItem, UserTurn
from openwop_tui.core.own_media import is_own
from openwop_tui.draw.palette import Palette
from openwop_tui.ui.transcript.blocks import button_text
from openwop_tui.ui.transcript.keys import LAST_MESSAGE
from openwop_tui.ui.transcript.matches import Matches

if TYPE_CHECKING:
    from openwop_tui.ui.transcript.blocks import Block

__all__ = ["GUTTER", "KEPT_LINES", "NEW_OUTPUT", "ComposedLines", "Frame", "compose", "marker"]

#: Composed lines kept: the screen, the page above and the page below, a few times over (the
#: view composes ahead at most half as many, so what it composes stays until painted). A line
#: with its strip's caches and offset copies is several kilobytes, and a chat adds lines at
#: every turn: 2,048 kept grew 300 short turns by about 23 MiB more than 512 (issue 26).
KEPT_LINES = 512
#: Columns left of every item: a bar for the selected item (and envelopes), then a space.
GUTTER = 2
NEW_OUTPUT = " new output below ↓ (End) "


@dataclass(frozen=True, slots=True)
class Frame:
    """What every line of one frame is composed with (worked out once a frame, not a line)."""

    width: int
    """The widget's scrollable width (the line is cut or padded to it)."""
    height: int
    top: int
    """The transcript line at the top of the viewport."""
    base: Style
    """The widget's own style, under every line."""
    region: Region
    """The widget's content region on screen (where sixel images are painted)."""
    active: bool
    """Whether the widget's screen is the one shown."""
    key: tuple[object, ...]
    """What a kept line must have been composed with to be painted again."""
    palette: Palette
    console: Console
    cursor: int | None
    """The selected block."""
    focused: bool
    """Whether the view has focus (the selected item's bar is thicker)."""
    search: Matches
    is_last: Callable[[Block], bool]
    """Whether a block is the last message the user sent (its buttons follow it)."""


_Kept = tuple["Block", int, Strip, object, Strip]
"""(the block, its drawing the line was composed from, the drawn line it was composed from,
the frame's key, the composed line)."""


class ComposedLines:
    """Screen lines composed once and painted again while nothing they show changed (the
    `KEPT_LINES` composed last)."""

    def __init__(self) -> None:
        # (A dict in the order kept, not Textual's LRUCache: its ``set`` leaves the value of a
        # key it holds, and a line composed again at the same place must replace the old one.)
        self._kept: dict[tuple[int, int], _Kept] = {}

    def get(self, block: Block, row: int, key: object, line: Strip) -> Strip | None:
        """The screen line kept for a line of a block as drawn now; ``None`` when none is kept,
        or it was composed from another drawing of the block (of a reply: from another line)
        or for other frames.

        Args:
            block: The block the line is of.
            row: The line within the block.
            key: What the frame composes the line with (`_keep_key`); it must be the same.
            line: The block's line ``row`` as drawn now.
        """
        kept = self._kept.get((id(block), row))
        if kept is None:
            return None
        was_block, was_drawing, was_line, was_key, strip = kept
        if was_block is not block or was_key != key:
            return None
        # The block's lines at the frame's width (which ``key`` holds) change only with a new
        # drawing: the same drawing and key, the same lines. A streamed reply is drawn again
        # several times a second, and keeps the lines of its open paragraph that the new text
        # does not reach (`Block._part_lines`): the same line, the same screen line, as its
        # gutter is blank and its buttons are on its first line alone (so a flood's screenful
        # is not composed whole again at each redraw, only the lines it gained).
        if was_drawing == block.drawing or (was_line is line and _line_alone(block, row)):
            return strip
        return None

    def keep(self, block: Block, row: int, key: object, line: Strip, strip: Strip) -> None:
        """Keep a composed screen line of a block's lines as drawn now (`Block.drawing`), in
        place of any kept for the same line; past `KEPT_LINES`, the one kept longest ago goes.

        Args:
            block: The block the line is of.
            row: The line within the block.
            key: What the frame composed it with (`_keep_key`).
            line: The block's line it was composed from (one line, not the drawing: see the
                module's docstring).
            strip: The composed line, without its place for text selection.
        """
        kept = self._kept
        where = (id(block), row)
        kept.pop(where, None)
        kept[where] = (block, block.drawing, line, key, strip)
        if len(kept) > KEPT_LINES:
            del kept[next(iter(kept))]

    def clear(self) -> None:
        self._kept.clear()


def compose(
    frame: Frame,
    kept: ComposedLines,
    place: tuple[int, int],
    block: Block,
    lines: list[Strip],
    virtual_y: int,
) -> Strip:
    """Line ``row`` of block ``index`` (drawn as ``lines``) as the screen shows it at
    ``virtual_y``: gutter, buttons, search marks, the widget's style, its place for text
    selection. Kept in ``kept`` (all but its place) unless its look follows more than the
    frame.

    Args:
        frame: What the frame composes every line with.
        kept: The lines composed already.
        place: (the block's index, the line within it).
        block: The block at that index.
        lines: The block's lines, drawn at the view's width.
        virtual_y: The transcript line it is painted at.
    """
    index, row = place
    key = _keep_key(frame, index, block, row)
    drawn = lines[row]
    strip = kept.get(block, row, key, drawn) if key is not None else None
    if strip is None:
        line = drawn
        if row == 0:
            line = _with_buttons(frame, block, index, line)
        if frame.search:
            line = frame.search.mark(line, index, lines, row, Style.parse(frame.palette.match))
        strip = Strip.join([_gutter(frame, block, index), line, Strip.blank(1)])
        if index == frame.cursor:
            strip = strip.apply_style(Style.parse(frame.palette.selection))
        strip = strip.apply_style(frame.base).crop_extend(0, frame.width, frame.base)
        if key is not None:
            kept.keep(block, row, key, drawn, strip)
    return strip.apply_offsets(0, virtual_y)


def is_kept(
    frame: Frame, kept: ComposedLines, place: tuple[int, int], block: Block, lines: list[Strip]
) -> bool:
    """Whether a screen line of a block as drawn now need not be composed: it is kept already,
    or it would not be kept (so composing it ahead saves nothing).

    Args:
        frame: What the frame composes every line with.
        kept: The lines composed already.
        place: (the block's index, the line within it).
        block: The block at that index.
        lines: The block's lines, drawn at the view's width.
    """
    index, row = place
    key = _keep_key(frame, index, block, row)
    return key is None or kept.get(block, row, key, lines[row]) is not None


def _line_alone(block: Block, row: int) -> bool:
    """Whether a kept screen line of ``block`` is composed from its drawn line ``row`` and the
    frame alone: a reply's, but its first (the buttons beside it follow the reply's state)."""
    return row > 0 and isinstance(block.item, AssistantTurn)


def _keep_key(frame: Frame, index: int, block: Block, row: int) -> object | None:
    """What the screen line is composed from beside its block's lines (`ComposedLines`);
    ``None`` when it is not kept: the selected item's lines, every line while a search
    marks matches.

    Args:
        frame: What the frame composes every line with.
        index: The block's index in the column.
        block: The block at that index.
        row: The line within the block (a user turn's first carries its buttons).
    """
    if frame.search or index == frame.cursor:
        return None
    if row == 0 and isinstance(block.item, UserTurn):
        # Its buttons: edit and regenerate are the last message's only.
        return (frame.key, frame.is_last(block))
    # (A reply's buttons follow its text, which its lines are drawn from.)
    return frame.key


def _gutter(frame: Frame, block: Block, index: int) -> Strip:
    palette = frame.palette
    if index == frame.cursor and frame.focused:
        return Strip([Segment("▌ ", Style.parse(palette.accent))], GUTTER)
    if index == frame.cursor:
        return Strip([Segment("▎ ", Style.parse(palette.accent))], GUTTER)
    if isinstance(block.item, EnvelopeItem):
        degraded = block.rendered is not None and block.rendered.degraded
        colour = palette.degraded_border if degraded else palette.border
        if is_own(block.item):
            colour = palette.user  # the user's own attachment: the colour of "You"
        return Strip([Segment("▎ ", Style.parse(colour))], GUTTER)
    return Strip([Segment("  ")], GUTTER)


def _with_buttons(frame: Frame, block: Block, index: int, line: Strip) -> Strip:
    """A block's heading line with its buttons at its right end, when they fit beside its
    text. Replies and user turns carry their buttons on their heading line; other items show
    them there while selected (an envelope has a line of its own).

    Args:
        frame: What the frame composes every line with.
        block: The block the line is of.
        index: The block's index in the column (the selected one shows its buttons).
        line: The block's first line, as drawn.
    """
    if isinstance(block.item, EnvelopeItem):
        return line
    if index != frame.cursor and not isinstance(block.item, AssistantTurn | UserTurn):
        return line
    actions = block.actions()
    if isinstance(block.item, UserTurn) and not frame.is_last(block):
        actions = [name for name in actions if name not in LAST_MESSAGE]
    buttons = button_text(actions, block.item_id, frame.palette)
    segments = list(buttons.render(frame.console))
    size = buttons.cell_len
    free = line.cell_length - len(line.text.rstrip())
    if size + 1 > free:
        return line  # never over the item's text (the keys still work)
    return Strip.join([line.crop(0, line.cell_length - size), Strip(segments, size)])


def selected(strip: Strip, span: tuple[int, int], style: Style) -> Strip:
    """``strip`` with columns ``span`` (end -1: to its end) in the text selection's ``style``."""
    start, end = span
    end = strip.cell_length if end == -1 else end
    return Strip.join(
        [
            strip.crop(0, start),
            strip.crop(start, end).apply_style(style),
            strip.crop(end, strip.cell_length),
        ]
    )


def marker(frame: Frame) -> Strip:
    """The "new output below" line, centred, that takes the viewport's last line."""
    text = Text(NEW_OUTPUT, style=Style.parse(f"reverse {frame.palette.accent}"))
    text.apply_meta({"@click": "last"})
    segments = list(text.render(frame.console))
    width = frame.width
    pad = max(0, width - text.cell_len)
    strip = Strip([Segment(" " * (pad // 2)), *segments], pad // 2 + text.cell_len)
    return strip.apply_style(frame.base).crop_extend(0, width, frame.base)
