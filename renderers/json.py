"""The raw-JSON fallback: for an absent or unknown rendering hint, and for any renderer that fails.

An envelope that carries the reply's text (``outputs.completion``) shows the text above the JSON.

The spec makes degrading here a MUST (protocol.md §7), so this renderer never raises: it shows the
whole envelope as the host sent it (or the payload, for a hint lifted out of ``outputs``), pretty
and highlighted, under a title that says why it is shown as JSON.

Very long strings (inline base64, mostly) are abbreviated on screen so one image does not fill the
scrollback with noise; ``data`` keeps the full JSON for copy and save. What is drawn is bounded:
nesting past `MAX_SHOWN_DEPTH` levels and values past `MAX_SHOWN_ITEMS` are replaced by a marker
(`openwop_tui.protocol.hostdata.host_value` does the walk, without recursion), so a document
nested hundreds deep or millions wide costs a bounded amount of drawing.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, cast

from rich.console import Group
from rich.highlighter import JSONHighlighter
from rich.text import Text

from openwop_tui.protocol.envelopes import KNOWN_DISPLAYS, Envelope
from openwop_tui.protocol.hostdata import host_value
from openwop_tui.renderers import register
from openwop_tui.renderers._common import fallback_shows
from openwop_tui.renderers.base import Action, RenderContext, Rendered
from openwop_tui.text.sanitize import clean

#: Strings longer than this are cut on screen (with the number of characters left out).
MAX_STRING = 2000
#: Deepest nesting drawn (each level indents two columns: 24 levels is half a narrow terminal).
MAX_SHOWN_DEPTH = 24
#: Most values drawn from one document.
MAX_SHOWN_ITEMS = 20_000

_HIGHLIGHT = JSONHighlighter()


def _abbreviate(value: Any) -> Any:
    """A bounded, cleaned copy to draw: long strings cut, depth and size capped."""
    return host_value(
        value, max_depth=MAX_SHOWN_DEPTH, max_items=MAX_SHOWN_ITEMS, max_string=MAX_STRING
    )


def _dump(value: Any) -> str:
    # The document came from JSON, but a hand-built envelope might hold anything: this renderer
    # is the last line of defence, so a circular or very deep structure is dumped from its
    # bounded copy (which `host_value` always produces) instead.
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        return json.dumps(host_value(value), indent=2, ensure_ascii=False)


def reason(envelope: Envelope) -> str:
    """Why ``envelope`` is shown as JSON, for its title."""
    kind = clean(envelope.kind)
    display = envelope.display
    if display is None:
        return f"no rendering hint · {kind}"
    shown = fallback_shows(envelope)
    if display not in KNOWN_DISPLAYS:
        return f'unknown display "{clean(display)}" · {kind}, shown as {shown}'
    return f"{clean(display)} · {kind}, shown as JSON"


def json_text(value: Any) -> Text:
    """Any host JSON as pretty, highlighted, cleaned text, long strings abbreviated (the
    envelope inspector draws a lazy tree instead: `openwop_tui.ui.widgets.json_tree`)."""
    text = Text(clean(_dump(_abbreviate(value))), no_wrap=False, overflow="fold")
    _HIGHLIGHT.highlight(text)
    return text


def as_json(envelope: Envelope, why: str | None = None) -> Rendered:
    """The JSON view of ``envelope`` under the title ``why`` (default: `reason`)."""
    value = envelope.document if envelope.document is not None else envelope.payload
    text = json_text(value)
    return Rendered(
        title=why or reason(envelope),
        body=text,
        actions=(Action("copy", "Copy JSON"),),
        data=_dump(value).encode(errors="replace"),  # a hand-built lone surrogate, say
        media_type="application/json",
        filename="envelope.json",
    )


@register("json", name="JSON")
def render_json(envelope: Envelope, context: RenderContext) -> Rendered:
    """Show ``envelope`` as pretty, highlighted JSON. Never raises.

    An envelope that came with the reply's text (``outputs.completion``) shows that text first,
    as markdown, then the JSON: a display this client has no renderer for must still degrade
    to the default rendering, which is the text (RFC 0055 §B: "a consumer that doesn't
    recognize it MUST fall back to its default rendering (today: text / raw-JSON)"; the
    reference app shows an unknown display as its text). A lifted hint with no envelope object
    is all text: its JSON would only quote the text again.
    """
    shown = as_json(envelope)
    what = fallback_shows(envelope)
    if what == "JSON" or envelope.text is None:
        return shown
    from openwop_tui.draw.rich_markdown import SafeMarkdown  # (as `openwop_tui.renderers.markdown`)

    theme = cast(str, context.palette.syntax_theme())
    words = SafeMarkdown(envelope.text, code_theme=theme, hyperlinks=False)
    if what == "text":
        return replace(shown, body=words, media_type="text/markdown")
    return replace(shown, body=Group(words, Text(""), shown.body))
