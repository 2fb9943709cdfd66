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

A recognised media reference is checked at once (`check_media`, in
`openwop_tui.openclaw.policy`): remote ones must be public
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

import re
from dataclasses import dataclass, field
from typing import Literal

from openwop_tui.openclaw.policy import (
    MAX_FIELD,
    Family,
    MediaCheck,
    check_media,
    cut,
    media_family,
    name_of,
    shown_url,
)
from openwop_tui.openclaw.syntax import (
    height,
    markdown_image,
    media_parts,
    shortcode,
    unwrap,
)
from openwop_tui.text.sanitize import HostText, clean_label, clip

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

Origin = Literal["MEDIA", "markdown", "field"]


_AUDIO_TAG = re.compile(r"\s*audio_as_voice\s*", re.IGNORECASE)
_REPLY_CURRENT = re.compile(r"\s*reply_to_current\s*", re.IGNORECASE)
_REPLY_ID = re.compile(r"\s*reply_to\s*:\s*([^\]\n]+?)\s*", re.IGNORECASE)


# ------------------------------------------------------------------ records


@dataclass(frozen=True, slots=True)
class MediaDirective:
    """A media reference: a ``MEDIA:`` part, a markdown image, or a structured field."""

    source: str
    """The reference as written (cleaned, cut to `MAX_FIELD`): what the user is told of."""
    line: int
    """The 1-based line of the reply it was on (0 for a structured field)."""
    origin: Origin
    family: Family
    mime_type: HostText | None
    name: HostText | None
    """The file name the reference ends in (cleaned), if any."""
    check: MediaCheck
    alt: HostText | None = None
    """A markdown image's alt text."""

    @property
    def key(self) -> str:
        """What makes two references the same: the URL fetched, else the refusal and the
        reference shown (a refused ``https://u:p@h/a.png`` is shown as ``https://h/a.png``, and
        must not stand for, and hide, an accepted ``https://h/a.png``)."""
        if self.check.url is not None:
            return self.check.url
        return f"{self.check.refused}\0{self.check.reference or self.source}"


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
    title: HostText | None
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


def media_directive(
    candidate: str, line: int, origin: Origin, alt: str | None = None
) -> MediaDirective:
    """The record for one media reference, checked.

    Args:
        candidate: The reference as the reply gave it (a URL or a path).
        line: The reply's line it is on.
        origin: What kind of reference it was: a ``MEDIA:`` line, a markdown image, or a structured
            field.
        alt: The markdown image's alt text; None for none.
    """
    family, mime = media_family(candidate)
    return MediaDirective(
        source=shown_url(candidate, MAX_FIELD),
        line=line,
        origin=origin,
        family=family,
        mime_type=None if mime is None else HostText(mime),  # from the mimetypes table: ASCII
        name=name_of(candidate),
        check=check_media(candidate),
        alt=clip(clean_label(alt), MAX_FIELD) if alt else None,
    )


Hold = bool

_OPENERS = ("[[", "[embed", "[view")
#: Characters that can start nothing (a directive, inline code): read as one run.
_PLAIN = re.compile(r"[^\[`]+")
_PLAIN_MD = re.compile(r"[^\[`!]+")
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
        if "\n" not in delta:  # the common token: no line ends
            self._line += delta
            out = self._scan(final=False)
            self._trim()
            return out
        parts: list[str] = []
        # Split once: slicing the rest off after every line would copy a big chunk per line.
        pieces = delta.split("\n")
        self._line += pieces[0]
        for piece in pieces[1:]:
            parts.append(self._complete_line(self._line))
            self._line = piece
            self._line_no += 1
            self._reset_line()
        parts.append(self._scan(final=False))
        self._trim()
        return "".join(parts)

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
        found = media_parts(rest[6:])
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
        plain = _PLAIN_MD if self.markdown_images else _PLAIN
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
            # A run of ordinary characters at once (a regex, not a Python loop per character);
            # a special one that is not a directive goes alone.
            match = plain.match(text, pos)
            run = match.group() if match is not None else ch
            pos += len(run)
            if self._skip_ws:
                # After a directive that followed white space, the next run of it is dropped.
                run = run.lstrip(" \t")
                if not run:
                    continue
                self._skip_ws = False
            out.append(run)
            # Shown at once (a stream must not lag by a space): a trailing blank is remembered.
            self._last_ws = run[-1] in " \t"
            if not self._visible and run.strip(" \t"):
                self._visible = True
        self._pos = pos
        return "".join(out)

    def _inline(self, text: str, pos: int, final: bool) -> Hold | int | tuple[int, bool] | None:
        """A directive starting at ``pos``: ``True`` to hold, the end of one stripped (an int),
        ``(end, True)`` for one kept as text, ``None`` for none."""
        room = len(self.found.records) < MAX_RECORDS
        if text[pos] == "!":
            image = markdown_image(text, pos)
            if image is True:
                return None if final else True
            if image is None or image is False:
                return None
            end, alt, dest = image
            dest = unwrap(dest) or dest
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
                self.found.reply = Reply(target=cut(match.group(1), 120))
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
            code = shortcode(text, pos, name)
            if code is True:
                return None if final else True
            if code is None or code is False or not room:
                return None
            end, attrs, closing = code
            written = cut(text[pos:end])
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
                    ref=cut(ref) if ref else None,
                    url=shown_url(url) if url else None,
                    title=clip(clean_label(title), MAX_FIELD) if title else None,
                    height=height(attrs.get("height")),
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
