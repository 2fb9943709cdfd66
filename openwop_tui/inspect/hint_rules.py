"""The rules of a rendering hint (``meta.rendering``, or one lifted to ``outputs.rendering``).

RFC 0055 §B and ``ai-envelope.md`` §"Rendering hints": ``display`` is one of six values (a vendor
value falls back everywhere else; one without a vendor prefix is likely a mistake), the hint
never overrides the envelope's ``type`` (a ``media.image`` hinted ``code`` is still an image),
media SHOULD carry ``alt``, and a media hint on a payload with nothing to show is a broken
promise. Every field of the hint is a string (``display: 42`` tells a consumer
nothing), and a display under a namespace the protocol owns (``media.video``) is none of its six
nor a vendor's. Pure; `lint_hint` reports through the caller's ``add``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from openwop_tui.inspect.kinds import display_verdict
from openwop_tui.inspect.schemas import kind_of, short
from openwop_tui.protocol.envelopes import KNOWN_DISPLAYS, MEDIA_DISPLAYS, MEDIA_KINDS

Path = tuple[str | int, ...]
Add = Callable[[str, str, Path], None]

#: A vendor display value: ``x-acme-globe``, ``acme.globe``, ``vendor.acme.globe``.
_VENDOR = re.compile(r"x-[a-z0-9][a-z0-9-]*|[a-z0-9][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)+", re.I)
#: The hint's keys (closed), each a string.
HINT_KEYS = ("display", "mimeType", "lang", "alt", "title")


def has_data(payload: Mapping[str, Any]) -> bool:
    """Whether a payload carries media: a non-empty ``url`` or ``base64``."""
    return any(isinstance(payload.get(k), str) and payload.get(k) for k in ("url", "base64"))


def lint_hint(
    add: Add,
    rendering: Any,
    path: Path,
    kind: str | None,
    payload: Any,
    *,
    lifted: bool = False,
    in_envelope: bool = False,
) -> None:
    """Check one rendering hint of an envelope.

    Args:
        add: Records a finding: code, message, path.
        rendering: The hint as sent.
        path: Where the hint is in the event document.
        kind: The envelope's kind; None for a lifted hint, whose envelope is not there.
        payload: The envelope's payload; None for a lifted hint.
        lifted: True for a hint beside the envelope (``outputs.rendering``).
        in_envelope: True when the hint is an envelope's ``meta.rendering``, whose shape the
            envelope schema checks too.
    """
    family = kind.removeprefix("media.") if kind in MEDIA_KINDS else None
    if not isinstance(rendering, Mapping):
        if rendering is not None and not in_envelope:
            add("OW305", f"the rendering hint is {kind_of(rendering)}, not an object", path)
        if family is None or rendering is not None:
            return  # absent is fine; in an envelope the wrong type is the schema's finding
        rendering = {}  # a media kind without a hint still owes its alt
    for key in HINT_KEYS:
        value = rendering.get(key)
        if value is not None and not isinstance(value, str):
            # Consumers drop it (a renderer cannot key on 42): the hint says nothing.
            add(
                "OW305",
                f"{key} is {kind_of(value)} ({short(value)}), not a string",
                (*path, key),
            )
    if lifted:
        for key in rendering:
            if key not in HINT_KEYS:
                add(
                    "OW202",
                    f"{short(key)} is not allowed in a rendering hint",
                    (*path, str(key)),
                )
    display = rendering.get("display")
    if not isinstance(display, str):
        display = None  # said above (OW305); a list or an object is not even hashable
    verdict = display_verdict(display) if display is not None else None
    if verdict is not None:
        add(*verdict, (*path, "display"))
    elif isinstance(display, str) and display not in KNOWN_DISPLAYS:
        if _VENDOR.fullmatch(display):
            add(
                "OW301",
                f"display {short(display)} is a vendor value: other consumers "
                "fall back to their default rendering",
                (*path, "display"),
            )
        else:
            add(
                "OW300",
                f"display {short(display)} is not one of RFC 0055's six and "
                "has no vendor prefix (the schema's enum rejects it)",
                (*path, "display"),
            )
    if family and isinstance(display, str) and display in KNOWN_DISPLAYS and display != family:
        add(
            "OW302",
            f"display {display!r} on a {kind}: the type wins, a consumer draws it as {family}",
            (*path, "display"),
        )
    media_shown = family is not None or display in MEDIA_DISPLAYS
    has_alt = isinstance(rendering.get("alt"), str) and rendering.get("alt")
    in_payload = isinstance(payload, Mapping) and isinstance(payload.get("alt"), str)
    if media_shown and not has_alt and not in_payload and not lifted:
        add(
            "OW303",
            "no alt text: an image, audio clip or file SHOULD carry one",
            (*path, "alt"),
        )
    if (
        family is None
        and display in MEDIA_DISPLAYS
        and not lifted
        and not (isinstance(payload, Mapping) and has_data(payload))
    ):
        add(
            "OW304",
            f"display {display!r}, but the payload has no url or base64",
            (*path, "display"),
        )
