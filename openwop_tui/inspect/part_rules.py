"""The rules a client can check on what a person sent: the content parts of a run's messages.

A message with attachments has a list of parts for its ``content``
(`openwop_tui.protocol.content_parts`: text, image, file and audio parts), and a host echoes
the run's ``inputs`` in its ``run.started`` payload, so a run's stream carries what the user
sent. `lint_parts` walks every message of ``payload.inputs.messages`` whose content is a list and
checks each part: that it is one the protocol knows, where its bytes are (inline
``dataBase64`` under the host's cap, or a ``url``: one of the two), that its base64 decodes,
that its media type is on the reference web chat's allow-list and its bytes begin like that
type. A part is decoded once, and nothing else of a history is read, so a long one costs time
in proportion to what was sent. Pure: it reads the event's cleaned document (`RunEvent.raw`),
so every value a message quotes is already safe to print.
"""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Mapping
from typing import Any

from openwop_tui.inspect.findings import Finding, finding
from openwop_tui.inspect.schemas import short, show_path
from openwop_tui.inspect.sniff import normal_type, sniff
from openwop_tui.protocol.content_parts import ACCEPTED_TYPES, KINDS, encoded_size
from openwop_tui.text.units import exact_size

Path = tuple[str | int, ...]

#: The accepted types whose bytes have a signature `openwop_tui.inspect.sniff` reads: data
#: declared as one of them that lacks it is not what it says.
_SIGNED = frozenset(
    {
        "image/png",
        "image/jpeg",
        "image/gif",
        "image/webp",
        "application/pdf",
        "audio/ogg",
        "audio/wav",
    }
)
#: Base64 longer than this is not decoded (its size is still told from its length).
_MAX_DECODE_CHARS = 128 * 1024 * 1024


def lint_parts(
    raw: Mapping[str, Any], event_type: str, sequence: int | None, max_inline_bytes: int
) -> list[Finding]:
    """Every finding about the content parts of the messages a ``run.started`` carries.

    Args:
        raw: The event's cleaned document.
        event_type: The event's type: only a ``run.started`` echoes the run's inputs.
        sequence: The event's sequence, given with each finding; None when it has none.
        max_inline_bytes: The host's ``aiProviders.maxInlineMediaBytes``.
    """
    if event_type != "run.started":
        return []
    # The in-memory reference host says ``data`` for ``payload`` (a dialect of its own).
    key = "payload" if isinstance(raw.get("payload"), Mapping) else "data"
    payload = raw.get(key)
    inputs = payload.get("inputs") if isinstance(payload, Mapping) else None
    messages = inputs.get("messages") if isinstance(inputs, Mapping) else None
    if not isinstance(messages, list):
        return []
    check = _Parts(sequence, max_inline_bytes)
    for index, message in enumerate(messages):
        content = message.get("content") if isinstance(message, Mapping) else None
        if isinstance(content, list):
            for place, part in enumerate(content):
                check.part(part, (key, "inputs", "messages", index, "content", place))
    return check.found


def _a(kind: str) -> str:
    """``an image``, ``an audio``, ``a file``: a part type in a sentence."""
    return f"an {kind}" if kind[:1] in "aeiou" else f"a {kind}"


class _Parts:
    """The findings of one event's parts, gathered as they are walked."""

    def __init__(self, sequence: int | None, cap: int) -> None:
        self.sequence = sequence
        self.cap = cap
        self.found: list[Finding] = []

    def add(self, code: str, message: str, path: Path) -> None:
        # Each finding points at the part (the path is made only when something is found).
        self.found.append(finding(code, message, self.sequence, show_path(path)))

    def part(self, part: Any, path: Path) -> None:
        """The checks on one part of a message's content."""
        if not isinstance(part, Mapping):
            self.add("OW230", f"a part that is {short(part)}, not an object with a type", path)
            return
        kind = part.get("type")
        if kind == "text":
            text = part.get("text")
            if not isinstance(text, str):
                said = "without text" if "text" not in part else f"whose text is {short(text)}"
                self.add("OW238", f"a text part {said}: a host reads a string there", path)
            return
        if not isinstance(kind, str) or kind not in KINDS:
            said = "no type" if kind is None else f"type {short(kind)}"
            self.add(
                "OW230",
                f"a part with {said}: the parts are text, image, file and audio "
                "(a host drops an unknown part, or refuses the run)",
                path,
            )
            return
        self.media(kind, part, path)

    def media(self, kind: str, part: Mapping[str, Any], path: Path) -> None:
        """The checks on an attachment part: its type, where its bytes are and what they are.

        Args:
            kind: ``image``, ``file`` or ``audio``.
            part: The part as sent.
            path: Where the part is in the event document.
        """
        mime = part.get("mimeType")
        mime = mime if isinstance(mime, str) and mime.strip() else None
        if mime is None:
            self.add(
                "OW231",
                f"{_a(kind)} part without a mimeType: a host cannot tell what its bytes are",
                path,
            )
        else:
            self.allowed(kind, mime, path)
        inline = part.get("dataBase64")
        url = part.get("url")
        has_url = isinstance(url, str) and bool(url)
        if inline is not None and has_url:
            self.add(
                "OW232",
                f"{_a(kind)} part with both dataBase64 and url: a host cannot know which "
                "is the attachment (send one)",
                path,
            )
        elif inline is None and not has_url:
            self.add(
                "OW232", f"{_a(kind)} part with neither dataBase64 nor url: it has no bytes", path
            )
        data = self.inline(inline, path) if inline is not None else None
        if data is not None and mime is not None:
            self.content(data, mime, path)
        if kind == "audio" and "durationSeconds" in part:
            seconds = part.get("durationSeconds")
            if (
                isinstance(seconds, bool)
                or not isinstance(seconds, int | float)
                or not math.isfinite(seconds)
                or seconds < 0
            ):
                self.add(
                    "OW237",
                    f"durationSeconds {short(seconds)}: the seconds of sound, a number "
                    "not below 0 (leave it out when unknown)",
                    path,
                )

    def allowed(self, kind: str, mime: str, path: Path) -> None:
        """The check of a part's media type against the allow-list of its part type."""
        base = mime.split(";", 1)[0].strip().lower()
        if base in ACCEPTED_TYPES[kind]:
            return
        other = next((k for k, types in ACCEPTED_TYPES.items() if base in types), None)
        if other is not None:
            said = f"{short(base)} goes as {_a(other)} part, not {_a(kind)} part"
        else:
            listed = ", ".join(sorted(ACCEPTED_TYPES[kind]))
            said = f"{short(base)} is not one the reference web chat sends as {_a(kind)} ({listed})"
        self.add("OW235", said + ": a host that checks the list may refuse it", path)

    def inline(self, text: Any, path: Path) -> bytes | None:
        """The checks on a part's ``dataBase64``: its size against the cap, then that it decodes
        (once); its bytes, or None when they cannot be had."""
        if not isinstance(text, str):
            self.add("OW233", f"dataBase64 is {short(text)}, not a base64 string", path)
            return None
        size = encoded_size(text)
        if size > self.cap:
            self.add(
                "OW234",
                f"{exact_size(size)} inline, over the host's {exact_size(self.cap)} cap "
                "(maxInlineMediaBytes): a bigger attachment is uploaded and sent by url",
                path,
            )
        if len(text) > _MAX_DECODE_CHARS:
            return None
        try:
            # Strict, as this client reads a part back (`content_parts.read_parts`): a part
            # it cannot read there is one a replay leaves out.
            return base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError) as error:
            self.add("OW233", f"dataBase64 cannot be decoded ({short(str(error))})", path)
            return None

    def content(self, data: bytes, mime: str, path: Path) -> None:
        """The check of decoded bytes against their declared type, where a signature tells.

        Args:
            data: The part's decoded bytes.
            mime: Its declared media type.
            path: Where the part is in the event document.
        """
        declared = normal_type(mime)
        found = sniff(data)
        if declared in _SIGNED and found is None:
            self.add(
                "OW236",
                f"declared {short(declared)}, but the bytes do not begin like one "
                "(no known signature)",
                path,
            )
        elif (
            found is not None
            and found.media_type != declared
            and (declared in _SIGNED or found.media_type in _SIGNED)
        ):
            # A text type has no signature, but text never begins like a PNG or a PDF: only
            # the unmistakable ones are said (a text may begin with "BM", a bitmap's).
            self.add(
                "OW236", f"declared {short(declared)}, but the bytes are {found.media_type}", path
            )
