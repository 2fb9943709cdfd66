"""OpenClaw's rich-output directives in assistant text: recognised, checked, stripped.

Agents bridged from OpenClaw into an OpenWOP host put a small set of directives in their reply
text (OpenClaw's "rich output protocol"); printed raw they are noise, and a ``MEDIA:`` line names
a file to attach. What counts follows OpenClaw's own parser:

* ``MEDIA: <url-or-path>`` (upper case) at the start of a line (leading spaces allowed), not
  in a fenced or indented code block. The rest of the line is split on white space, each part
  a candidate (quotes, backticks and brackets around it dropped); a payload quoted as a whole is one
  candidate that may hold spaces, and so is an unquoted local path with spaces in it. Parts
  that are neither a URL nor a path stay in the text.
* ``[[audio_as_voice]]`` anywhere: the turn's audio is a voice note.
* ``[[reply_to_current]]`` and ``[[reply_to:<id>]]`` at the start of a line or after white
  space: the reply relation (the last explicit id wins).
* ``[embed ref="…" title="…" /]`` and ``[embed url="…" height=… /]``: a self-closing embed with
  a ``ref`` or a ``url``. The block form (``[embed …]<html>…[/embed]``) and the retired
  ``[view …]`` are text, never run, and say so (`Inert`).
* With ``markdown_images`` only: ``![alt](https://…)`` becomes a media reference too.

Directives inside inline code (between backticks) are left alone too.

A recognised media reference is checked at once (`check_media`): remote ones must be public
``https:`` URLs; ``http:``, IP literals that are loopback, private, link-local, CGNAT, multicast,
reserved or unspecified (IPv4-mapped, NAT64 and 6to4 forms too), internal names (``localhost``,
``*.local``, ``*.internal``, ``*.lan``, ``*.home.arpa``, single labels) and other schemes are
refused with the reason; a local path is never read from this machine's disk (the host named it;
the path means nothing here). An accepted URL is then fetched by the ordinary media path, which
resolves the name once and connects to the checked address.

Streaming (`DirectiveStream`): text arrives in chunks; `DirectiveStream.feed` returns the part
that is safe to show now, holding back only what may still become a directive (a line starting
``MEDIA:``, an unclosed ``[[`` or ``[embed``), so no directive flashes as raw text. The cost of a
chunk is its length plus at most one held directive (bounded below), never the whole text.
`parse` is the same machine fed once, so a streamed reply ends exactly as the whole one.

Everything is bounded: a line, a tag, an embed past its size is plain text, and a reply holds at
most `MAX_RECORDS` directives (past that they stay text, and `Parsed.overflow` says so). Fields
are cleaned for the terminal. Pure: no I/O, no Rich, no Textual.
"""

from __future__ import annotations

import ipaddress
import mimetypes
import posixpath
import re
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import unquote, urlsplit

from openwop_tui.protocol.media import MediaPolicy, RefusedURL, resolve_media_url
from openwop_tui.sanitize import clean, clean_label

__all__ = [
    "MAX_RECORDS",
    "DirectiveStream",
    "Embed",
    "Inert",
    "MediaCheck",
    "MediaDirective",
    "Parsed",
    "Record",
    "Reply",
    "check_media",
    "media_family",
    "parse",
]

#: Directives kept per reply; past this they are left as text.
MAX_RECORDS = 64
#: A ``MEDIA:`` line longer than this is text (OpenClaw caps a candidate at 4096 characters).
MAX_MEDIA_LINE = 8192
#: A ``[[…]]`` tag longer than this is text.
MAX_TAG = 256
#: A ``[embed …]`` / ``[view …]`` shortcode longer than this is text.
MAX_SHORTCODE = 4096
#: A ``![alt](url)`` longer than this is text.
MAX_MARKDOWN_IMAGE = 4096
#: A media candidate longer than this is not one.
MAX_CANDIDATE = 4096
#: The longest title and ref kept (cut with an ellipsis).
MAX_FIELD = 200
#: The tallest preferred height believed (pixels).
MAX_HEIGHT = 10_000

Family = Literal["image", "audio", "file"]
Origin = Literal["MEDIA", "markdown", "field"]

# A policy whose configured host is nothing real: no directive URL gets the host's exemptions
# (plain http:, loopback for a local dev host) through `resolve_media_url`.
_NO_HOST = MediaPolicy(base_url="https://directive.invalid")

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_WINDOWS_DRIVE = re.compile(r"[A-Za-z]:[\\/]")
_FILE_EXT = re.compile(r"\.\w{1,10}$")
_AUDIO_TAG = re.compile(r"\s*audio_as_voice\s*", re.IGNORECASE)
_REPLY_CURRENT = re.compile(r"\s*reply_to_current\s*", re.IGNORECASE)
_REPLY_ID = re.compile(r"\s*reply_to\s*:\s*([^\]\n]+?)\s*", re.IGNORECASE)
_ATTR = re.compile(
    r"""\s*([A-Za-z][\w-]*)\s*=\s*(?:"([^"\n]*)"|'([^'\n]*)'|((?:[^\s"'\]/]|/(?!\]))+))"""
)
#: An attribute cut off by the end of a chunk (``ref="cv_1``): the shortcode may still complete.
_PARTIAL_ATTR = re.compile(r"""[\w-]*\s*(?:=\s*(?:"[^"\n]*|'[^'\n]*|[^\s"'\]]*)?)?""")
_INTERNAL_SUFFIXES = (".localhost", ".local", ".internal", ".lan", ".home.arpa", ".localdomain")
_INTERNAL_NAMES = frozenset({"localhost", "localhost.localdomain", "home.arpa"})
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_SIXTOFOUR = ipaddress.ip_network("2002::/16")

_IMAGE_EXTS = frozenset({"png", "jpg", "jpeg", "gif", "webp", "bmp", "svg", "avif", "heic", "ico"})
_AUDIO_EXTS = frozenset({"mp3", "wav", "ogg", "oga", "opus", "m4a", "aac", "flac", "weba", "mpga"})


# ------------------------------------------------------------------ records


@dataclass(frozen=True, slots=True)
class MediaCheck:
    """What the policy says of one media reference: the URL to fetch, or why not."""

    url: str | None
    """The absolute ``https:`` URL to fetch (``None`` when refused)."""
    refused: str | None
    """Why it is not fetched, a sentence (``None`` when accepted)."""
    reference: str | None
    """The URL to show the user when the reference is a URL (never a local path)."""


@dataclass(frozen=True, slots=True)
class MediaDirective:
    """A media reference: a ``MEDIA:`` part, a markdown image, or a structured field."""

    source: str
    """The reference as written (cleaned, cut to `MAX_FIELD`): what the user is told of."""
    line: int
    """The 1-based line of the reply it was on (0 for a structured field)."""
    origin: Origin
    family: Family
    mime_type: str | None
    name: str | None
    """The file name the reference ends in (cleaned), if any."""
    check: MediaCheck
    alt: str | None = None
    """A markdown image's alt text."""

    @property
    def key(self) -> str:
        """What makes two references the same (the URL fetched, else the reference itself)."""
        return self.check.url or self.check.reference or self.source


@dataclass(frozen=True, slots=True)
class Reply:
    """The reply relation: to the message being answered, or to the message ``target``."""

    target: str | None = None
    """An explicit message id (cleaned); ``None`` with ``current``."""
    current: bool = False

    @property
    def line(self) -> str:
        """The small line shown for it."""
        if self.target is not None:
            return f"↳ reply to {self.target}"
        return "↳ reply to the current message"


@dataclass(frozen=True, slots=True)
class Embed:
    """A self-closing ``[embed …/]``: a web canvas the terminal describes and can open."""

    ref: str | None
    url: str | None
    title: str | None
    height: int | None
    line: int


@dataclass(frozen=True, slots=True)
class Inert:
    """Active content left as text: a block-form HTML embed or the retired ``[view …]``."""

    form: Literal["html-embed", "view"]
    text: str
    """The opening shortcode (cleaned, cut)."""
    line: int

    @property
    def reason(self) -> str:
        """Why it is text."""
        if self.form == "view":
            return "the retired [view …] form is shown as text, not run"
        return "a block-form HTML embed is shown as text: a terminal does not run HTML"


Record = MediaDirective | Embed | Inert


@dataclass(slots=True)
class Parsed:
    """A whole reply read at once (`parse`), or what a stream found so far."""

    text: str = ""
    """The visible text, directives stripped."""
    records: list[Record] = field(default_factory=list)
    audio_as_voice: bool = False
    reply: Reply | None = None
    overflow: bool = False
    """More than `MAX_RECORDS` directives: the later ones stayed text."""

    @property
    def media(self) -> list[MediaDirective]:
        """The media references, in order."""
        return [r for r in self.records if isinstance(r, MediaDirective)]


# ---------------------------------------------------------------- the policy


def _cut(text: str, limit: int = MAX_FIELD) -> str:
    text = clean(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _address_kind(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Name the kind of a non-public address, looking inside IPv6 forms that carry an IPv4."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped
        if embedded is None and address in _NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is None and address in _SIXTOFOUR:
            embedded = address.sixtofour
        if embedded is not None:
            return _address_kind(embedded)
    if isinstance(address, ipaddress.IPv4Address) and address in _CGNAT:
        return "shared (CGNAT)"
    checks = (
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("unspecified", address.is_unspecified),
        ("multicast", address.is_multicast),
        ("reserved", address.is_reserved),
        ("private", address.is_private),
        ("non-public", not address.is_global),
    )
    return next((kind for kind, hit in checks if hit), None)


def _looks_local(candidate: str) -> bool:
    """A path on some machine's disk: absolute, relative, home, Windows, UNC, ``file:``."""
    if candidate.lower().startswith("file:"):
        return True
    return (
        candidate.startswith(("/", "./", "../", "~", "\\\\"))
        or _WINDOWS_DRIVE.match(candidate) is not None
        or (_SCHEME.match(candidate) is None and ("/" in candidate or "\\" in candidate))
    )


def _is_candidate(candidate: str, *, bare: bool = False) -> bool:
    """Whether a part of a ``MEDIA:`` line is a reference at all (else it stays text); a bare
    file name (``x.png``, a local path too) only with ``bare``, as OpenClaw's last resort."""
    if not candidate or len(candidate) > MAX_CANDIDATE:
        return False
    if _looks_local(candidate):
        return True
    scheme = _SCHEME.match(candidate)
    if scheme is not None:
        return len(candidate) > scheme.end()
    return bare and _FILE_EXT.search(candidate) is not None


def check_media(candidate: str) -> MediaCheck:
    """Apply the directive media policy to one reference (pure: no DNS)."""
    shown = _cut(candidate, 120)
    if _looks_local(candidate) or _SCHEME.match(candidate) is None:
        return MediaCheck(
            None,
            f"refused: {shown} is a local path; a path the host names is never read from "
            "this machine's disk",
            None,
        )
    if any(not ch.isprintable() or ch.isspace() for ch in candidate):
        return MediaCheck(None, "refused: the URL contains spaces or control characters", None)
    scheme = candidate.split(":", 1)[0].lower()
    if scheme == "http":
        return MediaCheck(
            None,
            "refused: plain http: is not fetched for a MEDIA: reference; it must be https:",
            _cut(candidate, 2048),
        )
    if scheme != "https":
        reference = None if scheme in ("data", "javascript", "blob") else _cut(candidate, 2048)
        return MediaCheck(
            None, f"refused: {clean(scheme)[:20]}: references are never fetched", reference
        )
    reference = _cut(candidate, 2048)
    try:
        host = (urlsplit(candidate).hostname or "").rstrip(".")
    except ValueError:
        return MediaCheck(None, "refused: the URL is malformed", reference)
    name = clean(host)[:80]
    try:
        address: ipaddress.IPv4Address | ipaddress.IPv6Address | None = ipaddress.ip_address(
            host.split("%", 1)[0]
        )
    except ValueError:
        address = None
    if address is not None:
        kind = _address_kind(address)
        if kind is not None:
            return MediaCheck(
                None, f"refused: {name} is a {kind} address; media must be public", reference
            )
    elif host in _INTERNAL_NAMES or host.endswith(_INTERNAL_SUFFIXES):
        return MediaCheck(None, f"refused: {name} is an internal host name", reference)
    try:
        url = resolve_media_url(candidate, _NO_HOST)
    except RefusedURL as refusal:
        return MediaCheck(None, clean(refusal.reason), reference)
    if address is None and "." not in host:
        return MediaCheck(
            None, f"refused: {name} is a single-label (internal) host name", reference
        )
    return MediaCheck(url, None, reference)


def media_family(reference: str, *, voice: bool = False) -> tuple[Family, str | None]:
    """The display family and a guessed media type from a reference's extension."""
    try:
        path = urlsplit(reference).path if _SCHEME.match(reference) else reference
    except ValueError:
        path = reference
    ext = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    guessed = mimetypes.guess_type(f"x.{ext}", strict=False)[0] if ext else None
    if ext in _IMAGE_EXTS or (guessed or "").startswith("image/"):
        return "image", guessed
    if ext in _AUDIO_EXTS or (guessed or "").startswith("audio/"):
        return "audio", guessed or ("audio/ogg" if ext == "opus" else None)
    return ("audio" if voice and not ext else "file"), guessed


def _name_of(reference: str) -> str | None:
    try:
        path = urlsplit(reference).path if _SCHEME.match(reference) else reference
    except ValueError:
        return None
    base = posixpath.basename(unquote(path).replace("\\", "/"))
    return clean_label(base)[:MAX_FIELD] if base else None


def media_directive(
    candidate: str, line: int, origin: Origin, alt: str | None = None
) -> MediaDirective:
    """The record for one media reference, checked."""
    family, mime = media_family(candidate)
    return MediaDirective(
        source=_cut(candidate),
        line=line,
        origin=origin,
        family=family,
        mime_type=mime,
        name=_name_of(candidate),
        check=check_media(candidate),
        alt=clean_label(alt)[:MAX_FIELD] if alt else None,
    )


# ------------------------------------------------------------------ parsing


def _unwrap(value: str) -> str | None:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'`":
        return value[1:-1].strip()
    return None


def _clean_part(part: str) -> str:
    # U+240D: a CR shown as its symbol (a CRLF split between two chunks is cleaned apart).
    return re.sub(r"[`\"'\\})\],\u240d]+$", "", re.sub(r"^[`\"'\[{(]+", "", part))


def _media_parts(payload: str) -> tuple[list[str], list[str]] | None:
    """The candidates of a ``MEDIA:`` payload and the words that stay text; ``None`` when no
    part is a reference (the line is then ordinary text)."""
    quoted = _unwrap(payload)
    if quoted is not None:
        return ([quoted], []) if _is_candidate(quoted, bare=True) else None
    parts = payload.split()
    found = [p for p in (_clean_part(x) for x in parts) if _is_candidate(p)]
    whole = _clean_part(payload.strip())
    if not found:
        return ([whole], []) if _is_candidate(whole, bare=True) else None
    if len(parts) > 1 and len(found) < len(parts) and _looks_local(whole):
        return [whole], []  # "/Users/pete/My File.png": one path with a space in it
    rest = [x for x in parts if not _is_candidate(_clean_part(x))]
    return found, rest


def _shortcode(line: str, pos: int, name: str) -> tuple[int, dict[str, str], bool] | bool | None:
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


def _height(value: str | None) -> int | None:
    if value is None:
        return None
    digits = value.strip().lower().removesuffix("px")
    if not digits.isdigit() or len(digits) > 6:
        return None
    number = int(digits)
    return min(number, MAX_HEIGHT) if number > 0 else None


def _markdown_image(line: str, pos: int) -> tuple[int, str, str] | bool | None:
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


Hold = bool

_OPENERS = ("[[", "[embed", "[view")
#: Translated characters of a line kept before `DirectiveStream._trim` drops them.
_TRIM_AT = 1024
#: The start of a trimmed line kept for the fence check.
_HEAD = 64


class DirectiveStream:
    """The directive reader for one reply, fed in chunks.

    `feed` returns the visible text that is safe to show now; `finish` the rest once the reply
    is complete. `found` is everything recognised so far; `take_new` hands out the records
    added since its last call (for the fold to turn into items).
    """

    __slots__ = (
        "_done",
        "_fence",
        "_head",
        "_last_ws",
        "_line",
        "_line_no",
        "_mode",
        "_pos",
        "_prev_blank_or_code",
        "_skip_ws",
        "_stripped",
        "_taken",
        "_tick",
        "_visible",
        "found",
        "markdown_images",
    )

    def __init__(self, *, markdown_images: bool = False) -> None:
        self.markdown_images = markdown_images
        self.found = Parsed()
        self._taken = 0
        self._line = ""
        self._line_no = 1
        self._fence: str | None = None
        self._prev_blank_or_code = True
        self._done = False
        self._reset_line()

    def _reset_line(self) -> None:
        self._pos = 0
        self._last_ws = True  # the start of a line counts as white space
        self._mode: Literal["code", "media", "text"] | None = None
        self._skip_ws = False
        self._stripped = False
        self._visible = False
        self._tick = False
        self._head: str | None = None

    # ------------------------------------------------------------- public API

    def feed(self, delta: str) -> str:
        """Take the next chunk of the reply; return the text to show now."""
        if self._done or not delta:
            return ""
        out: list[str] = []
        # Split once: slicing the rest off after every line would copy a big chunk per line.
        pieces = delta.split("\n")
        self._line += pieces[0]
        for piece in pieces[1:]:
            out.append(self._complete_line(self._line))
            self._line = piece
            self._line_no += 1
            self._reset_line()
        out.append(self._scan(final=False))
        self._trim()
        return "".join(out)

    def _trim(self) -> None:
        """Drop what of a long line is translated already (one character kept: a reply tag
        looks at the one before it), so a line that never ends costs its chunks, not a copy of
        itself per chunk. Its first characters are kept for the fence check at its end."""
        if self._mode not in ("text", "code") or self._pos <= _TRIM_AT:
            return
        if self._head is None:
            self._head = self._line[:_HEAD]
        self._line = self._line[self._pos - 1 :]
        self._pos = 1

    def finish(self) -> str:
        """The reply is complete: what was held back, read as a last line."""
        if self._done:
            return ""
        self._done = True
        if not self._line:
            return ""
        text = self._scan(final=True)
        if self._mode == "media":
            return self._media_line(self._line, last=True)
        return text

    def take_new(self) -> list[Record]:
        """The records found since the last call."""
        new = self.found.records[self._taken :]
        self._taken = len(self.found.records)
        return new

    # -------------------------------------------------------------- internals

    def _room(self) -> bool:
        if len(self.found.records) < MAX_RECORDS:
            return True
        self.found.overflow = True
        return False

    def _complete_line(self, line: str) -> str:
        """A whole line (without its newline) arrived: finish it, update the block state."""
        text = self._scan(final=True, line=line)
        mode = self._mode
        if mode == "media":
            shown = self._media_line(line, last=False)
        elif self._stripped and not self._visible:
            shown = text  # only directives on it: the line goes, newline and all
        else:
            shown = text + "\n"
        self._update_blocks(line, mode)
        return shown

    def _update_blocks(self, line: str, mode: str | None) -> None:
        if self._head is not None:  # trimmed: a long line, neither blank nor a closing fence
            line = self._head + "\0"
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        fence = re.match(r"(`{3,}|~{3,})", stripped) if indent <= 3 else None
        if self._fence is not None:
            closes = (
                fence is not None
                and fence.group(1)[0] == self._fence[0]
                and len(fence.group(1)) >= len(self._fence)
                and not stripped[fence.end() :].strip()
            )
            if closes:
                self._fence = None
            self._prev_blank_or_code = True
            return
        if fence is not None:
            self._fence = fence.group(1)
            self._prev_blank_or_code = True
            return
        self._prev_blank_or_code = not line.strip() or mode == "code"

    def _decide(self, line: str, final: bool) -> Literal["code", "media", "text"] | None:
        """What kind of line this is, once enough of it is here (``None``: not yet)."""
        if self._fence is not None:
            return "code"
        rest = line.lstrip(" \t")
        lead = line[: len(line) - len(rest)]
        if self._prev_blank_or_code and (lead.startswith("    ") or "\t" in lead):
            return "code"
        if not rest:
            # White space only so far: wait, but not past where a MEDIA: line could start.
            return "text" if final or len(line) > MAX_MEDIA_LINE else None
        if rest[0] in "`~":
            if len(rest) < 3 and not final:
                return None
            if rest[:3] in ("```", "~~~") and len(lead) <= 3:
                return "code"
        # Upper case only, as OpenClaw's token pattern is ("Media: the plural of medium").
        head = rest[:6]
        if head == "MEDIA:":
            if len(line) > MAX_MEDIA_LINE:
                return "text"
            return "media" if self._room() else "text"
        if "MEDIA:".startswith(head) and not final:
            return None
        return "text"

    def _media_line(self, line: str, *, last: bool) -> str:
        """A complete ``MEDIA:`` line: its references become records; leftovers stay text."""
        rest = line.lstrip(" \t")
        found = _media_parts(rest[6:])
        if found is None:
            # Not a reference after all: ordinary text (its inline directives still count).
            self._mode = "text"
            self._pos = 0
            text = self._scan(final=True, line=line)
            if self._stripped and not self._visible:
                return text
            return text + ("" if last else "\n")
        candidates, words = found
        for candidate in candidates:
            if not self._room():
                break
            self.found.records.append(media_directive(candidate, self._line_no, "MEDIA"))
        leftover = " ".join(words)
        if not leftover:
            return ""
        return leftover + ("" if last else "\n")

    def _scan(self, *, final: bool, line: str | None = None) -> str:
        """Translate the not yet consumed part of the current line; hold what may still be a
        directive (everything when ``final`` is false and it might complete)."""
        text = self._line if line is None else line
        if self._mode is None:
            self._mode = self._decide(text, final)
            if self._mode is None:
                return ""
        if self._mode == "media":
            if not final and len(text) > MAX_MEDIA_LINE:
                self._mode = "text"  # too long to be one: text, from its start
            else:
                return ""
        if self._mode == "code":
            raw = text[self._pos :]
            self._pos = len(text)
            return raw
        out: list[str] = []
        pos = self._pos
        while pos < len(text):
            ch = text[pos]
            if ch == "`":
                self._tick = not self._tick
            elif not self._tick and (ch == "[" or (ch == "!" and self.markdown_images)):
                found = self._inline(text, pos, final)
                if found is True:
                    break  # may still become a directive: hold from here
                if isinstance(found, int):
                    pos = found
                    continue
                if isinstance(found, tuple):
                    end = found[0]
                    out.append(text[pos:end])
                    self._visible, self._skip_ws, self._last_ws = True, False, False
                    pos = end
                    continue
            if ch in " \t":
                # Shown at once (a stream must not lag by a space); after a stripped
                # directive that followed white space, the next run of it is dropped.
                if not self._skip_ws:
                    out.append(ch)
                    self._last_ws = True
                pos += 1
                continue
            self._last_ws = False
            self._skip_ws = False
            out.append(ch)
            self._visible = True
            pos += 1
        self._pos = pos
        return "".join(out)

    def _inline(self, text: str, pos: int, final: bool) -> Hold | int | tuple[int, bool] | None:
        """A directive starting at ``pos``: ``True`` to hold, the end of one stripped (an int),
        ``(end, True)`` for one kept as text, ``None`` for none."""
        room = len(self.found.records) < MAX_RECORDS
        if text[pos] == "!":
            image = _markdown_image(text, pos)
            if image is True:
                return None if final else True
            if image is None or image is False:
                return None
            end, alt, dest = image
            dest = _unwrap(dest) or dest
            if not re.match(r"https?:", dest, re.IGNORECASE) or not self._room():
                return None
            self.found.records.append(media_directive(dest, self._line_no, "markdown", alt))
            return self._stripped_to(end)
        rest = text[pos : pos + 8]
        # "[", "[[", "[emb", "[vie": a prefix of a directive opener; wait for more.
        if not final and len(rest) < 6 and any(o.startswith(rest) for o in _OPENERS):
            return True
        if rest.startswith("[["):
            close = text.find("]]", pos + 2, pos + MAX_TAG)
            if close < 0:
                if "\n" not in text[pos:] and len(text) - pos < MAX_TAG and not final:
                    return True
                return None
            inner = text[pos + 2 : close]
            if _AUDIO_TAG.fullmatch(inner):
                self.found.audio_as_voice = True
                return self._stripped_to(close + 2)
            at_word_start = pos == 0 or text[pos - 1] in " \t"
            if at_word_start and _REPLY_CURRENT.fullmatch(inner):
                if self.found.reply is None or self.found.reply.target is None:
                    self.found.reply = Reply(current=True)
                return self._stripped_to(close + 2)
            match = _REPLY_ID.fullmatch(inner) if at_word_start else None
            if match is not None:
                self.found.reply = Reply(target=_cut(match.group(1), 120))
                return self._stripped_to(close + 2)
            return None
        lowered = rest.lower()
        for name in ("embed", "view"):
            opener = "[" + name
            if not lowered.startswith(opener):
                continue
            after = text[pos + len(opener) : pos + len(opener) + 1]
            if not after:
                return None if final else True
            if after not in " \t/]":
                return None
            shortcode = _shortcode(text, pos, name)
            if shortcode is True:
                return None if final else True
            if shortcode is None or shortcode is False or not room:
                return None
            end, attrs, closing = shortcode
            written = _cut(text[pos:end])
            if name == "view" or not closing:
                form: Literal["html-embed", "view"] = "view" if name == "view" else "html-embed"
                self.found.records.append(Inert(form, written, self._line_no))
                return end, True
            ref, url = attrs.get("ref"), attrs.get("url")
            if not ref and not url:
                return None  # only URL-backed embeds render
            title = attrs.get("title")
            self.found.records.append(
                Embed(
                    ref=_cut(ref) if ref else None,
                    url=_cut(url, 2048) if url else None,
                    title=clean_label(title)[:MAX_FIELD] if title else None,
                    height=_height(attrs.get("height")),
                    line=self._line_no,
                )
            )
            return self._stripped_to(end)
        return None

    def _stripped_to(self, end: int) -> int:
        self._stripped = True
        self._skip_ws = self._last_ws  # "a [[tag]] b" reads "a b", "a[[tag]] b" too
        return end


def parse(text: str, *, markdown_images: bool = False) -> Parsed:
    """Read a whole reply: its visible text and directives (the stream, fed once)."""
    stream = DirectiveStream(markdown_images=markdown_images)
    visible = stream.feed(text) + stream.finish()
    stream.found.text = visible
    return stream.found
