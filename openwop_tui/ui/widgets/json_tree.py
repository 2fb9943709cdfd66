"""A lazy JSON view: any decoded document as rows that fold, drawn only for the visible range.

A Line-API widget (a `ScrollView` with `render_line`, as Textual's own `Log` and `DataTable`
are): the rows come from `openwop_tui.ui.widgets.json_rows.JsonRows`, which makes a node only when
its parent is unfolded, and each visible row is drawn once per width and state into a `Strip`
kept in a small cache. Opening a 10 MB document costs the top levels, not the document; a
frame costs the rows on screen.

Keys (the widget focused): ↑/↓ (k/j), PageUp/PageDown, Home/End move the cursor; Enter or Space
unfold (or fold an open node), → unfolds (or steps into an open node), ← folds (or goes to the
parent); ``*`` unfolds everything under the cursor (within a bound, said when it is hit), ``-``
folds it all; ``c`` copies the subtree's JSON, ``p`` its JSON path. Copying is not done here: the
widget posts `JsonTree.CopyRequested`, and the screen that holds it sends the text through the
app's clipboard helper (`openwop_tui.devices.clipboard`), which also keeps a file of it.

Colours come from the active theme's `Palette` (redrawn when the theme changes); every key and
string is cleaned by the row model before it is drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.theme import Theme

from openwop_tui.draw.palette import Palette
from openwop_tui.ui import theme_palette
from openwop_tui.ui.widgets.json_pieces import Role, pieces
from openwop_tui.ui.widgets.json_rows import HEAD, UNFOLD_ALL_BUDGET, JsonRows, Row

#: Rows kept drawn (a few screens' worth at a few widths).
CACHED_ROWS = 2048
#: Characters of a path named in a notification (the copied path itself is whole).
SAID_PATH = 80


def role_styles(palette: Palette) -> dict[Role, Style]:
    """The style of each piece of a row, from the palette (no colour is named here)."""
    return {
        "punct": Style.parse(palette.text),
        "marker": Style.parse(palette.muted),
        "key": Style.parse(palette.primary) + Style(bold=True),
        "index": Style.parse(palette.muted),
        "string": Style.parse(palette.success),
        "number": Style.parse(palette.accent) + Style(bold=False),
        "literal": Style.parse(palette.secondary) + Style(italic=True),
        "muted": Style.parse(palette.muted),
    }


class JsonTree(ScrollView, can_focus=True):
    """One JSON document as a foldable tree, rows drawn lazily (see the module docstring).

    The document is one the boundary cleaned (`openwop_tui.protocol.hostdata.host_value`: an
    event's raw document, an envelope's): its keys and strings are drawn as they are."""

    ALLOW_SELECT = False  # rows are copied with c and p, whole, not by a mouse selection
    DEFAULT_CSS = """
    JsonTree { height: 1fr; overflow-x: hidden; scrollbar-gutter: stable; }
    JsonTree:focus { background-tint: $foreground 5%; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Up", show=False, tooltip="the previous row"),
        Binding("down,j", "move(1)", "Down", show=False, tooltip="the next row"),
        Binding("pageup", "page(-1)", "Page up", show=False, tooltip="a page up"),
        Binding("pagedown", "page(1)", "Page down", show=False, tooltip="a page down"),
        Binding("home", "edge(0)", "First", show=False, tooltip="the first row"),
        Binding("end", "edge(1)", "Last", show=False, tooltip="the last row"),
        Binding("enter,space", "flip", "Fold/unfold", tooltip="fold or unfold the row"),
        Binding("right,l", "unfold", "Unfold", show=False, tooltip="unfold the row"),
        Binding("left,h", "fold", "Fold", show=False, tooltip="fold the row"),
        Binding("asterisk", "unfold_all", "Unfold all", tooltip="unfold everything"),
        Binding("minus", "fold_all", "Fold all", show=False, tooltip="fold everything"),
        Binding("c", "copy_json", "Copy JSON", tooltip="copy the row's JSON"),
        Binding("p", "copy_path", "Copy path", tooltip="copy the row's JSON path"),
    ]

    class CopyRequested(Message):
        """The user asked to copy something from the tree: ``build()`` makes the text (it can
        be large: call it off the event loop), ``what`` names it for the notification."""

        def __init__(self, tree: JsonTree, what: str, build: Callable[[], str]) -> None:
            super().__init__()
            self.tree = tree
            self.what = what
            self.build = build

    def __init__(
        self,
        value: Any,
        *,
        unfold_budget: int = UNFOLD_ALL_BUDGET,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """A tree of ``value``, its top levels open.

        Args:
            value: The JSON document.
            unfold_budget: Nodes "unfold all" makes at most in one go.
            name: The widget's name; None for none.
            id: The widget's id in the DOM; None for none.
            classes: Its CSS classes, space-separated; None for none.
        """
        super().__init__(name=name, id=id, classes=classes)
        self.rows = JsonRows(value)
        """The row model (its ``built`` counts the nodes made)."""
        self.cursor = 0
        """The index of the selected row."""
        self.unfold_budget = unfold_budget
        self._cache: LRUCache[tuple[Row, int, bool, int], Strip] = LRUCache(CACHED_ROWS)
        self._styles: dict[Role, Style] | None = None
        self._selected = Style()
        self._base = Style()

    # ------------------------------------------------------------------ set-up

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self._resized()

    def _theme_changed(self, theme: Theme) -> None:
        self._styles = None
        self._cache.clear()
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def _palette_styles(self) -> dict[Role, Style]:
        if self._styles is None:
            palette = theme_palette.of(self.app.current_theme)
            self._styles = role_styles(palette)
            self._selected = Style.parse(palette.selection)
        return self._styles

    def _resized(self) -> None:
        """Tell the scroll machinery how many rows there are."""
        self.virtual_size = Size(0, len(self.rows))

    # ------------------------------------------------------------------ drawing

    def render_lines(self, crop: Region) -> list[Strip]:
        # The widget's own style is the same for every line of a frame, and costly to work out
        # (it walks the ancestors' backgrounds): once per frame, not once per line.
        self._base = self.rich_style
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        """One row of the viewport, from the cache when it was drawn at this width before."""
        width = self.scrollable_content_region.width
        base = self._base
        index = self.scroll_offset.y + y
        if index >= len(self.rows) or width <= 0:
            return Strip.blank(width, base)
        strip = self._strip(self.rows.rows[index], width)
        if index == self.cursor:
            strip = strip.apply_style(self._selected)
        return strip.apply_style(base)

    def _strip(self, row: Row, width: int) -> Strip:
        node = row.node
        key = (row, width, node.open, node.made)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        styles = self._palette_styles()
        drawn = pieces(row, width, self.rows.page)
        segments = [Segment(text, styles[role]) for text, role in drawn]
        strip = Strip(segments).adjust_cell_length(width)
        self._cache[key] = strip
        return strip

    # ------------------------------------------------------------------ the cursor

    def _go(self, index: int) -> None:
        """Put the cursor on ``index`` (clamped) and scroll it into view."""
        old = self.cursor
        self.cursor = max(0, min(index, len(self.rows) - 1))
        height = max(self.scrollable_content_region.height, 1)
        top = self.scroll_offset.y
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)
        self.refresh_lines(old)  # (rows of the document: ScrollView maps them to the screen)
        self.refresh_lines(self.cursor)

    def _changed(self, index: int) -> None:
        """The rows changed from the cursor's node on: recount, redraw, move the cursor."""
        self._resized()
        self.refresh()
        self._go(index)

    def action_move(self, step: int) -> None:
        self._go(self.cursor + step)

    def action_page(self, direction: int) -> None:
        self._go(self.cursor + direction * max(self.scrollable_content_region.height - 1, 1))

    def action_edge(self, end: int) -> None:
        self._go(len(self.rows) - 1 if end else 0)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None:
            self._go(self.scroll_offset.y + offset.y)

    # ------------------------------------------------------------------ folding

    def action_flip(self) -> None:
        row = self.rows.rows[self.cursor]
        if row.part == HEAD and row.node.open:
            self._changed(self.rows.fold(self.cursor))
        else:
            self._changed(self.rows.unfold(self.cursor))

    def action_unfold(self) -> None:
        row = self.rows.rows[self.cursor]
        if row.part == HEAD and row.node.open:
            self._go(self.cursor + 1)  # already open: step in
        else:
            self._changed(self.rows.unfold(self.cursor))

    def action_fold(self) -> None:
        self._changed(self.rows.fold(self.cursor))

    def action_unfold_all(self) -> None:
        before = self.rows.built
        head, complete = self.rows.unfold_all(self.cursor, self.unfold_budget)
        self._changed(head)
        if not complete:
            self.notify(
                f"Unfolded {self.rows.built - before:,} more values and stopped there (at most "
                f"{self.unfold_budget:,} at a time): press * again for more, or Enter on a "
                "'more' row.",
                severity="warning",
                markup=False,
            )

    def action_fold_all(self) -> None:
        self._changed(self.rows.fold_all(self.cursor))

    # ------------------------------------------------------------------ copying

    def _said(self, path: str) -> str:
        # The path is made of the document's keys, cleaned by `host_value`.
        return path if len(path) <= SAID_PATH else path[: SAID_PATH - 1] + "…"

    def action_copy_json(self) -> None:
        node = self.rows.rows[self.cursor].node
        what = f"the JSON at {self._said(self.rows.path(node))}"
        self.post_message(self.CopyRequested(self, what, partial(self.rows.copy_json, node)))

    def action_copy_path(self) -> None:
        path = self.rows.path(self.rows.rows[self.cursor].node)
        what = f"the path {self._said(path)}"
        self.post_message(self.CopyRequested(self, what, lambda: path))
