"""A Markdown image in a reply, shown as what it is and where it is: never a bare ``🌆 alt``.

A terminal does not draw an image written in a reply's text (``![a chart](https://…/c.png)``,
an OpenClaw agent's usual way to show one unless ``--markdown-images`` turns it into media).
Rich's ``Markdown`` draws it as ``🌆 a chart`` with the URL only in a terminal hyperlink, which
this client never makes from host text, so the address was lost; and it drew the placeholder
before the paragraph holding it. Here, after the parse, each ``image`` token becomes a link to
its source labelled ``🌆 image: a chart, not drawn in text``, which every sink draws in place, as
it draws any link: the label, then the URL in parentheses (a hyperlink too, where links are).
The file name stands in for an empty alt. Tokens are already cleaned (`clean_tokens`).
"""

from __future__ import annotations

from collections.abc import Iterable

from markdown_it.token import Token

__all__ = ["IMAGE_MARK", "images_as_links"]

#: What starts an image's label (the same mark Rich used, so the placeholder still reads as one).
IMAGE_MARK = "🌆"


def images_as_links(tokens: Iterable[Token]) -> None:
    """Replace every ``image`` token (in inline children, at any depth) by a link to its
    source with a label saying what it is, in place."""
    stack = list(tokens)
    while stack:
        token = stack.pop()
        if not token.children:
            continue
        if any(child.type == "image" for child in token.children):
            token.children = [
                part
                for child in token.children
                for part in (_as_link(child) if child.type == "image" else (child,))
            ]
        stack.extend(token.children)


def _as_link(image: Token) -> tuple[Token, Token, Token]:
    source = str(image.attrGet("src") or "")
    what = image.content.strip() or source.rstrip("/").rsplit("/", 1)[-1] or "untitled"
    label = Token("text", "", 0, content=f"{IMAGE_MARK} image: {what}, not drawn in text")
    return (
        Token("link_open", "a", 1, attrs={"href": source}, markup=image.markup),
        label,
        Token("link_close", "a", -1),
    )
