"""The renderer registry as an object the application owns.

A `Registry` maps a ``meta.rendering.display`` value to a `RendererSpec`: the callable that
draws it and what it declares it needs. The rest of the client asks the registry instead of
keeping lists of display families of its own:

* `needs_bytes` decides which envelopes get their ``url`` fetched (under the media policy of
  `openwop_tui.protocol.media`), so a plugin ``video`` renderer receives its file as
  `RenderContext.asset` like the built-in image renderer does;
* `redraw_on_resize` decides which items are drawn again when the width changes;
* `actions` / `run_action` offer a renderer's own actions and carry them out.

Plugins come from the ``openwop_tui.renderers`` entry-point group and are loaded ONCE, by
`load`, in a defined order: sorted by entry-point name, then distribution, then value. Each entry
point is either a module whose renderers are declared with `openwop_tui.renderers.register`, or
a callable returning `RendererSpec` objects (one or an iterable). For one display value the
first claim wins; a plugin that names a built-in key replaces it only when the key is listed in
``override`` (``[renderers] override = [...]`` in the config), and is refused otherwise. Every
one of these outcomes, and a plugin that fails to import, leaves one line in `notices`, which
the app shows at start and the commands print on stderr: a plugin never changes what the
user sees without saying so, and never shows a traceback.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import import_module
from importlib.metadata import EntryPoint, entry_points
from types import ModuleType
from typing import Any

from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers.base import Action, Rendered, Renderer
from openwop_tui.text.sanitize import clean

__all__ = [
    "APP_ACTIONS",
    "BUILTIN_MODULES",
    "ENTRY_POINT_GROUP",
    "FALLBACK",
    "ActionHandler",
    "PluginAction",
    "Registry",
    "RendererSpec",
    "declarations",
    "declare",
    "loading",
]

#: The entry-point group plugins register renderers under.
ENTRY_POINT_GROUP = "openwop_tui.renderers"

#: The registry key of the raw-JSON fallback.
FALLBACK = "json"

#: The modules of the built-in renderers, in the order they are loaded.
BUILTIN_MODULES = ("markdown", "code", "card", "image", "audio", "file", "embed", "json")

#: Actions the app carries out itself (with the rendered bytes or text); any other name a
#: renderer declares is carried out by the handler its `PluginAction` names.
APP_ACTIONS = frozenset({"play", "stop", "save", "open", "copy", "copy-code", "inspect"})

#: What a renderer's own action does: given the envelope and what was drawn, it returns the one
#: line shown to the user. It runs in a worker thread; an exception becomes a notice.
ActionHandler = Callable[[Envelope, Rendered], str]

_ATTRIBUTE = "__openwop_renderers__"
"""Where `declare` leaves a renderer's specs on its function, so a registry can find them by
scanning a module, however many registries there are and whenever the module was imported."""


@dataclass(frozen=True, slots=True)
class PluginAction:
    """An action a renderer offers: ``name`` (dispatched), ``label`` (the button), ``key`` (a
    single letter or digit that runs it on the selected item; the view's own keys win), and
    ``handler`` for a name the app does not know (`APP_ACTIONS` are carried out by the app and
    need none). Every item drawn by the renderer offers its declared actions."""

    name: str
    label: str
    key: str | None = None
    handler: ActionHandler | None = None

    @property
    def action(self) -> Action:
        """The plain `Action` a `Rendered` carries."""
        return Action(self.name, self.label, self.key)


@dataclass(frozen=True, slots=True)
class RendererSpec:
    """What a renderer is and what it needs from the client."""

    display: str
    """The ``meta.rendering.display`` value it draws (the registry key)."""
    render: Renderer
    name: str = ""
    """A human name ("Image", "Video (acme plugin)"); the key when empty."""
    needs_bytes: bool = False
    """The client fetches the envelope's ``url`` (media policy applies) and hands the outcome
    in as `RenderContext.asset`."""
    redraw_on_resize: bool = False
    """Drawn again when the width changes (it scales to the width, as images do)."""
    actions: tuple[PluginAction, ...] = ()
    """What the user can do with what it drew (offered as keys and buttons)."""

    @property
    def title(self) -> str:
        return self.name or self.display


_importing = threading.local()
"""How deep this thread is in a registry's loading (imports of built-in and plugin modules)."""


def loading() -> bool:
    """Whether a registry is importing renderer modules in this thread right now: their
    `openwop_tui.renderers.register` calls only declare; the registry collects them."""
    return bool(getattr(_importing, "depth", 0))


def declare(spec: RendererSpec) -> None:
    """Record ``spec`` on its renderer function, where `Registry` scans modules for it."""
    found: list[RendererSpec] = list(getattr(spec.render, _ATTRIBUTE, ()))
    found.append(spec)
    setattr(spec.render, _ATTRIBUTE, tuple(found))


def declarations(module: ModuleType) -> list[RendererSpec]:
    """The specs declared on the functions of ``module``, in definition order."""
    specs: list[RendererSpec] = []
    for value in list(vars(module).values()):
        found = getattr(value, _ATTRIBUTE, None)
        if isinstance(found, tuple):
            specs.extend(spec for spec in found if isinstance(spec, RendererSpec))
    return specs


class Registry:
    """Display value -> `RendererSpec`: the built-ins, then plugins, loaded once by `load`."""

    def __init__(
        self,
        *,
        override: Iterable[str] = (),
        plugins: bool = True,
        entry_points: Callable[[], Iterable[EntryPoint]] | None = None,
    ) -> None:
        """``override`` lists the built-in keys a plugin may replace (from the config);
        ``plugins=False`` loads the built-ins only; ``entry_points`` replaces the installed
        entry points of `ENTRY_POINT_GROUP` (tests)."""
        self.override = frozenset(override)
        self._plugins = plugins
        self._entry_points = entry_points or _installed
        self._specs: dict[str, RendererSpec] = {}
        self._origin: dict[str, str] = {}
        """Who provided each key: "built-in" or "plugin <entry point name>"."""
        self._notices: list[str] = []
        self._loaded = False
        # The app renders in worker threads, so the first lookups can race: loading happens
        # under a lock, and ``_loaded`` is set only once everything is in.
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ loading

    def load(self) -> Registry:
        """Load the built-ins and the plugins (once; later calls do nothing)."""
        if self._loaded:
            return self
        with self._lock:
            if self._loaded:
                return self
            _importing.depth = getattr(_importing, "depth", 0) + 1
            try:
                for name in BUILTIN_MODULES:
                    module = import_module(f"openwop_tui.renderers.{name}")
                    for spec in declarations(module):
                        # Only its own: a built-in may import another one's function.
                        if spec.render.__module__ == module.__name__:
                            self._add(spec)
                if self._plugins:
                    for entry in self._listed():
                        self._load_plugin(entry)
            finally:
                _importing.depth -= 1
            self._loaded = True
        return self

    def add(self, spec: RendererSpec) -> None:
        """Add a renderer in code (not a plugin): a key registered twice fails loudly."""
        self.load()
        self._add(spec)

    def _add(self, spec: RendererSpec) -> None:
        with self._lock:
            if spec.display in self._specs:
                raise ValueError(f"a renderer for display {spec.display!r} is already registered")
            self._specs[spec.display] = spec
            self._origin[spec.display] = "built-in"

    def _listed(self) -> list[EntryPoint]:
        """The plugins' entry points in load order; none (and a notice) when the installed
        distributions' metadata cannot be read."""
        try:
            return sorted(self._entry_points(), key=_order)
        except Exception as error:  # broken metadata of some installed distribution
            self._notices.append(
                f"renderer plugins could not be listed ({_error_text(error)}); none is used"
            )
            return []

    def _load_plugin(self, entry: EntryPoint) -> None:
        who = f"renderer plugin {_shown(entry.name)!r}"
        try:
            specs = _specs_of(entry.load())
        except Exception as error:  # a broken plugin must not break the client
            self._notices.append(f"{who} failed to load ({_error_text(error)}); it is not used")
            return
        if not specs:
            self._notices.append(f"{who} declares no renderers; it is not used")
        for spec in specs:
            self._claim(spec, entry.name, who)

    def _claim(self, spec: RendererSpec, plugin: str, who: str) -> None:
        key = spec.display
        if not isinstance(key, str) or not key or not callable(spec.render):
            self._notices.append(f"{who} offers a renderer without a display name or a function")
            return
        shown = _shown(key)
        origin = self._origin.get(key)
        if origin is None:
            self._specs[key] = spec
            self._origin[key] = f"plugin {plugin}"
        elif origin != "built-in":
            self._notices.append(
                f"{who} offers a {shown!r} renderer, already provided by {_shown(origin)}: "
                "refused (the first plugin in name order keeps it)"
            )
        elif key in self.override:
            self._specs[key] = spec
            self._origin[key] = f"plugin {plugin}"
            self._notices.append(
                f"{who} replaces the built-in {shown!r} renderer (renderers.override in the config)"
            )
        else:
            self._notices.append(
                f"{who} wants to replace the built-in {shown!r} renderer: refused; allow it with "
                f'[renderers] override = ["{shown}"] in the config'
            )

    @property
    def notices(self) -> list[str]:
        """One line per thing a user should know about the plugins (refused, replaced,
        broken), in load order (loading first, if that is still to do)."""
        self.load()
        return list(self._notices)

    # ------------------------------------------------------------------ questions

    def spec(self, display: str | None) -> RendererSpec:
        """The spec that draws ``display``: the raw-JSON fallback for ``None`` or an unknown
        value."""
        self.load()
        if display is not None and display in self._specs:
            return self._specs[display]
        return self._specs[FALLBACK]

    def key(self, display: str | None) -> str:
        """The registry key that draws ``display`` (the fallback's for an absent or unknown
        one)."""
        return self.spec(display).display

    def resolve(self, display: str | None) -> Renderer:
        """The renderer for ``display``; the raw-JSON fallback for ``None`` or an unknown one."""
        return self.spec(display).render

    def holds(self, spec: RendererSpec) -> bool:
        """Whether ``spec`` itself is registered (not merely a spec for its key)."""
        self.load()
        return self._specs.get(spec.display) is spec

    def registered(self) -> list[str]:
        """The display values that have a renderer (built-ins, then plugins)."""
        self.load()
        return list(self._specs)

    def origin(self, display: str) -> str:
        """``"built-in"`` or ``"plugin <name>"`` for a registered key."""
        self.load()
        return self._origin[display]

    def needs_bytes(self, display: str | None) -> bool:
        """Whether an envelope drawn as ``display`` gets its ``url`` fetched. An unknown display
        is drawn as JSON, which needs none."""
        return self.spec(display).needs_bytes

    def redraw_on_resize(self, display: str | None) -> bool:
        """Whether an item drawn as ``display`` is drawn again when the width changes."""
        return self.spec(display).redraw_on_resize

    def action(self, renderer: str, name: str) -> PluginAction | None:
        """The declaration of action ``name`` of the renderer registered as ``renderer``."""
        self.load()
        spec = self._specs.get(renderer)
        if spec is None:
            return None
        return next((action for action in spec.actions if action.name == name), None)

    def run_action(self, renderer: str, name: str, envelope: Envelope, rendered: Rendered) -> str:
        """Carry out a renderer's own action; the one line to show.

        Never raises: a missing handler or a failing one is said in that line (blocking: run it in a
        thread).

        Args:
            renderer: The renderer's display key.
            name: The action's name.
            envelope: The envelope the action is on.
            rendered: What the renderer drew of it.
        """
        declared = self.action(renderer, name)
        label = _shown(name)
        if declared is None or declared.handler is None:
            return f"the {_shown(renderer)} renderer offers {label!r} but cannot carry it out"
        try:
            message = declared.handler(envelope, rendered)
        except Exception as error:  # the plugin's code: its failure is a sentence
            return f"{label} failed in the {_shown(renderer)} renderer: {_error_text(error)}"
        return _shown(message, 300) if message else f"{label}: done"


def _installed() -> Iterable[EntryPoint]:
    return entry_points(group=ENTRY_POINT_GROUP)


def _order(entry: EntryPoint) -> tuple[str, str, str]:
    dist = getattr(entry, "dist", None)
    return (entry.name, getattr(dist, "name", "") or "", entry.value)


def _specs_of(loaded: Any) -> list[RendererSpec]:
    """What an entry point provides: a module's declarations, or a callable's specs."""
    if isinstance(loaded, ModuleType):
        # A plugin module may import a built-in renderer to wrap it: that is not a claim.
        return [
            spec
            for spec in declarations(loaded)
            if not getattr(spec.render, "__module__", "").startswith("openwop_tui.renderers.")
        ]
    if not callable(loaded):
        raise TypeError(f"expected a module or a callable, got {type(loaded).__name__}")
    produced = loaded()
    items = [produced] if isinstance(produced, RendererSpec) else list(produced)
    wrong = [item for item in items if not isinstance(item, RendererSpec)]
    if wrong:
        raise TypeError(f"returned {type(wrong[0]).__name__}, not RendererSpec")
    return items


def _error_text(error: BaseException) -> str:
    """``Type: message``, cleaned, on one line and cut (it may quote anything)."""
    try:
        message = _shown(error, 200)
    except Exception:  # a broken __str__
        message = ""
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def _shown(value: object, limit: int = 80) -> str:
    """Plugin-given text for a notice: cleaned, on one line, cut."""
    return " ".join(clean(str(value)).split())[:limit]
