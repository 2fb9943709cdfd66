"""The one boundary host JSON crosses: any decoded value in, a bounded, cleaned copy out.

Everything a host sends (run events, HTTP answers, error bodies, discovery) passes through
`host_value` where it enters the program, so code above this layer never sees a raw host string
and a new field cannot be forgotten. What comes out is made only of ``dict``, ``list``, ``str``,
``int``, ``float``, ``bool`` and ``None``, and:

* every string and every key went through `openwop_tui.text.sanitize.clean` (terminal controls, C1,
  bidi controls and lone surrogates made visible);
* every secret (the API key) is replaced by `MASK` wherever it occurs, and so is a *long
  fragment* of it at a string's edge (a prefix at the end, a suffix at the start, or the whole
  string), because a host that cuts an echoed header or body, or streams it in pieces, leaves
  one: long means at least `fragment_floor` characters (`MIN_FRAGMENT`, and half the key), so a
  word of the client's own text that happens to start the key ("openwop-tui" of the demo key
  ``openwop-tui-demo-key``) is never masked. After ``Bearer `` any prefix of `MIN_PREFIX` or more
  is masked (the word says a credential follows). Pieces joined later (a reply's chunks) are
  masked across the join by `openwop_tui.text.split_keys`;
* numbers cannot break arithmetic or formatting downstream: integers are clamped to
  ``±(2**63 - 1)`` (a 500-digit ``durationMs`` would make ``duration / 1000`` raise
  ``OverflowError``; the clamp keeps the sign and "very large" meaning), and ``NaN``/``Infinity``
  become ``None`` (they have no JSON meaning, and NaN makes every comparison false);
* nesting is bounded: containers deeper than ``max_depth`` are replaced by the string
  `TOO_DEEP`, and the walk is an explicit stack, so no depth of input can exhaust recursion;
* size is bounded: after ``max_items`` values in all, the rest of a container is replaced by
  one marker, so a cyclic hand-built value or a pathological document costs linear work.

Long strings are kept whole (a reply or inline base64 can be megabytes); ``max_string`` cuts
them for callers that only draw (the JSON renderer). `host_value` never raises. Pure: no I/O,
no Rich, no Textual.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from openwop_tui.text.mask import (
    MASK,
    MIN_FRAGMENT,
    MIN_PREFIX,
    fragment_floor,
    mask,
    secrets_of,
)
from openwop_tui.text.sanitize import HostText, clean

__all__ = [
    "INT_MAX",
    "MASK",
    "MAX_DEPTH",
    "MAX_ITEMS",
    "MIN_FRAGMENT",
    "MIN_PREFIX",
    "NOT_PLAIN",
    "TOO_DEEP",
    "KeyProbes",
    "fragment_floor",
    "host_piece",
    "host_str",
    "host_text",
    "host_value",
    "mask",
    "plain_document",
    "secrets_of",
]

#: Largest integer magnitude kept (int64): formatting, float conversion and comparison all work.
INT_MAX = 2**63 - 1
#: Deepest nesting kept. Real events are a handful of levels deep; 48 leaves ample room.
MAX_DEPTH = 48
#: Most values (containers and scalars) kept in one document.
MAX_ITEMS = 1_000_000
#: What replaces a container nested deeper than ``max_depth``.
TOO_DEEP = "[nested too deeply: not shown]"


class KeyProbes:
    """A quick test of a text for what `mask` would change in it (with these secrets): a
    handful of substring tests, however long the key, so that every event of a stream can be
    tested before anything is decoded. It may say yes where `mask` changes nothing (a probe
    in ordinary words); it never says no where `mask` would change something.

    `mask` masks the key, a fragment of ``floor = fragment_floor(key)`` characters or more at a
    string's edge or as the whole string, and a prefix of `MIN_PREFIX` or more after
    ``Bearer``. So each secret is probed by:

    * its first ``floor`` characters: in the key, in a prefix cut at the end of a string, and
      in any fragment that starts where the key starts;
    * its `MIN_PREFIX`-long pieces at each multiple of ``step = floor - MIN_PREFIX + 1`` after
      the first: any other fragment (a suffix that starts a string, a piece of the middle)
      starts at most ``step - 1`` before one of them, and spans ``floor`` characters, so it
      holds that piece whole;
    * its first `MIN_PREFIX` after ``bearer `` in any case.
    """

    __slots__ = ("_bearer", "_heads", "_last", "_pieces", "escapes")

    def __init__(self, secrets: Iterable[str | None]) -> None:
        kept = secrets_of(*secrets)
        size = MIN_PREFIX
        pieces: list[str] = []
        for secret in kept:
            floor = min(fragment_floor(secret), len(secret))
            step = floor - size + 1
            pieces += [secret[:floor]]
            pieces += [secret[i : i + size] for i in range(step, len(secret) - size + 1, step)]
        self._pieces = tuple(dict.fromkeys(pieces))
        self._heads = tuple(dict.fromkeys(secret[:size] for secret in kept))
        # The head first, then a look back at "bearer ": a pattern that starts with a literal
        # is searched for that literal at C speed, where one that starts with a case-blind
        # "bearer " steps through the text a character at a time (25x slower on a long
        # text that holds the head, such as a chat history that names the key's first word).
        heads = "|".join(f"{re.escape(h)}(?<=(?i:bearer ){re.escape(h)})" for h in self._heads)
        self._bearer = re.compile(heads) if kept else None
        self.escapes = not any(char in secret for secret in kept for char in _KEPT_ESCAPES)
        """Whether a plain text may hold escapes: only if no secret holds a character one
        decodes to (an escape inside a key would hide it from the probes, which look at the
        text, not at what it decodes to)."""
        self._last: tuple[str, bool] | None = None
        """The text `may_change` answered last (by identity), and its answer."""

    def found(self, text: str) -> bool:
        """Whether ``text`` may hold what `mask` changes (see the class docstring)."""
        for piece in self._pieces:
            if piece in text:
                return True
        if self._bearer is None or not any(head in text for head in self._heads):
            return False
        # `mask` compares the seven characters before the prefix, lowered: so does this.
        return self._bearer.search(text) is not None or not text.isascii()

    def may_change(self, text: str) -> bool:
        """Whether a string decoded from JSON ``text`` may hold what `mask` changes: an escape
        may hide a piece of a key from the probes (unless it is one of the few a key cannot
        hold, see ``escapes``), else the probes decide (`found`). The last text asked about
        is answered again without a look (the same frame's text is asked by the decoder,
        then by the store)."""
        last = self._last
        if last is not None and last[0] is text:
            return last[1]
        if "\\" in text and not (self.escapes and _kept_escapes_only(text)):
            answer = True
        else:
            answer = self.found(text)
        self._last = (text, answer)
        return answer


#: What a control character becomes in `_SHAPES`.
_CONTROL = b"!"


def _shapes() -> bytes:
    """A `bytes.translate` table for `plain_document`: digits become ``0``, control characters
    (what `str.isprintable` refuses in ASCII) `_CONTROL`, everything else ``x``; so a run of
    `_LONG_DIGITS` in what is left is a number that may pass the clamp, and one pass over the
    text answers both questions (`str.isprintable` alone took three times as long)."""
    shapes = bytearray(b"x" * 256)
    for char in b"0123456789":
        shapes[char] = ord("0")
    for char in [*range(0x20), 0x7F]:
        shapes[char] = _CONTROL[0]
    return bytes(shapes)


_SHAPES = _shapes()
#: 19 digits in a row: an integer that may be past the clamp (`INT_MAX` has 19).
_LONG_DIGITS = b"0" * 19
#: The escapes a plain text may hold (taken out left to right, as a decoder reads them, so
#: what stays is a backslash only if another escape is there).
_KEPT_ESCAPE = re.compile(r'\\[nt"\\/]')
#: What the escapes a plain text may hold decode to: characters `clean` keeps (a reply's line
#: breaks and tabs, quotes, backslashes, slashes in code).
_KEPT_ESCAPES = '\n\t"\\/'
#: `KeyProbes` by the secrets given.
_PROBES: dict[tuple[str, ...], KeyProbes] = {}


class _NotPlain:
    """The type of `NOT_PLAIN`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_PLAIN"


#: What `plain_document` answers for a text that must take the long way.
NOT_PLAIN: Any = _NotPlain()


def probes_for(secrets: Iterable[str]) -> KeyProbes:
    """The `KeyProbes` of ``secrets``, made once: the decoder and the store ask them of the
    same frame's text, and the probes remember the last answer (`KeyProbes.may_change`)."""
    secrets = secrets if isinstance(secrets, tuple) else tuple(secrets)
    probes = _PROBES.get(secrets)
    if probes is None:
        probes = KeyProbes(secrets)
        if len(_PROBES) < 64:  # (one key, a few at most: a bound all the same)
            _PROBES[secrets] = probes
    return probes


def plain_document(text: str, secrets: Iterable[str] = ()) -> Any:
    """The document JSON ``text`` decodes to, when it is one `host_value` copies unchanged (so
    the copy can be skipped), else `NOT_PLAIN`.

    Plain is a text of printable ASCII whose escapes are only ``\\n``, ``\\t``, ``\\"``,
    ``\\\\`` and ``\\/`` (every string decoded from it is printable ASCII and line breaks,
    nothing for `clean`; none if a secret holds one of those characters), with no piece of a
    secret (`KeyProbes`: nothing to mask), no run of digits that may pass the clamp, and
    no container nested `MAX_DEPTH` deep. Nearly every event of a stream is such a text, and
    so is a reply of many lines, or a run's inputs echoing a long chat history.

    It is decoded by orjson, a strict decoder four times as fast as `json.loads` that makes
    the same values of a plain text, and refuses what would need cleaning: ``NaN``,
    ``Infinity``, a number that overflows to infinity. Any doubt answers `NOT_PLAIN`;
    `json.loads` and `host_value` then decide, as for any other text.
    """
    if not text.isascii():  # (constant time: CPython knows a string's widest character)
        return NOT_PLAIN
    if len(text) >= MAX_ITEMS:  # (a shorter text holds fewer values than that)
        return NOT_PLAIN
    shape = text.encode("ascii").translate(_SHAPES)
    if _CONTROL in shape or _LONG_DIGITS in shape:
        return NOT_PLAIN
    if probes_for(secrets).may_change(text):
        return NOT_PLAIN
    try:
        doc = orjson.loads(text)
    except orjson.JSONDecodeError:
        return NOT_PLAIN
    if text.count("{") + text.count("[") >= MAX_DEPTH and _too_deep(doc):
        return NOT_PLAIN
    return doc


def _kept_escapes_only(text: str) -> bool:
    """Whether every escape in JSON ``text`` is one of `_KEPT_ESCAPE`'s."""
    if text.count("\\") == text.count("\\n"):
        # Each backslash starts a line break (the first of an escaped backslash would be
        # followed by another, not by an n): a reply's text, the usual case, needs no copy.
        return True
    return "\\" not in _KEPT_ESCAPE.sub("", text)


def _too_deep(doc: Any) -> bool:
    """Whether a container in decoded ``doc`` is nested `MAX_DEPTH` deep (which `host_value`
    would replace): a walk of the containers alone, no strings touched."""
    stack = [(doc, 0)]
    while stack:
        value, depth = stack.pop()
        if depth >= MAX_DEPTH:
            return True
        children = value.values() if type(value) is dict else value
        for child in children:
            if type(child) is dict or type(child) is list:
                stack.append((child, depth + 1))
    return False


def host_str(value: Any) -> HostText | None:
    """A non-empty string read out of `host_value`'s copy, typed as the `HostText` it is, or
    ``None`` for anything else.

    Only for values taken from what `host_value` returned (every string in it went through
    `host_text`): the copy is typed ``Any``, and this is where its strings get their type back.
    """
    return HostText(value) if isinstance(value, str) and value else None  # cleaned by host_value


def host_piece(text: str, secrets: Iterable[str] = ()) -> HostText:
    """A piece of host text that will be joined to others (a reply's chunk): whole secrets
    masked, then `clean`; fragments at its edges are left for the join to decide
    (`openwop_tui.text.split_keys`)."""
    for secret in secrets:
        if len(secret) >= MIN_PREFIX and secret in text:
            text = text.replace(secret, MASK)
    if text.isascii() and text.isprintable():
        return HostText(text)  # printable ASCII: nothing `clean` would change
    return clean(text)


def host_text(text: str, secrets: Iterable[str] = ()) -> HostText:
    """One host string made safe: secrets masked (on the raw text), then `clean`."""
    if secrets:
        text = mask(text, secrets)
    # Printable ASCII (most ids, types, timestamps and words) has nothing to clean.
    if text.isascii() and text.isprintable():
        return HostText(text)  # printable ASCII: nothing `clean` would change
    return clean(text)


#: Cleaned keys: documents repeat the same few dozen, so each is cleaned once.
_KEYS: dict[tuple[str, tuple[str, ...]], str] = {}
_KEYS_MAX = 4096


def _host_key(key: object, secrets: tuple[str, ...]) -> str:
    text = key if isinstance(key, str) else str(key)
    cached = _KEYS.get((text, secrets))
    if cached is None:
        cached = host_text(text, secrets)
        if len(_KEYS) < _KEYS_MAX and len(text) <= 64:
            _KEYS[(text, secrets)] = cached
    return cached


def _scalar(value: Any, secrets: tuple[str, ...], max_string: int | None) -> Any:
    """A non-container value made safe; anything that is not JSON becomes a short string."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        if max_string is not None and len(value) > max_string:
            keep = max(max_string // 10, 1)
            value = f"{value[:keep]}… [{len(value) - keep:,} more characters]"
        return host_text(value, secrets)
    if isinstance(value, int):
        return max(-INT_MAX, min(INT_MAX, value))
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    # Not JSON (a hand-built value): name its type, never call its repr (it may be anything).
    return f"[{clean(type(value).__name__)} value]"


def host_value(
    value: Any,
    secrets: Iterable[str] = (),
    *,
    max_depth: int = MAX_DEPTH,
    max_items: int = MAX_ITEMS,
    max_string: int | None = None,
) -> Any:
    """A bounded, cleaned copy of decoded host JSON (see the module docstring). Never raises.

    Args:
        value: Any decoded host value.
        secrets: Values (the API key) masked wherever they occur.
        max_depth: Containers nested deeper than this become `TOO_DEEP`.
        max_items: Values copied in all before the rest of a container becomes one marker.
        max_string: Strings longer than this many characters are cut to a tenth of it plus a note;
            None keeps them whole.
    """
    try:
        return _copy(value, secrets_of(*secrets), max_depth, max_items, max_string)
    except Exception:  # MemoryError aside, nothing above can raise; this is a guarantee anyway
        return "[value could not be read]"


def _more(count: int, one: str, many: str) -> str:
    return f"[{count:,} more {one if count == 1 else many} not shown]"


def _copy(
    value: Any,
    secrets: tuple[str, ...],
    max_depth: int,
    max_items: int,
    max_string: int | None,
) -> Any:
    """The walk behind `host_value`: an explicit stack, so no depth of input exhausts recursion.

    Args:
        value: Any decoded host value.
        secrets: Values masked wherever they occur, as `secrets_of` made them.
        max_depth: Containers nested deeper than this become `TOO_DEEP`.
        max_items: Values copied in all before the rest of a container becomes one marker.
        max_string: Strings longer than this are cut; None keeps them whole.
    """
    budget = max_items

    def start(item: Any, depth: int) -> tuple[Any, Any]:
        """(the copy to store, the pending work for a container or None)."""
        kind = type(item)
        # Exact types first: json.loads makes only these, and isinstance against the Mapping
        # ABC is the slowest check on the ingest path.
        if kind is str and max_string is None:
            return host_text(item, secrets), None
        if kind is int:
            return max(-INT_MAX, min(INT_MAX, item)), None
        if kind is dict or isinstance(item, Mapping):
            if depth >= max_depth:
                return TOO_DEEP, None
            out_dict: dict[str, Any] = {}
            return out_dict, (item, out_dict, depth + 1)
        if isinstance(item, list | tuple):
            if depth >= max_depth:
                return TOO_DEEP, None
            out_list: list[Any] = []
            return out_list, (item, out_list, depth + 1)
        return _scalar(item, secrets, max_string), None

    root, work = start(value, 0)
    stack = [work] if work is not None else []
    while stack:
        source, target, depth = stack.pop()
        if isinstance(target, dict):
            for key, item in source.items():
                if budget <= 0:
                    target["…"] = _more(len(source) - len(target), "entry", "entries")
                    break
                budget -= 1
                name = _host_key(key, secrets)
                copied, pending = start(item, depth)
                target[name] = copied
                if pending is not None:
                    stack.append(pending)
        else:
            for item in source:
                if budget <= 0:
                    target.append(_more(len(source) - len(target), "item", "items"))
                    break
                budget -= 1
                copied, pending = start(item, depth)
                target.append(copied)
                if pending is not None:
                    stack.append(pending)
    return root
