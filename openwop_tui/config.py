"""Typed, strict settings, built once in ``__main__`` and injected.

Sources, later ones winning: defaults, the TOML file (``$XDG_CONFIG_HOME/openwop-tui/config.toml``
or ``--config``), the environment (``OPENWOP_BASE_URL``, ``OPENWOP_API_KEY``: the names the SDK and
conformance suite use), then command-line flags. Unknown keys in the file are an error, not a
silent typo. Nothing is read at import time.

The API key has one more source, between the environment and the file: the system keychain's
entry for the host (`openwop_tui.keychain`, where the settings screen keeps a key). So a key is
taken from, first to last: ``--api-key`` (or ``--api-key-file``, ``--api-key -``), then
``OPENWOP_API_KEY``, then the keychain's entry for the host in use, then ``api_key`` in the
config file. `Config.key_from` says which it was (``openwop-tui doctor`` shows it).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

# Plain values only: ``--version`` and ``--help`` import this module, and nothing else.
from openwop_tui.core.limits import EVENTS_SHOWN, REASONING_BYTES, REPLY_BYTES, TOOL_BYTES, Limits
from openwop_tui.protocol.budgets import DEFAULT_MAX_BYTES
from openwop_tui.store.saving import SAVED_BYTES

IMAGE_MODES = ("auto", "kitty", "sixel", "halfblock", "none")


#: Settings that must be whole numbers above zero (sizes and counts).
_POSITIVE_INTS = frozenset(
    {
        "max_asset_bytes",
        "max_reply_bytes",
        "max_reasoning_bytes",
        "max_tool_bytes",
        "max_events_shown",
        "max_saved_bytes",
    }
)


#: Settings that are whole numbers above zero, or absent (no cap of the user's own).
_OPTIONAL_INTS = frozenset({"history_turns", "history_bytes"})
#: The ``[chat]`` table's settings (what a message carries to the host).
_CHAT = ("history_turns", "history_bytes")


#: Where the API key came from (`Config.key_from`), as `load_config` found it.
KEY_FROM_FLAG = "the command line"
KEY_FROM_ENV = "OPENWOP_API_KEY"
KEY_FROM_KEYCHAIN = "the system keychain"
KEY_FROM_FILE = "the config file"

#: Fields of `Config` that no source sets by name (`load_config` fills them in).
_NOT_SETTINGS = frozenset({"key_from"})


class ConfigError(ValueError):
    """The configuration file or a setting is wrong; the message says which and how."""


@dataclass(frozen=True, slots=True)
class Config:
    """Everything the app and the commands can be told."""

    host: str | None = None
    """Base URL of the OpenWOP host; ``None`` runs the embedded demo host."""
    api_key: str | None = None
    """Bearer key for the host. Never shown, logged or exported."""
    workflow: str = "demo.chat"
    """The chat workflow: one run per user turn, history in ``inputs.messages``."""
    images: str = "auto"
    """``auto`` (the app asks the terminal: kitty graphics, sixel or half-blocks), ``kitty``,
    ``sixel``, ``halfblock`` or ``none``. Printed transcripts always use half-blocks."""
    audio: bool = True
    """Play audio through the sound card when one is there."""
    max_asset_bytes: int = DEFAULT_MAX_BYTES
    """Ceiling for any media download, whatever the host advertises."""
    download_dir: str | None = None
    """Where saved media, exports and cut replies go; default ``openwop-tui`` in the platform's
    download folder, else ``downloads`` in the user data folder (never the current folder)."""
    max_saved_bytes: int = SAVED_BYTES
    """What the program may write unasked (the full text of cut replies) in one run; past it
    a cut part is not written and its item says so (200 MB)."""
    stream_modes: str = "updates,messages"
    idle_timeout: float = 300.0
    """Seconds a run's stream may bring no bytes at all (keep-alives count) before the app says
    so and checks the run; a run waiting for a human keeps waiting. 0: never."""
    reconnect_minutes: float = 5.0
    """How long a run's stream keeps reconnecting (with backoff, honouring ``Retry-After``)
    after it fails, before it gives up and says how to attach to the run again; 0: never."""
    demo_pace: float = 1.0
    """How fast the embedded demo host streams: 1 types like a model, 0 sends everything at
    once, 2 is twice as slow."""
    theme: str | None = None
    """A Textual theme name; ``None``: the theme last chosen in the app, else ``openwop-dark``."""
    max_reply_bytes: int = REPLY_BYTES
    """Text drawn per reply (1 MiB); the rest is kept, saved to the download folder once the
    reply is complete, and the reply says it was cut, by how much and where it went."""
    max_reasoning_bytes: int = REASONING_BYTES
    """Text drawn per reasoning block (256 KiB), cut the same way."""
    max_tool_bytes: int = TOOL_BYTES
    """JSON of a tool call's inputs or outcome (64 KiB) beyond which the call says it was cut."""
    max_events_shown: int = EVENTS_SHOWN
    """Lines the events panel keeps (2,000); it counts the older ones it let go."""
    markdown_images: bool = False
    """Read plain markdown images (``![alt](https://…)``) in replies as media and fetch them
    under the media policy; off (the default), they stay text, as OpenClaw does."""
    vim_keys: bool = False
    """vim-style movement in the transcript besides the arrows: j/k the next/previous item,
    g/G the first/last, Ctrl+D/Ctrl+U half a page. Off: those keys do nothing there."""
    keys: tuple[tuple[str, str], ...] = ()
    """The ``[keys]`` table: (action name, ``"key,key"``) pairs that replace the default keys
    (`openwop_tui.ui.keys`), already checked. `keymap` gives them as a dict."""

    renderer_override: tuple[str, ...] = ()
    """``[renderers] override = ["image", …]``: the built-in renderers a plugin may replace.
    A plugin naming any other built-in key is refused (and the user told so)."""
    history_turns: int | None = None
    """``[chat] history_turns``: earlier turns a message carries to the host at most. Unset,
    as many as fit the host's advertised request limit (``limits.maxRequestBodyBytes``);
    the transcript says how many were left out."""
    history_bytes: int | None = None
    """``[chat] history_bytes``: bytes of earlier messages a message carries at most."""
    code_theme: str | None = None
    """The Pygments style code is highlighted in (``dracula``, ``solarized-light``…), drawn on
    its own background; ``None``: one that suits the app's theme (monokai on a dark theme,
    xcode on a light one), on the theme's surface."""
    key_from: str = ""
    """Where `api_key` came from (`KEY_FROM_FLAG`, `KEY_FROM_ENV`, `KEY_FROM_KEYCHAIN`,
    `KEY_FROM_FILE`; ``""``: no key). Not a setting: `load_config` fills it in."""

    @property
    def keymap(self) -> dict[str, str]:
        """``[keys]`` as the mapping `App.set_keymap` takes (binding id -> keys)."""
        return dict(self.keys)

    @property
    def limits(self) -> Limits:
        """The caps the transcript fold applies."""
        return Limits(
            reply_bytes=self.max_reply_bytes,
            reasoning_bytes=self.max_reasoning_bytes,
            tool_bytes=self.max_tool_bytes,
            events_shown=self.max_events_shown,
            markdown_images=self.markdown_images,
            history_turns=self.history_turns,
            history_bytes=self.history_bytes,
        )

    def __repr__(self) -> str:  # keep the key out of logs and tracebacks
        shown = {f.name: getattr(self, f.name) for f in fields(self)}
        if shown["api_key"]:
            shown["api_key"] = "***"
        return f"Config({', '.join(f'{k}={v!r}' for k, v in shown.items())})"

    def merged(self, values: Mapping[str, Any], *, source: str) -> Config:
        """A copy with ``values`` applied; unknown keys and wrong types raise `ConfigError`."""
        known = {f.name: f for f in fields(self) if f.name not in _NOT_SETTINGS}
        changes: dict[str, Any] = {}
        for key, value in values.items():
            name = key.replace("-", "_")
            if name == "renderers":  # the [renderers] table: override = [...]
                changes["renderer_override"] = _checked_renderers(value, source)
                continue
            if name == "chat":  # the [chat] table: history_turns, history_bytes
                changes.update(_checked_chat(value, source))
                continue
            if name not in known:
                raise ConfigError(
                    f"{source}: unknown setting {key!r}; known: {', '.join(sorted(known))}"
                )
            if value is None:
                continue
            if name == "keys":
                changes[name] = _checked_keys(value, dict(self.keys), source)
                continue
            if name == "renderer_override":
                changes[name] = _checked_override(value, f"{source}: renderer_override")
                continue
            if name in _OPTIONAL_INTS:
                changes[name] = _positive(value, f"{source}: {name}")
                continue
            current = getattr(self, name)
            expected = type(current) if current is not None else str
            if name in _POSITIVE_INTS and not (
                isinstance(value, int) and not isinstance(value, bool) and value > 0
            ):
                raise ConfigError(f"{source}: {name} must be a positive integer")
            if expected is float:
                if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                    raise ConfigError(f"{source}: {key} must be a number >= 0")
                value = float(value)
            if expected is bool and not isinstance(value, bool):
                raise ConfigError(f"{source}: {key} must be true or false")
            if expected is str and not isinstance(value, str):
                raise ConfigError(f"{source}: {key} must be a string")
            changes[name] = value
        config = replace(self, **changes)
        if "host" in changes:
            host = urlsplit(config.host or "")
            if host.scheme not in ("http", "https") or not host.hostname:
                raise ConfigError(
                    f"{source}: host must be an http:// or https:// URL such as "
                    f"http://127.0.0.1:3737, not {config.host!r}"
                )
        if "code_theme" in changes:
            check_code_theme(config.code_theme, source)
        if config.images not in IMAGE_MODES:
            raise ConfigError(
                f"{source}: images must be one of {', '.join(IMAGE_MODES)}, not {config.images!r}"
            )
        return config


def code_themes() -> list[str]:
    """The Pygments styles code can be highlighted in, by name (sorted)."""
    from pygments.styles import get_all_styles  # type: ignore[import-untyped]

    return sorted(get_all_styles())


def check_code_theme(name: Any, source: str) -> None:
    """`ConfigError` unless ``name`` is a Pygments style (`code_themes`)."""
    if not isinstance(name, str) or name not in code_themes():
        raise ConfigError(
            f"{source}: code_theme must be a Pygments style such as monokai, dracula or "
            f"solarized-light, not {name!r} (the settings screen lists them all)"
        )


def _positive(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ConfigError(f"{where} must be a positive integer")
    return value


def _checked_chat(table: Any, source: str) -> dict[str, int]:
    """The ``[chat]`` table: ``history_turns`` and ``history_bytes``, positive integers."""
    if not isinstance(table, Mapping):
        raise ConfigError(f"{source}: [chat] must be a table such as history_turns = 50")
    unknown = sorted(set(table) - set(_CHAT))
    if unknown:
        raise ConfigError(f"{source}: unknown setting chat.{unknown[0]}; known: {', '.join(_CHAT)}")
    return {key: _positive(value, f"{source}: chat.{key}") for key, value in table.items()}


def _checked_keys(table: Any, earlier: dict[str, str], source: str) -> tuple[tuple[str, str], ...]:
    """``table`` laid over the keys of earlier sources, checked as a whole (a key may not run two
    actions), as the frozen pairs `Config` keeps."""
    # Imported here: the key table is only needed when a config names keys.
    from openwop_tui.keymap import check_keymap

    if not isinstance(table, Mapping):
        raise ConfigError(f'{source}: [keys] must be a table of action = "key" lines')
    try:
        keymap = check_keymap({**earlier, **table})
    except ValueError as error:
        raise ConfigError(f"{source}: {error}") from None
    return tuple(sorted(keymap.items()))


def _checked_renderers(table: Any, source: str) -> tuple[str, ...]:
    """The ``[renderers]`` table: only ``override``, a list of display keys."""
    if not isinstance(table, Mapping):
        raise ConfigError(f'{source}: [renderers] must be a table such as override = ["image"]')
    unknown = sorted(str(key) for key in table if key != "override")
    if unknown:
        raise ConfigError(f"{source}: unknown setting renderers.{unknown[0]}; known: override")
    return _checked_override(table.get("override", []), f"{source}: renderers.override")


def _checked_override(value: Any, where: str) -> tuple[str, ...]:
    """A list of display keys (strings), kept in order without repeats."""
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise ConfigError(f'{where} must be a list of display names, such as ["image"]')
    if not all(isinstance(item, str) and item for item in value):
        raise ConfigError(f"{where} must list display names (non-empty strings)")
    return tuple(dict.fromkeys(value))


def default_config_path(environ: Mapping[str, str]) -> Path:
    """The platform's config file location (XDG on Linux and friends)."""
    base = environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "openwop-tui" / "config.toml"


def load_config(
    flags: Mapping[str, Any],
    environ: Mapping[str, str] | None = None,
    path: Path | None = None,
    *,
    keychain: bool = True,
) -> Config:
    """Build the configuration from file, environment and flags (in that order of precedence),
    and the API key from the first of flags, environment, the system keychain's entry for the
    host, the file (`Config.key_from` says which).

    Args:
        flags: The command line's settings (`Config` field names).
        environ: The environment (``OPENWOP_BASE_URL``, ``OPENWOP_API_KEY``, where the config
            file is); None: the process's.
        path: The config file (``--config``); None: the platform's (`default_config_path`),
            which may be absent.
        keychain: Look the host's key up in the system keychain; False skips it.
    """
    env = os.environ if environ is None else environ
    config = Config()
    file_path = path or default_config_path(env)
    if file_path.is_file():
        import tomllib  # (only with a file to read)

        try:
            data = tomllib.loads(file_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            raise ConfigError(f"cannot read {file_path}: {error}") from None
        config = config.merged(data, source=str(file_path))
    elif path is not None:
        raise ConfigError(f"config file {path} does not exist")
    from_file = config.api_key
    config = config.merged(
        {
            "host": env.get("OPENWOP_BASE_URL") or None,
            "api_key": env.get("OPENWOP_API_KEY") or None,
        },
        source="environment",
    )
    config = config.merged(flags, source="command line")
    if flags.get("api_key"):
        return replace(config, key_from=KEY_FROM_FLAG)
    if env.get("OPENWOP_API_KEY"):
        return replace(config, key_from=KEY_FROM_ENV)
    if keychain and config.host is not None:
        # Imported only here: the demo host, a flag or the environment never load keyring.
        from openwop_tui.keychain import system_keychain

        found = system_keychain()
        kept = found.read(config.host) if found is not None else None
        if kept:
            return replace(config, api_key=kept, key_from=KEY_FROM_KEYCHAIN)
    return replace(config, key_from=KEY_FROM_FILE if from_file else "")
