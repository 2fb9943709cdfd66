"""The renderer registry, keyed on ``meta.rendering.display``.

`register` fills the registry (registering a key twice fails loudly at import time); `resolve`
returns the renderer for a display value, or the raw-JSON fallback for an absent or unknown one;
`render` resolves and calls, and never raises: a renderer that fails shows the envelope as JSON
with the reason, so nothing is lost; if even the JSON view fails, a plain text block says so.
What `render` returns is drawn in ``context.palette``: Rich's own named styles (markdown, JSON)
are mapped onto it (`openwop_tui.palette.Themed`), and renderers take every colour from it.
Failures are logged with their traceback at WARNING on this module's logger, which carries a
`logging.NullHandler`: the record reaches a log file the application configured, and never
falls through to Python's last-resort handler, which would print it on the user's terminal.

Third-party renderers can be added through the ``openwop_tui.renderers`` entry-point group: each
entry point names a module that calls `register` when imported. They are loaded lazily, the first
time a display value is not found among the built-in ones.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import replace
from importlib import import_module
from importlib.metadata import entry_points

from rich.text import Text

from openwop_tui.palette import Themed
from openwop_tui.protocol.envelopes import Envelope
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
from openwop_tui.sanitize import clean

__all__ = [
    "FALLBACK",
    "Action",
    "Asset",
    "AudioSupport",
    "Code",
    "Degradation",
    "ImageMode",
    "RenderContext",
    "Rendered",
    "Renderer",
    "register",
    "registered",
    "render",
    "resolve",
]

log = logging.getLogger(__name__)
# With no handler anywhere, logging prints WARNING records (and tracebacks) to stderr, which is
# the user's terminal. A NullHandler here stops that and still lets records propagate to a file.
log.addHandler(logging.NullHandler())

#: The registry key of the raw-JSON fallback.
FALLBACK = "json"

_REGISTRY: dict[str, Renderer] = {}
_BUILTINS = ("markdown", "code", "card", "image", "audio", "file", "embed", "json")
_state = {"builtins": False, "plugins": False}
# The app renders in worker threads, so the first lookups can race: loading happens under a
# lock, and the "loaded" flag is set only once every module has registered itself.
_loading = threading.RLock()


def register(display: str) -> Callable[[Renderer], Renderer]:
    """Decorator: make the decorated function the renderer for ``display``."""

    def decorate(renderer: Renderer) -> Renderer:
        if display in _REGISTRY:
            raise ValueError(f"a renderer for display {display!r} is already registered")
        _REGISTRY[display] = renderer
        return renderer

    return decorate


def _load_builtins() -> None:
    if _state["builtins"]:
        return
    with _loading:
        if not _state["builtins"]:
            for name in _BUILTINS:
                import_module(f"{__name__}.{name}")
            _state["builtins"] = True


def _load_plugins() -> None:
    if _state["plugins"]:
        return
    with _loading:
        if _state["plugins"]:
            return
        for entry in entry_points(group="openwop_tui.renderers"):
            try:
                entry.load()
            except Exception as error:  # a broken plugin must not break the client
                log.warning("renderer plugin %s failed to load: %s", entry.name, error)
        _state["plugins"] = True


def registered() -> list[str]:
    """The display values that have a renderer (built-ins, then plugins)."""
    _load_builtins()
    return list(_REGISTRY)


def resolve(display: str | None) -> Renderer:
    """The renderer for ``display``; the raw-JSON fallback for ``None`` or an unknown value."""
    _load_builtins()
    if display is None:
        return _REGISTRY[FALLBACK]
    if display not in _REGISTRY:
        _load_plugins()
    return _REGISTRY.get(display, _REGISTRY[FALLBACK])


def render(envelope: Envelope, context: RenderContext) -> Rendered:
    """Draw ``envelope`` with the renderer its display value selects. Never raises, and what it
    returns cannot raise when drawn either (`Guarded`)."""
    name = _key(envelope.display)
    try:
        renderer = resolve(envelope.display)
        rendered = renderer(envelope, context)
        palette = context.palette
        unknown = None
        if name == FALLBACK and envelope.display is not None and envelope.display != FALLBACK:
            unknown = Degradation(
                code=Code.UNKNOWN_DISPLAY,
                reason=f"no renderer for display {_shown(envelope.display)!r}: shown as JSON",
                cause=f"no {_shown(envelope.display)[:24]} renderer",
                instead="JSON",
            )
        return replace(
            rendered,
            renderer=rendered.renderer or name,
            fallback=rendered.fallback or unknown,
            body=Guarded(Themed(rendered.body, palette), rendered.title, palette.error),
            caption=None
            if rendered.caption is None
            else Guarded(Themed(rendered.caption, palette), "caption", palette.error),
        )
    except Exception as error:  # the last line of defence: show the JSON and the reason
        log.warning("renderer for %r failed", _shown(envelope.display), exc_info=True)
        reason = f"the {_shown(envelope.display)} renderer failed: {_error_text(error)}"
    try:
        fallback = _REGISTRY[FALLBACK](envelope, context)
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
        return Rendered(
            title="envelope not shown",
            body=Text(
                f"This envelope cannot be shown: {reason}, and its JSON view failed too.",
                style=context.palette.error,
            ),
            degradation=Degradation(
                code=Code.RENDERER_FAILED, reason=reason, cause="renderer failed", instead="text"
            ),
            renderer="text",
        )


def _key(display: str | None) -> str:
    """The registry key that draws ``display`` (the fallback's for an absent or unknown one)."""
    _load_builtins()
    if display is not None and display not in _REGISTRY:
        _load_plugins()
    return display if display is not None and display in _REGISTRY else FALLBACK


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
