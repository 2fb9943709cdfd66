"""The inline parse of a streaming paragraph, resumed from where nothing it holds is open.

A paragraph is parsed whole at each update (`openwop_tui.draw.markdown`: a ``===`` under it
makes the whole of it a heading), and markdown-it's inline parse of its text was most of that:
58% of a redraw of a 540 KB paragraph of prose, which took 700 ms. Its block structure is cheap
to find again; its inlines need not be, because the inline parse carries nothing past a space
after which no construct is open. `OpenInline` keeps the tokens of the paragraph's text up to
the last such space (its *settled* part) and parses only what follows, at each update; the next
updates try to settle what the last one added.

A part settles when its own parse left nothing that later text could change:

- no emphasis or strikethrough delimiter that may open and found no closer (``**bold`` until
  its ``**``): markdown-it's delimiter list says so exactly (``_`` inside ``snake_case`` cannot
  open, ``*`` between spaces neither);
- no ``[`` or backtick left as text, anywhere in it (a link's label too: a code span or raw HTML
  beginning inside a label and closing after it takes precedence over the link);
- no ``<`` left as text before a letter, ``/``, ``!`` or ``?`` (what raw HTML and autolinks
  begin with).

The part ends with a space and what follows it begins with anything but white space, so the
characters either side of the cut are what they are in the whole text: a delimiter's flanking
(a space before, where markdown-it counts the start of the text as one), a line's trailing
spaces (a hard break), the spaces a new line begins with. Everything parsed before the cut is
closed within it, so markdown-it's delimiter matching, which only ever looks back from a closer
to the openers not yet matched, matches the same pairs in the whole text; adjacent text tokens
either side are joined as `text_join` joins them. Definitions in force are part of the state:
another set of them and the part is parsed again. Anything not settled is parsed whole, as
before. The cut is tried at the last space, then at the last one before the last character that
may begin a construct, and once more so (the last words may be a link's label, those before
them not); when none settles, cuts are tried again once what follows the settled part has
doubled, so a paragraph with a stray opener costs at most four times its parse.

Cached tokens are never changed in place: what markdown-it's core rules and the app's cleaning
do after the inline parse (join adjacent text, clean, turn images into links) either leaves a
joined, cleaned token as it is, or builds a new list around it; the one token they can change,
the last text before the cut, is handed out as a copy.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore, text_join
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from openwop_tui.draw.markdown_images import images_as_links
from openwop_tui.text.markdown import clean_tokens

__all__ = ["KEY", "OpenInline", "finish_parsed", "install"]

#: Where a parse's ``env`` carries the `OpenInline` of the text's last inline token.
KEY = "openwop_open_inline"

#: Left as text, what later text may still turn into a construct reaching back before it.
_OPEN = re.compile(r"[\[`]|<[A-Za-z/!?]")
#: Cuts tried at an update (each before the last, so at most three parses of the rest).
_TRIES = 3
#: What may begin a construct that reaches across words: a cut is tried again before the last.
_BEGINS = "[`*_~<!"
#: The last space that a character other than white space follows.
_CUT = re.compile(r".* (?=[^ \t\n])", re.DOTALL)


def install(md: MarkdownIt) -> None:
    """Replace ``md``'s core ``inline`` rule by one that parses the last inline token through
    the `OpenInline` a parse's ``env`` carries under `KEY` (every other one as before), and
    its ``text_join`` by one that leaves that token's settled tokens (joined already) alone."""
    md.core.ruler.at("inline", _inline)
    md.core.ruler.at("text_join", _text_join)


def _inline(state: StateCore) -> None:
    kept: OpenInline | None = state.env.get(KEY)
    last = None
    if kept is not None:
        kept.served = None
        last = next((t for t in reversed(state.tokens) if t.type == "inline"), None)
    for token in state.tokens:
        if token.type != "inline":
            continue
        if token.children is None:
            token.children = []
        if token is last and kept is not None:
            token.children.extend(kept.parse(token.content, state.md, state.env))
            kept.served = token
        else:
            state.md.inline.parse(token.content, state.md, state.env, token.children)


def _text_join(state: StateCore) -> None:
    with _settled_hidden(state.env.get(KEY)):
        text_join(state)


@dataclass(eq=False)
class OpenInline:
    """The settled part of a streaming paragraph's text, and its inline tokens."""

    source: str = ""
    """The text parsed into `tokens`: the paragraph's, up to a space nothing is open at."""
    tokens: list[Token] = field(default_factory=list)
    """Its tokens, text joined, as the whole text's parse begins."""
    references: dict[str, Any] | None = None
    """The definitions they were parsed with."""
    retry: int = 0
    """How long the unsettled rest must be before a cut is tried again."""
    served: Token | None = None
    """The inline token the last parse gave the settled tokens to (`finish_parsed`)."""
    settled: int = 0
    """How many of its first children are settled tokens handed out as they are: joined,
    cleaned and their images made links when they settled, the same objects at every parse
    while they stay settled (`openwop_tui.draw.rich_markdown` keeps the text built from
    them)."""

    def parse(self, content: str, md: MarkdownIt, env: MutableMapping[str, Any]) -> list[Token]:
        """The inline tokens of ``content`` (what ``md.inline.parse`` makes of it, before the
        core rules after it), the settled part reused when ``content`` goes on from it."""
        references = env.get("references")
        if references != self.references or not content.startswith(self.source):
            self.source, self.tokens, self.retry = "", [], 0
            self.references = dict(references) if references is not None else None
        rest = content[len(self.source) :]
        if len(rest) >= self.retry:
            rest = self._settle_some(rest, md, env)
        tokens = list(self.tokens)
        self.served, self.settled = None, len(tokens)
        if tokens and tokens[-1].type == "text":
            # (`text_join` may add the next text to it: a copy, cleaned again with the rest.)
            tokens[-1] = tokens[-1].copy()
            self.settled -= 1
        return tokens + md.inline.parse(rest, md, env, []) if rest else tokens

    def _settle_some(self, rest: str, md: MarkdownIt, env: MutableMapping[str, Any]) -> str:
        """Settle what of ``rest`` (the text after the settled part) can be: up to its last
        cut, else up to the last cut before the last character that may begin a construct
        (the last words may be a link's label, the ones before them not), and so on; what is
        left of it."""
        end = len(rest)
        for _ in range(_TRIES):
            found = _CUT.match(rest, 0, end)
            if found is None:
                return rest
            piece = _parse(md, env, found.group())
            if piece is not None:
                self._settle(found.group(), piece)
                return rest[found.end() :]
            end = max(rest.rfind(char, 0, found.end()) for char in _BEGINS)
            if end <= 0:
                break
        self.retry = 2 * len(rest)
        return rest

    def _settle(self, text: str, piece: list[Token]) -> None:
        """``text`` (parsed into ``piece``) is settled: it goes on the settled part, cleaned
        (`clean` keeps or rewrites each character alone but ``\\r\\n``, and the part ends with a
        space: text cleaned apart is what it is cleaned joined), its images made links (what
        `finish_parsed` does to the rest)."""
        clean_tokens(piece)
        holder = Token("inline", "", 0, children=piece)
        images_as_links([holder])
        piece = holder.children or []
        tokens = self.tokens
        if tokens and piece and tokens[-1].type == "text" and piece[0].type == "text":
            # A new token, not the old one changed: earlier parses hold it.
            tokens[-1] = tokens[-1].copy(content=tokens[-1].content + piece[0].content)
            piece = piece[1:]
        tokens.extend(piece)
        self.source += text
        self.retry = 0


def finish_parsed(tokens: list[Token], kept: OpenInline | None) -> None:
    """What a reply's parse does after markdown-it's (`clean_tokens`, `images_as_links`) to a
    parse's ``tokens``, but to the settled tokens ``kept`` gave it: that was done once, when
    they settled (a 540 KB paragraph's were cleaned again at every update: 170 ms)."""
    with _settled_hidden(kept):
        clean_tokens(tokens)
        images_as_links(tokens)


@contextmanager
def _settled_hidden(kept: OpenInline | None) -> Iterator[None]:
    """The settled tokens ``kept`` gave its inline token (joined, cleaned and their images made
    links when they settled) taken out of that token's children meanwhile."""
    served = kept.served if kept is not None else None
    if kept is None or served is None or not served.children:
        yield
        return
    settled, served.children = served.children[: kept.settled], served.children[kept.settled :]
    try:
        yield
    finally:
        served.children = settled + (served.children or [])


def _parse(md: MarkdownIt, env: MutableMapping[str, Any], text: str) -> list[Token] | None:
    """``text``'s inline tokens, text joined, or ``None`` if later text could change them."""
    state = StateInline(text, md, env, [])
    md.inline.tokenize(state)
    for rule in md.inline.ruler2.getRules(""):
        rule(state)
    if any(delimiter.open and delimiter.end < 0 for delimiter in state.delimiters):
        return None
    holder = Token("inline", "", 0, children=state.tokens)
    text_join(StateCore(text, md, env, [holder]))  # (markdown-it's own join, as a parse does)
    tokens = holder.children or []
    for token in _texts(tokens):
        if _OPEN.search(token.content):
            return None
    return tokens


def _texts(tokens: list[Token]) -> Iterator[Token]:
    """Every text token, at any depth (an image's label is its children)."""
    for token in tokens:
        if token.type == "text":
            yield token
        if token.children:
            yield from _texts(token.children)
