"""The transcript: one Line-API view holding every item, however old, drawn the same way.

Fold changes come in through `apply`; each item is a `Block` (`openwop_tui.ui.widgets.blocks`)
drawn from `openwop_tui.present.items` with the theme's `Palette`. Drawing costs what is visible:

* a block is rendered to lines the first time it is in the viewport, and cached per width;
  until then its height is an estimate, corrected when drawn, with the scroll position anchored
  to the item at the top of the viewport so nothing jumps;
* a new item, a token or a resize never re-renders the rest: a resize re-renders only what is
  visible, and keeps the item at the top of the viewport there;
* a streaming reply's finished markdown blocks are cached; only its open tail is drawn again,
  and redraws of streamed items are coalesced (`STREAM_REDRAW_SECONDS`).

The view follows the end while it is at the bottom; scrolled up, new output does not move it
and a "new output below ↓" line shows (click it, or End). A cursor selects one item (Up/Down,
Home/End); its actions are keys and clickable text. The view never calls the app: it posts
`ActionRequested`, `EnvelopeRenderRequested` and `TranscriptLeft` (`openwop_tui.ui.messages`), and
the app answers a render request with `set_rendered`.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from itertools import accumulate, islice
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Offset, Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip
from textual.timer import Timer

from openwop_tui.core.fold import (
    Added,
    AssistantTurn,
    Change,
    EnvelopeItem,
    Item,
    Reasoning,
    Updated,
    UserTurn,
)
from openwop_tui.devices.profile import Colours
from openwop_tui.draw.palette import Palette
from openwop_tui.present.envelope import body_width
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers import Registry
from openwop_tui.renderers.base import Code, Rendered
from openwop_tui.renderers.registry import APP_ACTIONS
from openwop_tui.ui import theme_palette
from openwop_tui.ui.messages import (
    ActionRequested,
    EnvelopeRenderRequested,
    ItemEventsRequested,
    TranscriptLeft,
)
from openwop_tui.ui.widgets import item_keys
from openwop_tui.ui.widgets.blocks import Block, button_text, estimate_height
from openwop_tui.ui.widgets.composed import KEPT_LINES, ComposedLines, Frame
from openwop_tui.ui.widgets.finder import Finder
from openwop_tui.ui.widgets.matches import Matches
from openwop_tui.ui.widgets.pixels import KittySender, SixelPainter

#: Coalescing of streamed redraws: a burst of tokens costs one redraw per this many seconds.
STREAM_REDRAW_SECONDS = 0.04
#: A streamed redraw waits this many times as long as the last one took, so redrawing a reply
#: that has grown long (a fast host's, or a 15 MB one) takes at most a seventh of the event
#: loop's time: keys, and the ingest that makes the reply, keep the rest. (A short reply
#: redraws in a few ms: `STREAM_REDRAW_SECONDS` decides its pace. With a quarter, a flood of
#: 10,000 chunks a second fell 7-10 s behind; with a seventh, 5-6 s.)
STREAM_REDRAW_SHARE = 6.0
#: Blocks drawn ahead of the viewport (the page above and below it) in one turn of the loop.
PREFETCH_BLOCKS = 4
#: Screen lines composed ahead of the viewport in one turn of the loop (about 0.1 ms each).
PREFETCH_LINES = 40
#: Columns left of every item: a bar for the selected item (and envelopes), then a space.
GUTTER = 2
NEW_OUTPUT = " new output below ↓ (End) "
#: Actions of the player keys, valid on any item that can play (they are not buttons).
PLAYER_KEYS = frozenset({"seek-back", "seek-forward", *(f"seek:{n}" for n in range(10))})


class TranscriptView(ScrollView, can_focus=True):
    """Everything said in this session, newest at the bottom. Focus it (Shift+Tab or Ctrl+Up
    from the input) to move between items and use their keys: s save, S save as…, o open,
    p or space play and pause, x stop, ←/→ or [/] seek 5 s, 0-9 jump to a tenth of the clip,
    c copy, y copy the code block, i inspect, m the lab's matrix view, e its run events; Esc
    goes back to the input."""

    DEFAULT_CSS = """
    TranscriptView { height: 1fr; overflow-x: hidden; scrollbar-gutter: stable; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor(-1)", "Previous", show=False),
        Binding("down,j", "cursor(1)", "Next", show=False),
        Binding("home", "first", "First", show=False),
        Binding("end", "last", "Last", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("escape", "leave", "Back to input", show=False),
        Binding("s", "request('save')", "Save"),
        Binding("S", "request('save-as')", "Save as…", show=False),
        Binding("o", "request('open')", "Open"),
        Binding("p", "request('play')", "Play"),
        Binding("x", "request('stop')", "Stop"),
        # The player keys (`openwop_tui.ui.controllers.playback`); left/right would scroll
        # sideways, which
        # the transcript never does (overflow-x is hidden).
        Binding("space", "request('play')", "Pause", show=False),
        Binding("left,left_square_bracket", "request('seek-back')", "Back 5 s", show=False),
        Binding("right,right_square_bracket", "request('seek-forward')", "On 5 s", show=False),
        *(Binding(str(n), f"request('seek:{n}')", f"To {n}0%", show=False) for n in range(10)),
        Binding("c", "request('copy')", "Copy"),
        Binding("y", "request('copy-code')", "Copy code"),
        Binding("i", "request('inspect')", "Inspect"),
        Binding("m", "matrix", "Matrix"),
        Binding("e", "events", "Events"),
        Binding("E", "request('edit')", "Edit & resend"),
        Binding("r", "request('regenerate')", "Regenerate"),
    ]

    def __init__(self, *, registry: Registry, id: str | None = None) -> None:
        """``registry``: the app's renderers (which items redraw on resize)."""
        super().__init__(id=id)
        self.registry = registry
        self._blocks: list[Block] = []
        self._where: dict[str, int] = {}
        self._tops: list[int] = [0]
        """First line of each block (and the total at the end), valid up to ``_dirty``."""
        self._dirty = 0
        self._width = 0
        """The content width the heights are for."""
        self._palette: Palette | None = None
        self.colours: Colours = "truecolor"
        """The colour system items are drawn in (the lab's profile)."""
        self.width_cap: int | None = None
        """Columns items are drawn in, at most (the lab's profile); ``None``: the view's."""
        self._show_verbose = False
        self._cursor: int | None = None
        self._follow = True
        self.unseen = False
        """New output arrived below while scrolled up (the marker shows)."""
        self._anchor: tuple[int, int] | None = None
        """(block, line within it) at the top of the viewport, kept through height changes."""
        self._pending: set[int] = set()
        self._flush_timer: Timer | None = None
        self._search = Matches()
        """What the search looks for, where it found it, and the match stepped to."""
        self._flush_cost = 0.0
        """Seconds the last streamed redraw took (it spaces out the next one)."""
        self._prefetch_due = False
        self._kitty = KittySender()
        """Sends kitty images to the terminal once per drawing (their cells are text)."""
        self._sixel = SixelPainter()
        """Paints sixel images' rows over their blank cells as lines are painted."""
        self._frame: Frame | None = None
        """What the frame being painted composes its lines with (``None`` between frames)."""
        self._composed = ComposedLines()
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
        """The footer shows the keys of the selected item (`item_keys`): ask it again."""
        if self.is_mounted:
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """An item key applies only to the items that have its action (`item_keys.applies`):
        the footer lists those of the selected item."""
        if action not in item_keys.ITEM_ACTIONS:
            return True
        block = self._blocks[self.cursor] if self.cursor is not None else None
        return item_keys.applies(
            block, action, parameters, last_message=block is not None and self._is_last(block)
        )

    def _is_last(self, block: Block) -> bool:
        """Whether ``block`` is the last message the user sent on screen."""
        for other in reversed(self._blocks):
            if isinstance(other.item, UserTurn):
                return other is block
        return False

    # -------------------------------------------------------------- lifecycle

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    @property
    def palette(self) -> Palette:
        """The colours items are drawn in (the active theme's)."""
        if self._palette is None:
            self._palette = theme_palette.from_theme(self.app.current_theme)
        return self._palette

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
        for block in self._blocks:
            block.changed()
            block.parts.clear()
            if block.rendered is not None:
                block.stale = True  # renderers draw with the theme too: ask again
            block.requested = None
        self.refresh()

    # ------------------------------------------------------------------ model

    @property
    def block_count(self) -> int:
        return len(self._blocks)

    def block_for(self, item_id: str) -> Block | None:
        """The block showing the item ``item_id``."""
        index = self._where.get(item_id)
        return None if index is None else self._blocks[index]

    def blocks(self) -> list[Block]:
        return list(self._blocks)

    def text_of(self, item_id: str) -> str:
        """What the view draws for an item, as text (drawing it at the current width if it was
        not drawn yet): for tests and for copying what is seen."""
        block = self.block_for(item_id)
        width = self._width or self._content_width()
        if block is None or width <= 0:
            return ""
        return "\n".join(line.text.rstrip() for line in self._lines_of(block, width))

    def _lines_of(self, block: Block, width: int) -> list[Strip]:
        """A block's lines, laying out again if drawing it changed its height."""
        before = block.height
        lines = block.lines(self.app.console, width, self.palette, self.colours)
        if block.height != before:
            self._dirty = min(self._dirty, self._where[block.item_id])
            self.call_later(self._relayout)
        return lines

    @property
    def show_verbose(self) -> bool:
        """Whether lifecycle lines (verbose notices) are shown."""
        return self._show_verbose

    @show_verbose.setter
    def show_verbose(self, value: bool) -> None:
        if value != self._show_verbose:
            self._show_verbose = value
            if value:
                self._measure_lifecycle_lines()
            self._dirty = 0
            if self.cursor is not None and self._hidden(self.cursor):
                self.cursor = self._step(self.cursor, -1) or self._step(self.cursor, 1)
            self._relayout()

    def _measure_lifecycle_lines(self) -> None:
        """Give the lifecycle lines their heights at the current width: while hidden, neither
        `_add` nor a resize (`_rewidth`) works them out (they take no room, and are most of a
        reopened session's blocks)."""
        width = self._width
        if width <= 0:
            return  # (never laid out: the first layout estimates every block)
        columns = max(width, 10)
        for block in self._blocks:
            if block.verbose:
                _lay(block, width, columns)

    def _hidden(self, index: int) -> bool:
        return self._blocks[index].verbose and not self._show_verbose

    def _eff(self, index: int) -> int:
        return 0 if self._hidden(index) else self._blocks[index].height

    async def apply(self, changes: Iterable[Change]) -> None:
        """Draw a batch of fold changes (awaitable, as the app awaits its view). Nothing once
        the view is gone: the app is closing and the run's last events still arrive."""
        if self.is_attached:
            self.apply_changes(changes)

    def apply_changes(self, changes: Iterable[Change]) -> None:
        """Take a batch of fold changes: nothing is rendered here, only marked."""
        grew = False
        # Whether a block was added or drawn again now: a batch of streamed pieces only
        # schedules its blocks' redraw (`_flush` lays out then), so it repaints nothing here.
        laid_out = False
        width = 0  # the content width, looked up once a batch (Textual computes it each time)
        for change in changes:
            item = change.item
            index = self._where.get(item.id)
            if isinstance(change, Added) and index is None:
                # Never laid out (a reopened session, added before the first frame): the first
                # layout estimates every block at its width (`_rewidth`), so none is here.
                if not width and self._width:
                    width = self._content_width() or self._width
                self._add(item, width)
                grew = laid_out = True
            elif isinstance(change, Updated) and index is not None:
                laid_out = self._update(index, change) or laid_out
                grew = grew or index >= self._bottom_block()
        if grew and not self._follow:
            self.unseen = True
        if grew and self.cursor is not None:
            self._keys_changed()  # a new message: edit and regenerate move to it
        if laid_out:
            self._relayout()

    def _add(self, item: Item, width: int) -> None:
        block = self._block(item, width)
        self._where[item.id] = len(self._blocks)
        self._blocks.append(block)
        if self._dirty == len(self._blocks) - 1:
            # (`_eff`, inlined: a reopened session adds tens of thousands of blocks at once)
            hidden = block.verbose and not self._show_verbose
            self._tops.append(self._tops[-1] + (0 if hidden else block.height))
            self._dirty = len(self._blocks)

    def _block(self, item: Item, width: int) -> Block:
        # A reply is not given its text here: the block reads it from the item when it draws
        # (the item already holds the first chunk, which the next change reports again).
        # ``width`` 0: the view was never laid out, and its first layout estimates every block.
        block = Block(item, resizes=self.registry.redraw_on_resize)
        if width and not (block.verbose and not self._show_verbose):
            # (A hidden lifecycle line is estimated when lifecycle lines are shown: a reopened
            # session's are most of its blocks, and take no room until then.)
            block.height = block.estimate(width)
        return block

    def put_before(self, older: Sequence[Item], newest: Sequence[Item]) -> None:
        """The rest of a session opened newest first: ``older`` goes above every block, and
        the blocks shown for its newest items are given ``newest``, the same items as the
        conversation holds them (their drawing is kept). Where the screen was stays: at the
        end when following, else on the same line of the same block."""
        for item in newest:
            index = self._where.get(item.id)
            if index is None:
                continue
            block = self._blocks[index]
            if isinstance(block.item, EnvelopeItem) and block.drawn is block.item.envelope:
                assert isinstance(item, EnvelopeItem)  # (the same ids: the same kinds)
                block.drawn = item.envelope  # drawn already: not asked for again
            block.item = item
        if not older:
            return
        width = (self._content_width() or self._width) if self._width else 0
        blocks = [self._block(item, width) for item in older]
        count = len(blocks)
        self._blocks[:0] = blocks
        self._where = {block.item.id: index for index, block in enumerate(self._blocks)}
        self._tops = [0]
        self._dirty = 0
        # Every place held by number moves down by as many blocks.
        if self._cursor is not None:
            self._cursor += count
        if self._anchor is not None:
            self._anchor = (self._anchor[0] + count, self._anchor[1])
        self._pending = {index + count for index in self._pending}
        self._search.moved(count)
        self._relayout()

    def _update(self, index: int, change: Updated) -> bool:
        """Mark a block changed; whether it was drawn again now (else its redraw is
        scheduled: a streamed piece)."""
        block = self._blocks[index]
        item = block.item
        if isinstance(item, AssistantTurn):
            if change.delta is not None:
                block.appended()
                self._schedule(index)
                return False
            block.replace_text()
        elif isinstance(item, Reasoning) and not item.done:
            block.changed()
            self._schedule(index)
            return False
        else:
            block.changed()
        self._remeasure(index)
        return True

    def _schedule(self, index: int) -> None:
        """Redraw a streaming block soon (a burst of tokens costs one redraw)."""
        self._pending.add(index)
        if self._flush_timer is None:
            delay = max(STREAM_REDRAW_SECONDS, STREAM_REDRAW_SHARE * self._flush_cost)
            self._flush_timer = self.set_timer(delay, self._flush)

    @property
    def redraws_pending(self) -> bool:
        """Whether streamed items wait for their coalesced redraw (what is on screen of them
        is not their latest text yet)."""
        return self._flush_timer is not None

    def flush_streamed(self) -> None:
        """Draw now what waits for its coalesced redraw (`_schedule`): the run ended, nothing
        will come to coalesce with it, and the screen must be whole when the status says the
        run is over. Left to the timer, whose delay grows with the cost of a redraw (six times
        it: seconds on a loaded machine), the reply showed its last tokens late, after the user
        had scrolled away, and flagged "new output below" for a run that had ended."""
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush()

    def _flush(self) -> None:
        self._flush_timer = None
        started = time.perf_counter()
        pending, self._pending = self._pending, set()
        for index in pending:
            if index < len(self._blocks):
                self._blocks[index].cache.clear()  # the tail changed; finished parts stay
                self._blocks[index].measured = False
                self._remeasure(index)
        if not self._follow and any(index >= self._bottom_block() for index in pending):
            self.unseen = True
        self._relayout()
        self._flush_cost = time.perf_counter() - started

    def _remeasure(self, index: int) -> None:
        """A block changed: draw it again now if it is visible, else estimate its height."""
        block = self._blocks[index]
        width = self._content_width()
        if width and self._is_visible(index):
            block.lines(self.app.console, width, self.palette, self.colours)
            self._request_render(block, width)
        elif not block.measured:
            block.height = block.estimate(width or 80)
        self._dirty = min(self._dirty, index)

    async def clear(self) -> None:
        """Empty the view."""
        self._blocks.clear()
        self._where.clear()
        self._tops = [0]
        self._dirty = 0
        self.cursor = None
        self._pending.clear()
        self._search.clear()
        self._follow = True
        self.unseen = False
        self._relayout()

    def drop(self, item_ids: Iterable[str]) -> None:
        """Take the blocks of ``item_ids`` off the screen (an exchange replaced by an edited
        or regenerated one); the transcript keeps the items."""
        gone = {self._where[item_id] for item_id in item_ids if item_id in self._where}
        if not gone:
            return
        first = min(gone)
        self._blocks = [block for index, block in enumerate(self._blocks) if index not in gone]
        self._where = {block.item_id: index for index, block in enumerate(self._blocks)}
        self._pending = {index for index in self._pending if index < first}
        self._dirty = min(self._dirty, first)
        if self.cursor is not None and self.cursor >= first:
            self.cursor = None
        self._search.dropped_from(first)
        self._anchor = None
        self._relayout()

    # ---------------------------------------------------------------- envelopes

    def set_rendered(
        self,
        item_id: str,
        rendered: Rendered,
        *,
        envelope: Envelope | None = None,
        width: int = 0,
    ) -> None:
        """The app drew an envelope: ``rendered`` from ``envelope`` (default: the item's
        current one) at ``width``. A stale answer (an item cleared meanwhile) is ignored."""
        block = self.block_for(item_id)
        if block is None or not isinstance(block.item, EnvelopeItem):
            return
        self._kitty.send(self.app, item_id, rendered)
        self._sixel.take(item_id, rendered)
        block.rendered = rendered
        block.drawn = envelope or block.item.envelope
        block.drawn_width = width
        block.stale = False
        block.changed()
        self._remeasure(self._where[item_id])
        self._relayout()
        if self.cursor == self._where[item_id]:
            self._keys_changed()  # its actions are known now

    def set_lint(self, item_id: str, marks: str) -> None:
        """Show the lint marks of an envelope's event (``⚠ OW214``) in its badge."""
        block = self.block_for(item_id)
        if block is None or block.lint == marks:
            return
        block.lint = marks
        block.changed()
        self._remeasure(self._where[item_id])
        self._relayout()

    def set_playback(self, item_id: str, text: str | Text | None) -> None:
        """Show where a clip's playback is under its envelope (``None`` hides the line)."""
        block = self.block_for(item_id)
        if block is None or block.playback == text:
            return
        block.playback = text
        block.changed()
        self._remeasure(self._where[item_id])
        self._relayout()

    @property
    def pending_renders(self) -> int:
        """Envelopes the view asked the app to draw that are not drawn yet."""
        return sum(
            1
            for block in self._blocks
            if block.requested is not None
            and (block.rendered is None or block.drawn is not block.requested[1] or block.stale)
        )

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
        # Textual tells a widget its new size here, while it lays the screen out, before the
        # frame is drawn. The heights at a new width are estimated now, so the scroll bar
        # drawn in that frame already has the new height; from `render_lines` (where the
        # visible blocks are drawn) it came a frame late, and the bar moved again after it.
        resized = super()._size_updated(size, virtual_size, container_size, layout)
        width = self._content_width()
        if width > 0 and width != self._width and self._blocks:
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

    def _content_width(self) -> int:
        width = max(0, self.scrollable_content_region.width - GUTTER - 1)
        return width if self.width_cap is None else min(width, self.width_cap)

    def _fix_tops(self) -> None:
        n = len(self._blocks)
        if self._dirty >= n and len(self._tops) == n + 1:
            return
        start = min(self._dirty, n)
        del self._tops[start + 1 :]
        # `_eff` inlined: after a resize this runs over every block (tens of thousands).
        blocks = islice(self._blocks, start, n)
        if self._show_verbose:
            heights = (block.height for block in blocks)
        else:
            heights = (0 if block.verbose else block.height for block in blocks)
        self._tops.extend(accumulate(heights, initial=self._tops[start]))
        del self._tops[start + 1]  # accumulate repeats the initial value
        self._dirty = n

    def _block_at(self, y: int) -> int:
        """The block holding line ``y`` (the last one past the end)."""
        self._fix_tops()
        # The last block starting at or before y: among blocks of no height (hidden lifecycle
        # lines) starting at the same line, that is the shown one after them.
        index = bisect_right(self._tops, y, hi=len(self._blocks)) - 1
        return min(max(index, 0), len(self._blocks) - 1)

    def _bottom_block(self) -> int:
        if not self._blocks:
            return 0
        return self._block_at(int(self.scroll_y) + max(self.size.height, 1) - 1)

    def _is_visible(self, index: int) -> bool:
        self._fix_tops()
        top = int(self.scroll_y)
        if self._follow:
            top = max(0, self._tops[-1] - self.size.height)
        return self._tops[index] < top + self.size.height and self._tops[index + 1] > top

    def _relayout(self) -> None:
        """Recompute the line offsets, the virtual size and the scroll position."""
        anchor = self._anchor
        self._fix_tops()
        total = self._tops[-1]
        width = self.scrollable_content_region.width
        if self.virtual_size != Size(width, total):
            self.virtual_size = Size(width, total)
        if self._follow:
            self._scroll_line(max(0, total - self.scrollable_content_region.height))
        elif anchor is not None and anchor[0] < len(self._blocks):
            index, offset = anchor
            target = self._tops[index] + min(offset, max(self._eff(index) - 1, 0))
            if target != round(self.scroll_y):
                self._scroll_line(target)
        self.refresh()

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        if self._blocks:
            self._fix_tops()
            self._follow = round(new) >= self._tops[-1] - self.scrollable_content_region.height
            if self._follow:
                self.unseen = False
            index = self._block_at(round(new))
            self._anchor = (index, round(new) - self._tops[index])

    def _prepare(self) -> None:
        """Draw what the viewport shows (and nothing else), fixing heights and position."""
        width = self._content_width()
        if width <= 0 or not self._blocks:
            return
        if width != self._width:
            self._rewidth(width)
        console, palette = self.app.console, self.palette
        height = self.scrollable_content_region.height
        for _ in range(4):  # heights settle in a pass or two
            self._fix_tops()
            changed = False
            if self._follow:
                indices = self._from_end(height)
            else:
                top = round(self.scroll_y)
                first = self._block_at(top)
                indices = self._from(first, top + height)
            for index in indices:
                block = self._blocks[index]
                self._request_render(block, width)  # even if drawn already (a placeholder)
                if width in block.cache and block.measured:
                    continue
                before = block.height
                block.lines(console, width, palette, self.colours)
                if block.height != before:
                    self._dirty = min(self._dirty, index)
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
        width = self._width
        if width <= 0 or not self._blocks or not self.is_attached:
            return
        self._fix_tops()
        height = self.scrollable_content_region.height
        top = round(self.scroll_y)
        first = self._block_at(max(0, top - height))
        console, palette = self.app.console, self.palette
        drawn = 0
        for index in self._from(first, top + 2 * height):
            block = self._blocks[index]
            if width in block.cache and block.measured:
                continue
            if isinstance(block.item, EnvelopeItem) or index in self._pending:
                continue  # the app draws envelopes; a streaming block draws at its own pace
            if drawn == PREFETCH_BLOCKS:
                self._prefetch_due = True
                self.call_after_refresh(self._prefetch)
                break
            block.lines(console, width, palette, self.colours)
            self._dirty = min(self._dirty, index)
            drawn += 1
        else:
            if drawn:
                self._relayout()  # (the view may have moved: heights above it changed)
            self._compose_ahead(round(self.scroll_y), height)
            return
        if drawn:
            self._relayout()

    def _compose_ahead(self, top: int, height: int) -> None:
        """Compose the screen lines of the page above and the page below (their blocks drawn
        already), `PREFETCH_LINES` in a turn of the loop: a Page Up then paints kept lines."""
        frame = self._frame_now()
        tops, blocks = self._tops, self._blocks
        composed = 0
        first = max(0, top - height)
        last = min(tops[-1], top + 2 * height, first + KEPT_LINES // 2)
        for virtual_y in range(first, last):
            index = self._block_at(virtual_y)
            block = blocks[index]
            lines = block.cache.get(self._width)
            row = virtual_y - tops[index]
            if lines is None or row >= len(lines):
                continue
            key = self._keep_key(frame, index, block, row)
            if key is None or self._composed.get(block, lines, row, key) is not None:
                continue
            if composed == PREFETCH_LINES:
                self._prefetch_due = True
                self.call_after_refresh(self._prefetch)
                return
            self._composed_line(frame, index, block, lines, row, virtual_y)
            composed += 1

    def _from(self, first: int, bottom: int) -> list[int]:
        indices = []
        index = first
        while index < len(self._blocks) and self._tops[index] < bottom:
            if not self._hidden(index):
                indices.append(index)
            index += 1
        return indices

    def _from_end(self, height: int) -> list[int]:
        indices = []
        total = 0
        index = len(self._blocks) - 1
        while index >= 0 and total < height:
            if not self._hidden(index):
                indices.append(index)
                total += self._blocks[index].height
            index -= 1
        return indices

    def _rewidth(self, width: int) -> None:
        """A new width: re-estimate every height; only what is visible is drawn again."""
        anchor = self._anchor
        columns = max(width, 10)
        every = self._show_verbose
        # The line offsets are laid in the same pass (as `_fix_tops` would lay them): over
        # tens of thousands of blocks, a second pass cost as much as the first.
        tops = [0]
        top = 0
        for block in self._blocks:  # (tens of thousands of blocks: kept to the bare steps)
            if every or not block.verbose:
                top += _lay(block, width, columns)
            # (A hidden lifecycle line is given its height when shown: `_measure_lifecycle_lines`.)
            tops.append(top)
        self._tops = tops
        self._width = width
        self._dirty = len(self._blocks)
        self._anchor = anchor
        self._relayout()

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
            key=(region.width, self._width, base, self.palette, self.colours),
        )

    def render_line(self, y: int) -> Strip:
        """One line of the viewport, from the cache (rendering the block if it must)."""
        frame = self._frame or self._frame_now()
        width, base = frame.width, frame.base
        if self.unseen and y == frame.height - 1:
            return self._marker(width)
        virtual_y = frame.top + y
        self._fix_tops()
        if not self._blocks or virtual_y >= self._tops[-1] or self._width <= 0:
            return Strip.blank(width, base)
        index = self._block_at(virtual_y)
        block = self._blocks[index]
        lines = block.lines(self.app.console, self._width, self.palette, self.colours)
        row = virtual_y - self._tops[index]
        if row >= len(lines):
            self.call_after_refresh(self._relayout)  # measured while painting: lay out again
            return Strip.blank(width, base)
        strip = self._composed_line(frame, index, block, lines, row, virtual_y)
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(virtual_y)) is not None:
            strip = self._select(strip, span)
        if frame.active:
            strip = self._sixel.paint(strip, frame.region.x, frame.region.y + y)
        return strip

    def _composed_line(
        self, frame: Frame, index: int, block: Block, lines: list[Strip], row: int, virtual_y: int
    ) -> Strip:
        """Line ``row`` of block ``index`` (drawn as ``lines``) as the screen shows it at
        ``virtual_y``: gutter, buttons, search marks, the widget's style, its place for text
        selection. Kept (`ComposedLines`, all but its place) unless its look follows more than
        the frame."""
        key = self._keep_key(frame, index, block, row)
        strip = self._composed.get(block, lines, row, key) if key is not None else None
        if strip is None:
            line = lines[row]
            if row == 0:
                line = self._with_buttons(block, index, line)
            if self._search:
                line = self._search.mark(line, index, lines, row, Style.parse(self.palette.match))
            strip = Strip.join([self._gutter(block, index), line, Strip.blank(1)])
            if index == self.cursor:
                strip = strip.apply_style(Style.parse(self.palette.selection))
            strip = strip.apply_style(frame.base).crop_extend(0, frame.width, frame.base)
            if key is not None:
                self._composed.keep(block, lines, row, key, strip)
        return strip.apply_offsets(0, virtual_y)

    def _keep_key(self, frame: Frame, index: int, block: Block, row: int) -> object | None:
        """What the screen line is composed from beside its block's lines (`ComposedLines`);
        ``None`` when it is not kept: the selected item's lines, every line while a search
        marks matches."""
        if self._search or index == self.cursor:
            return None
        if row == 0 and isinstance(block.item, UserTurn):
            # Its buttons: edit and regenerate are the last message's only.
            return (frame.key, self._is_last(block))
        # (A reply's buttons follow its text, which its lines are drawn from.)
        return frame.key

    def _gutter(self, block: Block, index: int) -> Strip:
        palette = self.palette
        if index == self.cursor and self.has_focus:
            return Strip([Segment("▌ ", Style.parse(palette.accent))], GUTTER)
        if index == self.cursor:
            return Strip([Segment("▎ ", Style.parse(palette.accent))], GUTTER)
        if isinstance(block.item, EnvelopeItem):
            degraded = block.rendered is not None and block.rendered.degraded
            colour = palette.degraded_border if degraded else palette.border
            return Strip([Segment("▎ ", Style.parse(colour))], GUTTER)
        return Strip([Segment("  ")], GUTTER)

    def _with_buttons(self, block: Block, index: int, line: Strip) -> Strip:
        """Replies and user turns carry their buttons on their heading line; other items
        show them there while selected (an envelope has a line of its own)."""
        if isinstance(block.item, EnvelopeItem):
            return line
        if index != self.cursor and not isinstance(block.item, AssistantTurn | UserTurn):
            return line
        actions = block.actions()
        if isinstance(block.item, UserTurn) and not self._is_last(block):
            actions = [name for name in actions if name not in item_keys.LAST_MESSAGE]
        buttons = button_text(actions, block.item_id, self.palette)
        segments = list(buttons.render(self.app.console))
        size = buttons.cell_len
        free = line.cell_length - len(line.text.rstrip())
        if size + 1 > free:
            return line  # never over the item's text (the keys still work)
        return Strip.join([line.crop(0, line.cell_length - size), Strip(segments, size)])

    def _select(self, strip: Strip, span: tuple[int, int]) -> Strip:
        start, end = span
        end = strip.cell_length if end == -1 else end
        style = self.screen.get_component_rich_style("screen--selection")
        return Strip.join(
            [
                strip.crop(0, start),
                strip.crop(start, end).apply_style(style),
                strip.crop(end, strip.cell_length),
            ]
        )

    def _marker(self, width: int) -> Strip:
        palette = self.palette
        text = Text(NEW_OUTPUT, style=Style.parse(f"reverse {palette.accent}"))
        text.apply_meta({"@click": "last"})
        segments = list(text.render(self.app.console))
        pad = max(0, width - text.cell_len)
        strip = Strip([Segment(" " * (pad // 2)), *segments], pad // 2 + text.cell_len)
        return strip.apply_style(self.rich_style).crop_extend(0, width, self.rich_style)

    # ---------------------------------------------------------------- selection

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The text under a mouse selection (Textual's selection support)."""
        self._fix_tops()
        if not self._blocks or self._width <= 0:
            return None
        start = selection.start or Offset(0, 0)
        end = selection.end or Offset(self._width + GUTTER, self._tops[-1] - 1)
        lines = [self._line_text(y) for y in range(start.y, min(end.y, self._tops[-1] - 1) + 1)]
        shifted = Selection(
            Offset(max(0, start.x - GUTTER), 0),
            Offset(max(0, end.x - GUTTER), len(lines) - 1),
        )
        text = shifted.extract("\n".join(lines))
        return "\n".join(line.rstrip() for line in text.split("\n")), "\n"

    def _line_text(self, virtual_y: int) -> str:
        index = self._block_at(virtual_y)
        lines = self._lines_of(self._blocks[index], self._width)
        row = virtual_y - self._tops[index]
        return lines[row].text if 0 <= row < len(lines) else ""

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    # ------------------------------------------------------------------ cursor

    def _step(self, index: int, direction: int) -> int | None:
        index += direction
        while 0 <= index < len(self._blocks):
            if not self._hidden(index):
                return index
            index += direction
        return None

    def select(self, index: int | None) -> None:
        """Select block ``index`` and scroll it into view."""
        self.cursor = index
        if index is not None:
            self._scroll_to_block(index)
        self.refresh()

    def _scroll_to_block(self, index: int, row: int = 0) -> None:
        self._fix_tops()
        top = self._tops[index] + row
        height = self.scrollable_content_region.height
        if top < round(self.scroll_y) or top >= round(self.scroll_y) + height:
            self._follow = False
            self._anchor = (index, row)
            self._scroll_line(max(0, top - (height // 3 if row else 0)))
        self.refresh()

    def show_at_top(self, index: int) -> None:
        """Scroll so block ``index`` is the first one shown (it stays there as heights settle)."""
        self._fix_tops()
        self._follow = False
        self._anchor = (index, 0)
        self._scroll_line(self._tops[index])
        self.refresh()

    def select_last(self) -> None:
        """Select the newest item (entering the transcript from the input)."""
        last = self._step(len(self._blocks), -1)
        self.select(last)

    def on_focus(self) -> None:
        if self.cursor is None:
            self.select_last()
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def action_cursor(self, direction: int) -> None:
        if self.cursor is None:
            self.select_last()
            return
        step = self._step(self.cursor, direction)
        if step is not None:
            self.select(step)

    def action_first(self) -> None:
        self.select(self._step(-1, 1))
        self._follow = False
        self._scroll_line(0)
        self._anchor = (0, 0)

    def action_last(self) -> None:
        """Go to the end and follow it again."""
        self.cursor = self._step(len(self._blocks), -1)
        self._follow = True
        self.unseen = False
        self._relayout()

    def action_page(self, direction: int) -> None:
        if direction < 0:
            self.scroll_page_up(animate=False)
        else:
            self.scroll_page_down(animate=False)

    def action_leave(self) -> None:
        self._post(TranscriptLeft())

    def on_click(self, event: events.Click) -> None:
        if not self._blocks:
            return
        virtual_y = round(self.scroll_y) + event.y
        self._fix_tops()
        if virtual_y < self._tops[-1]:
            self.cursor = self._block_at(virtual_y)
            self.refresh()

    # ------------------------------------------------------------------ actions

    def on_key(self, event: events.Key) -> None:
        """A key a renderer asked for runs its action on the selected item. The view's own
        keys keep their meaning: a renderer cannot take ``s`` or ``j`` away."""
        if self.cursor is not None and event.key in _ITEM_KEYS:
            name, parameters = _ITEM_KEYS[event.key]
            if not self.check_action(name, parameters):
                # Not offered (the footer does not list it), but pressed: the action says why.
                event.stop()
                event.prevent_default()
                if name == "request":
                    self.action_request(str(parameters[0]))
                elif name == "matrix":
                    self.action_matrix()
                else:
                    self.action_events()
                return
        # Single letters and digits only: Enter, Tab or a Ctrl key belong to the app.
        if self.cursor is None or event.key in _VIEW_KEYS or len(event.key) != 1:
            return
        rendered = self._blocks[self.cursor].rendered
        for action in rendered.actions if rendered is not None else ():
            if action.key == event.key and action.name not in APP_ACTIONS:
                event.stop()
                event.prevent_default()
                self.action_item_action(self._blocks[self.cursor].item_id, action.name)
                return

    def action_request(self, name: str) -> None:
        """Carry out one of the selected item's actions, if it has it."""
        if self.cursor is None:
            return
        self.action_item_action(self._blocks[self.cursor].item_id, name)

    def action_matrix(self) -> None:
        """Ask the app for the lab's matrix view of the selected envelope."""
        if self.cursor is None or not isinstance(self._blocks[self.cursor].item, EnvelopeItem):
            self.notify("select an envelope to see it under each profile", severity="warning")
            return
        self._post(ActionRequested(self._blocks[self.cursor].item_id, "matrix"))

    def action_events(self) -> None:
        """Ask for the run events that made the selected item (the timeline, filtered)."""
        if self.cursor is not None:
            self._post(ItemEventsRequested(self._blocks[self.cursor].item_id))

    def action_item_action(self, item_id: str, name: str) -> None:
        """Ask the app to carry out an action on an item (a key or a click)."""
        block = self.block_for(item_id)
        if block is None:
            return
        available = block.actions()
        # "Save as…" is a save that asks for the folder: offered wherever save is; the player
        # keys wherever play is.
        wanted = "save" if name == "save-as" else name
        if wanted not in available and not (name in PLAYER_KEYS and "play" in available):
            rendered = block.rendered
            why = rendered.degradation if rendered is not None else None
            if (name == "play" or name in PLAYER_KEYS) and why and why.code == Code.NO_AUDIO:
                # A sound that cannot play here: say why, and what can be done instead.
                hint = " — s saves it" if "save" in available else ""
                self.notify(f"cannot play here: {why.reason}{hint}", severity="warning")
                return
            what = "seek" if name in PLAYER_KEYS else name
            self.notify(f"nothing to {what} here", severity="warning")
            return
        self._post(ActionRequested(item_id, name))

    # ------------------------------------------------------------------- search

    def search(self, query: str, *, case: bool = False, whole_word: bool = False) -> int:
        """Find ``query`` in every item, drawn or not (case-insensitive unless ``case``; whole
        words only with ``whole_word``); how many times it occurs (not in how many items)."""
        found = self._search.find(
            Finder(query, case, whole_word), (block.plain() for block in self._blocks)
        )
        self.refresh()
        return found

    @property
    def search_query(self) -> str:
        """The query being highlighted, ``""`` when none."""
        return self._search.finder.query

    @property
    def finder(self) -> Finder:
        """What the search looks for now."""
        return self._search.finder

    @property
    def match_position(self) -> tuple[int, int]:
        """(the current match, 1-based, or 0 before the first step; the match count)."""
        return self._search.position

    def step_match(self, direction: int) -> tuple[int, int]:
        """Go to the next (1) or previous (-1) occurrence: select its item, scroll to its
        line."""
        place = self._search.step(direction)
        if place is None:
            return 0, 0
        index, occurrence = place
        if self._hidden(index):
            self.show_verbose = True
        self.cursor = index
        row = 0
        if self._width > 0:
            lines = self._blocks[index].lines(
                self.app.console, self._width, self.palette, self.colours
            )
            row = self._search.row_of(lines, occurrence)
            self._dirty = min(self._dirty, index)
        self._scroll_to_block(index, row)
        self.refresh()
        return self.match_position

    def end_search(self) -> None:
        """Stop highlighting matches."""
        self._search.clear()
        self.refresh()


def _item_action(binding: Binding) -> tuple[str, tuple[object, ...]] | None:
    """``request('save')`` -> ``("request", ("save",))``, for the item actions only."""
    name, _, rest = binding.action.partition("(")
    if name not in item_keys.ITEM_ACTIONS:
        return None
    return name, tuple(part.strip().strip("'\"") for part in rest.rstrip(")").split(",") if part)


#: Each item key with its action and parameters (`item_keys.applies` answers for them).
_ITEM_KEYS: dict[str, tuple[str, tuple[object, ...]]] = {
    key.strip(): parsed
    for binding in TranscriptView.BINDINGS
    if isinstance(binding, Binding) and (parsed := _item_action(binding)) is not None
    for key in binding.key.split(",")
}

#: Keys the view binds itself (a renderer's action cannot take them).
_VIEW_KEYS = frozenset(
    key.strip()
    for binding in TranscriptView.BINDINGS
    if isinstance(binding, Binding)
    for key in binding.key.split(",")
)


def _lay(block: Block, width: int, columns: int) -> int:
    """Give ``block`` its height at ``width`` (``columns``: the width estimates use): its lines
    there if it was drawn at it, else an estimate (and it is no longer measured)."""
    cached = block.cache.get(width)
    if cached is None:
        block.height = estimate_height(block, columns)
        block.measured = False
    else:
        block.height = len(cached)
    return block.height
