"""Inline previews of text-like files for the ``file`` renderer: bounded, highlighted, cleaned.

`preview` looks at a file's media type and name to decide whether it is text (JSON, CSV, TSV,
Markdown, YAML, TOML, XML, logs, plain text, source code Pygments knows by name or media type),
then at the bytes: a NUL byte, or more invalid UTF-8 or control characters than a text file
has, and the file is binary and is never shown as text, whatever the host called it.

What is shown is bounded twice, by bytes read (`PREVIEW_BYTES`) and by lines drawn
(`PREVIEW_LINES`), and long lines are cut, so a many-megabyte file costs what its first screen
costs; a note says how much is shown ("first 40 of 1,234 lines") and how to get the rest. JSON
is pretty-printed when it parses (and is small enough to parse), CSV and TSV are tables. Every
string goes through `openwop_tui.text.sanitize.clean` before it reaches Rich: host bytes can carry
escape sequences.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING

from rich import box
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from openwop_tui.draw.palette import Palette
from openwop_tui.text.sanitize import clean
from openwop_tui.text.units import human_size

if TYPE_CHECKING:
    # Pygments and Rich's syntax module are imported where a file is first previewed: the
    # registry imports this module as it loads, before the app's first frame, which shows none.
    from pygments.lexer import Lexer  # type: ignore[import-untyped]

PREVIEW_LINES = 40
"""Lines of text drawn at most."""
PREVIEW_BYTES = 32_768
"""Bytes read for a preview at most (a whole screen of text is far less)."""
LINE_CHARS = 400
"""Characters of one line drawn at most (a minified file is one long line)."""
TABLE_ROWS = 20
TABLE_COLUMNS = 10
CELL_CHARS = 60
JSON_PARSE_BYTES = 1_000_000
"""JSON larger than this is not parsed to be pretty-printed: its first lines are shown as is."""
INVALID_TOLERANCE = 0.02
"""The share of invalid UTF-8 sequences text may have (a Latin-1 file has a few) before it is
taken for binary."""
CONTROL_TOLERANCE = 0.10
"""The share of control characters (other than tab, line ends, form feed and ESC) text may
have."""

#: Kinds known by extension: the kind and the Pygments lexer name.
_BY_EXTENSION: dict[str, str] = {
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".text": "text",
    ".log": "log",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".xml": "xml",
    ".ini": "ini",
    ".cfg": "ini",
    ".conf": "ini",
}

#: Kinds known by media type (without parameters).
_BY_MEDIA_TYPE: dict[str, str] = {
    "application/json": "json",
    "text/json": "json",
    "application/jsonl": "jsonl",
    "application/x-ndjson": "jsonl",
    "text/csv": "csv",
    "application/csv": "csv",
    "text/tab-separated-values": "tsv",
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
    "text/plain": "text",
    "application/yaml": "yaml",
    "application/x-yaml": "yaml",
    "text/yaml": "yaml",
    "text/x-yaml": "yaml",
    "application/toml": "toml",
    "text/toml": "toml",
    "application/xml": "xml",
    "text/xml": "xml",
}

#: The Pygments lexer for each kind that is not source code.
_LEXERS = {
    "json": "json",
    "jsonl": "json",
    "markdown": "markdown",
    "yaml": "yaml",
    "toml": "toml",
    "xml": "xml",
    "ini": "ini",
    "text": "text",
    "log": "text",
}
_SPECIFIC = frozenset(_BY_MEDIA_TYPE.values()) - {"text"}


@dataclass(frozen=True, slots=True)
class Preview:
    """A drawn preview, or the reason there is none (``body`` is then ``None``)."""

    kind: str
    """What it was previewed as: ``csv``, ``json``, ``python`` …"""
    body: RenderableType | None = None
    note: str | None = None
    """How much is shown, when not everything is ("first 40 of 1,234 lines")."""
    refused: str | None = None
    """Why a file that claims to be text is not shown as text (it is binary)."""


def _base(media_type: str | None) -> str:
    return (media_type or "").split(";", 1)[0].strip().lower()


def text_kind(media_type: str | None, filename: str | None) -> tuple[str, Lexer | str] | None:
    """What a file is previewed as and with which lexer, or ``None`` for a file that is not
    text-like (an image, a PDF, an archive …).

    A specific media type (JSON, CSV …) wins; then the extension; then source code Pygments
    knows by name; then a media type Pygments knows (``text/x-python``); then any ``text/*``.
    """
    base = _base(media_type)
    by_type = _BY_MEDIA_TYPE.get(base)
    if by_type is None and base.endswith("+json"):
        by_type = "json"
    elif by_type is None and base.endswith("+xml"):
        by_type = "xml"
    if by_type in _SPECIFIC:
        return by_type, _LEXERS.get(by_type, "text")
    suffix = PurePath(filename or "").suffix.lower()
    by_name = _BY_EXTENSION.get(suffix)
    if by_name is not None:
        return by_name, _LEXERS.get(by_name, "text")
    code = _source_lexer(base, filename)
    if code is not None:
        return code.aliases[0] if code.aliases else code.name.lower(), code
    if by_type is not None or base.startswith("text/"):
        return "text", "text"
    return None


def _source_lexer(media_type: str, filename: str | None) -> Lexer | None:
    # Pygments ships no type information (types-Pygments is not a dependency).
    from pygments.lexers import (  # type: ignore[import-untyped]
        get_lexer_for_filename,
        get_lexer_for_mimetype,
    )
    from pygments.lexers.special import TextLexer  # type: ignore[import-untyped]
    from pygments.util import ClassNotFound  # type: ignore[import-untyped]

    for finder, key in ((get_lexer_for_filename, filename), (get_lexer_for_mimetype, media_type)):
        if not key:
            continue
        try:
            found = finder(key)
        except ClassNotFound:
            continue
        if not isinstance(found, TextLexer):
            return found
    return None


def binary_reason(head: bytes, text: str) -> str | None:
    """Why ``head`` (decoded as ``text``) is binary, or ``None`` when it reads as text."""
    # UTF-16 and UTF-32 text is full of NUL bytes: there the decoded text must have none.
    wide = encoding_of(head)[0] != "utf-8"
    if "\x00" in text if wide else b"\x00" in head:
        return "the content is binary (it has NUL bytes)"
    if not text:
        return None
    invalid = text.count("\ufffd")
    if invalid > max(1, len(text) * INVALID_TOLERANCE):
        return f"the content is binary ({invalid:,} invalid UTF-8 sequences)"
    controls = sum(1 for char in text if ord(char) < 32 and char not in "\t\n\r\f\x1b")
    if controls > max(1, len(text) * CONTROL_TOLERANCE):
        return f"the content is binary ({controls:,} control characters)"
    return None


#: Byte-order marks and the codec each names (UTF-32 before UTF-16: its LE mark starts alike).
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def encoding_of(data: bytes) -> tuple[str, int]:
    """The codec ``data`` is in and the length of its byte-order mark: a UTF-16 or UTF-32 file
    (Windows tools write them) is text with NUL bytes, not binary; no mark reads as UTF-8."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return codec, len(bom)
    return "utf-8", 0


def _decode(data: bytes) -> tuple[str, bool]:
    """The first `PREVIEW_BYTES` as text and whether that is all of it. A multi-byte character
    cut by the bound is left out rather than shown as invalid."""
    codec, skip = encoding_of(data)
    head = data[skip:PREVIEW_BYTES]
    whole = len(data) <= PREVIEW_BYTES
    text = codecs.getincrementaldecoder(codec)("replace").decode(head, final=whole)
    return text.removeprefix("\ufeff"), whole


def _line_count(data: bytes) -> int:
    codec, _ = encoding_of(data)
    if codec != "utf-8":  # a newline is more than one byte: count in the decoded text
        text = data.decode(codec, "replace").removeprefix("\ufeff")
        return text.count("\n") + (0 if not text or text.endswith("\n") else 1)
    return data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)


def _cut(line: str, limit: int) -> tuple[str, bool]:
    return (line, False) if len(line) <= limit else (f"{line[:limit]}…", True)


def _plural(count: int, noun: str, about: bool = False) -> str:
    shown = f"about {count:,}" if about else f"{count:,}"
    return f"{shown} {noun}" if count == 1 else f"{shown} {noun}s"


def preview(
    data: bytes,
    media_type: str | None,
    filename: str | None,
    palette: Palette,
    save_hint: str,
) -> Preview | None:
    """A preview of ``data``, or None for a file that is not text-like.

    Args:
        data: The file's bytes.
        media_type: Its declared media type; None when unknown.
        filename: Its name, whose extension may say the kind; None when unknown.
        palette: The theme's colours (the syntax theme, the table).
        save_hint: How to get the whole file, ending the note of a cut preview.
    """
    found = text_kind(media_type, filename)
    if found is None:
        return None
    kind, lexer = found
    text, whole = _decode(data)
    refused = binary_reason(data[:PREVIEW_BYTES], text)
    if refused is not None:
        return Preview(kind, refused=refused)
    if kind in ("csv", "tsv"):
        table = _table(text, whole, data, "\t" if kind == "tsv" else ",", palette, save_hint)
        if isinstance(table, Preview):
            return table
        kind, lexer = f"{kind} ({table}: shown as text)", "text"
    total = _line_count(data)
    if kind == "json" and len(data) <= JSON_PARSE_BYTES:
        pretty, why = _pretty_json(data)
        if pretty is None:
            kind, lexer = f"json ({why}: shown as text)", "text"
        else:
            text, whole = pretty, True
    return _lines(kind, lexer, text, whole, total, len(data), palette, save_hint)


def _unclosed_quote(text: str, delimiter: str, whole: bool, rows: list[list[str]]) -> bool:
    """Whether a quote opens and never closes (the rest of the file is one field).

    Strict parsing runs out of data inside a quote; in a whole file that is it, in one cut by the
    byte bound only when that last field holds most of what was read (a cut may also fall inside an
    ordinary quoted field).

    Args:
        text: The text read.
        delimiter: The field delimiter.
        whole: True when ``text`` is the whole file.
        rows: The rows a lenient parse found.
    """
    try:
        for _ in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True):
            pass
    except csv.Error as error:
        if "end of data" not in str(error):
            return False
        return whole or (bool(rows) and sum(map(len, rows[-1])) > len(text) // 2)
    return False


def _pretty_json(data: bytes) -> tuple[str | None, str]:
    """The document pretty-printed, or ``None`` and why not: it does not parse, or it parses
    but nests deeper than the parser goes (valid JSON must not be called broken)."""
    try:
        codec, skip = encoding_of(data)
        parsed = json.loads(data[skip:].decode(codec))
        return json.dumps(parsed, indent=2, ensure_ascii=False), ""
    except RecursionError:
        return None, "nested too deeply to lay out"
    except ValueError:  # UnicodeDecodeError is a ValueError
        return None, "does not parse"


def _lines(
    kind: str,
    lexer: Lexer | str,
    text: str,
    whole: bool,
    total: int,
    size: int,
    palette: Palette,
    save_hint: str,
) -> Preview:
    """The first lines as highlighted text, with a note of what was left out.

    Args:
        kind: The file's kind, the preview's label (``json``, ``csv (…: shown as text)``…).
        lexer: The Pygments lexer, or its name.
        text: The text read.
        whole: True when ``text`` is the whole file.
        total: The file's line count as counted from its newlines.
        size: The file's size in bytes.
        palette: The theme's colours (the syntax theme).
        save_hint: How to get the whole file, ending the note.
    """
    lines = text.splitlines()
    if not whole and lines and not text.endswith("\n"):
        lines = lines[:-1] or lines  # the last line read is cut by the byte bound
    shown_lines = lines[:PREVIEW_LINES]
    cut_lines = [_cut(line, LINE_CHARS) for line in shown_lines]
    long_cut = any(was_cut for _, was_cut in cut_lines)
    from rich.syntax import Syntax

    body = Syntax(
        clean("\n".join(line for line, _ in cut_lines)),
        lexer,
        theme=palette.syntax_theme(),
        line_numbers=True,
        word_wrap=True,
    )
    note = None
    # Whole, the decoded lines are the count (a file may end lines with CR alone, or with the
    # other breaks `splitlines` knows); cut, the newlines of the whole file are the best guess.
    total = len(lines) if whole else max(total, len(lines))
    if len(shown_lines) < total:
        note = f"first {len(shown_lines):,} of {_plural(total, 'line')}"
    elif not whole:
        note = f"first {human_size(PREVIEW_BYTES)} of {human_size(size)}"
    if long_cut:
        note = f"{note}, long lines cut" if note else "long lines cut"
    if note:
        note = f"{note} — the whole file: {save_hint}"
    return Preview(kind, body=body, note=note)


def _table(
    text: str, whole: bool, data: bytes, delimiter: str, palette: Palette, save_hint: str
) -> Preview | str:
    """The first rows as a table, or why the text is not one (it is then shown as text).

    Args:
        text: The text read.
        whole: True when ``text`` is the whole file.
        data: The file's bytes, whose newlines count its rows when it is cut.
        delimiter: ``,`` for CSV, a tab for TSV.
        palette: The theme's colours.
        save_hint: How to get the whole file, ending the note.
    """
    kind = "tsv" if delimiter == "\t" else "csv"
    rows: list[list[str]] = []
    try:
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
        rows = [row for row in reader if row]
    except csv.Error:
        return "does not parse"
    if _unclosed_quote(text, delimiter, whole, rows):
        return "a quote is never closed"  # the rest is one field: a table would show nothing
    # The last row read may be cut by the byte bound; a lone row that is cut still has its
    # first columns, but its width is only a lower bound.
    partial = not whole and len(rows) == 1
    if not whole and len(rows) > 1:
        rows = rows[:-1]
    if not rows:
        return "no rows"
    header, body_rows = rows[0], rows[1:]
    width = max(len(row) for row in rows[: TABLE_ROWS + 1])
    columns = min(width, TABLE_COLUMNS)
    table = Table(box=box.SIMPLE_HEAD, border_style=palette.border, show_edge=False)
    for index in range(columns):
        name = header[index] if index < len(header) else ""
        table.add_column(Text(clean(_cut(name, CELL_CHARS)[0]), style="bold"), overflow="fold")
    for row in body_rows[:TABLE_ROWS]:
        cells = [clean(_cut(cell, CELL_CHARS)[0]) for cell in row[:columns]]
        table.add_row(*(Text(cell) for cell in cells))
    total_rows = len(body_rows) if whole else max(0, _line_count(data) - 1)
    parts = []
    if partial and total_rows:
        parts.append(
            f"no rows shown: the first row alone is longer than the {human_size(PREVIEW_BYTES)}"
            " read for a preview"
        )
    elif min(len(body_rows), TABLE_ROWS) < total_rows:
        shown = min(len(body_rows), TABLE_ROWS)
        parts.append(f"first {shown:,} of {_plural(total_rows, 'row', about=not whole)}")
    if width > columns:
        more = f"{width - columns:,} more columns"
        parts.append(f"at least {more} not shown" if partial else f"{more} not shown")
    note = f"{', '.join(parts)} — the whole file: {save_hint}" if parts else None
    return Preview(kind, body=table, note=note)
