"""The ``card`` renderer: a bordered panel with the hint's ``title`` as its header.

The body is the envelope's text as markdown (the reference app does the same). A card with no
text but an object payload shows the object as fields: a key/value grid whose nested objects
open down to `OPEN_DEPTH` and fold below it (``{…} 12 keys``, ``[…] 40 items``), whose arrays
of objects are tables (the union of their keys as columns), and whose scalars read as values,
not JSON. Every part is bounded (keys, rows, columns, characters) and says what it left out;
the inspector shows the whole JSON. Every string from the host is cleaned.
"""

from __future__ import annotations

from itertools import islice
from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from openwop_tui.draw.palette import Palette
from openwop_tui.draw.safe_text import safe_text
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers import register
from openwop_tui.renderers._common import text_of
from openwop_tui.renderers.base import RenderContext, Rendered
from openwop_tui.renderers.json import as_json
from openwop_tui.renderers.markdown import markdown
from openwop_tui.text.sanitize import clean

OPEN_DEPTH = 2
"""Objects and arrays nested this deep (the payload's own values are depth 1) are shown open;
deeper ones fold to a one-line summary."""
MAX_KEYS = 40
"""Keys of one object shown."""
MAX_ITEMS = 20
"""Items of one array of scalars or mixed values shown."""
TABLE_ROWS = 10
TABLE_COLUMNS = 8
MAX_VALUE = 500
"""Characters of one string shown (a table cell is a summary; the inspector has it all)."""
MAX_KEY = 80
TABLE_CELL = 80
"""Characters of one string in a table cell (a row of eight 500-character cells would stand
dozens of lines tall)."""

FOLDED_NOTE = "parts folded — the inspector (i) shows the whole JSON"


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {noun}s"


class _Fields:
    """Draws one payload; remembers whether anything was folded or cut."""

    def __init__(self, palette: Palette) -> None:
        self.palette = palette
        self.folded = False

    def _more(self, text: str) -> Text:
        self.folded = True
        return Text(text, style=self.palette.muted)

    def scalar(self, value: Any, limit: int = MAX_VALUE) -> Text:
        """A value that is not an object or an array, as a person reads it (strings cut at
        ``limit``, before they are cleaned: a megabyte string costs what is shown)."""
        if value is None:
            return Text("null", style=self.palette.muted)
        if isinstance(value, bool):
            return Text("true" if value else "false")
        if isinstance(value, int | float):
            return Text(repr(value))
        text = value if isinstance(value, str) else str(value)
        if len(text) > limit:
            self.folded = True
            return Text(f"{clean(text[:limit])}…")
        return Text(clean(text))

    def folded_summary(self, value: dict[Any, Any] | list[Any]) -> Text:
        self.folded = True
        if isinstance(value, dict):
            return Text(f"{{…}} {_plural(len(value), 'key')}", style=self.palette.muted)
        return Text(f"[…] {_plural(len(value), 'item')}", style=self.palette.muted)

    def value(self, value: Any, depth: int) -> RenderableType:
        """``value`` at nesting ``depth``: open, folded, a table, or a scalar."""
        if isinstance(value, dict):
            if not value:
                return Text("{}")
            return self.folded_summary(value) if depth > OPEN_DEPTH else self.grid(value, depth)
        if isinstance(value, list):
            if not value:
                return Text("[]")
            if all(not isinstance(item, dict | list) for item in value):
                return self.scalars(value)
            if depth > OPEN_DEPTH:
                return self.folded_summary(value)
            if all(isinstance(item, dict) for item in value):
                return self.table(value)
            return self.items(value, depth)
        return self.scalar(value)

    def grid(self, obj: dict[Any, Any], depth: int) -> RenderableType:
        """An object's keys and values, two columns."""
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column(overflow="fold")
        for key, item in islice(obj.items(), MAX_KEYS):  # not a copy of 100,000 keys
            table.add_row(self.key(key), self.value(item, depth + 1))
        if len(obj) > MAX_KEYS:
            return Group(table, self._more(f"and {_plural(len(obj) - MAX_KEYS, 'more key')}"))
        return table

    def key(self, key: Any) -> Text:
        text = str(key)
        # Renderers clean what they are given: a plugin's caller may hand them any payload.
        return safe_text(clean(text if len(text) <= MAX_KEY else f"{text[:MAX_KEY]}…"))

    def scalars(self, values: list[Any]) -> Text:
        """An array of scalars on one line: ``a, b, c``."""
        text = Text()
        for index, item in enumerate(values[:MAX_ITEMS]):
            if index:
                text.append(", ", style=self.palette.muted)
            text.append_text(self.scalar(item))
        if len(values) > MAX_ITEMS:
            text.append_text(self._more(f" and {_plural(len(values) - MAX_ITEMS, 'more item')}"))
        return text

    def items(self, values: list[Any], depth: int) -> RenderableType:
        """A mixed array, one item a line, each drawn at the next depth."""
        table = Table.grid(padding=(0, 1))
        table.add_column(style=self.palette.muted, no_wrap=True)
        table.add_column(overflow="fold")
        for index, item in enumerate(values[:MAX_ITEMS]):
            table.add_row(f"{index}", self.value(item, depth + 1))
        if len(values) > MAX_ITEMS:
            return Group(table, self._more(f"and {_plural(len(values) - MAX_ITEMS, 'more item')}"))
        return table

    def table(self, rows: list[dict[Any, Any]]) -> RenderableType:
        """An array of objects: one row each, the union of the shown rows' keys as columns (in
        order of first appearance); nested values in a cell always fold. Only the shown rows
        are looked at, so 10,000 rows of 1,000 keys cost what the table costs."""
        columns: list[Any] = []
        seen: set[str] = set()
        for row in rows[:TABLE_ROWS]:
            for key in row:
                if str(key) not in seen:
                    seen.add(str(key))
                    columns.append(key)
        shown_columns = columns[:TABLE_COLUMNS]
        table = Table(
            box=box.SIMPLE_HEAD, border_style=self.palette.border, show_edge=False, pad_edge=False
        )
        for key in shown_columns:
            table.add_column(self.key(key), overflow="fold")
        for row in rows[:TABLE_ROWS]:
            by_name = {str(key): value for key, value in row.items()}
            cells: list[RenderableType] = []
            for key in shown_columns:
                if str(key) not in by_name:
                    cells.append(Text(""))
                    continue
                cell = by_name[str(key)]
                if isinstance(cell, dict | list) and cell:
                    cells.append(self.folded_summary(cell))
                elif isinstance(cell, dict | list):
                    cells.append(self.value(cell, OPEN_DEPTH + 1))
                else:
                    cells.append(self.scalar(cell, TABLE_CELL))
            table.add_row(*cells)
        notes = []
        if len(rows) > TABLE_ROWS:
            notes.append(f"and {_plural(len(rows) - TABLE_ROWS, 'more row')}")
        if len(columns) > TABLE_COLUMNS:
            notes.append(f"{_plural(len(columns) - TABLE_COLUMNS, 'more column')} not shown")
        if notes:
            return Group(table, self._more(", ".join(notes)))
        return table


def fields(payload: dict[Any, Any], palette: Palette) -> tuple[RenderableType, bool]:
    """The payload drawn as fields, and whether anything was folded or cut."""
    drawer = _Fields(palette)
    body = drawer.grid(payload, 0)
    return body, drawer.folded


@register("card", name="Card")
def render_card(envelope: Envelope, context: RenderContext) -> Rendered:
    """Draw a titled card; with neither text nor an object payload, show the JSON instead."""
    title = envelope.rendering.title
    # Only the envelope's own text: an object payload is shown whole, as fields.
    source = text_of(envelope, ())
    body: RenderableType
    if source is not None:
        body, detail = markdown(source, context), "markdown"
    elif isinstance(envelope.payload, dict) and envelope.payload:
        body, folded = fields(envelope.payload, context.palette)
        detail = "fields"
        if folded:
            body = Group(body, Text(FOLDED_NOTE, style=context.palette.muted))
            detail = "fields, folded"
    else:
        return as_json(envelope, f"card without content · {clean(envelope.kind)}, shown as JSON")
    panel = Panel(
        body,
        title=safe_text(title, style="bold") if title else None,
        title_align="left",
        box=box.ROUNDED,
        border_style=context.palette.border,
    )
    return Rendered(title=f"card · {clean(title)}" if title else "card", body=panel, detail=detail)
