"""The renderers, and the registry that picks one for each ``meta.rendering.display`` value.

The registry is an object (`openwop_tui.renderers.registry.Registry`) each front end builds
once at start, with the config's override list, and passes to where rendering and fetching are
decided (there is no process-wide default: a test makes its own). `register` declares a
renderer with what it needs (bytes fetched, redraw on resize, its actions) on the function
itself, where a loading registry finds it; `Registry.add` adds one in code, and a key added
twice fails loudly. `render` resolves in the registry it is given and calls, and never raises:
a renderer that fails shows the envelope as JSON with the reason, so nothing is lost; if even
the JSON view fails, a plain text block says so.

What `render` returns is drawn in ``context.palette``: Rich's own named styles (markdown, JSON)
are mapped onto it (`openwop_tui.draw.palette.Themed`), and renderers take every colour from it.
Failures are logged with their traceback at WARNING on this module's logger, which carries a
`logging.NullHandler`: the record reaches a log file the application configured, and never
falls through to Python's last-resort handler, which would print it on the user's terminal.

Third-party renderers come from the ``openwop_tui.renderers`` entry-point group (see
`openwop_tui.renderers.registry`): loaded once, when a registry loads, never mid-session.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

from rich.text import Text

from openwop_tui.draw.palette import Themed
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers._common import fallback_shows
from openwop_tui.renderers.base import (
    Action,
    Asset,
    AudioSupport,
    Code,
    Degradation,
    ImageMode,
    RenderContext,
    Rendered,
    Renderer,
)
from openwop_tui.renderers.guard import Guarded
from openwop_tui.renderers.registry import (
    FALLBACK,
    PluginAction,
    Registry,
    RendererSpec,
    declare,
)
from openwop_tui.text.sanitize import clean

__all__ = [
    "FALLBACK",
    "Action",
    "Asset",
    "AudioSupport",
    "Code",
    "Degradation",
    "ImageMode",
    "PluginAction",
    "Registry",
    "RenderContext",
    "Rendered",
    "Renderer",
    "RendererSpec",
    "register",
    "render",
]

log = logging.getLogger(__name__)
# With no handler anywhere, logging prints WARNING records (and tracebacks) to stderr, which is
# the user's terminal. A NullHandler here stops that and still lets records propagate to a file.
log.addHandler(logging.NullHandler())


def register(
    display: str,
    *,
    name: str = "",
    needs_bytes: bool = False,
    redraw_on_resize: bool = False,
    actions: tuple[PluginAction, ...] = (),
) -> Callable[[Renderer], Renderer]:
    """Decorator: declare the decorated function as the renderer for ``display``, with what it needs
    (see `RendererSpec`).

    It only declares: a registry collects the declarations by scanning the modules it loads (the
    built-ins, and each plugin's entry-point module). Code that is not such a module adds a renderer
    to its own registry with `Registry.add`.

    Args:
        display: The ``meta.rendering.display`` value it draws (the registry key).
        name: A human name ("Image", "Video (acme plugin)"); empty uses the key.
        needs_bytes: True when the client should fetch the envelope's ``url`` (media policy applies)
            and hand the outcome in as `RenderContext.asset`.
        redraw_on_resize: True when it is drawn again as the width changes (it scales to the width,
            as images do).
        actions: What the user can do with what it drew (offered as keys and buttons).
    """

    def decorate(renderer: Renderer) -> Renderer:
        spec = RendererSpec(
            display=display,
            render=renderer,
            name=name,
            needs_bytes=needs_bytes,
            redraw_on_resize=redraw_on_resize,
            actions=actions,
        )
        declare(spec)
        return renderer

    return decorate


def render(envelope: Envelope, context: RenderContext, registry: Registry) -> Rendered:
    """Draw ``envelope`` with the renderer its display value selects in ``registry``. Never
    raises, and what it returns cannot raise when drawn either (`Guarded`)."""
    try:
        spec = registry.spec(envelope.display)
    except Exception as error:  # a registry that cannot load: nothing is drawn by it
        log.warning("the renderer registry failed", exc_info=True)
        return _text_only(f"the renderer registry failed: {_error_text(error)}", context)
    name = spec.display
    try:
        renderer = spec.render
        rendered = renderer(envelope, context)
        palette = context.palette
        unknown = None
        if name == FALLBACK and envelope.display is not None and envelope.display != FALLBACK:
            # The JSON view shows a reply's text above the JSON (`renderers.json`).
            instead = fallback_shows(envelope)
            unknown = Degradation(
                code=Code.UNKNOWN_DISPLAY,
                reason=f"no renderer for display {_shown(envelope.display)!r}: shown as {instead}",
                cause=f"no {_shown(envelope.display)[:24]} renderer",
                instead=instead,
            )
        hint = None
        if envelope.hint_set_aside is not None:
            # RFC 0055 §B/§C: the hint is advisory and the type selects the payload, so the
            # type's renderer drew it; the badge says which hint was set aside, and why.
            asked, kind = _shown(envelope.hint_set_aside), _shown(envelope.kind)
            hint = Degradation(
                code=Code.HINT_SET_ASIDE,
                reason=(
                    f"the rendering hint {asked!r} does not fit a {kind} envelope: "
                    f"drawn as {name}, since the hint never overrides the type"
                ),
                cause=f"hint {asked[:24]} unfit for {kind[:32]}",
                instead=name,
            )
        declared = tuple(
            action.action
            for action in spec.actions
            if all(action.name != offered.name for offered in rendered.actions)
        )
        return replace(
            rendered,
            actions=rendered.actions + declared,
            renderer=rendered.renderer or name,
            fallback=rendered.fallback or unknown,
            hint=rendered.hint or hint,
            body=Guarded(Themed(rendered.body, palette), rendered.title, palette.error),
            caption=None
            if rendered.caption is None
            else Guarded(Themed(rendered.caption, palette), "caption", palette.error),
        )
    except Exception as error:  # the last line of defence: show the JSON and the reason
        log.warning("renderer for %r failed", _shown(envelope.display), exc_info=True)
        reason = f"the {_shown(envelope.display)} renderer failed: {_error_text(error)}"
    try:
        fallback = registry.resolve(FALLBACK)(envelope, context)
        palette = context.palette
        body = Guarded(Themed(fallback.body, palette), fallback.title, palette.error)
        why = Degradation(
            code=Code.RENDERER_FAILED, reason=reason, cause="renderer failed", instead="JSON"
        )
        return Rendered(
            title=fallback.title,
            body=body,
            degradation=why,
            data=fallback.data,
            renderer=FALLBACK,
        )
    except Exception:
        log.warning("the JSON fallback failed too", exc_info=True)
        return _text_only(f"{reason}, and its JSON view failed too", context)


def _text_only(reason: str, context: RenderContext) -> Rendered:
    """The last resort: one line saying why the envelope is not shown."""
    return Rendered(
        title="envelope not shown",
        body=Text(f"This envelope cannot be shown: {reason}.", style=context.palette.error),
        degradation=Degradation(
            code=Code.RENDERER_FAILED, reason=reason, cause="renderer failed", instead="text"
        ),
        renderer="text",
    )


def _error_text(error: Exception) -> str:
    """``Type: message``, the message cleaned and cut (it may quote host text)."""
    try:
        message = clean(str(error))[:200]
    except Exception:  # a broken __str__
        message = ""
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def _shown(display: object) -> str:
    """A display value for a message: cleaned, short (it is the host's)."""
    return clean(str(display))[:80] if display is not None else "JSON"
