"""What a person attaches to a message: pictures, documents and sound, checked before they go.

An `Attachment` is the bytes of one file (or of a recorded clip, or of standard input) with its
name and media type, read and checked here before anything is sent (protocol.md §12): the type
must be on the list the reference web chat and the demo host accept (fail-closed), the bytes
must be what their name says (sniffed: a ``.png`` that is a PDF, a ``.json`` that does not
parse, a text file that is not UTF-8), and the file must be under the per-file ceiling. Each
refusal is an `AttachmentError` whose text is one sentence naming the file and what to do;
nothing is read half, so a refused file leaves the draft and the other attachments as they
were. How a checked attachment travels (inline, or uploaded first) is `openwop_tui.core.sending`.
"""

from __future__ import annotations

import json
import mimetypes
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlsplit

from openwop_tui.text.sanitize import clean_label
from openwop_tui.text.units import human_size

__all__ = [
    "ACCEPTED",
    "CEILING_BYTES",
    "Attachment",
    "AttachmentError",
    "Kind",
    "attachment_of",
    "complete_path",
    "pasted_paths",
    "read_attachment",
    "sniffed_type",
]

#: The most bytes one attachment may hold: the reference web chat's ceiling, kept under its
#: host's ~6 MiB media store cap, so a bigger file is refused here with its size rather than
#: bouncing off a 413 (protocol.md §12).
CEILING_BYTES = 6 * 1024 * 1024

#: Media type → the file name endings it is known by (the first is the one a name gets).
ACCEPTED: dict[str, tuple[str, ...]] = {
    "image/png": (".png",),
    "image/jpeg": (".jpg", ".jpeg"),
    "image/gif": (".gif",),
    "image/webp": (".webp",),
    "application/pdf": (".pdf",),
    "text/plain": (".txt", ".text", ".log"),
    "text/markdown": (".md", ".markdown"),
    "application/json": (".json",),
    "text/csv": (".csv",),
    # A voice message (the recorder's), or a clip attached as one.
    "audio/ogg": (".ogg", ".oga", ".opus"),
    "audio/wav": (".wav",),
}

#: The types whose bytes are text (UTF-8) rather than a format with a signature.
_TEXT = frozenset({"text/plain", "text/markdown", "application/json", "text/csv"})

Kind = Literal["image", "audio", "file"]


class AttachmentError(ValueError):
    """An attachment that cannot be sent; ``str()`` is one sentence for the user."""


@dataclass(frozen=True, slots=True)
class Attachment:
    """One checked attachment: its bytes, the name it goes by and its media type."""

    name: str
    """The file's name (no folder), as the host and the transcript show it."""
    mime: str
    """One of `ACCEPTED`."""
    data: bytes = field(repr=False)
    duration: float | None = None
    """Seconds of sound (an audio attachment whose length could be read)."""

    @property
    def kind(self) -> Kind:
        """The content part it becomes: ``image``, ``audio`` or ``file`` (everything else)."""
        if self.mime.startswith("image/"):
            return "image"
        if self.mime.startswith("audio/"):
            return "audio"
        return "file"

    @property
    def size(self) -> int:
        return len(self.data)

    def describe(self) -> str:
        """``name (type, size)``, and the length of a clip: how a line or a chip names it."""
        extra = f", {self.duration:.1f} s" if self.duration is not None else ""
        return f"{self.name} ({self.mime}, {human_size(self.size)}{extra})"


def read_attachment(path: str | Path, *, ceiling: int = CEILING_BYTES) -> Attachment:
    """The file at ``path`` as an attachment, its type from its name and checked against its
    bytes. Raises `AttachmentError`: no such file, a folder, unreadable, a type not accepted,
    over ``ceiling`` bytes, or bytes that are not what the name says."""
    given = Path(path).expanduser()
    shown = clean_label(str(path)) or "(no name)"
    if not given.exists():
        raise AttachmentError(f"cannot attach {shown}: there is no such file")
    if given.is_dir():
        raise AttachmentError(f"cannot attach {shown}: it is a folder; pick a file in it")
    mime = type_of_name(given.name)
    if mime is None:
        raise AttachmentError(f"cannot attach {shown}: {_not_accepted()}")
    try:
        size = given.stat().st_size
        if size > ceiling:
            raise AttachmentError(_too_large(shown, size, ceiling))
        with given.open("rb") as file:
            data = file.read(ceiling + 1)  # (a file that grew meanwhile is still caught)
    except OSError as error:
        why = error.strerror or type(error).__name__
        raise AttachmentError(f"cannot attach {shown}: it cannot be read ({why})") from None
    return attachment_of(data, given.name, mime, ceiling=ceiling)


def attachment_of(
    data: bytes, name: str, mime: str | None = None, *, ceiling: int = CEILING_BYTES
) -> Attachment:
    """``data`` as an attachment (standard input, a recorded clip). Raises `AttachmentError`
    as `read_attachment` does.

    Args:
        data: Its bytes.
        name: The name it goes by (any folder is dropped).
        mime: Its media type; ``None``: told by the name.
        ceiling: The most bytes it may hold.
    """
    shown = clean_label(Path(name).name) or "attachment"
    kind = mime if mime is not None else type_of_name(shown)
    if kind is None or kind not in ACCEPTED:
        raise AttachmentError(f"cannot attach {shown}: {_not_accepted(kind)}")
    if len(data) > ceiling:
        raise AttachmentError(_too_large(shown, len(data), ceiling))
    if not data:
        raise AttachmentError(f"cannot attach {shown}: it is empty")
    found = sniffed_type(data, kind)
    if found != kind:
        what = f"{found} data" if found else "not a file of that type"
        raise AttachmentError(
            f"cannot attach {shown}: its name says {kind}, but its bytes are {what}"
        )
    duration = clip_duration(data) if kind.startswith("audio/") else None
    return Attachment(shown, kind, data, duration)


def type_of_name(name: str) -> str | None:
    """The accepted media type a file name ends in (``None``: none of them)."""
    suffix = Path(name).suffix.lower()
    for mime, endings in ACCEPTED.items():
        if suffix in endings:
            return mime
    guessed = mimetypes.guess_type(name, strict=False)[0]
    return guessed if guessed in ACCEPTED else None


def sniffed_type(data: bytes, expected: str | None = None) -> str | None:
    """The accepted type ``data`` is, by its first bytes (text types: when it is UTF-8 without
    NUL bytes, ``expected`` if that is a text type, a JSON file only when it parses); ``None``
    when it is none of them."""
    head = data[:16]
    signatures = (
        (b"\x89PNG\r\n\x1a\n", "image/png"),
        (b"\xff\xd8\xff", "image/jpeg"),
        (b"GIF87a", "image/gif"),
        (b"GIF89a", "image/gif"),
        (b"%PDF-", "application/pdf"),
        (b"OggS", "audio/ogg"),
    )
    for signature, mime in signatures:
        if head.startswith(signature):
            return mime
    if head.startswith(b"RIFF") and head[8:12] in (b"WEBP", b"WAVE"):
        return "image/webp" if head[8:12] == b"WEBP" else "audio/wav"
    if b"\x00" in data:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if expected == "application/json":
        try:
            json.loads(text)
        except ValueError:
            return None
        return expected
    return expected if expected in _TEXT else "text/plain"


def clip_duration(data: bytes) -> float | None:
    """Seconds of sound in an Ogg or WAV clip, from its header (``None``: it cannot be read)."""
    try:
        import soundfile  # (with numpy: imported on first use, as the player does)

        info = soundfile.info(BytesIO(data))
    except Exception:  # not a clip soundfile reads: the duration is simply not known
        return None
    duration = float(info.duration)
    return duration if duration >= 0 else None


def _not_accepted(kind: str | None = None) -> str:
    named = f"{kind} is" if kind else "its type is"
    return (
        f"{named} not one a host takes (pictures: PNG, JPEG, GIF, WebP; documents: PDF, text, "
        "Markdown, JSON, CSV; sound: Ogg, WAV)"
    )


def _too_large(shown: str, size: int, ceiling: int) -> str:
    return (
        f"cannot attach {shown}: it is {human_size(size)}, over the {human_size(ceiling)} an "
        "attachment may be"
    )


#: Files one paste may attach (a drop of a whole folder's files is not a message).
PASTED_FILES = 10


def pasted_paths(text: str) -> list[Path]:
    """The files a paste names, when it is nothing but paths of files a host takes (what a
    terminal pastes for files dropped on it: one a line or space-separated, quoted, with
    backslash-escaped spaces, or as ``file://`` URIs); ``[]`` when it is text."""
    found: list[Path] = []
    for word in _paste_words(text.strip()):
        if word.startswith("file://"):
            word = unquote(urlsplit(word).path)
        path = Path(word).expanduser()
        try:
            usable = path.is_absolute() and path.is_file() and type_of_name(path.name) is not None
        except OSError:
            usable = False
        if not usable:
            return []
        found.append(path)
    return found if 0 < len(found) <= PASTED_FILES else []


def _paste_words(text: str) -> list[str]:
    """A paste split as a shell splits words: quotes kept together, a backslash escaping a
    space."""
    words: list[str] = []
    word, quote, escaped, started = "", "", False, False
    for char in text:
        if escaped:
            word, escaped = word + char, False
        elif char == "\\" and quote != "'":
            escaped, started = True, True
        elif quote:
            if char == quote:
                quote = ""
            else:
                word += char
        elif char in "'\"":
            quote, started = char, True
        elif char.isspace():
            if started:
                words.append(word)
            word, started = "", False
        else:
            word, started = word + char, True
    if quote:
        return []  # (an unclosed quote: text, not paths)
    if started:
        words.append(word)
    return words


def complete_path(partial: str) -> str:
    """``partial`` completed as far as the files and folders it may name agree (``/attach``'s
    Tab): a folder gets its ``/``, the attachable files and folders only; unchanged when
    nothing, or nothing more, can be told."""
    given = Path(partial).expanduser()
    folder, stem = (given, "") if partial.endswith(("/", "~")) else (given.parent, given.name)
    if partial.endswith("~"):
        return partial + "/"
    try:
        names = [
            entry.name + ("/" if entry.is_dir() else "")
            for entry in folder.iterdir()
            if entry.name.startswith(stem)
            and not (entry.name.startswith(".") and not stem.startswith("."))
            and (entry.is_dir() or type_of_name(entry.name) is not None)
        ]
    except OSError:
        return partial
    if not names:
        return partial
    common = names[0]
    for name in names[1:]:
        while not name.startswith(common):
            common = common[:-1]
    return partial + common[len(stem) :] if len(common) > len(stem) else partial
