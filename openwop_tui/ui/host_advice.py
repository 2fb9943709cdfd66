"""What the app says when a request to the host failed: the error's own sentence, and when the
API key is the trouble, the app's advice in place of the command line's.

`openwop_tui.protocol.errors.HostError` keeps a refused or missing key apart
(`HostError.key_trouble`, its sentence without advice in `HostError.problem`): the command line
says "Set --api-key or OPENWOP_API_KEY", which in the app would mean a restart. Here a user is
told the key that opens the settings screen, where a key entered applies at once.
"""

from __future__ import annotations

from textual.dom import DOMNode

from openwop_tui.protocol.errors import HostError
from openwop_tui.ui import keys

__all__ = ["said", "settings_key"]

#: What the user is asked to enter, by `HostError.key_trouble`.
_ENTER = {"missing": "a key", "rejected": "another key", "scope": "a key that has it"}


def settings_key(app: DOMNode) -> str:
    """How the settings screen is opened in ``app`` (its first key, else the palette)."""
    bound = keys.in_effect(app).get("settings", "").split(",")[0].strip()
    return f"Press {keys.display(bound)} (Settings)" if bound else "Open Settings (Ctrl+P)"


def said(error: HostError, app: DOMNode) -> str:
    """The sentence ``app`` shows for ``error``."""
    trouble = error.key_trouble
    if trouble is None:
        return error.message
    return f"{error.problem} {settings_key(app)} to enter {_ENTER[trouble]}."
