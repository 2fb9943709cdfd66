"""The rules a client can check on an envelope: its schema, its media payload, its hint.

`lint_envelopes` finds the envelopes a run event carries where `openwop_tui.protocol.envelopes`
finds them (``node.completed.payload.outputs.envelope``, an object or a list; a lifted
``outputs.rendering``; ``media.*`` events) and checks each against RFC 0055, ``ai-envelope.md``
and the bundled schemas, and its ``type`` against the names the protocol owns or lets a vendor
coin (`openwop_tui.inspect.kinds`: ``media.video`` and ``foo.bar`` are no kinds). It reads
the event's cleaned document (`RunEvent.raw`), so every value a message quotes is already safe
to print; nothing is fetched: URLs are judged by the client's own policy
(`openwop_tui.protocol.media_policy.resolve_media_url`, which does no DNS), and bytes behind a
URL are checked only when the caller already holds them (``assets``). Pure.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from openwop_tui.inspect.findings import Finding, finding
from openwop_tui.inspect.hint_rules import HINT_KEYS, has_data, lint_hint
from openwop_tui.inspect.kinds import DEFINED_KINDS, family, kind_verdict
from openwop_tui.inspect.schemas import SchemaSet, problems, short, show_path
from openwop_tui.inspect.sniff import family_of, normal_type, sniff
from openwop_tui.protocol.envelopes import MEDIA_KINDS
from openwop_tui.protocol.media import DEFAULT_MAX_BYTES
from openwop_tui.protocol.media_policy import MediaPolicy, RefusedURL
from openwop_tui.protocol.media_policy import resolve_media_url as _resolve
from openwop_tui.text.sanitize import HostText
from openwop_tui.text.units import human_size

Path = tuple[str | int, ...]

#: Where relative URLs resolve when the lint is not told the host: no real host has this name
#: (RFC 6761), so nothing can be mistaken for the configured host.
NO_HOST = "https://host.invalid"

#: Types whose signature `openwop_tui.inspect.sniff` knows: data declared as one of these that
#: lacks its signature contradicts its type.
_SIGNED = frozenset(
    {
        "image/png",
        "image/jpeg",
        "image/gif",
        "image/bmp",
        "image/webp",
        "audio/wav",
        "audio/ogg",
        "audio/flac",
        "audio/mpeg",
        "application/pdf",
    }
)
#: Base64 longer than this is not decoded (a lint is not a decompression service).
_MAX_DECODE_CHARS = 128 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class EnvelopeContext:
    """What the envelope rules need to know about the host and the client."""

    max_inline_bytes: int = 262144
    """The host's ``aiProviders.maxInlineMediaBytes`` (the spec's default)."""
    base_url: str | None = None
    """The host the run came from; ``None``: unknown (a recording linted offline)."""
    max_asset_bytes: int = DEFAULT_MAX_BYTES
    """The client's download ceiling (``--max-asset-bytes``)."""
    assets: Callable[[str], bytes | None] | None = None
    """Bytes already fetched for a URL, when the caller has them (the app); never fetched here."""
    supported_envelopes: frozenset[str] | None = None
    """The host's ``supportedEnvelopes``, when its discovery document is known."""


@dataclass(frozen=True, slots=True)
class Fragment:
    """One fragment of a streamed emission (an envelope with ``partial``), for the stream rule."""

    correlation_id: HostText
    index: int | None
    last: bool
    """``partial.isPartial`` is false: the fragment that completes the emission."""
    path: str


def lint_envelopes(
    raw: Mapping[str, Any],
    event_type: str,
    causation_id: str | None,
    sequence: int | None,
    schemas: SchemaSet,
    context: EnvelopeContext,
    fragments: list[Fragment] | None = None,
    *,
    major: int | None = None,
) -> list[Finding]:
    """Every finding about the envelopes one event carries.

    Args:
        raw: The event's cleaned document.
        event_type: The event's type (``node.completed``, ``media.image``…), which says where its
            envelopes are.
        causation_id: The event's ``causationId``, checked against an envelope's correlation id;
            None when it has none.
        sequence: The event's sequence, given with each finding; None when it has none.
        schemas: The schemas the envelopes are checked against.
        context: What the rules know of the host and the client (limits, base URL…).
        fragments: The fragments of streamed emissions the event holds are appended to this list;
            None keeps them nowhere.
        major: The stream's protocol major (how a vendor kind must be namespaced); None when
            unknown.
    """
    rules = _Rules(sequence, schemas, context, major)
    rules.fragments = fragments if fragments is not None else []
    payload_key = "payload" if isinstance(raw.get("payload"), Mapping) else "data"
    payload = raw.get(payload_key)
    if not isinstance(payload, Mapping):
        if "chunk" not in raw:
            return []
        payload_key, payload = "", raw  # a bare chunk has no envelopes, but is not an error
    base: Path = (payload_key,) if payload_key else ()
    if family(event_type) in ("media", "ui") and event_type not in DEFINED_KINDS:
        # A host's media event (protocol.md §4.2: host-specific) in a family the protocol owns.
        verdict = kind_verdict(event_type, major)
        if verdict is not None:
            rules.add(*verdict, ("type",))
        return rules.found
    if event_type in MEDIA_KINDS:
        inner = payload.get("envelope")
        if isinstance(inner, Mapping):
            rules.envelope(inner, (*base, "envelope"), causation_id)
        else:
            # The hint beside the media (the client reads it there) is not the payload's key.
            media = {k: v for k, v in payload.items() if k != "rendering"}
            rules.media(event_type, media, base, payload.get("rendering"))
            rules.hint(payload.get("rendering"), (*base, "rendering"), event_type, payload)
        return rules.found
    if event_type != "node.completed":
        return []
    outputs = payload.get("outputs")
    if not isinstance(outputs, Mapping):
        return []
    where: Path = (*base, "outputs")
    found = outputs.get("envelope")
    if isinstance(found, Mapping):
        rules.envelope(found, (*where, "envelope"), causation_id)
    elif isinstance(found, list):
        objects = [(i, item) for i, item in enumerate(found) if isinstance(item, Mapping)]
        # One event recording several envelopes can carry only one causationId: it must be
        # one of theirs, not each one's.
        matched = any(item.get("correlationId") == causation_id for _, item in objects)
        for index, item in objects:
            own = item.get("correlationId") if matched else causation_id
            rules.envelope(item, (*where, "envelope", index), own if isinstance(own, str) else None)
    lifted = outputs.get("rendering")
    if lifted is not None:
        rules.hint(lifted, (*where, "rendering"), None, None, lifted=True)
    return rules.found


class _Rules:
    """The findings of one event, gathered as its envelopes are walked."""

    def __init__(
        self, sequence: int | None, schemas: SchemaSet, context: EnvelopeContext, major: int | None
    ):
        """The rules for one event's envelopes, with nothing found yet.

        Args:
            sequence: The event's sequence, given with each finding; None when it has none.
            schemas: The schemas the envelopes are checked against.
            context: What the rules know of the host and the client.
            major: The stream's protocol major; None when unknown.
        """
        self.sequence = sequence
        self.schemas = schemas
        self.context = context
        self.major = major
        self.found: list[Finding] = []
        self.fragments: list[Fragment] = []

    def add(self, code: str, message: str, path: Path) -> None:
        self.found.append(finding(code, message, self.sequence, show_path(path)))

    # ------------------------------------------------------------- the envelope

    def envelope(self, obj: Mapping[str, Any], path: Path, causation_id: str | None) -> None:
        for problem in problems(self.schemas.envelope, obj, path):
            inside = problem.path[len(path) :]
            if (
                len(inside) == 3
                and inside[:2] == ("meta", "rendering")
                and inside[2] in HINT_KEYS
                and problem.keyword in ("enum", "type")
            ):
                continue  # a hint's values have rules of their own (`hint_rules`)
            code = "OW202" if problem.keyword == "additionalProperties" else "OW200"
            self.add(code, f"envelope: {problem.message}", problem.path)
        correlation = obj.get("correlationId")
        partial = obj.get("partial")
        if isinstance(correlation, str) and correlation and isinstance(partial, Mapping):
            index = partial.get("index")
            self.fragments.append(
                Fragment(
                    HostText(correlation),  # the event's payload: cleaned by `normalize`
                    index if isinstance(index, int) and not isinstance(index, bool) else None,
                    partial.get("isPartial") is False,
                    show_path((*path, "partial")),
                )
            )
        if isinstance(correlation, str) and correlation and causation_id != correlation:
            said = "has no causationId" if causation_id is None else "has another causationId"
            self.add(
                "OW105",
                f"the event recording envelope {short(correlation)} {said} "
                "(it MUST be the envelope's correlationId)",
                (*path, "correlationId"),
            )
        kind = obj.get("type")
        kind = kind if isinstance(kind, str) else None
        verdict = kind_verdict(kind, self.major) if kind else None
        if verdict is not None:
            self.add(*verdict, (*path, "type"))
        supported = self.context.supported_envelopes
        if kind and supported is not None and kind not in supported:
            self.add(
                "OW203",
                f"{short(kind)} is not in the host's supportedEnvelopes "
                "(the engine accepts only the kinds it advertises)",
                (*path, "type"),
            )
        meta = obj.get("meta")
        rendering = meta.get("rendering") if isinstance(meta, Mapping) else None
        payload = obj.get("payload")
        if kind in MEDIA_KINDS:
            self.media(kind, payload, (*path, "payload"), rendering)
        elif isinstance(payload, Mapping) and has_data(payload):
            # A vendor kind may carry its own media (ai-envelope.md §Rendering hints).
            self.data(payload, (*path, "payload"), None, rendering)
        self.hint(rendering, (*path, "meta", "rendering"), kind, payload, in_envelope=True)

    # --------------------------------------------------------------- the media

    def media(self, kind: str, payload: Any, path: Path, rendering: Any) -> None:
        """The checks on one media payload: its schema, then where its bytes are (`data`).

        Args:
            kind: The media kind (``media.image``…).
            payload: The payload as sent.
            path: Where the payload is in the event document.
            rendering: The envelope's rendering hint, whose ``mimeType`` may stand in for the
                payload's; None when it has none.
        """
        if not isinstance(payload, Mapping):
            self.add("OW201", f"{kind} payload is not an object ({short(payload)})", path)
            return
        validator = self.schemas.media(kind)
        assert validator is not None
        for problem in problems(validator, payload, path):
            if problem.keyword == "additionalProperties" and problem.extra_key == "alt":
                self.add(
                    "OW224",
                    f"{kind}: alt is in the payload, which the schema does not "
                    "list; also give it as meta.rendering.alt",
                    problem.path,
                )
            elif problem.keyword == "additionalProperties":
                self.add("OW202", f"{kind}: {problem.message}", problem.path)
            elif problem.keyword == "required" and problem.path[-1:] == ("bytes",):
                self.add(
                    "OW212",
                    f"{kind} payload has no bytes (required: clients decide from "
                    "it whether to fetch or decode)",
                    problem.path,
                )
            else:
                self.add("OW201", f"{kind}: {problem.message}", problem.path)
        self.data(payload, path, kind, rendering)

    def data(self, payload: Mapping[str, Any], path: Path, kind: str | None, hint: Any) -> None:
        """The checks on where a media payload's bytes are and what they are.

        Args:
            payload: The media payload.
            path: Where the payload is in the event document.
            kind: The media kind (``media.image``…); None when unknown.
            hint: The envelope's rendering hint, whose ``mimeType`` is used when the payload has
                none.
        """
        family = kind.removeprefix("media.") if kind else None
        url = payload.get("url") if isinstance(payload.get("url"), str) else None
        inline = payload.get("base64") if isinstance(payload.get("base64"), str) else None
        size = payload.get("bytes")
        size = size if isinstance(size, int) and not isinstance(size, bool) else None
        hint_type = hint.get("mimeType") if isinstance(hint, Mapping) else None
        declared = payload.get("mimeType")
        declared = declared if isinstance(declared, str) and declared else None
        hint_type = hint_type if isinstance(hint_type, str) and hint_type else None
        media_type = declared or hint_type
        if url and inline:
            self.add(
                "OW214",
                "the payload has both url and base64: a consumer cannot know "
                "which is the media (send one)",
                path,
            )
        elif not url and not inline:
            self.add(
                "OW215", "the payload has neither url nor base64: there is nothing to show", path
            )
        if inline is not None:
            data = self.inline(inline, size, (*path, "base64"))
            if data is not None:
                self.content(data, family, media_type, (*path, "base64"))
        if url is not None:
            self.url(url, size, (*path, "url"))
            fetched = self.context.assets(url) if self.context.assets else None
            if fetched is not None:
                if size is not None and len(fetched) != size:
                    self.add(
                        "OW211",
                        f"bytes says {size}, the host served {len(fetched)}",
                        (*path, "bytes"),
                    )
                self.content(fetched, family, media_type, (*path, "url"))
        if family is None:
            return
        if declared and family != "file" and family_of(declared) != family:
            self.add(
                "OW221",
                f"{kind} declares mimeType {short(declared)}, which is not an {family} type",
                (*path, "mimeType"),
            )
        if declared and hint_type and normal_type(declared) != normal_type(hint_type):
            self.add(
                "OW223",
                f"the payload says {short(declared)}, the hint says {short(hint_type)}",
                (*path, "mimeType"),
            )
        if media_type is None:
            self.add("OW222", f"{kind} gives no mimeType, in the payload or the hint", path)

    def inline(self, text: str, size: int | None, path: Path) -> bytes | None:
        compact = "".join(text.split())
        decoded_size = len(compact) * 3 // 4 - compact[-2:].count("=")
        cap = self.context.max_inline_bytes
        if decoded_size > cap:
            self.add(
                "OW210",
                f"{human_size(decoded_size)} inline, over the host's cap of "
                f"{human_size(cap)} (above it a host MUST send a url)",
                path,
            )
        if len(compact) > _MAX_DECODE_CHARS:
            return None
        try:
            data = base64.b64decode(compact + "=" * (-len(compact) % 4), validate=True)
        except (binascii.Error, ValueError) as error:
            self.add("OW213", f"base64 cannot be decoded ({short(str(error))})", path)
            return None
        if size is not None and size != len(data):
            self.add(
                "OW211",
                f"bytes says {size}, the inline data holds {len(data)}",
                (*path[:-1], "bytes"),
            )
        return data

    def content(self, data: bytes, family: str | None, media_type: str | None, path: Path) -> None:
        """The checks on inline bytes against the family and media type they are said to be.

        Args:
            data: The decoded inline bytes.
            family: The media family (``image``, ``audio``…); None when unknown.
            media_type: The declared media type; None when none was declared.
            path: Where the bytes are in the event document.
        """
        found = sniff(data)
        if found is not None and family in ("image", "audio") and found.family != family:
            self.add("OW219", f"the data is {found.media_type}, not an {family}", path)
            return
        if media_type is None:
            return
        declared = normal_type(media_type)
        if found is None and declared in _SIGNED:
            self.add(
                "OW220",
                f"declared {short(declared)}, but the data does not begin like "
                "one (no known signature)",
                path,
            )
        elif found is not None and declared != found.media_type and declared in _SIGNED:
            self.add(
                "OW220", f"declared {short(declared)}, but the data is {found.media_type}", path
            )

    def url(self, url: str, size: int | None, path: Path) -> None:
        base = self.context.base_url or NO_HOST
        try:
            _resolve(url, MediaPolicy(base_url=base))
        except RefusedURL as refused:
            self.add("OW216", refused.reason + self._unless_host(url), path)
            return
        except ValueError as error:  # a host part no parser reads (an IP literal that is not)
            self.add("OW216", f"{short(url)} cannot be read as a URL ({error})", path)
            return
        if not re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", url.strip()):
            self.add(
                "OW217",
                f"{short(url)} is relative: clients resolve it against the host, "
                "but the schema's format: uri asks for an absolute URI",
                path,
            )
        limit = self.context.max_asset_bytes
        if size is not None and size > limit:
            self.add(
                "OW218",
                f"{human_size(size)} advertised, over the client's download limit "
                f"of {human_size(limit)}: it will not be fetched",
                (*path[:-1], "bytes"),
            )

    def _unless_host(self, url: str) -> str:
        """When the host is unknown and the URL would pass were it the host's own: say so."""
        if self.context.base_url is not None:
            return ""
        try:
            parts = urlsplit(url.strip())
        except ValueError:  # not a URL any parser reads: nothing to add
            return ""
        if not parts.scheme or not parts.netloc:
            return ""
        try:
            _resolve(url, MediaPolicy(base_url=f"{parts.scheme}://{parts.netloc}"))
        except (RefusedURL, ValueError):
            return ""
        return " (unless that is the host this run came from: say so with --host URL)"

    def hint(
        self,
        rendering: Any,
        path: Path,
        kind: str | None,
        payload: Any,
        *,
        lifted: bool = False,
        in_envelope: bool = False,
    ) -> None:
        """The checks on one rendering hint (`lint_hint`).

        Args:
            rendering: The hint as sent.
            path: Where it is in the event document.
            kind: The envelope's kind; None for a lifted hint, whose envelope is not there.
            payload: The envelope's payload; None for a lifted hint.
            lifted: True for a hint beside the envelope (``outputs.rendering``).
            in_envelope: True for an envelope's ``meta.rendering``, whose shape the envelope schema
                checks too.
        """
        lint_hint(self.add, rendering, path, kind, payload, lifted=lifted, in_envelope=in_envelope)
