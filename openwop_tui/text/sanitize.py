"""Make host text safe to print on a terminal.

Whatever a host sends (payloads, titles, alt text, file names, URLs, error messages) is printed
by a terminal, and a terminal *executes* some characters: ESC starts CSI/OSC/DCS/APC sequences
(an OSC 52 sequence writes the clipboard, others retitle the window or move the cursor), the C1
controls U+0080 to U+009F are 8-bit forms of the same introducers, BEL rings, CR and backspace
overwrite what is already on the line. Bidirectional overrides and isolates reorder what the user
reads (the "Trojan Source" trick), so a file name can show one extension and be another.

`clean` replaces every such character with a visible form in one regex pass:

* C0 controls (except ``\\n`` and ``\\t``) become their Unicode control pictures: ESC shows as
  ``␛``, BEL as ``␇``, CR as ``␍``; DEL shows as ``␡``;
* C1 controls, bidi controls and lone surrogates (which cannot be encoded for the terminal)
  show as ``<U+009B>``, ``<U+202E>``…;
* ``\\r\\n`` becomes ``\\n``: Windows line ends are harmless and common, and showing ``␍`` on
  every line would bury the characters that matter.

`clean_label` is stricter, for names and titles (a media name, an envelope title or alt text):
on top of `clean` it makes *invisible* characters visible, since in a name they hide what the
name really is (``invoice\u200b.pdf`` is not ``invoice.pdf``): zero-width space, joiners and
non-joiner (U+200B-U+200D), word joiner and invisible operators (U+2060-U+2064), BOM/ZWNBSP
(U+FEFF), Mongolian vowel separator (U+180E), soft hyphen (U+00AD), combining grapheme joiner
(U+034F), Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), tag characters (U+E0000-U+E007F) and
the variation selectors except U+FE0E/U+FE0F. Those two stay: they pick text or emoji style
(``❤️`` is U+2764 U+FE0F) and hide nothing; the others have no use in a name and can smuggle
hidden data after a visible character. Bidi marks and isolates are already made visible by
`clean`. A label is also one line: a line feed shows as ``␊``, a tab as ``␉``, and the line and
paragraph separators as ``<U+2028>``/``<U+2029>`` (CR, VT, FF, NEL and the C0 separators are
already visible through `clean`), so a host's file name cannot end an item's header and start
a line of its own that looks like the transcript's.

Trust is decided once. `clean` is the boundary's function: it is called where host text enters
(`openwop_tui.protocol.hostdata`, the frame decoder, the HTTP errors, media and catalog readers in
`openwop_tui.protocol`, and `openwop_tui.text.markdown` after parsing, since character references
decode to controls), and it returns `HostText`, a distinct type mypy checks
(`openwop_tui.protocol.hostdata.host_text` returns it too). A function that must only ever
receive cleaned text takes `HostText`, so a raw ``str`` from a host reaching it is a type error,
and a value that is already `HostText` needs no cleaning again. Slicing or joining
`HostText` values keeps them safe (every character `clean` rewrites is a single code point,
and ``\\r`` never survives it), though mypy types the result ``str``.

The convention for every other call: text the client makes itself or the user types (a notice
built with an f-string around host values, an exception's message, a file name, the user's own
message, a configured URL) is cleaned with `clean_own`, which does the same work and says by its
name that this is not host text arriving. Outside the boundary modules (``protocol/``, ``text/``)
`clean` is called only at a second boundary, each with a comment saying why: text read back
from the store or a file, bytes decoded for an export, and what a renderer (perhaps a plugin's)
writes. The cast ``HostText(...)`` is written only where a value is provably made of cleaned
text, with a comment saying why (`clip` keeps the type through a cut);
``tests/hostile/test_boundary_walk.py`` checks the casts' claim over a hostile corpus, and
``tests/text/test_host_text_types.py`` that mypy rejects a raw ``str`` passed to a sink.

`safe_filename` makes a name safe to save a file under (it drops the same invisible
characters); `openwop_tui.draw.safe_text` wraps cleaned text in a Rich `Text`. Every function
here is
pure, and this module imports nothing but the standard library: the protocol core uses it, and
never imports Rich (the import contracts in pyproject.toml).
"""

from __future__ import annotations

import re
from typing import NewType

__all__ = [
    "NO_TEXT",
    "HostLine",
    "HostText",
    "clean",
    "clean_label",
    "clean_own",
    "clip",
    "one_line",
    "safe_filename",
]

HostText = NewType("HostText", str)
"""Text made safe to print by `clean` (or `clean_label`, `clean_own`): no terminal control, C1,
bidi control or lone surrogate. Made at the trust boundary; what takes it must not get raw text."""

HostLine = NewType("HostLine", HostText)
"""`HostText` that is also one line (`one_line`): no line feed, tab or line/paragraph separator,
so it cannot end the client's line and start one of its own that looks like the client's. What
the client draws as a line (a notice, a tool call, a table row's cell) takes this type."""

#: The empty `HostText` (one line, so a `HostLine` too), for fields that default to no text.
NO_TEXT = HostLine(HostText(""))

_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"

#: Characters that draw nothing; `clean_label` shows them, `safe_filename` drops them.
_INVISIBLE = (
    "\u00ad\u034f\u115f\u1160\u180e\u200b-\u200d\u2060-\u2064\u3164"
    "\ufe00-\ufe0d\ufeff\uffa0\U000e0000-\U000e007f\U000e0100-\U000e01ef"
)
_INVISIBLE_RE = re.compile(f"[{_INVISIBLE}\n\t\u2028\u2029]")
#: What the line breakers `clean` keeps look like in a label (the forms `excerpt` uses too).
_ONE_LINE = {"\n": "\u240a", "\t": "\u2409"}

#: Everything `clean` rewrites. ``\r\n`` comes first so it wins over a lone ``\r``.
_UNSAFE = re.compile(f"\r\n|[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}\ud800-\udfff]")


def _visible(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block mirrors C0 in order
    if code == 0x7F:
        return "\u2421"
    return f"<U+{code:04X}>"


#: The ASCII characters `clean` keeps as they are: printable ones, tab and line feed.
_ASCII_SAFE = bytes(range(0x20, 0x7F)) + b"\t\n"

#: Precomputed replacements for the single characters, so the hot path is one dict lookup.
_REPLACE: dict[str, str] = {
    chr(c): _visible(chr(c)) for c in [*range(0x20), *range(0x7F, 0xA0)] if c not in (9, 10)
}
_REPLACE["\r\n"] = "\n"


def _substitute(match: re.Match[str]) -> str:
    found = match.group()
    return _REPLACE.get(found) or _visible(found)


def clean(text: str) -> HostText:
    """Return ``text`` with every terminal-active or reordering character made visible.

    The boundary's function (see the module docstring): for host text where it enters. Text
    without any such character is returned unchanged (the same object).
    """
    # ASCII text (most of what hosts send) is checked by deleting every safe byte: a C-speed
    # pass, where the pattern's search costs about 40 ns a character (a 540 KB paragraph
    # cleaned again at each parse of it: 20 ms). Whatever is left is unsafe.
    if text.isascii() and not text.encode("ascii").translate(None, _ASCII_SAFE):
        return HostText(text)
    return HostText(_UNSAFE.sub(_substitute, text))


def clean_own(text: str) -> HostText:
    """`clean` for text the client itself makes or the user types, not host text arriving.

    An f-string notice around (already clean) host values, an exception's message, a file name,
    the user's own message: the name says why this text is cleaned here and not at the boundary.
    """
    return clean(text)


def clip(text: HostText, size: int) -> HostText:
    """The first ``size`` characters of cleaned text, still `HostText`: every character `clean`
    rewrites becomes whole code points, and ``\\r`` never survives it, so a cut cannot leave
    anything active."""
    return HostText(text[:size])


def clean_label(text: str) -> HostText:
    """`clean`, invisible characters shown as ``<U+200B>`` and line breaks as ``␊``: for names
    and titles, which stay on one line.

    Idempotent, like `clean`: the markers it writes are plain ASCII or control pictures.
    """
    return HostText(_INVISIBLE_RE.sub(_label_char, clean(text)))


#: The characters `clean` keeps that break or shift a line: what `one_line` marks.
_LINE_BREAKS = re.compile("[\n\t\u2028\u2029]")


def one_line(text: HostText) -> HostLine:
    """Cleaned text made one line: a line feed shows as ``␊``, a tab as ``␉`` and the line and
    paragraph separators as ``<U+2028>``/``<U+2029>`` (the marks `clean_label` writes), so a host
    value inside a line the client draws (``✖ node n1 failed · …``, a row of ``runs``) cannot end
    it and forge the next. Everything else `clean` made visible already; idempotent."""
    if "\n" not in text and "\t" not in text and "\u2028" not in text and "\u2029" not in text:
        return HostLine(text)  # the common case: nothing to mark, no regex pass
    return HostLine(HostText(_LINE_BREAKS.sub(_label_char, text)))


def _label_char(match: re.Match[str]) -> str:
    found = match.group()
    return _ONE_LINE.get(found) or _visible(found)


#: Characters never kept in a saved file name: path separators, characters Windows refuses,
#: and everything `clean` would rewrite.
_FILENAME_UNSAFE = re.compile(
    f'[/\\\\:*?"<>|\x00-\x1f\x7f-\x9f\u2028\u2029{_BIDI}{_INVISIBLE}\ud800-\udfff]'
)
_MAX_FILENAME_BYTES = 200  # below the 255-byte limit of common file systems, with room to spare
_MAX_SUFFIX = 16


def safe_filename(name: str | None, fallback: str) -> str:
    """A file name derived from a host-supplied ``name``, safe to create in a directory.

    Path separators, controls, bidi and invisible characters become ``_``; leading dots (hidden
    files, ``..``) and surrounding spaces are stripped; the result is capped at 200 UTF-8 bytes,
    keeping the extension. An empty result uses ``fallback`` (itself made safe), then
    ``"download"``.
    """
    for candidate in (name, fallback, "download"):
        if not candidate:
            continue
        safe = _FILENAME_UNSAFE.sub("_", candidate).strip().lstrip(".").strip().rstrip(". ")
        if safe:
            return _cap(safe)
    return "download"  # unreachable: "download" is safe; kept for the type checker


def _cap(name: str) -> str:
    if len(name.encode()) <= _MAX_FILENAME_BYTES:
        return name
    stem, dot, suffix = name.rpartition(".")
    if not dot or not stem or len(suffix) > _MAX_SUFFIX:
        stem, suffix = name, ""
    else:
        suffix = "." + suffix
    budget = _MAX_FILENAME_BYTES - len(suffix.encode())
    # Cut on a character boundary: decode what fits and drop a partial trailing character.
    stem = stem.encode()[:budget].decode(errors="ignore").rstrip(". ")
    return (stem or "download") + suffix
