"""Host text made safe to put in a Markdown file that someone will open in a viewer.

A Markdown export is read by programs that run HTML (a browser preview, an editor's pane, a
static site): host text copied into it as is could carry ``<script>``, an ``onerror`` image, a
``javascript:`` link, an iframe, an image that makes the viewer fetch a loopback or private
address, a character reference that decodes to a bidi override (``&#x202e;``), or a newline in a
name that starts a heading of its own. Three forms:

* `inline`: a label (a title, a tool name, alt text, a table cell): one line (`clean_label`:
  line breaks and separators as visible symbols), bounded, every ASCII punctuation character
  backslash-escaped, so no Markdown or HTML construct can form and no reference decodes;
* `block`: a reply or an envelope's Markdown, kept readable: HTML and character references
  escaped, its headings moved below the export's own three levels (a reply's ``## You`` can
  never pass for a user turn), inline links and images whose target is not ``http(s)`` to a
  public host reduced to their text (images become links, so nothing is fetched when the file
  opens), reference definitions with such targets disarmed, unsafe bare URLs broken up for
  linkifiers; code spans and fenced or indented code are left as written (nothing in them is
  live). The result is checked by parsing it with markdown-it (`live_parts`); if anything live
  is left, the whole text is escaped like `inline`, line by line;
* `quoted`: a block as a Markdown quote, every line prefixed, so it cannot leave the quote.

Pure: no I/O.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator

from markdown_it import MarkdownIt
from markdown_it.token import Token

from openwop_tui.text.sanitize import clean, clean_label

__all__ = ["LABEL_CHARS", "block", "inline", "live_parts", "quoted", "safe_target"]

#: Longest label kept (a title, a name); the rest is cut with an ellipsis.
LABEL_CHARS = 200

_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")
#: A character reference (``&amp;``, ``&#x202e;``, ``&#8238;``): decoded by every viewer.
_ENTITY = re.compile(r"&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{0,31};)")
#: ``[text](target "title")`` and ``![alt](target)``, text without nested brackets.
_LINK = re.compile(
    r"(!?)\[((?:[^\[\]\\\n]|\\.){0,1000})\]\(\s*(<[^<>\n]*>|[^\s()<>]*(?:\([^\s()<>]*\)[^\s()<>]*)*)"
    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?\s*\)"
)
#: A reference definition: ``[label]: target``.
_DEFINITION = re.compile(r"^( {0,3})\[((?:[^\[\]\\]|\\.)+)\]:[ \t]*(<[^<>\n]*>|\S*)", re.M)
#: An ATX heading's marker; a setext heading's underline.
_ATX = re.compile(r"^( {0,3})(#{1,6})([ \t]|$)", re.M)
_SETEXT = re.compile(r"^( {0,3})(=+|-+)[ \t]*$", re.M)
#: A bare URL, as a linkifier finds one.
_BARE_URL = re.compile(r"(?i)\b[a-z][a-z0-9+.-]{1,20}://[^\s<>]*")
#: Inline code: a run of backticks, then the shortest text up to the same run.
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)


def inline(text: str, limit: int = LABEL_CHARS) -> str:
    """``text`` as one line of literal Markdown text (see the module docstring)."""
    line: str = clean_label(text)
    if len(line) > limit:
        line = line[: limit - 1] + "…"
    return _PUNCT.sub(r"\\\1", line)


def safe_target(url: str) -> bool:
    """Whether a link may point at ``url``: ``http(s)`` to a named or public host (a viewer
    following a link to a loopback or private address reaches the reader's own machine)."""
    match = re.match(r"(?i)https?://([^/?#\s]*)", url)
    if match is None:
        return False
    host = match.group(1).rsplit("@", 1)[-1]
    host = host[1:].split("]", 1)[0] if host.startswith("[") else host.split(":", 1)[0]
    host = host.lower().rstrip(".")
    if not host or host == "localhost" or host.endswith((".localhost", ".local", ".internal")):
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return not host.replace(".", "").isdigit()  # 2130706433, 127.1: numeric forms
    return address.is_global


def block(text: str) -> str:
    """``text`` (host Markdown) safe to open, still readable (see the module docstring)."""
    text = clean(text)
    safe = "".join(part if code else _disarm(part) for part, code in _segments(text))
    if live_parts(safe):
        return "\n".join(_PUNCT.sub(r"\\\1", line) for line in text.split("\n"))
    return safe


def quoted(text: str) -> str:
    """``block(text)`` as a Markdown quote."""
    return "\n".join(f"> {line}" if line else ">" for line in block(text).split("\n"))


def _segments(text: str) -> Iterator[tuple[str, bool]]:
    """``text`` cut into (part, is code): fenced and indented code blocks by markdown-it's block
    map, code spans by their backticks."""
    lines = text.split("\n")
    code_lines: set[int] = set()
    for token in _PARSER.parse(text):
        if token.type in ("fence", "code_block") and token.map is not None:
            code_lines.update(range(*token.map))
    start = 0
    for index in range(len(lines) + 1):
        boundary = index == len(lines) or (index in code_lines) != (start in code_lines)
        if boundary and index > start:
            part = "\n".join(lines[start:index]) + ("\n" if index < len(lines) else "")
            if start in code_lines:
                yield part, True
            else:
                yield from _spans(part)
            start = index


def _spans(part: str) -> Iterator[tuple[str, bool]]:
    at = 0
    for match in _CODE_SPAN.finditer(part):
        yield part[at : match.start()], False
        yield match.group(), True
        at = match.end()
    yield part[at:], False


def _disarm(text: str) -> str:
    """Links and images checked, definitions disarmed, then HTML and references escaped."""
    kept: list[str] = []

    def link(match: re.Match[str]) -> str:
        image, label, target = match.group(1), match.group(2), match.group(3)
        target = target[1:-1] if target.startswith("<") else target
        shown = label or target
        if not safe_target(target):
            return _PUNCT.sub(r"\\\1", clean_label(shown))
        kept.append(f"[{'image: ' if image else ''}{label}]({_encode(target)})")
        return f"\x00{len(kept) - 1}\x00"

    def definition(match: re.Match[str]) -> str:
        target = match.group(3)
        target = target[1:-1] if target.startswith("<") else target
        return (
            match.group()
            if safe_target(target)
            else f"{match.group(1)}\\{match.group()[len(match.group(1)) :]}"
        )

    text = _LINK.sub(link, text)
    text = _DEFINITION.sub(definition, text)
    # A bare URL is a link in viewers that linkify (GitHub's): an unsafe one is broken up by an
    # escape, which reads the same and matches no linkifier.
    text = _BARE_URL.sub(
        lambda m: m.group() if safe_target(m.group()) else m.group().replace(":", "\\:", 1), text
    )
    text = _ENTITY.sub("&amp;", text).replace("<", "&lt;")
    # The export's own headings are levels 1 to 3 (the session, "You"/"Assistant", each item):
    # a heading in host text sits below them, so it can never pass for a turn of its own.
    text = _ATX.sub(lambda m: f"{m.group(1)}{'#' * max(4, len(m.group(2)))}{m.group(3)}", text)
    text = _SETEXT.sub(lambda m: f"{m.group(1)}\\{m.group(2)}", text)
    return re.sub("\x00([0-9]+)\x00", lambda m: _escape_kept(kept[int(m.group(1))]), text)


def _escape_kept(link: str) -> str:
    # The link's own text went through nothing yet: references and HTML in it are escaped.
    return _ENTITY.sub("&amp;", link).replace("<", "&lt;")


def _encode(url: str) -> str:
    """A link destination that cannot end early: spaces, brackets and quotes percent-encoded."""
    return "".join(f"%{ord(c):02X}" if c in " ()<>\"'`\\" else c for c in url)


_PARSER = MarkdownIt("commonmark")


def live_parts(markdown: str, *, images_under: str | None = None) -> list[str]:
    """What in ``markdown`` a viewer would act on: raw HTML, a link to anything but a safe
    target (`safe_target`), an image (but one under the relative folder ``images_under``),
    text that decodes to a control or bidi character. Empty when nothing is live."""
    found: list[str] = []
    parser = MarkdownIt("commonmark", {"html": True})
    parser.validateLink = lambda url: True  # type: ignore[method-assign]  # a naive viewer
    stack: list[Token] = list(parser.parse(markdown))
    while stack:
        token = stack.pop()
        if token.children:
            stack.extend(token.children)
        if token.type in ("html_block", "html_inline"):
            found.append(token.content)
        elif token.type == "link_open":
            href = str(token.attrGet("href") or "")
            if not safe_target(href):
                found.append(href)
        elif token.type == "image":
            src = str(token.attrGet("src") or "")
            inside = images_under is not None and src.startswith(f"{images_under}/")
            if not inside or ".." in src.split("/"):
                found.append(src)
        elif token.type in ("text", "code_inline") and clean(token.content) != token.content:
            found.append(token.content)
    return found
