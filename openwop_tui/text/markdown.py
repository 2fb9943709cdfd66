"""Markdown cleaned *after* parsing: the token cleaning every markdown sink shares.

Cleaning the source (`openwop_tui.text.sanitize.clean`) is not enough: markdown turns character
references into characters while parsing, so ``&#x202e;`` becomes a right-to-left override,
``&rlm;`` a bidi mark, ``&#27;`` an ESC and ``&#x9b;`` a C1 CSI. A file name written
``invoice_&#x202e;fdp.exe`` would display as ``invoice_exe.pdf``. Both entry points here clean
every token markdown-it produces, children included, after the whole parse:

* `markdown_parser` is a ``parser_factory`` for Textual's ``Markdown`` widget (and anything
  else that takes a `MarkdownIt`): its last core rule cleans the token stream;
* `openwop_tui.draw.rich_markdown.SafeMarkdown` is Rich's ``Markdown`` (which builds its own
  parser) with its parsed tokens cleaned by `clean_tokens`.

Token ``content``, ``info`` (a fence's language), ``markup`` and every attribute value (a link's
``href``, an image's ``src`` and ``title``) are cleaned. No Rich, no Textual: every layer that
parses markdown uses this.
"""

from __future__ import annotations

from collections.abc import Iterable

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from openwop_tui.text.sanitize import clean

__all__ = ["clean_tokens", "markdown_parser"]


def clean_tokens(tokens: Iterable[Token]) -> None:
    """Clean every token and child token in place (iteratively: nesting can be deep)."""
    stack = list(tokens)
    while stack:
        token = stack.pop()
        token.content = clean(token.content)
        token.info = clean(token.info)
        token.markup = clean(token.markup)
        if token.attrs:
            token.attrs = {
                clean(str(name)): clean(value) if isinstance(value, str) else value
                for name, value in token.attrs.items()
            }
        if token.children:
            stack.extend(token.children)


def _clean_rule(state: StateCore) -> None:
    clean_tokens(state.tokens)


def markdown_parser() -> MarkdownIt:
    """A "gfm-like" parser (what Textual's ``Markdown`` uses by default) that cleans its tokens.

    Pass it as ``Markdown(parser_factory=markdown_parser)``.
    """
    parser = MarkdownIt("gfm-like")
    # Last in the core chain: after `inline` has built the children and references are decoded.
    parser.core.ruler.push("clean_host_text", _clean_rule)
    return parser
