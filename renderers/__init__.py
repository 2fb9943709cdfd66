"""The renderers, and the registry that picks one for each ``meta.rendering.display`` value.

The registry is an object (`openwop_tui.renderers.registry.Registry`) the application builds
once at start, with the config's override list, and passes to where rendering and fetching are
decided; the functions here (`register`, `resolve`, `render`, `registered`, `needs_bytes`,
`redraw_on_resize`) work on a process-wide default one, for code and tests that do not carry a
registry. `register` declares a renderer with what it needs (bytes fetched, redraw on resize,
its actions); a key registered twice fails loudly. `render` resolves and calls, and never
raises: a renderer that fails shows the envelope as JSON with the reason, so nothing is lost; if
even the JSON view fails, a plain text block says so.

What `render` returns is drawn in ``context.palette``: Rich's own named styles (markdown, JSON)
are mapped onto it (`openwop_tui.palette.Themed`), and renderers take every colour from it.
Failures are logged with their traceback at WARNING on this module's logger, which carries a
`logging.NullHandler`: the record reaches a log file the application configured, and never
falls through to Python's last-resort handler, which would print it on the user's terminal.

Third-party renderers come from the ``openwop_tui.renderers`` entry-point group (see
`openwop_tui.renderers.registry`): loaded once, when a registry loads, never mid-session.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import replace

from rich.text import Text

from openwop_tui.palette import Themed
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
    loading,
)
from openwop_tui.sanitize import clean

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
    "default_registry",
    "needs_bytes",
    "redraw_on_resize",
    "register",
    "registered",
    "render",
    "resolve",
]

log = logging.getLogger(__name__)
# With no handler anywhere, logging prints WARNING records (and tracebacks) to stderr, which is
# the user's terminal. A NullHandler here stops that and still lets records propagate to a file.
log.addHandler(logging.NullHandler())

_default: Registry | None = None
_pending: list[RendererSpec] = []
"""Renderers registered in code before the default registry was first used."""
_default_lock = threading.RLock()


def default_registry() -> Registry:
    """The process-wide registry (built-ins and installed plugins, no overrides) the module
    functions use. The app and the commands build their own, with the config's overrides."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                registry = Registry().load()
                for spec in _pending:
                    # A built-in module imported before the first use declared itself here
                    # too: the registry found the very same spec by scanning it.
                    if not registry.holds(spec):
                        registry.add(spec)
                _pending.clear()
                # No user interface here to show them on: they go to the log file.
                for notice in registry.notices:
                    log.warning("%s", notice)
                _default = registry
    return _default


def register(
    display: str,
    *,
    name: str = "",
    needs_bytes: bool = False,
    redraw_on_resize: bool = False,
    actions: tuple[PluginAction, ...] = (),
) -> Callable[[Renderer], Renderer]:
    """Decorator: declare the decorated function as the renderer for ``display``, with what it
    needs (see `RendererSpec`).

    In a module a registry is loading (a built-in, or a plugin's entry-point module) this only
    declares: registries collect declarations by scanning those modules. Called anywhere else,
    it also adds the renderer to the default registry (at its first use, if that is still to
    come), and a key registered twice raises `ValueError`."""

    def decorate(renderer: Renderer) -> Renderer:
        spec = RendererSpec(
            display=display,
            render=renderer,
            name=name,
            needs_bytes=needs_bytes,
            redraw_on_resize=redraw_on_resize,
            actions=actions,
        )
        if not loading():
            # Not loaded yet: kept for its first use (loading it now could import a module
            # that is half imported, the one calling this).
            with _default_lock:
                if _default is None:
                    _pending.append(spec)
                else:
                    _default.add(spec)  # raises on a key registered twice
        declare(spec)
        return renderer

    return decorate


def registered() -> list[str]:
    """The display values that have a renderer (built-ins, then plugins)."""
    return default_registry().registered()


def resolve(display: str | None) -> Renderer:
    """The renderer for ``display``; the raw-JSON fallback for ``None`` or an unknown value."""
    return default_registry().resolve(display)


def needs_bytes(display: str | None) -> bool:
    """Whether the default registry's renderer for ``display`` needs its URL fetched."""
    return default_registry().needs_bytes(display)


def redraw_on_resize(display: str | None) -> bool:
    """Whether the default registry's renderer for ``display`` redraws on a width change."""
    return default_registry().redraw_on_resize(display)


def render(
    envelope: Envelope, context: RenderContext, registry: Registry | None = None
) -> Rendered:
    """Draw ``envelope`` with the renderer its display value selects in ``registry`` (the
    default one when ``None``). Never raises, and what it returns cannot raise when drawn
    either (`Guarded`)."""
    try:
        registry = registry or default_registry()
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
