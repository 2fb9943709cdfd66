"""What the app remembers between runs that is not configuration: the chosen theme, and the host
last talked to (for ``runs`` and ``attach`` without ``--host``: `openwop_tui.cli.host`).

The config file is the user's to write; the app never rewrites it. A choice made in the app
(Textual's theme picker in the command palette) goes to a small JSON file in the user state
directory instead (``$XDG_STATE_HOME/openwop-tui/state.json`` on Linux, via platformdirs) and
is used at the next start when the config file names no theme.

Best effort by design: a missing, unreadable or malformed state file reads as "nothing
remembered", and a failed write is logged, never raised: losing a remembered theme must not
stop the app. Writes go to a temporary file renamed over the old one, so a crash mid-write
leaves the previous state, not half a file.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

import platformdirs

from openwop_tui.text.redact import display_url

__all__ = [
    "remember_host",
    "remember_theme",
    "remembered_host",
    "remembered_theme",
    "state_path",
]

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())

#: A theme name longer than this in the state file is not a theme name.
_MAX_NAME = 100
#: A host URL longer than this in the state file is not one this program wrote.
_MAX_URL = 2048


def state_path() -> Path:
    """Where the state file lives (honours ``XDG_STATE_HOME``)."""
    return platformdirs.user_state_path("openwop-tui", appauthor=False) / "state.json"


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, ValueError) as error:
        log.warning("state file %s is not readable, ignored: %s", path, error)
        return {}
    return data if isinstance(data, dict) else {}


def remembered_theme(path: Path | None = None) -> str | None:
    """The theme last chosen in the app, or ``None``."""
    theme = _read(path or state_path()).get("theme")
    if isinstance(theme, str) and 0 < len(theme) <= _MAX_NAME and theme.isprintable():
        return theme
    return None


def remember_theme(name: str, path: Path | None = None) -> bool:
    """Keep ``name`` as the theme for the next start; whether it could be written."""
    return _remember("theme", name, path)


def remembered_host(path: Path | None = None) -> str | None:
    """The URL of the host last talked to (``http`` or ``https``, no credentials), or ``None``."""
    url = _read(path or state_path()).get("host")
    if (
        isinstance(url, str)
        and 0 < len(url) <= _MAX_URL
        and url.isprintable()
        and url.startswith(("http://", "https://"))
        and "@" not in url.split("/", 3)[2]
    ):
        return url
    return None


def remember_host(url: str, path: Path | None = None) -> bool:
    """Keep ``url`` as the host last talked to, without any ``user:password@`` in it
    (`display_url`); whether it could be written. Never a key: the state file holds no
    secret."""
    return _remember("host", display_url(url), path)


def _remember(key: str, value: str, path: Path | None) -> bool:
    path = path or state_path()
    data = _read(path)
    if data.get(key) == value:
        return True
    data[key] = value
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".state-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                json.dump(data, file, indent=2)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as error:
        log.warning("could not remember the %s in %s: %s", key, path, error)
        return False
    return True
