"""The ``markdown`` renderer: the envelope's text as Rich Markdown.

The source is cleaned *before* parsing, so an escape sequence cannot hide inside a code span or a
link, and the parsed tokens are cleaned *after* it (`openwop_tui.draw.rich_markdown.SafeMarkdown`),
so a character reference (``&#x202e;``, ``&rlm;``) cannot decode into a bidi control.

Links are drawn as ``text (url)`` rather than terminal hyperlinks: in a chat with a remote
model, the user should see where a link goes before following it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, cast

from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers import register
from openwop_tui.renderers._common import degradation, join, media_ref, text_of
from openwop_tui.renderers.base import Code, RenderContext, Rendered
from openwop_tui.renderers.json import as_json
from openwop_tui.text.sanitize import clean

if TYPE_CHECKING:
    # The parser and Rich's markdown are imported where markdown is first drawn: the registry
    # imports this module as it loads, before the app's first frame, which draws none.
    from openwop_tui.draw.rich_markdown import SafeMarkdown

#: Payload keys that may hold the markdown when the envelope has no text of its own.
TEXT_KEYS = ("markdown", "text", "content")


def markdown(source: str, context: RenderContext) -> SafeMarkdown:
    """A Rich `Markdown` of host text, cleaned before and after parsing; shared with the card
    renderer."""
    # Rich passes ``code_theme`` straight to `Syntax`, which takes a theme object as well as a
    # name: the palette's, drawn on the theme's surface instead of the Pygments background.
    from openwop_tui.draw.rich_markdown import SafeMarkdown

    theme = cast(str, context.palette.syntax_theme())
    return SafeMarkdown(source, code_theme=theme, hyperlinks=False)


def text_instead(envelope: Envelope, context: RenderContext) -> Rendered | None:
    """For a media hint on an envelope with text but no media reference: the text, as the
    reference app shows it, marked degraded; ``None`` when there is media (or no text)."""
    source = text_of(envelope, TEXT_KEYS) if media_ref(envelope) is None else None
    if source is None:
        return None
    family = clean(envelope.display or "media")
    return Rendered(
        title=join(family, clean(envelope.rendering.title or "")),
        body=markdown(source, context),
        degradation=degradation(
            Code.NO_TEXT,
            f"{family} hint without a url or base64: shown as text",
            cause=f"no {family}",
            instead="text",
        ),
        media_type="text/markdown",
    )


@register("markdown", name="Markdown")
def render_markdown(envelope: Envelope, context: RenderContext) -> Rendered:
    """Draw the envelope's text as markdown; no text at all falls back to JSON, marked degraded."""
    source = text_of(envelope, TEXT_KEYS)
    if source is None:
        kind = clean(envelope.kind)
        shown = as_json(envelope, f"markdown without text · {kind}, shown as JSON")
        why = degradation(
            Code.NO_TEXT, "the markdown hint came with no text to show", instead="JSON"
        )
        return replace(shown, degradation=why)
    title = envelope.rendering.title
    return Rendered(
        title=clean(title) if title else "markdown",
        body=markdown(source, context),
        media_type="text/markdown",
    )
