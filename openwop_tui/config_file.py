"""Writing the settings the settings screen changes back to the config file, safely.

`save_settings` changes only the keys it is given (``theme``, ``images``, ``audio``, ``host``,
``workflow``) in the user's ``config.toml`` and keeps everything else as the user wrote it,
comments and order included (tomlkit edits the document; `tomllib` only reads). Before anything
is written the whole new file is read back the way the app reads it at start (`Config.merged`:
unknown keys, wrong types, a host that is not an http(s) URL …), so a bad value is a
`ConfigError` with a sentence and the file on disk is untouched. The new text is written to a
temporary file beside it and moved over the old one, so a crash never leaves half a file.

`read_settings` gives the values the file holds now (the screen shows them on reopening).
No Textual here.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from openwop_tui.config import IMAGE_MODES, Config, ConfigError

#: What the settings screen edits (top-level keys of the config file).
EDITABLE = ("theme", "images", "audio", "host", "workflow")


def read_settings(path: Path) -> dict[str, Any]:
    """The `EDITABLE` values ``path`` holds (absent ones left out); `ConfigError` if it cannot
    be read. A missing file holds nothing."""
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"cannot read {path}: {error}") from None
    return {key: data[key] for key in EDITABLE if key in data}


def check_workflow(value: object) -> str:
    """A workflow id as the host names it (``demo.chat``), or `ConfigError` saying why not."""
    if not isinstance(value, str) or not value.strip():
        raise ConfigError("workflow must be a workflow id such as demo.chat, not empty")
    if any(char.isspace() or not char.isprintable() for char in value):
        raise ConfigError(f"workflow {value!r} has spaces or control characters: not an id")
    return value


def save_settings(path: Path, values: Mapping[str, Any], *, themes: Collection[str] = ()) -> str:
    """Set ``values`` (`EDITABLE` keys; ``None`` removes the key: no host means the embedded
    demo host) in the config file at ``path``, creating it if needed; the text written.

    Raises `ConfigError` (nothing written) for an unknown key, a value the app would refuse
    at start, a theme not in ``themes`` (when given), or a file that cannot be read or
    written."""
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
    # Read back as the app reads it at start: what is written must start the app.
    Config().merged(tomllib.loads(text), source=str(path))
    temporary = path.with_name(f".{path.name}.saving")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise ConfigError(f"cannot write {path}: {error.strerror or error}") from None
    return text
