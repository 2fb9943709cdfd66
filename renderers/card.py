"""The ``card`` renderer: a bordered panel with the hint's ``title`` as its header.

The body is the envelope's text as markdown (the reference app does the same). A card with no
text but an object payload shows the object as a key/value table, nested values as compact JSON.
"""

from __future__ import annotations

import json
from typing import Any

from rich import box
from rich.console import RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers import register
from openwop_tui.renderers._common import text_of
from openwop_tui.renderers.base import RenderContext, Rendered
from openwop_tui.renderers.json import as_json
from openwop_tui.renderers.markdown import markdown
from openwop_tui.safe_text import safe_text
from openwop_tui.sanitize import clean

_MAX_VALUE = 500  # a table cell is a summary; the inspector has the whole value


def _compact(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = clean(text)
    return text if len(text) <= _MAX_VALUE else f"{text[:_MAX_VALUE]}…"


def _table(payload: dict[Any, Any]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    for key, value in payload.items():
        table.add_row(safe_text(str(key)), Text(_compact(value)))
    return table


@register("card", name="Card")
def render_card(envelope: Envelope, context: RenderContext) -> Rendered:
    """Draw a titled card; with neither text nor an object payload, show the JSON instead."""
    title = envelope.rendering.title
    # Only the envelope's own text: an object payload is shown whole, as a table.
    source = text_of(envelope, ())
    body: RenderableType
    if source is not None:
        body = markdown(source, context)
    elif isinstance(envelope.payload, dict) and envelope.payload:
        body = _table(envelope.payload)
    else:
        return as_json(envelope, f"card without content · {clean(envelope.kind)}, shown as JSON")
    panel = Panel(
        body,
        title=safe_text(title, style="bold") if title else None,
        title_align="left",
        box=box.ROUNDED,
        border_style=context.palette.border,
    )
    return Rendered(title=f"card · {clean(title)}" if title else "card", body=panel)
