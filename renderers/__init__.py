"""The renderer registry, keyed on ``meta.rendering.display``.

`register` fills the registry (registering a key twice fails loudly at import time); `resolve`
returns the renderer for a display value, or the raw-JSON fallback for an absent or unknown one;
`render` resolves and calls, and never raises: a renderer that fails shows the envelope as JSON
with the error, so nothing is lost.

Third-party renderers can be added through the ``openwop_tui.renderers`` entry-point group: each
entry point names a module that calls `register` when imported. They are loaded lazily, the first
time a display value is not found among the built-in ones.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from importlib import import_module
from importlib.metadata import entry_points

from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers.base import (
    Action,
    Asset,
    AudioSupport,
    ImageMode,
    RenderContext,
    Rendered,
    Renderer,
)

__all__ = [
    "FALLBACK",
    "Action",
    "Asset",
    "AudioSupport",
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

#: The registry key of the raw-JSON fallback.
FALLBACK = "json"

_REGISTRY: dict[str, Renderer] = {}
_BUILTINS = ("markdown", "code", "card", "image", "audio", "file", "json")
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
    """Draw ``envelope`` with the renderer its display value selects. Never raises."""
    renderer = resolve(envelope.display)
    try:
        return renderer(envelope, context)
    except Exception as error:  # the last line of defence: show the JSON and the reason
        log.exception("renderer for %r failed", envelope.display)
        fallback = _REGISTRY[FALLBACK](envelope, context)
        reason = f"the {envelope.display} renderer failed: {type(error).__name__}: {error}"
        return Rendered(
            title=fallback.title,
            body=fallback.body,
            degraded=reason,
            data=fallback.data,
        )
