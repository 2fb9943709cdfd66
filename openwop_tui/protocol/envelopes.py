"""Envelopes as the client sees them, and where to find them in run events.

An AI envelope is not a frame on the stream (protocol.md §0): the engine records an accepted
envelope as ordinary run events. The reference app's convention, which the embedded demo host
follows too, is to carry it on ``node.completed``:

* ``payload.outputs.envelope``: the envelope object, whose ``meta.rendering`` is the hint;
* ``payload.outputs.rendering``: a hint lifted out of the envelope (used when it has none);
* ``payload.outputs.completion``: the authoritative text of the turn.

Media travel as ``media.image`` / ``media.audio`` / ``media.file`` envelopes whose payload holds
``url`` or ``base64`` plus ``bytes``, ``mimeType`` (and ``name``, ``durationSeconds``). A host may
also record them as events of those types; both are accepted.

`extract_envelopes` keeps the source event beside each envelope so the inspector can show both.
It never raises: an event it cannot read yields one ``unreadable`` envelope that shows the
payload as JSON. The event's host data is already clean (`normalize`); names and titles (a
media ``name``, the hint's ``title`` and ``alt``) also go through
`openwop_tui.text.sanitize.clean_label`, so zero-width and other invisible characters show.
Pure: no I/O, no Textual.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from openwop_tui.protocol.events import RunEvent
from openwop_tui.protocol.hostdata import host_str
from openwop_tui.text.sanitize import HostText, clean_label

#: Display values the client has renderers for (closed enum in the spec, `ai-envelope.md`).
KNOWN_DISPLAYS = frozenset({"markdown", "code", "card", "image", "audio", "file"})

#: Envelope kinds whose payload is a media reference.
MEDIA_KINDS = frozenset({"media.image", "media.audio", "media.file"})

_MEDIA_DISPLAY = {"media.image": "image", "media.audio": "audio", "media.file": "file"}

#: Display values whose renderer draws bytes rather than text.
MEDIA_DISPLAYS = frozenset(_MEDIA_DISPLAY.values())


def _fits(hint: str, family: str) -> bool:
    """Whether a hint's display suits an envelope whose type implies ``family``: its own
    family, or ``file`` (every ``media.*`` payload has the same ``{url?, base64?, bytes,
    mimeType}`` shape, RFC 0055 §C, so any of them can be offered as a file to save). A text
    family (``markdown``, ``code``, ``card``), another media family, or a display no spec
    names does not fit: the type's renderer draws it."""
    return hint in (family, "file")


@dataclass(frozen=True, slots=True)
class Rendering:
    """The ``meta.rendering`` hint. Every field is optional; strings only (others are dropped)."""

    display: HostText | None = None
    mime_type: HostText | None = None
    lang: HostText | None = None
    alt: HostText | None = None
    title: HostText | None = None

    @classmethod
    def from_json(cls, value: Any) -> Rendering:
        """Read a hint leniently: wrong-typed fields are dropped, unknown keys ignored."""
        if not isinstance(value, Mapping):
            return cls()

        def text(key: str) -> HostText | None:
            # Every field is shown in a header: one line (`clean_label`).
            item = value.get(key)
            return clean_label(item) if isinstance(item, str) and item else None

        return cls(
            display=text("display"),
            mime_type=text("mimeType"),
            lang=text("lang"),
            alt=text("alt"),
            title=text("title"),
        )


@dataclass(frozen=True, slots=True)
class MediaRef:
    """Where a media payload's bytes are: an URL to fetch, or base64 carried inline."""

    url: str | None = None
    base64: str | None = None
    bytes: int | None = None
    """The size the host advertised (required by the schema, but hosts may omit it)."""
    mime_type: HostText | None = None
    name: HostText | None = None
    duration_seconds: float | None = None

    @classmethod
    def from_payload(cls, payload: Any, *, require_source: bool = True) -> MediaRef | None:
        """Build a reference from a ``media.*`` payload; ``None`` without url and base64,
        unless ``require_source`` is false (then what the payload says of the thing, its name,
        size and type, is kept even though there is nothing to fetch or decode)."""
        if not isinstance(payload, Mapping):
            return None
        url = payload.get("url")
        data = payload.get("base64")
        if not isinstance(url, str) or not url:
            url = None
        if not isinstance(data, str) or not data:
            data = None
        if url is None and data is None and require_source:
            return None
        size = payload.get("bytes")
        duration = payload.get("durationSeconds")
        mime = payload.get("mimeType")
        name = payload.get("name")
        return cls(
            url=url,
            base64=data,
            bytes=size if isinstance(size, int) and not isinstance(size, bool) else None,
            mime_type=clean_label(mime) if isinstance(mime, str) and mime else None,
            name=clean_label(name) if isinstance(name, str) and name else None,
            duration_seconds=_seconds(duration),
        )


def _seconds(value: Any) -> float | None:
    """A finite, non-negative duration, or ``None`` (a hand-built huge int would overflow)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    try:
        seconds = float(value)
    except OverflowError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


@dataclass(frozen=True, slots=True)
class Envelope:
    """One thing to draw, found in a run event.

    ``display`` is what the renderer registry is keyed on: the hint's ``display`` when present,
    else the family implied by a ``media.*`` kind, else ``None`` (the raw-JSON fallback).
    """

    kind: HostText
    """The envelope ``type`` (``media.image``, ``vendor.acme.card``…), or ``"completion"`` for a
    hinted ``outputs.completion`` with no envelope object."""
    payload: Any
    rendering: Rendering
    source: RunEvent
    """The run event this envelope was found in, kept for the inspector."""
    text: str | None = None
    """``outputs.completion`` when the event carried one: the text form of the envelope."""
    media: MediaRef | None = None
    envelope_id: HostText | None = None
    correlation_id: HostText | None = None
    node_id: HostText | None = None
    document: Any = None
    """The whole envelope object as the host sent it (``None`` for a lifted hint)."""
    index: int = 0
    """Position among the envelopes of its event (an event may carry a list)."""

    @property
    def display(self) -> HostText | None:
        """The registry key for this envelope: the type's family when the type has one and the
        hint does not fit it (`hint_set_aside`), else the hint, else the type's family.

        RFC 0055 §B makes ``meta.rendering`` a hint that "never changes ``payload``
        validation", and §C selects a ``media.*`` payload by the ``type`` discriminator
        (protocol.md §6, "type before hint"): a ``media.image`` hinted ``code`` or ``audio``
        is still an image, so the image renderer draws it, not the code or audio one.
        """
        family = _MEDIA_DISPLAY.get(self.kind)
        hint = self.rendering.display
        if family is not None and hint is not None and not _fits(hint, family):
            return HostText(family)  # the client's own ASCII family names
        return hint or (HostText(family) if family is not None else None)

    @property
    def hint_set_aside(self) -> HostText | None:
        """The hint's ``display`` when it names a renderer unfit for the envelope's type (and
        the type's own renderer draws it instead); ``None`` when the hint is followed."""
        family = _MEDIA_DISPLAY.get(self.kind)
        hint = self.rendering.display
        if family is not None and hint is not None and not _fits(hint, family):
            return hint
        return None

    @property
    def alt(self) -> HostText | None:
        """The text alternative: the hint's ``alt`` (RFC 0055 §B), else an ``alt`` the payload
        carries (the reference app's media parts put it there), cleaned as a label."""
        if self.rendering.alt:
            return self.rendering.alt
        payload = self.payload
        alt = payload.get("alt") if isinstance(payload, Mapping) else None
        return clean_label(alt) if isinstance(alt, str) and alt else None

    @property
    def media_facts(self) -> MediaRef | None:
        """What the payload says of the media (name, size, type), even with neither a URL nor
        data to get it by; ``None`` for an envelope that is not media."""
        if self.media is not None:
            return self.media
        if self.kind in MEDIA_KINDS or self.display in MEDIA_DISPLAYS:
            return MediaRef.from_payload(self.payload, require_source=False)
        return None

    @property
    def partial(self) -> bool | None:
        """``True`` for a fragment of a streamed emission, ``False`` for the one that completes
        it, ``None`` for an envelope sent whole (protocol.md §4.3, rule E1)."""
        document = self.document
        marker = document.get("partial") if isinstance(document, Mapping) else None
        if not isinstance(marker, Mapping):
            return None
        return bool(marker.get("isPartial", False))

    @property
    def media_ref(self) -> MediaRef | None:
        """Where the bytes are, for an envelope drawn as media: a ``media.*`` payload, or a
        vendor kind hinted ``image``/``audio``/``file`` whose payload has ``url`` or ``base64``."""
        if self.media is not None:
            return self.media
        if self.display in MEDIA_DISPLAYS:
            return MediaRef.from_payload(self.payload)
        return None

    def bytes_ref(self, needs_bytes: Callable[[str | None], bool]) -> MediaRef | None:
        """Where the bytes to fetch are, when the renderer for this envelope's display needs
        them (``needs_bytes``: the renderer registry's answer, so a plugin's ``video`` gets its
        file): the ``media.*`` payload, else the payload's ``url`` / ``base64``. ``None`` when
        its renderer draws no bytes, or there are none."""
        if not needs_bytes(self.display):
            return None
        return self.media if self.media is not None else MediaRef.from_payload(self.payload)

    @property
    def mime_type(self) -> HostText | None:
        """The media type, from the payload first (even a payload with nothing to fetch),
        then the hint."""
        facts = self.media_facts
        if facts and facts.mime_type:
            return facts.mime_type
        return self.rendering.mime_type

    @property
    def key(self) -> str:
        """A stable identity for de-duplication: the envelope id, else its place in the run.

        Not the correlation id: every fragment of one emission shares it (protocol.md §4.3), and
        so do the envelopes of a list that inherit their event's ``causationId``.
        """
        if self.envelope_id:
            return self.envelope_id
        return f"{self.source.run_id}:{self.source.sequence}:{self.index}"


def _envelope_from_object(
    obj: Mapping[str, Any],
    event: RunEvent,
    text: str | None,
    index: int = 0,
    lifted: Any = None,
) -> Envelope:
    """One `Envelope` read from one envelope object of an event.

    Args:
        obj: The envelope object as the event carries it (``type``, ``payload``, ``meta``…).
        event: The run event it came in; its causation and node ids stand in for missing ones.
        text: The event's ``outputs.completion``, the envelope's text form, or None when it had
            none.
        index: Position of the envelope among those of its event (an event may carry a list).
        lifted: A rendering hint found beside the envelope in ``outputs.rendering``, used when the
            envelope has no hint of its own; None when there is none.
    """
    found = obj.get("type")
    kind = found if isinstance(found, str) and found else "unknown"
    meta = obj.get("meta")
    hint = meta.get("rendering") if isinstance(meta, Mapping) else None
    # The reference app's order: the envelope's own hint, else the one lifted beside it into
    # `outputs.rendering` (protocol.md §6).
    rendering = Rendering.from_json(hint if isinstance(hint, Mapping) else lifted)
    payload = obj.get("payload")
    media = MediaRef.from_payload(payload) if kind in MEDIA_KINDS else None

    def ident(key: str) -> HostText | None:
        return host_str(obj.get(key))  # the event's payload: cleaned by `normalize`

    return Envelope(
        kind=clean_label(kind),  # shown in headers: one line
        payload=payload,
        rendering=rendering,
        source=event,
        text=text,
        media=media,
        envelope_id=ident("envelopeId"),
        correlation_id=ident("correlationId") or event.causation_id,
        node_id=ident("nodeId") or event.node_id,
        document=obj,
        index=index,
    )


def reply_completion(event: RunEvent, envelopes: list[Envelope] | None = None) -> str | None:
    """The reply text a ``node.completed`` finalises: ``outputs.completion`` when the event
    carries no envelope (with one, the completion is that envelope's text form).

    ``envelopes`` may pass `extract_envelopes` already computed for the event.
    """
    if event.type != "node.completed":
        return None
    outputs = event.payload.get("outputs")
    completion = outputs.get("completion") if isinstance(outputs, Mapping) else None
    if not isinstance(completion, str) or not completion:
        return None
    found = extract_envelopes(event) if envelopes is None else envelopes
    return None if found else completion


def extract_envelopes(event: RunEvent) -> list[Envelope]:
    """Return the envelopes a run event carries, in order (usually zero or one). Never raises.

    * ``node.completed`` with ``outputs.envelope`` (an object, or a list of them);
    * ``node.completed`` with only ``outputs.rendering`` + ``outputs.completion``: a lifted hint
      on the completion text; a plain ``markdown`` (or absent) hint is *not* an envelope, it is
      the assistant's reply text and belongs to the turn;
    * ``media.image`` / ``media.audio`` / ``media.file`` events whose payload is the media payload.

    An event that cannot be read (a hand-built payload of the wrong shape) gives one envelope of
    kind ``unreadable`` with no hint: the JSON renderer shows its payload.
    """
    try:
        return _extract(event)
    except Exception:  # the fold must go on; what the host sent stays visible as JSON
        return [
            Envelope(
                kind=HostText("unreadable"),  # the client's own ASCII kind
                payload=event.payload,
                rendering=Rendering(),
                source=event,
                node_id=event.node_id,
            )
        ]


def _extract(event: RunEvent) -> list[Envelope]:
    if event.type in MEDIA_KINDS:
        payload = event.payload
        inner = payload.get("envelope")
        if isinstance(inner, Mapping):
            return [_envelope_from_object(inner, event, None)]
        rendering = Rendering.from_json(payload.get("rendering"))
        return [
            Envelope(
                kind=event.type,
                payload=dict(payload),
                rendering=rendering,
                source=event,
                media=MediaRef.from_payload(payload),
                correlation_id=event.causation_id,
                node_id=event.node_id,
            )
        ]

    if event.type != "node.completed":
        return []
    outputs = event.payload.get("outputs")
    if not isinstance(outputs, Mapping):
        return []
    completion = outputs.get("completion")
    text = completion if isinstance(completion, str) else None

    found = outputs.get("envelope")
    if isinstance(found, Mapping):
        return [_envelope_from_object(found, event, text, lifted=outputs.get("rendering"))]
    if isinstance(found, list):
        objects = [o for o in found if isinstance(o, Mapping)]
        return [_envelope_from_object(o, event, None, i) for i, o in enumerate(objects)]

    rendering = Rendering.from_json(outputs.get("rendering"))
    if rendering.display and rendering.display != "markdown" and text is not None:
        return [
            Envelope(
                kind=HostText("completion"),  # the client's own ASCII kind
                payload=text,
                rendering=rendering,
                source=event,
                text=text,
                correlation_id=event.causation_id,
                node_id=event.node_id,
            )
        ]
    return []
