"""The ``code`` renderer: Pygments highlighting through Rich `Syntax`, with line numbers.

The language comes from the hint's ``lang``, else its ``mimeType``, else a ``` fence around the
text (the fence itself is stripped), else a Pygments guess, else plain text. The title says which,
so a wrong guess is visible as a guess.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers import register
from openwop_tui.renderers._common import join, text_of
from openwop_tui.renderers.base import Action, RenderContext, Rendered
from openwop_tui.renderers.json import as_json
from openwop_tui.text.sanitize import clean, safe_filename

if TYPE_CHECKING:
    # Pygments ships no type information (types-Pygments is not a dependency). It and Rich's
    # syntax module are imported where code is first drawn: the registry imports this module
    # as it loads, before the app's first frame, which shows no code.
    from pygments.lexer import Lexer  # type: ignore[import-untyped]

#: Payload keys that may hold the source when the envelope has no text of its own.
SOURCE_KEYS = ("source", "code", "text")

_FENCE = re.compile(r"\A\s*```[ \t]*([\w+#.-]*)[^\n]*\n(.*?)\n?[ \t]*```\s*\Z", re.DOTALL)
_GUESS_CHARS = 10_000  # guess_lexer runs every lexer's heuristics over the text: keep it cheap


def _by_name(name: str | None) -> Lexer | None:
    from pygments.lexers import get_lexer_by_name  # type: ignore[import-untyped]
    from pygments.util import ClassNotFound  # type: ignore[import-untyped]

    try:
        return get_lexer_by_name(name) if name else None
    except ClassNotFound:
        return None


def _lexer(envelope: Envelope, fence_lang: str | None, source: str) -> tuple[Lexer, str]:
    """The lexer to highlight with and how to name the language in the title."""
    from pygments.lexers import (
        get_lexer_for_mimetype,
        guess_lexer,
    )
    from pygments.lexers.special import TextLexer  # type: ignore[import-untyped]
    from pygments.util import ClassNotFound

    hint = envelope.rendering
    if hint.lang:
        found = _by_name(hint.lang)
        return (found, clean(hint.lang)) if found else (TextLexer(), f"{clean(hint.lang)} (plain)")
    if hint.mime_type:
        try:
            found = get_lexer_for_mimetype(hint.mime_type)
        except ClassNotFound:
            found = TextLexer()
        if not isinstance(found, TextLexer):  # "text/plain" says nothing: keep looking
            return found, found.name.lower()
    by_fence = _by_name(fence_lang)
    if by_fence is not None and fence_lang:
        return by_fence, clean(fence_lang)
    try:
        guessed = guess_lexer(source[:_GUESS_CHARS])
    except ClassNotFound:
        guessed = TextLexer()
    if isinstance(guessed, TextLexer):
        return guessed, "text"
    return guessed, f"{guessed.name.lower()} (guessed)"


def _extension(lexer: Lexer) -> str:
    patterns = [p for p in getattr(lexer, "filenames", []) if p.startswith("*.")]
    return patterns[0][1:] if patterns else ".txt"


@register("code", name="Code")
def render_code(envelope: Envelope, context: RenderContext) -> Rendered:
    """Draw source code, highlighted; no source at all falls back to JSON."""
    source = text_of(envelope, SOURCE_KEYS)
    if source is None:
        return as_json(envelope, f"code without source · {clean(envelope.kind)}, shown as JSON")
    fence = _FENCE.match(source)
    fence_lang = fence.group(1) if fence else None
    if fence:
        source = fence.group(2)
    lexer, language = _lexer(envelope, fence_lang, source)
    lines = len(source.splitlines())
    title = envelope.rendering.title
    from rich.syntax import Syntax

    # A trailing newline would show as an empty numbered line.
    body = Syntax(
        clean(source.rstrip("\n")),
        lexer,
        theme=context.palette.syntax_theme(),
        line_numbers=True,
        word_wrap=True,
    )
    return Rendered(
        title=join("code", clean(title) if title else None, language, _plural(lines, "line")),
        body=body,
        actions=(Action("copy", "Copy"),),
        data=source.encode(),
        media_type="text/plain",
        filename=safe_filename(title, f"snippet{_extension(lexer)}"),
    )


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {noun}s"
