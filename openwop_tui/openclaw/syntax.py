"""The small tokenizers behind `openwop_tui.openclaw.reader`: ``MEDIA:`` payloads, ``[embed …]`` /
``[view …]`` shortcodes and markdown images, each bounded (past its cap a thing is not one).

A reader that may be looking at an unfinished chunk gets ``True`` back for "may still complete"
(the stream then holds the text), ``None`` for "not one", or what was read. Pure.
"""

from __future__ import annotations

import re

from openwop_tui.openclaw.policy import is_candidate, looks_local

#: One ``key="value"`` (or ``'value'``, or bare) attribute of a shortcode.
_ATTR = re.compile(
    r"""\s*([A-Za-z][\w-]*)\s*=\s*(?:"([^"\n]*)"|'([^'\n]*)'|((?:[^\s"'\]/]|/(?!\]))+))"""
)
#: An attribute cut off by the end of a chunk (``ref="cv_1``): the shortcode may still complete.
_PARTIAL_ATTR = re.compile(r"""[\w-]*\s*(?:=\s*(?:"[^"\n]*|'[^'\n]*|[^\s"'\]]*)?)?""")

#: A ``[embed …]`` / ``[view …]`` shortcode longer than this is text.
MAX_SHORTCODE = 4096
#: A ``![alt](url)`` longer than this is text.
MAX_MARKDOWN_IMAGE = 4096
#: The tallest preferred height believed (pixels).
MAX_HEIGHT = 10_000


def unwrap(value: str) -> str | None:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'`":
        return value[1:-1].strip()
    return None


def _clean_part(part: str) -> str:
    # U+240D: a CR shown as its symbol (a CRLF split between two chunks is cleaned apart).
    return re.sub(r"[`\"'\\})\],\u240d]+$", "", re.sub(r"^[`\"'\[{(]+", "", part))


def media_parts(payload: str) -> tuple[list[str], list[str]] | None:
    """The candidates of a ``MEDIA:`` payload and the words that stay text; ``None`` when no
    part is a reference (the line is then ordinary text)."""
    quoted = unwrap(payload)
    if quoted is not None:
        return ([quoted], []) if is_candidate(quoted, bare=True) else None
    parts = payload.split()
    found = [p for p in (_clean_part(x) for x in parts) if is_candidate(p)]
    whole = _clean_part(payload.strip())
    if not found:
        return ([whole], []) if is_candidate(whole, bare=True) else None
    if len(parts) > 1 and len(found) < len(parts) and looks_local(whole):
        return [whole], []  # "/Users/pete/My File.png": one path with a space in it
    rest = [x for x in parts if not is_candidate(_clean_part(x))]
    return found, rest


def shortcode(line: str, pos: int, name: str) -> tuple[int, dict[str, str], bool] | bool | None:
    """Read ``[name attr=… /]`` at ``pos``: ``(end, attrs, self_closing)``; ``True`` when it
    may still complete (more text needed); ``None`` when it is not one."""
    at = pos + 1 + len(name)
    limit = min(len(line), pos + MAX_SHORTCODE)
    attrs: dict[str, str] = {}
    while True:
        while at < limit and line[at] in " \t":
            at += 1
        if at >= limit:
            return True if len(line) < pos + MAX_SHORTCODE else None
        if line.startswith("/]", at):
            return at + 2, attrs, True
        if line[at] == "]":
            return at + 1, attrs, False
        if line[at] == "/" and at + 1 >= len(line):
            return True
        match = _ATTR.match(line, at)
        if match is None or match.end() > limit:
            # An attribute still arriving ("ref=\"cv_1") or one that never will be.
            rest = line[at:limit]
            if len(line) < pos + MAX_SHORTCODE and _PARTIAL_ATTR.fullmatch(rest):
                return True
            return None
        key = match.group(1).lower()
        value = next(g for g in match.groups()[1:] if g is not None)
        attrs.setdefault(key, value)
        at = match.end()


def height(value: str | None) -> int | None:
    if value is None:
        return None
    digits = value.strip().lower().removesuffix("px")
    if not digits.isdigit() or len(digits) > 6:
        return None
    number = int(digits)
    return min(number, MAX_HEIGHT) if number > 0 else None


def markdown_image(line: str, pos: int) -> tuple[int, str, str] | bool | None:
    """Read ``![alt](dest "title")`` at ``pos``: ``(end, alt, dest)``; ``True``: may complete."""
    limit = min(len(line), pos + MAX_MARKDOWN_IMAGE)
    more = len(line) < pos + MAX_MARKDOWN_IMAGE
    if pos + 1 >= len(line):
        return True if more else None
    if line[pos + 1] != "[":
        return None
    close = line.find("]", pos + 2, limit)
    if close < 0:
        return True if more else None
    if close + 1 >= len(line):
        return True if more else None
    if line[close + 1] != "(":
        return None
    end = line.find(")", close + 2, limit)
    if end < 0:
        return True if more else None
    inside = line[close + 2 : end].strip()
    if inside.startswith("<") and ">" in inside:
        dest = inside[1 : inside.index(">")]
    else:
        dest = inside.split(maxsplit=1)[0] if inside else ""
    if not dest:
        return None
    return end + 1, line[pos + 2 : close], dest
