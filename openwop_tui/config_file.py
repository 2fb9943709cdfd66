"""Writing the settings the settings screen changes back to the config file, safely.

`save_settings` changes only the keys it is given (``theme``, ``images``, ``audio``, ``host``,
``workflow``, ``code_theme``, ``api_key``) in the user's ``config.toml`` and keeps everything
else as the user wrote it,
comments and order included (tomlkit edits the document; `tomllib` only reads). Before anything
is written the whole new file is read back the way the app reads it at start (`Config.merged`:
unknown keys, wrong types, a host that is not an http(s) URL …), so a bad value is a
`ConfigError` with a sentence and the file on disk is untouched. The new text is written to a
temporary file beside it and moved over the old one, so a crash never leaves half a file.

A file that holds an ``api_key`` (the settings screen puts one there only when the machine has
no system keychain: `openwop_tui.keychain`) is written readable and writable by its owner only
(mode 0600), whatever its mode was: `Saved.tightened` says when it was more open before.

`read_settings` gives the values the file holds now (the screen shows them on reopening).
No Textual here.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openwop_tui.config import IMAGE_MODES, Config, ConfigError, check_code_theme

#: What the settings screen edits (top-level keys of the config file).
EDITABLE = ("theme", "images", "audio", "host", "workflow", "code_theme", "api_key")
#: The mode of a config file that holds a key: its owner reads and writes it, nobody else.
PRIVATE = 0o600


@dataclass(frozen=True, slots=True)
class Saved:
    """What `save_settings` wrote."""

    text: str
    """The file's new text."""
    private: bool
    """The file holds a key, so it is now readable only by its owner (mode 0600)."""
    tightened: int | None = None
    """The file's mode before, when it held a key and others could read it (``None``: it
    did not, or it was private already)."""


def read_settings(path: Path) -> dict[str, Any]:
    """The `EDITABLE` values ``path`` holds (absent ones left out); `ConfigError` if it cannot
    be read. A missing file holds nothing."""
    if not path.is_file():
        return {}
    import tomllib  # (only with a file to read: the app's first frame reads none)

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"cannot read {path}: {error}") from None
    return {key: data[key] for key in EDITABLE if key in data}


def check_key(value: object) -> str:
    """An API key as one line of printable characters, or `ConfigError` (never quoting it)."""
    if not isinstance(value, str) or not value.strip():
        raise ConfigError("the API key is empty")
    if value != value.strip() or not value.isprintable() or len(value) > 4096:
        raise ConfigError(
            "the API key must be one line of printable characters, without spaces around it"
        )
    return value


def _open_mode(path: Path) -> int | None:
    """``path``'s permission bits when people other than its owner may read or write it."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return None
    return mode if mode & 0o077 else None


def check_workflow(value: object) -> str:
    """A workflow id as the host names it (``demo.chat``), or `ConfigError` saying why not."""
    if not isinstance(value, str) or not value.strip():
        raise ConfigError("workflow must be a workflow id such as demo.chat, not empty")
    if any(char.isspace() or not char.isprintable() for char in value):
        raise ConfigError(f"workflow {value!r} has spaces or control characters: not an id")
    return value


def save_settings(path: Path, values: Mapping[str, Any], *, themes: Collection[str] = ()) -> Saved:
    """Set ``values`` (`EDITABLE` keys; ``None`` removes the key: no host means the embedded
    demo host) in the config file at ``path``, creating it if needed; what was written.

    Raises `ConfigError` (nothing written) for an unknown key, a value the app would refuse
    at start, a theme not in ``themes`` (when given), or a file that cannot be read or
    written."""
    text, private = new_text(path, values, themes=themes)
    before = _open_mode(path) if private else None
    temporary = path.with_name(f".{path.name}.saving")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.unlink(missing_ok=True)  # (left by a crash: its mode is not to be trusted)
        # Made with its final mode, never wider for a moment; the rename keeps it. A file
        # without a key keeps the mode it had (the user's choice).
        mode = PRIVATE if private else _mode_of(path)
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(text)
        if private:
            os.chmod(temporary, PRIVATE)  # (whatever the umask made of it)
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise ConfigError(f"cannot write {path}: {error.strerror or error}") from None
    return Saved(text, private, before)


def new_text(
    path: Path, values: Mapping[str, Any], *, themes: Collection[str] = ()
) -> tuple[str, bool]:
    """The text `save_settings` would write for ``values``, and whether it holds a key;
    nothing is written. Raises `ConfigError` as `save_settings` does (the settings screen
    checks its values with it before it tries a host)."""
    unknown = sorted(set(values) - set(EDITABLE))
    if unknown:
        raise ConfigError(f"the settings screen does not change {unknown[0]!r}")
    theme = values.get("theme")
    if themes and theme is not None and theme not in themes:
        raise ConfigError(f"unknown theme {theme!r}; available: {', '.join(sorted(themes))}")
    if values.get("images") not in (None, *IMAGE_MODES):
        raise ConfigError(f"images must be one of {', '.join(IMAGE_MODES)}")
    if "workflow" in values:
        check_workflow(values["workflow"])
    if values.get("code_theme") is not None:
        check_code_theme(values["code_theme"], "code_theme")
    if values.get("api_key") is not None:
        check_key(values["api_key"])
    # Imported on a save, not with the module: the app reads settings at start (`tomllib`),
    # and its first frame does not wait for the editor (tests/ui/test_first_frame.py).
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        old = path.read_text(encoding="utf-8") if path.is_file() else ""
        document = tomlkit.parse(old)
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read {path}: {error}") from None
    except TOMLKitError as error:
        raise ConfigError(f"cannot read {path}: {error}; fix it by hand first") from None
    for key, value in values.items():
        if value is None:
            document.pop(key, None)
        else:
            document[key] = value
    text = tomlkit.dumps(document)
    import tomllib

    # Read back as the app reads it at start: what is written must start the app.
    Config().merged(tomllib.loads(text), source=str(path))
    return text, "api_key" in document


def _mode_of(path: Path) -> int:
    """The permission bits ``path`` has (a new file: read and write for its owner, read for
    others, as an editor makes it)."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return 0o644
