"""A user's own attachments, drawn as a host's are: the envelopes that follow the user's turn.

A message's attachments are logged with it byte for byte (`openwop_tui.core.sending.logged`:
the parts as sent, and the base64 of each part that went by ``url``). Folding the message, live
or read back from the log, gives its `UserTurn` and after it one `EnvelopeItem` per attachment:
a ``media.image``, ``media.file`` or ``media.audio`` envelope that carries the bytes inline. So
the renderers draw it as they draw a host's (pixels, the file card, the player and its
waveform), offline too, and export, search and the inspector find it where they find a host's.

Its source is the user's message (`OWN_EVENT`), not a run event: it has no timeline row and no
lint marks (the run's ``run.started`` echoes the message, and the lint reads it there). A log
is a file anyone may have written, so what is read back is checked (`read_parts`) and cleaned,
and each inline part is decoded once, to check it and to size it.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openwop_tui.core.attachments import Attachment
from openwop_tui.core.fold import Added, Transcript
from openwop_tui.core.items import Attached, EnvelopeItem, Item, UserTurn
from openwop_tui.protocol.content_parts import (
    MediaPart,
    encoded_size,
    message_content,
    read_parts,
)
from openwop_tui.protocol.envelopes import Envelope, MediaRef, Rendering
from openwop_tui.protocol.events import RunEvent
from openwop_tui.text.sanitize import HostText, clean_label

__all__ = ["OWN_EVENT", "Logged", "add_message", "is_own", "read_logged", "sent_with"]

#: The type of the source "event" of a user's own attachment: the client's own name (no host
#: sends it), for the inspector's title and `is_own`.
OWN_EVENT = "user.message"

_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


@dataclass(frozen=True, slots=True)
class Own:
    """One attachment as logged: the part as sent, read back, and its bytes' base64."""

    part: dict[str, Any]
    """The wire part, as the message carried it (what the history re-sends)."""
    read: MediaPart
    encoded: str | None
    """The bytes as base64: the part's own ``dataBase64``, or the copy kept of an upload
    (``None``: a part sent by ``url`` whose bytes the log does not hold)."""

    @property
    def size(self) -> int | None:
        if self.read.data is not None:
            return len(self.read.data)
        return encoded_size(self.encoded) if self.encoded is not None else None


@dataclass(frozen=True, slots=True)
class Logged:
    """A user entry's attachments, read once: what the history, the turn and the envelopes need."""

    own: tuple[Own, ...] = ()

    @property
    def parts(self) -> list[dict[str, Any]]:
        """The wire parts, well-formed ones only, as they were sent."""
        return [each.part for each in self.own]

    @property
    def attached(self) -> tuple[Attached, ...]:
        """What the transcript's turn names of them (cleaned: read back, they are host text)."""
        return tuple(
            Attached(
                each.read.kind,
                clean_label(each.read.mime),
                clean_label(each.read.name),
                each.size,
                each.read.duration,
                clean_label(each.read.url) if each.read.url is not None else None,
            )
            for each in self.own
        )


#: A user entry without attachments (nearly every one): shared, as it holds nothing.
NONE = Logged()


def read_logged(meta: Any) -> Logged:
    """The attachments a logged ``user`` entry's ``meta`` keeps (``parts``, and ``uploaded``
    beside them), each checked and decoded once; the malformed ones are left out."""
    if not meta or not isinstance(meta, Mapping):
        return NONE
    parts, uploaded = meta.get("parts"), meta.get("uploaded")
    if not isinstance(parts, list):
        return NONE
    kept = uploaded if isinstance(uploaded, list) else []
    found: list[Own] = []
    for index, part in enumerate(parts):
        if not isinstance(part, Mapping):
            continue
        read = read_parts([part])
        if not read:
            continue
        encoded = part.get("dataBase64") if read[0].data is not None else None
        if encoded is None and index < len(kept) and _is_base64(kept[index]):
            encoded = kept[index]  # (an upload's copy: checked, not decoded)
        found.append(Own(dict(part), read[0], encoded if isinstance(encoded, str) else None))
    return Logged(tuple(found))


def add_message(transcript: Transcript, text: HostText, logged: Logged) -> list[Added]:
    """Fold a user's message: its turn, then an envelope item for each attachment.

    ``text`` is already cleaned by the caller (the user's own, or read back from a log)."""
    if not logged.own:  # (text alone, nearly every message: a long session reads thousands)
        return [transcript.add_user(text)]
    added = [transcript.add_user(text, logged.attached)]
    turn = added[0].item
    documents = [_document(each) for each in logged.own]
    message = {"role": "user", "content": message_content(text, documents)}
    source = RunEvent(HostText(OWN_EVENT), {}, raw=message)
    for index, (each, document) in enumerate(zip(logged.own, documents, strict=True), 1):
        envelope = _envelope(each, document, source, HostText(f"{turn.id}.{index}"))
        added.append(transcript.add_envelope(envelope))
    return added


def _document(own: Own) -> dict[str, Any]:
    """The part as sent, cleaned field by field (a log is anyone's file): the inspector's
    envelope document. Its base64 is the same string the envelope draws from, not a copy."""
    read = own.read
    document: dict[str, Any] = {"type": read.kind, "mimeType": clean_label(read.mime)}
    if read.url is not None:
        document["url"] = clean_label(read.url)
    elif own.encoded is not None:
        document["dataBase64"] = own.encoded
    document["alt" if read.kind == "image" else "name"] = clean_label(read.name)
    if read.duration is not None:
        document["durationSeconds"] = read.duration
    return document


def _envelope(
    own: Own, document: dict[str, Any], source: RunEvent, envelope_id: HostText
) -> Envelope:
    """The ``media.*`` envelope one attachment is drawn through (ai-envelope.md's media payload:
    ``base64``, ``mimeType``, ``name``, ``bytes``, ``durationSeconds``).

    Args:
        own: The attachment as logged.
        document: The part as sent, cleaned (`_document`).
        source: The user's message, as the envelope's source.
        envelope_id: Its id: the turn's, and its place among the message's attachments.
    """
    read = own.read
    name, mime = clean_label(read.name), clean_label(read.mime)
    payload: dict[str, Any] = {"mimeType": mime, "name": name}
    if own.encoded is not None:
        payload["base64"] = own.encoded
        payload["bytes"] = own.size
    elif read.url is not None:
        payload["url"] = document["url"]  # bytes not kept: fetched from the host, or said missing
    if read.duration is not None:
        payload["durationSeconds"] = read.duration
    return Envelope(
        kind=HostText(f"media.{read.kind}"),
        payload=payload,
        rendering=Rendering(mime_type=mime, title=name),  # (its alt would say the name again)
        source=source,
        media=MediaRef.from_payload(payload),
        envelope_id=envelope_id,
        document=document,
    )


def is_own(item: Item) -> bool:
    """Whether ``item`` is one of the user's own attachments (not something a host sent)."""
    return isinstance(item, EnvelopeItem) and item.envelope.source.type == OWN_EVENT


def sent_with(items: Sequence[Item], turn: UserTurn) -> tuple[tuple[Attachment, ...], list[str]]:
    """The attachments ``turn`` carried, as they can be sent again (their bytes from the items
    that follow it), and the names of those whose bytes are not kept."""
    start = next((index for index, item in enumerate(items) if item is turn), None)
    if start is None:
        return (), []
    found: list[Attachment] = []
    missing: list[str] = []
    for item in items[start + 1 :]:
        if not is_own(item):
            break
        assert isinstance(item, EnvelopeItem)
        media = item.envelope.media
        name = str(media.name) if media is not None and media.name else "attachment"
        data = _decoded(media.base64) if media is not None else None
        if media is None or data is None or not media.mime_type:
            missing.append(name)
            continue
        found.append(Attachment(name, str(media.mime_type), data, media.duration_seconds))
    return tuple(found), missing


def _decoded(encoded: str | None) -> bytes | None:
    if encoded is None:
        return None
    try:
        return base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        return None


def _is_base64(value: Any) -> bool:
    """Whether ``value`` is a base64 string (its alphabet and padding): safe to show and to
    draw from; a wrong length is the renderer's to report."""
    return isinstance(value, str) and bool(value) and _BASE64.fullmatch(value) is not None
