"""What the fold makes of OpenClaw directives: media, embed and reply items for one turn.

`openwop_tui.openclaw.reader` reads the text; this module turns what it found into transcript
items, once each (`TurnDirectives`):

* a media reference becomes an `EnvelopeItem` with a synthesized ``media.image`` /
  ``media.audio`` / ``media.file`` envelope. An accepted URL is in its payload, so the ordinary
  media path fetches it (name resolved once, connection pinned to the checked address); a
  refused one carries no URL at all, only the refusal (`refused_asset` gives the renderer the
  reason as a refused fetch, so nothing is fetched and nothing read from disk);
* ``[[audio_as_voice]]`` puts ``"audioAsVoice": true`` in the turn's audio payloads (also ones
  drawn before the tag arrived: those items are updated);
* an embed becomes an ``embed`` item whose payload is OpenClaw's stored canvas block, which is
  also how a host's own canvas blocks are drawn (`as_embed`);
* the reply relation is one small `Notice` ("↳ reply to …").

A media URL seen in the streamed text and again in the final payload (the completion, or the
structured ``mediaUrl`` / ``mediaUrls`` fields) is one item. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from openwop_tui.core.items import EnvelopeItem, Item, Notice
from openwop_tui.openclaw.reader import (
    MAX_RECORDS,
    DirectiveStream,
    Embed,
    Inert,
    MediaCheck,
    MediaDirective,
    Parsed,
    Record,
    Reply,
    media_directive,
    parse,
)
from openwop_tui.protocol.envelopes import KNOWN_DISPLAYS, Envelope, MediaRef, Rendering
from openwop_tui.protocol.events import RunEvent
from openwop_tui.protocol.hostdata import host_str
from openwop_tui.protocol.media import Asset
from openwop_tui.text.sanitize import HostLine, HostText, one_line

__all__ = ["DirectiveEnvelope", "TurnDirectives", "as_embed", "is_canvas", "refused_asset"]

#: The display family of embed items (`openwop_tui.renderers.embed`).
EMBED = "embed"


@dataclass(frozen=True, slots=True)
class DirectiveEnvelope(Envelope):
    """An envelope the client made from a directive (never from host JSON as such)."""

    check: MediaCheck | None = None
    """The media policy's verdict, for a media directive."""


def refused_asset(envelope: Envelope) -> Asset | None:
    """The refused fetch a refused media directive stands for (``None`` for anything else):
    the reason, and the URL as reference only when the reference was a URL."""
    if not isinstance(envelope, DirectiveEnvelope) or envelope.check is None:
        return None
    check = envelope.check
    if check.refused is None:
        return None
    return Asset(url=check.reference, error=check.refused, failure="refused")


def is_canvas(value: Any) -> bool:
    """Whether ``value`` is an OpenClaw canvas block, ``{"type": "canvas", "preview": {…}}``."""
    return (
        isinstance(value, Mapping)
        and value.get("type") == "canvas"
        and isinstance(value.get("preview"), Mapping)
    )


def as_embed(envelope: Envelope) -> Envelope:
    """A host envelope whose payload is a canvas block, drawn as an embed (unless its hint
    names a family the client draws)."""
    display = envelope.rendering.display
    if not is_canvas(envelope.payload) or (display in KNOWN_DISPLAYS and display != EMBED):
        return envelope
    return replace(envelope, rendering=replace(envelope.rendering, display=HostText(EMBED)))


def _envelope(
    kind: HostText,
    payload: dict[str, Any],
    rendering: Rendering,
    event: RunEvent,
    envelope_id: HostText,
    check: MediaCheck | None = None,
) -> DirectiveEnvelope:
    """A `DirectiveEnvelope` for one directive, with a document saying it came from one.

    Args:
        kind: The envelope's type (``media.image``, ``embed``…).
        payload: The envelope's payload.
        rendering: The rendering hint made for it.
        event: The run event whose reply held the directive.
        envelope_id: The client's own id for the envelope (``directive:<item id>``).
        check: What the media policy said of the reference; None for a directive that names no
            media.
    """
    document = {
        "type": kind,
        "envelopeId": envelope_id,
        "payload": payload,
        "meta": {"origin": "openclaw-directive"},
    }
    return DirectiveEnvelope(
        kind=kind,
        payload=payload,
        rendering=rendering,
        source=event,
        media=MediaRef.from_payload(payload) if kind.startswith("media.") else None,
        envelope_id=envelope_id,
        node_id=event.node_id,
        document=document,
        check=check,
    )


def _media_envelope(
    record: MediaDirective, event: RunEvent, envelope_id: HostText, voice: bool
) -> DirectiveEnvelope:
    """A ``media.<family>`` envelope for one ``MEDIA:`` directive (or structured media reference).

    Args:
        record: The parsed media directive.
        event: The run event whose reply held it.
        envelope_id: The client's own id for the envelope.
        voice: True when the reply asked for audio as a voice note (``audioAsVoice``); marks audio
            only.
    """
    payload: dict[str, Any] = {
        "directive": record.origin,
        "reference": record.source,
        "line": record.line,
    }
    if record.check.url is not None:
        payload["url"] = record.check.url
    if record.mime_type:
        payload["mimeType"] = record.mime_type
    if record.name:
        payload["name"] = record.name
    if record.family == "audio" and voice:
        payload["audioAsVoice"] = True
    rendering = Rendering(mime_type=record.mime_type, alt=record.alt, title=record.name)
    kind = HostText(f"media.{record.family}")  # the client's own ASCII family names
    return _envelope(kind, payload, rendering, event, envelope_id, record.check)


def _embed_envelope(record: Embed | Inert, event: RunEvent, envelope_id: HostText) -> Envelope:
    if isinstance(record, Inert):
        payload: dict[str, Any] = {
            "type": "openclaw.inert",
            "form": record.form,
            "text": record.text,
            "reason": record.reason,
            "line": record.line,
        }
        kind = HostText("openclaw.inert")  # the client's own ASCII names, here and below
        return _envelope(kind, payload, Rendering(display=HostText(EMBED)), event, envelope_id)
    preview: dict[str, Any] = {"kind": "canvas", "surface": "assistant_message", "render": "url"}
    for key, value in (
        ("viewId", record.ref),
        ("url", record.url),
        ("title", record.title),
        ("preferredHeight", record.height),
    ):
        if value is not None:
            preview[key] = value
    payload = {"type": "canvas", "preview": preview, "line": record.line}
    rendering = Rendering(display=HostText(EMBED), title=record.title)
    return _envelope(HostText("canvas"), payload, rendering, event, envelope_id)


def _key(record: Record) -> str:
    if isinstance(record, MediaDirective):
        return f"media:{record.key}"
    if isinstance(record, Embed):
        return f"embed:{record.ref}:{record.url}"
    return f"inert:{record.form}:{record.text}"


class TurnDirectives:
    """The directive state of one assistant turn: its stream, and the items already made."""

    __slots__ = (
        "_audio",
        "_count",
        "_overflow_said",
        "_reply",
        "_seen",
        "_state",
        "_voice",
        "stream",
    )

    def __init__(self, *, markdown_images: bool = False) -> None:
        self.stream = DirectiveStream(markdown_images=markdown_images)
        self._seen: set[str] = set()
        self._audio: list[EnvelopeItem] = []
        self._voice = False
        self._reply: Notice | None = None
        self._count = 0
        self._overflow_said = False
        self._state: tuple[int, bool, Reply | None, bool] = (0, False, None, False)

    def items(
        self, records: list[Record], found: Parsed, event: RunEvent, next_id: Callable[[str], str]
    ) -> tuple[list[Item], list[Item]]:
        """``(added, updated)``: items for ``records`` not made yet, and items ``found``'s flags
        changed.

        Args:
            records: The directives found so far in the reply; those already made are skipped, and
                past `MAX_RECORDS` one notice stands for the rest.
            found: The parse of the reply; its voice, reply-to and overflow flags are applied.
            event: The run event being folded, the envelopes' source.
            next_id: The fold's id maker, given an item kind (``envelope``, ``notice``…).
        """
        added: list[Item] = []
        updated: list[Item] = []
        if found.audio_as_voice and not self._voice:
            self._voice = True
            updated += [item for item in self._audio if _mark_voice(item)]
        for record in records:
            key = _key(record)
            if key in self._seen or self._count >= MAX_RECORDS:
                continue
            self._seen.add(key)
            self._count += 1
            item_id = next_id("envelope")
            envelope_id = HostText(f"directive:{item_id}")  # the client's own id
            if isinstance(record, MediaDirective):
                envelope: Envelope = _media_envelope(record, event, envelope_id, self._voice)
                item = EnvelopeItem(item_id, envelope)
                if record.family == "audio":
                    self._audio.append(item)
            else:
                item = EnvelopeItem(item_id, _embed_envelope(record, event, envelope_id))
            added.append(item)
        added += self._reply_items(found.reply, next_id, updated)
        if found.overflow and not self._overflow_said:
            self._overflow_said = True
            text = HostLine(  # the client's own words, on one line
                HostText(
                    f"more than {MAX_RECORDS} directives in this reply: the rest are shown as text"
                )
            )
            added.append(Notice(next_id("notice"), "warning", text, False))
        return added, updated

    def track_audio(self, item: EnvelopeItem) -> None:
        """An envelope the host sent with this turn: its audio is a voice note too (now, or
        when the tag arrives)."""
        if item.envelope.display != "audio" or len(self._audio) >= MAX_RECORDS:
            return
        self._audio.append(item)
        if self._voice:
            _mark_voice(item)

    def _reply_items(
        self,
        reply: Reply | None,
        next_id: Callable[[str], str],
        updated: list[Item],
    ) -> list[Item]:
        if reply is None:
            return []
        # The reply's line is the reader's words around values from the reply's cleaned text.
        line = one_line(HostText(reply.line))
        if self._reply is None:
            self._reply = Notice(next_id("notice"), "info", line, False)
            return [self._reply]
        if self._reply.text != line:
            self._reply.text = line
            updated.append(self._reply)
        return []

    def delta(
        self, delta: str, event: RunEvent, next_id: Callable[[str], str]
    ) -> tuple[str, list[Item], list[Item]]:
        """A streamed chunk: the visible text to append, and the items it made or changed."""
        visible = self.stream.feed(delta)
        found = self.stream.found
        state = (len(found.records), found.audio_as_voice, found.reply, found.overflow)
        if state == self._state:  # nothing new (most chunks): no items to look at
            return visible, [], []
        self._state = state
        return (visible, *self.items(self.stream.take_new(), found, event, next_id))

    def finish(
        self, event: RunEvent, next_id: Callable[[str], str]
    ) -> tuple[str, list[Item], list[Item]]:
        """The turn ended: the held-back tail, and what it made."""
        visible = self.stream.finish()
        return (visible, *self.items(self.stream.take_new(), self.stream.found, event, next_id))

    def final(
        self,
        completion: str | None,
        outputs: Mapping[str, Any],
        event: RunEvent,
        next_id: Callable[[str], str],
    ) -> tuple[str | None, list[Item], list[Item]]:
        """The final payload: the completion's visible text and the items for what it and the
        structured fields name that the stream did not already show.

        Returns ``(text, added, updated)``; the text is None without a completion.

        Args:
            completion: The final ``outputs.completion``; None when the payload has none.
            outputs: The final payload's ``outputs``, read for structured media, ``audioAsVoice``
                and canvas blocks.
            event: The final run event, the envelopes' source.
            next_id: The fold's id maker, given an item kind.
        """
        markdown_images = self.stream.markdown_images
        found = parse(completion, markdown_images=markdown_images) if completion else Parsed()
        records: list[Record] = list(found.records)
        records += structured_media(outputs) + structured_media(event.payload)
        if outputs.get("audioAsVoice") is True:
            found.audio_as_voice = True
        content = outputs.get("content")
        if isinstance(content, list):
            records += [
                _canvas_record(block) for block in content[:MAX_RECORDS] if is_canvas(block)
            ]
        found.audio_as_voice = found.audio_as_voice or self.stream.found.audio_as_voice
        found.reply = found.reply or self.stream.found.reply
        added, updated = self.items(records, found, event, next_id)
        return (found.text if completion else None), added, updated


def _mark_voice(item: EnvelopeItem) -> bool:
    """Put ``"audioAsVoice": true`` in the item's payload; whether it changed."""
    payload = item.envelope.payload
    if not isinstance(payload, Mapping) or payload.get("audioAsVoice") is True:
        return False
    item.envelope = replace(item.envelope, payload={**payload, "audioAsVoice": True})
    return True


def _canvas_record(block: Mapping[str, Any]) -> Embed:
    preview = block["preview"]

    def text(key: str) -> str | None:
        value = preview.get(key)
        return value if isinstance(value, str) and value else None

    height = preview.get("preferredHeight")
    return Embed(
        ref=text("viewId"),
        url=text("url"),
        title=host_str(preview.get("title")),  # the event's payload: cleaned by `normalize`
        height=height if isinstance(height, int) and not isinstance(height, bool) else None,
        line=0,
    )


def structured_media(fields: Mapping[str, Any]) -> list[Record]:
    """The references in structured ``mediaUrl`` / ``mediaUrls`` fields (bounded)."""
    found: list[str] = []
    single = fields.get("mediaUrl")
    if isinstance(single, str) and single.strip():
        found.append(single.strip())
    many = fields.get("mediaUrls")
    if isinstance(many, list):
        found += [u.strip() for u in many[:MAX_RECORDS] if isinstance(u, str) and u.strip()]
    return [media_directive(url, 0, "field") for url in found[:MAX_RECORDS]]
