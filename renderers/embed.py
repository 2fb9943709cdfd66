"""The ``embed`` renderer: an OpenClaw web canvas, described, never run.

OpenClaw's Control UI draws ``[embed ref=… /]`` / ``[embed url=… /]`` and stored canvas blocks
(``{"type": "canvas", "preview": {…}}``) as a live web view. A terminal cannot run one, so this
draws what it is (title, ref, URL, preferred height), says so (`Code.NOT_RUN`), and offers
``open`` to look at it in a browser when the URL is a public ``https:`` one (the same policy as a
``MEDIA:`` reference; the reason is shown when it is not). Active content that arrived as text
(a block-form HTML embed, the retired ``[view …]``) gets a small note saying it was not run.
Pure, like every renderer: opening is the app's business.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers import register
from openwop_tui.renderers._common import block, degradation
from openwop_tui.renderers.base import Action, Code, RenderContext, Rendered
from openwop_tui.text.redact import display_url
from openwop_tui.text.sanitize import clean, clean_label

OPEN_IN_BROWSER = Action("open", "Open in browser")

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")

#: Shown with every canvas: why it is a description here.
NOT_RUN_NOTE = "a terminal cannot run the web canvas: open it in a browser"


def _text(preview: Mapping[str, Any], key: str, limit: int = 2048) -> str | None:
    value = preview.get(key)
    if not isinstance(value, str) or not value.strip():
        return None
    # A URL is shown without its user:password@ (the link check still sees it, and refuses).
    shown = clean(display_url(value.strip()) if key == "url" else value.strip())
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def _inert(payload: Mapping[str, Any], context: RenderContext) -> Rendered:
    form = "[view …]" if payload.get("form") == "view" else "HTML embed"
    reason = _text(payload, "reason") or f"{form} shown as text, not run"
    written = _text(payload, "text", 200)
    rows = [("form", form), ("as written", written), ("why", reason)]
    return Rendered(
        title=f"embed · {form} not run",
        body=block(f"{form} · shown as text", rows, context.palette.degraded_border),
        degradation=degradation(Code.NOT_RUN, reason, instead="text"),
    )


@register("embed", name="Embed")
def render_embed(envelope: Envelope, context: RenderContext) -> Rendered:
    """Describe a canvas embed and offer to open it in a browser."""
    payload = envelope.payload if isinstance(envelope.payload, Mapping) else {}
    if payload.get("type") == "openclaw.inert":
        return _inert(payload, context)
    preview = payload.get("preview")
    preview = preview if isinstance(preview, Mapping) else payload
    raw_title = preview.get("title")
    title = clean_label(raw_title.strip())[:200] if isinstance(raw_title, str) else None
    title = title or envelope.rendering.title or None
    ref = _text(preview, "viewId", 200) or _text(preview, "ref", 200)
    url = _text(preview, "url")
    height = preview.get("preferredHeight")
    height_text = (
        f"{height} px preferred"
        if isinstance(height, int) and not isinstance(height, bool) and 0 < height <= 100_000
        else None
    )
    # Only an absolute public https: URL is offered to a browser; the rest say why not.
    raw = preview["url"].strip() if url and isinstance(preview["url"], str) else None
    allowed, refused = (None, None)
    if raw is not None and context.link_check is not None:
        allowed, refused = context.link_check(raw)
    openable = allowed is not None
    if url is None:
        where = "no URL: the canvas is only on the agent's own UI"
    elif openable:
        where = "press o to open it in a browser"
    elif _SCHEME.match(url) is None:
        where = "not opened here: the URL is relative to the agent's own UI"
    elif context.link_check is None:
        where = "not opened here: the link was not checked (shown offline)"
    else:
        reason = clean(refused) if refused else "not a URL"
        where = f"not opened here: {reason.removeprefix('refused: ')}"
    rows = [
        ("title", title),
        ("ref", ref),
        ("url", url),
        ("height", height_text),
        ("note", NOT_RUN_NOTE),
        ("open", where),
    ]
    name = title or ref or "canvas"
    return Rendered(
        title=" · ".join(part for part in ("embed", name) if part),
        body=block(f"embed · {name}", rows, context.palette.border),
        actions=(OPEN_IN_BROWSER,) if openable else (),
        degradation=degradation(
            Code.NOT_RUN,
            "a terminal cannot run the web canvas; it is described instead",
            cause="web canvas",
            instead="description",
            reference=allowed,
        ),
        media_type="text/html",
    )
