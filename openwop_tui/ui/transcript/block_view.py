"""A Line-API scroll view of a column of blocks, drawn only as they come into view.

`BlockView` is what the transcript view (`openwop_tui.ui.transcript.view`) is made on: it knows
blocks (`Block`), their offsets (`Column`) and the screen, not the fold or the app. Drawing
costs what is visible:

* a block is rendered to lines the first time it is in the viewport, and cached per width;
  until then its height is an estimate, corrected when drawn, with the scroll position anchored
  to the item at the top of the viewport so nothing jumps;
* a new block, a token or a resize never re-renders the rest: a resize re-renders only what
  is visible, and keeps the block at the top of the viewport there;
* once a frame is out, the page above and the page below are drawn and their screen lines
  composed (`PREFETCH_BLOCKS`, `PREFETCH_LINES` a turn of the loop), so a Page Up paints kept
  lines; not while a long session's older turns are read (`openwop_tui.ui.warming.held`),
  which come first;
* a streaming block's redraws are coalesced (`openwop_tui.ui.transcript.streaming`).

The view follows the end while it is at the bottom; scrolled up, new output does not move it
and a "new output below ↓" line shows (click it, or End). It keeps which block is selected
(the cursor, drawn in the gutter; moving it is the transcript's) and gives a mouse selection
the text under it.
"""

from __future__ import annotations

from textual.geometry import Offset, Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip

from openwop_tui.core.fold import EnvelopeItem, UserTurn
from openwop_tui.devices.profile import Colours
from openwop_tui.draw.palette import Palette
from openwop_tui.present.envelope import body_width
from openwop_tui.ui import theme_palette, warming
from openwop_tui.ui.messages import EnvelopeRenderRequested
from openwop_tui.ui.scroll_size import set_virtual_size
from openwop_tui.ui.transcript import composed
from openwop_tui.ui.transcript.blocks import Block
from openwop_tui.ui.transcript.column import Column
from openwop_tui.ui.transcript.composed import GUTTER, KEPT_LINES, ComposedLines, Frame
from openwop_tui.ui.transcript.matches import Matches
from openwop_tui.ui.transcript.pixels import KittySender, SixelPainter
from openwop_tui.ui.transcript.streaming import Redraws

__all__ = ["PREFETCH_BLOCKS", "PREFETCH_LINES", "BlockView"]

#: Blocks drawn ahead of the viewport (the page above and below it) in one turn of the loop.
PREFETCH_BLOCKS = 4
#: Screen lines composed ahead of the viewport in one turn of the loop (about 0.1 ms each).
PREFETCH_LINES = 40


class BlockView(ScrollView):
    """Blocks top to bottom, drawn as they are seen, the end followed, a block selectable."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.column = Column()
        """The blocks, top to bottom, and the line each starts at."""
        self._palette: Palette | None = None
        self._code_theme: str | None = None
        self.colours: Colours = "truecolor"
        """The colour system items are drawn in (the lab's profile)."""
        self.width_cap: int | None = None
        """Columns items are drawn in, at most (the lab's profile); ``None``: the view's."""
        self._cursor: int | None = None
        self._follow = True
        self.unseen = False
        """New output arrived below while scrolled up (the marker shows)."""
        self._anchor: tuple[int, int] | None = None
        """(block, line within it) at the top of the viewport, kept through height changes."""
        self.redraws = Redraws(self, self._redraw_streamed)
        """The streamed blocks waiting for their coalesced redraw."""
        self._search = Matches()
        """What the search looks for, where it found it, and the match stepped to."""
        self._prefetch_due = False
        self._kitty = KittySender()
        """Sends kitty images to the terminal once per drawing (their cells are text)."""
        self._sixel = SixelPainter()
        """Paints sixel images' rows over their blank cells as lines are painted."""
        self._frame: Frame | None = None
        """What the frame being painted composes its lines with (``None`` between frames)."""
        self.composed = ComposedLines()
        """Screen lines composed already (the prefetch composes the pages around the view)."""

    @property
    def cursor(self) -> int | None:
        """The selected block's index."""
        return self._cursor

    @cursor.setter
    def cursor(self, index: int | None) -> None:
        if index != self._cursor:
            self._cursor = index
            self._keys_changed()

    def _keys_changed(self) -> None:
        """The footer shows the keys of the selected item (`keys.applies`): ask it again."""
        if self.is_mounted:
            self.refresh_bindings()

    def _is_last(self, block: Block) -> bool:
        """Whether ``block`` is the last message the user sent on screen."""
        for other in reversed(self.column):
            if isinstance(other.item, UserTurn):
                return other is block
        return False

    @property
    def drawing_ahead(self) -> bool:
        """Whether the view still has pages around the viewport to draw once idle."""
        return self._prefetch_due

    # -------------------------------------------------------------- lifecycle

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    @property
    def palette(self) -> Palette:
        """The colours items are drawn in (the active theme's, code in `code_theme`)."""
        if self._palette is None:
            theme = theme_palette.from_theme(self.app.current_theme)
            self._palette = theme.with_code_theme(self._code_theme)
        return self._palette

    @property
    def code_theme(self) -> str | None:
        """The Pygments style code is highlighted in (``None``: the theme's own choice)."""
        return self._code_theme

    @code_theme.setter
    def code_theme(self, name: str | None) -> None:
        if name != self._code_theme:
            self._code_theme = name
            self._palette = None
            self.redraw_all()

    def _theme_changed(self, _theme: object) -> None:
        self._palette = None
        self.redraw_all()

    def set_profile(self, colours: Colours, width: int | None) -> None:
        """The lab's profile changed: draw every item again in ``colours``, at most ``width``
        columns wide, and ask the app again for every envelope (drawn under the new profile)."""
        self.colours, self.width_cap = colours, width
        self.redraw_all()

    def redraw_all(self) -> None:
        """Forget every item's lines and drawing: all are drawn again, envelopes asked for
        again (the old drawing shows until the new one comes)."""
        for block in self.column:
            block.changed()
            block.parts.clear()
            if block.rendered is not None:
                block.stale = True  # renderers draw with the theme too: ask again
            block.requested = None
        self.refresh()

    # ------------------------------------------------------------------ model

    @property
    def block_count(self) -> int:
        return len(self.column)

    def block_for(self, item_id: str) -> Block | None:
        """The block showing the item ``item_id``."""
        return self.column.block_for(item_id)

    def blocks(self) -> list[Block]:
        return list(self.column)

    def text_of(self, item_id: str) -> str:
        """What the view draws for an item, as text (drawing it at the current width if it was
        not drawn yet): for tests and for copying what is seen."""
        block = self.block_for(item_id)
        width = self.column.width or self.content_width
        if block is None or width <= 0:
            return ""
        return "\n".join(line.text.rstrip() for line in self._lines_of(block, width))

    def _lines_of(self, block: Block, width: int) -> list[Strip]:
        """A block's lines, laying out again if drawing it changed its height."""
        before = block.height
        lines = block.lines(self.app.console, width, self.palette, self.colours)
        if block.height != before:
            self.column.changed_from(self.column.index_of(block.item_id) or 0)
            self.call_later(self._relayout)
        return lines

    @property
    def show_verbose(self) -> bool:
        """Whether lifecycle lines (verbose notices) are shown."""
        return self.column.show_verbose

    @show_verbose.setter
    def show_verbose(self, value: bool) -> None:
        column = self.column
        if value != column.show_verbose:
            column.show_verbose = value
            if value:
                column.measure_hidden()
            column.changed_from(0)
            if self.cursor is not None and column.hidden(self.cursor):
                self.cursor = column.step(self.cursor, -1) or column.step(self.cursor, 1)
            self._relayout()

    @property
    def redraws_pending(self) -> bool:
        """Whether streamed items wait for their coalesced redraw (what is on screen of them
        is not their latest text yet)."""
        return self.redraws.due

    def flush_streamed(self) -> None:
        """Draw now what waits for its coalesced redraw (`Redraws`): the run ended, nothing
        will come to coalesce with it, and the screen must be whole when the status says the
        run is over. Left to the timer, whose delay grows with the cost of a redraw (six times
        it: seconds on a loaded machine), the reply showed its last tokens late, after the user
        had scrolled away, and flagged "new output below" for a run that had ended."""
        self.redraws.now()

    def _redraw_streamed(self, pending: set[int]) -> None:
        for index in pending:
            if index < len(self.column):
                self.column[index].cache.clear()  # the tail changed; finished parts stay
                self.column[index].measured = False
                self._remeasure(index)
        if not self._follow and any(index >= self._bottom_block() for index in pending):
            self.unseen = True
        self._relayout()

    def _remeasure(self, index: int) -> None:
        """A block changed: draw it again now if it is visible, else estimate its height."""
        block = self.column[index]
        width = self.content_width
        if width and self._is_visible(index):
            block.lines(self.app.console, width, self.palette, self.colours)
            self._request_render(block, width)
        elif not block.measured:
            block.height = block.estimate(width or 80)
        self.column.changed_from(index)

    def redraw(self, item_id: str) -> None:
        """Item ``item_id`` changed outside a fold change (its lint, its playback, its
        drawing): draw its block again."""
        index = self.column.index_of(item_id)
        if index is None:
            return
        self.column[index].changed()
        self._remeasure(index)
        self._relayout()

    def _request_render(self, block: Block, width: int) -> None:
        if not isinstance(block.item, EnvelopeItem):
            return
        body = body_width(width)
        if not block.needs_render(body):
            return
        wanted = (body, block.item.envelope)
        if block.requested is not None and block.requested == wanted:
            return
        block.requested = wanted
        self._post(EnvelopeRenderRequested(block.item_id, body))

    def _post(self, message: Message) -> None:
        """Post a message that bubbles up to the app whoever is running: posted while the
        screen paints, Textual would take the screen for the sender and stop it there."""
        self.post_message(message.set_sender(self))

    # ------------------------------------------------------------------- layout

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        """Textual's `Widget._size_updated`, with the blocks' heights estimated at a new width.

        Args:
            size: The widget's new size on screen.
            virtual_size: Its new scrollable size.
            container_size: The size of its parent.
            layout: Whether Textual lays the screen out again if needed (passed on as given).
        """
        # Textual tells a widget its new size here, while it lays the screen out, before the
        # frame is drawn. The heights at a new width are estimated now, so the scroll bar
        # drawn in that frame already has the new height; from `render_lines` (where the
        # visible blocks are drawn) it came a frame late, and the bar moved again after it.
        resized = super()._size_updated(size, virtual_size, container_size, layout)
        width = self.content_width
        if width > 0 and width != self.column.width and len(self.column):
            self._rewidth(width)
            self._scroll_update(self.virtual_size)  # (the bar told now, not at the next layout)
        self._place_bar()  # (a bar just shown starts at the position there is)
        return resized

    def _scroll_line(self, y: int) -> None:
        """Put line ``y`` at the top of the viewport now, and the scroll bar with it.

        `set_scroll` sets the position without its watcher (so without an animation or a
        frame's delay), and the watcher is what moves the bar: without this, a view that
        follows its end kept its thumb wherever the last scroll by hand had left it (at the
        top, for a view never scrolled)."""
        self.set_scroll(None, y)
        self._place_bar()

    def _place_bar(self) -> None:
        """The scroll bar's thumb where the view is (what `watch_scroll_y` does on a scroll)."""
        if self.show_vertical_scrollbar:
            self.vertical_scrollbar.position = self.scroll_y

    @property
    def content_width(self) -> int:
        """The columns an item is drawn in: the view's, less the gutter and a margin, at most
        the lab's cap."""
        width = max(0, self.scrollable_content_region.width - GUTTER - 1)
        return width if self.width_cap is None else min(width, self.width_cap)

    def _bottom_block(self) -> int:
        if not len(self.column):
            return 0
        return self.column.block_at(int(self.scroll_y) + max(self.size.height, 1) - 1)

    def _is_visible(self, index: int) -> bool:
        tops = self.column.tops
        top = int(self.scroll_y)
        if self._follow:
            top = max(0, tops[-1] - self.size.height)
        return tops[index] < top + self.size.height and tops[index + 1] > top

    def _relayout(self) -> None:
        """Recompute the line offsets, the virtual size and the scroll position."""
        anchor = self._anchor
        tops = self.column.tops
        total = tops[-1]
        width = self.scrollable_content_region.width
        set_virtual_size(self, Size(width, total))  # (a screen layout only if a bar may change)
        if self._follow:
            self._scroll_line(max(0, total - self.scrollable_content_region.height))
        elif anchor is not None and anchor[0] < len(self.column):
            index, offset = anchor
            target = tops[index] + min(offset, max(self.column.height_of(index) - 1, 0))
            if target != round(self.scroll_y):
                self._scroll_line(target)
        self.refresh()

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        if len(self.column):
            tops = self.column.tops
            self._follow = round(new) >= tops[-1] - self.scrollable_content_region.height
            if self._follow:
                self.unseen = False
            index = self.column.block_at(round(new))
            self._anchor = (index, round(new) - tops[index])

    def _prepare(self) -> None:
        """Draw what the viewport shows (and nothing else), fixing heights and position."""
        width = self.content_width
        column = self.column
        if width <= 0 or not len(column):
            return
        if width != column.width:
            self._rewidth(width)
        console, palette = self.app.console, self.palette
        height = self.scrollable_content_region.height
        for _ in range(4):  # heights settle in a pass or two
            changed = False
            if self._follow:
                indices = column.shown_at_end(height)
            else:
                top = round(self.scroll_y)
                indices = column.shown_between(column.block_at(top), top + height)
            for index in indices:
                block = column[index]
                self._request_render(block, width)  # even if drawn already (a placeholder)
                if block.drawn_at(width):
                    continue
                before = block.height
                block.lines(console, width, palette, self.colours)
                if block.height != before:
                    column.changed_from(index)
                    changed = True
            if not changed:
                break
            self._relayout()
        if not self._prefetch_due:
            self._prefetch_due = True
            self.call_after_refresh(self._prefetch)

    def _prefetch(self) -> None:
        """Draw the page above and the page below the viewport once the frame is out, so a
        Page Up or Down finds its lines drawn: the key costs a frame, not a frame plus the
        markdown of a screenful of items. `PREFETCH_BLOCKS` at a time, the event loop getting
        a turn between them, so a key never waits behind more than a few blocks' drawing
        (counted, not timed: what is drawn once the app is idle does not depend on its
        speed)."""
        self._prefetch_due = False
        column = self.column
        width = column.width
        if width <= 0 or not len(column) or not self.is_attached:
            return
        if warming.held():
            # A long session's older turns are being read in a thread beside the loop, and
            # every millisecond the loop keeps the interpreter is one more before they come:
            # drawing ahead kept it 76 ms in a traced reading of 3,000 turns. Looked at again
            # after a pause until the reading ends (no frame may follow it to ask).
            self._prefetch_due = True
            self.set_timer(warming.QUIET, self._prefetch)
            return
        height = self.scrollable_content_region.height
        top = round(self.scroll_y)
        first = column.block_at(max(0, top - height))
        console, palette = self.app.console, self.palette
        drawn = 0
        # Laid out again only if a block's drawn height is not the one estimated: off screen,
        # a drawing changes nothing painted, and a relayout repaints the whole view (a Page Up
        # sent its screenful twice, the second time 30 ms after the first, for nothing).
        moved = False
        for index in column.shown_between(first, top + 2 * height):
            block = column[index]
            if block.drawn_at(width):
                continue
            if isinstance(block.item, EnvelopeItem) or index in self.redraws.pending:
                continue  # the app draws envelopes; a streaming block draws at its own pace
            if drawn == PREFETCH_BLOCKS:
                self._prefetch_due = True
                self.call_after_refresh(self._prefetch)
                break
            before = block.height
            block.lines(console, width, palette, self.colours)
            if block.height != before:
                column.changed_from(index)
                moved = True
            drawn += 1
        else:
            if moved:
                self._relayout()  # (the view may have moved: heights above it changed)
            self._compose_ahead(round(self.scroll_y), height)
            return
        if moved:
            self._relayout()

    def _compose_ahead(self, top: int, height: int) -> None:
        """Compose the screen lines of the page above and the page below (their blocks drawn
        already), `PREFETCH_LINES` in a turn of the loop: a Page Up then paints kept lines."""
        frame = self._frame_now()
        column = self.column
        tops = column.tops
        done = 0
        first = max(0, top - height)
        last = min(tops[-1], top + 2 * height, first + KEPT_LINES // 2)
        for virtual_y in range(first, last):
            index = column.block_at(virtual_y)
            block = column[index]
            lines = block.cache.get(column.width)
            row = virtual_y - tops[index]
            if lines is None or row >= len(lines):
                continue
            if composed.is_kept(frame, self.composed, (index, row), block, lines):
                continue
            if done == PREFETCH_LINES:
                self._prefetch_due = True
                self.call_after_refresh(self._prefetch)
                return
            composed.compose(frame, self.composed, (index, row), block, lines, virtual_y)
            done += 1

    def _rewidth(self, width: int) -> None:
        """A new width: re-estimate every height; only what is visible is drawn again."""
        self.column.relay(width)
        self._relayout()

    # ----------------------------------------------------------------- painting

    def render_lines(self, crop: Region) -> list[Strip]:
        self._prepare()
        self._frame = self._frame_now()
        try:
            return super().render_lines(crop)
        finally:
            self._frame = None

    def _frame_now(self) -> Frame:
        region = self.scrollable_content_region
        base = self.rich_style
        return Frame(
            width=region.width,
            height=region.height,
            top=round(self.scroll_y),
            base=base,
            region=self.content_region,
            active=self.screen.is_active,
            key=(region.width, self.column.width, base, self.palette, self.colours),
            palette=self.palette,
            console=self.app.console,
            cursor=self.cursor,
            focused=self.has_focus,
            search=self._search,
            is_last=self._is_last,
        )

    def render_line(self, y: int) -> Strip:
        """One line of the viewport, from the cache (rendering the block if it must)."""
        frame = self._frame or self._frame_now()
        if self.unseen and y == frame.height - 1:
            return composed.marker(frame)
        virtual_y = frame.top + y
        column = self.column
        tops = column.tops
        if not len(column) or virtual_y >= tops[-1] or column.width <= 0:
            return Strip.blank(frame.width, frame.base)
        index = column.block_at(virtual_y)
        block = column[index]
        lines = block.lines(self.app.console, column.width, self.palette, self.colours)
        row = virtual_y - tops[index]
        if row >= len(lines):
            self.call_after_refresh(self._relayout)  # measured while painting: lay out again
            return Strip.blank(frame.width, frame.base)
        strip = composed.compose(frame, self.composed, (index, row), block, lines, virtual_y)
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(virtual_y)) is not None:
            style = self.screen.get_component_rich_style("screen--selection")
            strip = composed.selected(strip, span, style)
        if frame.active:
            strip = self._sixel.paint(strip, frame.region.x, frame.region.y + y)
        return strip

    # ---------------------------------------------------------------- selection

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The text under a mouse selection (Textual's selection support)."""
        column = self.column
        if not len(column) or column.width <= 0:
            return None
        total = column.total
        start = selection.start or Offset(0, 0)
        end = selection.end or Offset(column.width + GUTTER, total - 1)
        lines = [self._line_text(y) for y in range(start.y, min(end.y, total - 1) + 1)]
        shifted = Selection(
            Offset(max(0, start.x - GUTTER), 0),
            Offset(max(0, end.x - GUTTER), len(lines) - 1),
        )
        text = shifted.extract("\n".join(lines))
        return "\n".join(line.rstrip() for line in text.split("\n")), "\n"

    def _line_text(self, virtual_y: int) -> str:
        index = self.column.block_at(virtual_y)
        lines = self._lines_of(self.column[index], self.column.width)
        row = virtual_y - self.column.tops[index]
        return lines[row].text if 0 <= row < len(lines) else ""

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    # ------------------------------------------------------------------ cursor

    def _scroll_to_block(self, index: int, row: int = 0) -> bool:
        """Scroll so line ``row`` of block ``index`` is in view; whether the view moved (the
        caller repaints: it may have changed more)."""
        top = self.column.tops[index] + row
        height = self.scrollable_content_region.height
        if round(self.scroll_y) <= top < round(self.scroll_y) + height:
            return False
        self._follow = False
        self._anchor = (index, row)
        self._scroll_line(max(0, top - (height // 3 if row else 0)))
        return True
