"""The transcript: one view holding every item of the session, however old, drawn the same way.

Fold changes come in through `apply`; each item is a `Block` (`openwop_tui.ui.transcript.blocks`)
drawn from `openwop_tui.present.items` with the theme's `Palette`, laid out and scrolled by
`BlockView` (what is drawn when, following the end, the cursor). This module adds what makes
it the transcript: the fold's changes (a streamed piece marks its block for a coalesced
redraw), the envelopes the app draws, the item keys and their actions, and the search.

The view never calls the app: it posts `ActionRequested`, `EnvelopeRenderRequested`,
`ItemEventsRequested` and `TranscriptLeft` (`openwop_tui.ui.messages`), and the app answers a
render request with `set_rendered`.

The package keeps the rest apart: the blocks and their offsets (`column`), the screen lines
composed and kept (`composed`), the streamed redraws (`streaming`), the keys (`keys`), the
search (`matches`, `finder`) and the terminal pixels (`pixels`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import BindingType

from openwop_tui.core.fold import (
    Added,
    AssistantTurn,
    Change,
    EnvelopeItem,
    Item,
    Reasoning,
    Updated,
)
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers import Registry
from openwop_tui.renderers.base import Rendered
from openwop_tui.renderers.registry import APP_ACTIONS
from openwop_tui.ui.messages import ActionRequested, ItemEventsRequested, TranscriptLeft
from openwop_tui.ui.transcript import keys
from openwop_tui.ui.transcript.block_view import BlockView
from openwop_tui.ui.transcript.blocks import Block
from openwop_tui.ui.transcript.finder import Finder

__all__ = ["TranscriptView"]


class TranscriptView(BlockView, can_focus=True):
    """Everything said in this session, newest at the bottom. Focus it (Shift+Tab or Ctrl+Up
    from the input) to move between items and use their keys: s save, S save as…, o open,
    p or space play and pause, x stop, ←/→ or [/] seek 5 s, 0-9 jump to a tenth of the clip,
    c copy, y copy the code block, i inspect, m the lab's matrix view, e its run events; Esc
    goes back to the input. With ``vim_keys`` on, j/k/g/G and Ctrl+D/Ctrl+U move too."""

    DEFAULT_CSS = """
    TranscriptView { height: 1fr; overflow-x: hidden; scrollbar-gutter: stable; }
    """

    BINDINGS: ClassVar[list[BindingType]] = keys.BINDINGS

    def __init__(
        self,
        *,
        registry: Registry,
        id: str | None = None,
        code_theme: str | None = None,
        vim_keys: bool = False,
    ) -> None:
        """The transcript, drawn through the app's renderers.

        Args:
            registry: The app's renderers (which items redraw on resize).
            id: The widget's id.
            code_theme: The Pygments style code is highlighted in (``None``: the theme's).
            vim_keys: Whether j/k/g/G and Ctrl+D/Ctrl+U move (the config's ``vim_keys``).
        """
        super().__init__(id=id)
        self.registry = registry
        self.code_theme = code_theme
        self.vim_keys = vim_keys
        """Whether the vim-style keys move (off: they are not bound, nor in the footer)."""

    def set_vim_keys(self, on: bool) -> None:
        """Turn the vim-style keys on or off (the footer follows at once)."""
        self.vim_keys = on
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """An item key applies only to the items that have its action (`keys.applies`):
        the footer lists those of the selected item. The vim-style keys are there only while
        ``vim_keys`` is on."""
        if action == "vim":
            return self.vim_keys
        if action not in keys.ITEM_ACTIONS:
            return True
        block = self.column[self.cursor] if self.cursor is not None else None
        return keys.applies(
            block, action, parameters, last_message=block is not None and self._is_last(block)
        )

    async def apply(self, changes: Iterable[Change]) -> None:
        """Draw a batch of fold changes (awaitable, as the app awaits its view). Nothing once
        the view is gone: the app is closing and the run's last events still arrive."""
        if self.is_attached:
            self.apply_changes(changes)

    def apply_changes(self, changes: Iterable[Change]) -> None:
        """Take a batch of fold changes: nothing is rendered here, only marked."""
        grew = False
        # Whether a block was added or drawn again now: a batch of streamed pieces only
        # schedules its blocks' redraw (`Redraws`), so it repaints nothing here.
        laid_out = False
        width = 0  # the content width, looked up once a batch (Textual computes it each time)
        column = self.column
        for change in changes:
            item = change.item
            index = column.index_of(item.id)
            if isinstance(change, Added) and index is None:
                # Never laid out (a reopened session, added before the first frame): the first
                # layout estimates every block at its width (`Column.relay`), so none is here.
                if not width and column.width:
                    width = self.content_width or column.width
                column.append(self._block(item, width))
                grew = laid_out = True
            elif isinstance(change, Updated) and index is not None:
                laid_out = self._update(index, change) or laid_out
                grew = grew or index >= self._bottom_block()
        if grew and not self._follow:
            self.unseen = True
        if grew and self.cursor is None and self.has_focus:
            # In the transcript with nothing selected (the selected exchange was replaced by a
            # regenerate): the newest item is, so the keys act on something that is shown.
            self.cursor = self.column.step(len(column), -1)
        if grew and self.cursor is not None:
            self._keys_changed()  # a new message: edit and regenerate move to it
        if laid_out:
            self._relayout()

    def _block(self, item: Item, width: int) -> Block:
        # A reply is not given its text here: the block reads it from the item when it draws
        # (the item already holds the first chunk, which the next change reports again).
        # ``width`` 0: the view was never laid out, and its first layout estimates every block.
        block = Block(item, resizes=self.registry.redraw_on_resize)
        if width and not (block.verbose and not self.column.show_verbose):
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
            block = self.column.block_for(item.id)
            if block is None:
                continue
            if isinstance(block.item, EnvelopeItem) and block.drawn is block.item.envelope:
                assert isinstance(item, EnvelopeItem)  # (the same ids: the same kinds)
                block.drawn = item.envelope  # drawn already: not asked for again
            block.item = item
        if not older:
            return
        width = (self.content_width or self.column.width) if self.column.width else 0
        self.column.insert_above([self._block(item, width) for item in older])
        # Every place held by number moves down by as many blocks.
        count = len(older)
        if self._cursor is not None:
            self._cursor += count
        if self._anchor is not None:
            self._anchor = (self._anchor[0] + count, self._anchor[1])
        self.redraws.moved(count)
        self._search.moved(count)
        self._relayout()

    def _update(self, index: int, change: Updated) -> bool:
        """Mark a block changed; whether it was drawn again now (else its redraw is
        scheduled: a streamed piece)."""
        block = self.column[index]
        item = block.item
        if isinstance(item, AssistantTurn):
            if change.delta is not None:
                block.appended()
                self.redraws.schedule(index)
                return False
            block.replace_text()
        elif isinstance(item, Reasoning) and not item.done:
            block.changed()
            self.redraws.schedule(index)
            return False
        else:
            block.changed()
        self._remeasure(index)
        return True

    async def clear(self) -> None:
        """Empty the view."""
        self.column.clear()
        self.cursor = None
        self.redraws.clear()
        self._search.clear()
        self._follow = True
        self.unseen = False
        self._relayout()

    def drop(self, item_ids: Iterable[str]) -> None:
        """Take the blocks of ``item_ids`` off the screen (an exchange replaced by an edited
        or regenerated one); the transcript keeps the items."""
        indices = (self.column.index_of(item_id) for item_id in item_ids)
        first = self.column.remove(index for index in indices if index is not None)
        if first is None:
            return
        self.redraws.dropped_from(first)
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
        """The app drew an envelope: the block shows it, and is drawn again. A stale answer (an
        item cleared meanwhile) is ignored.

        Args:
            item_id: The envelope item that was drawn.
            rendered: What the app drew.
            envelope: The envelope it was drawn from; ``None``: the item's current one.
            width: The body columns it was drawn at; 0: not known (an envelope whose drawing
                depends on the width is then asked for again).
        """
        block = self.block_for(item_id)
        if block is None or not isinstance(block.item, EnvelopeItem):
            return
        self._kitty.send(self.app, item_id, rendered)
        self._sixel.take(item_id, rendered)
        block.rendered = rendered
        block.drawn = envelope or block.item.envelope
        block.drawn_width = width
        block.stale = False
        self.redraw(item_id)
        if self.cursor == self.column.index_of(item_id):
            self._keys_changed()  # its actions are known now

    def set_lint(self, item_id: str, marks: str) -> None:
        """Show the lint marks of an envelope's event (``⚠ OW214``) in its badge."""
        block = self.block_for(item_id)
        if block is not None and block.lint != marks:
            block.lint = marks
            self.redraw(item_id)

    def set_playback(self, item_id: str, text: str | Text | None) -> None:
        """Show where a clip's playback is under its envelope (``None`` hides the line)."""
        block = self.block_for(item_id)
        if block is not None and block.playback != text:
            block.playback = text
            self.redraw(item_id)

    @property
    def pending_renders(self) -> int:
        """Envelopes the view asked the app to draw that are not drawn yet."""
        return sum(
            1
            for block in self.column
            if block.requested is not None
            and (block.rendered is None or block.drawn is not block.requested[1] or block.stale)
        )

    # ------------------------------------------------------------------ cursor

    def select(self, index: int | None) -> None:
        """Select block ``index`` and scroll it into view; repaint only if either changed.

        A key that moves nothing (Home on the first item, Up on the first, a key held down at
        the top) paints nothing: the view's repaint is 10 ms of a 3,000-turn session's screen,
        and Home pressed while the session's older turns were read took that from the reading
        each time (issue 26)."""
        moved = index != self.cursor
        self.cursor = index
        if index is not None:
            moved = self._scroll_to_block(index) or moved
        if moved:
            self.refresh()

    def show_at_top(self, index: int) -> None:
        """Scroll so block ``index`` is the first one shown (it stays there as heights settle)."""
        top = self.column.tops[index]
        self._follow = False
        self._anchor = (index, 0)
        self._scroll_line(top)
        self.refresh()

    def select_last(self) -> None:
        """Select the newest item (entering the transcript from the input)."""
        self.select(self.column.step(len(self.column), -1))

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
        step = self.column.step(self.cursor, direction)
        if step is not None:
            self.select(step)

    def action_first(self) -> None:
        """Select the first item and show the top (repainting only if either changed)."""
        first = self.column.step(-1, 1)
        moved = first != self.cursor or round(self.scroll_y) != 0
        self.cursor = first
        self._follow = False
        self._scroll_line(0)
        self._anchor = (0, 0)
        if moved:
            self.refresh()

    def action_last(self) -> None:
        """Go to the end and follow it again."""
        self.cursor = self.column.step(len(self.column), -1)
        self._follow = True
        self.unseen = False
        self._relayout()

    def action_page(self, direction: int) -> None:
        if direction < 0:
            self.scroll_page_up(animate=False)
        else:
            self.scroll_page_down(animate=False)

    def action_vim(self, move: str) -> None:
        """A vim-style key: ``next``, ``previous``, ``first``, ``last``, or half a page
        ``down`` or ``up`` (Ctrl+D, Ctrl+U)."""
        if move in ("next", "previous"):
            self.action_cursor(1 if move == "next" else -1)
        elif move == "first":
            self.action_first()
        elif move == "last":
            self.action_last()
        else:
            half = max(1, self.scrollable_content_region.height // 2)
            self.scroll_relative(y=half if move == "down" else -half, animate=False)

    def on_click(self, event: events.Click) -> None:
        if not len(self.column):
            return
        virtual_y = round(self.scroll_y) + event.y
        if virtual_y < self.column.total:
            self.cursor = self.column.block_at(virtual_y)
            self.refresh()

    # ------------------------------------------------------------------ actions

    def on_key(self, event: events.Key) -> None:
        """A key a renderer asked for runs its action on the selected item. The view's own
        keys keep their meaning: a renderer cannot take ``s`` or ``j`` away."""
        if self.cursor is not None and event.key in keys.ITEM_KEYS:
            name, parameters = keys.ITEM_KEYS[event.key]
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
        if self.cursor is None or event.key in keys.VIEW_KEYS or len(event.key) != 1:
            return
        block = self.column[self.cursor]
        for action in block.rendered.actions if block.rendered is not None else ():
            if action.key == event.key and action.name not in APP_ACTIONS:
                event.stop()
                event.prevent_default()
                self.action_item_action(block.item_id, action.name)
                return

    def action_leave(self) -> None:
        self._post(TranscriptLeft())

    def action_request(self, name: str) -> None:
        """Carry out one of the selected item's actions, if it has it."""
        if self.cursor is not None:
            self.action_item_action(self.column[self.cursor].item_id, name)

    def action_matrix(self) -> None:
        """Ask the app for the lab's matrix view of the selected envelope."""
        if self.cursor is None or not isinstance(self.column[self.cursor].item, EnvelopeItem):
            self.notify("select an envelope to see it under each profile", severity="warning")
            return
        self._post(ActionRequested(self.column[self.cursor].item_id, "matrix"))

    def action_events(self) -> None:
        """Ask for the run events that made the selected item (the timeline, filtered)."""
        if self.cursor is not None:
            self._post(ItemEventsRequested(self.column[self.cursor].item_id))

    def action_item_action(self, item_id: str, name: str) -> None:
        """Ask the app to carry out an action on an item (a key or a click), or say why it
        cannot be (`keys.refusal`)."""
        block = self.block_for(item_id)
        if block is None:
            return
        refused = keys.refusal(block, name)
        if refused is not None:
            self.notify(refused, severity="warning")
            return
        self._post(ActionRequested(item_id, name))

    # ------------------------------------------------------------------- search

    def search(self, query: str, *, case: bool = False, whole_word: bool = False) -> int:
        """Find ``query`` in every item, drawn or not (case-insensitive unless ``case``; whole
        words only with ``whole_word``); how many times it occurs (not in how many items)."""
        found = self._search.find(
            Finder(query, case, whole_word), (block.plain() for block in self.column)
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
        return self._show_match(self._search.step(direction))

    def go_to_match(self, index: int, occurrence: int) -> tuple[int, int]:
        """Make occurrence ``occurrence`` of block ``index`` the current match, as stepping
        there would (a search everywhere opening a session at its match); (0, total) when the
        search found nothing there."""
        place = self._search.go((index, occurrence))
        if place is None:
            return 0, self.match_position[1]
        return self._show_match(place)

    def _show_match(self, place: tuple[int, int] | None) -> tuple[int, int]:
        """Select the item of the current match ``place`` and scroll to its line."""
        if place is None:
            return 0, 0
        index, occurrence = place
        if self.column.hidden(index):
            self.show_verbose = True
        self.cursor = index
        row = 0
        width = self.column.width
        if width > 0:
            lines = self.column[index].lines(self.app.console, width, self.palette, self.colours)
            row = self._search.row_of(lines, occurrence)
            self.column.changed_from(index)
        self._scroll_to_block(index, row)
        self.refresh()
        return self.match_position

    def end_search(self) -> None:
        """Stop highlighting matches."""
        self._search.clear()
        self.refresh()
