"""Copy text honestly: to the terminal's clipboard when it can take it, and always to a file.

A terminal app reaches the clipboard by writing an OSC 52 sequence (`App.copy_to_clipboard`).
Nothing comes back: the terminal may copy, may refuse silently (macOS Terminal, most terminals
for large texts, tmux without ``set-clipboard on``), and the app cannot tell. So a copy never
says "copied": it says where the text was sent and names a file that holds it for certain
(``last-copy.txt`` in the download folder, replaced by the next copy, readable by the user only).

Every copy in the app goes through `copy_text`, which returns the sentence to show.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from textual.app import App

#: The file every copy also goes to.
COPY_FILE = "last-copy.txt"
#: Above this many bytes, terminals commonly drop an OSC 52 copy (xterm's and tmux's limits).
OSC52_COMFORTABLE_BYTES = 74_000


@dataclass(frozen=True, slots=True)
class CopyOutcome:
    """What happened, in words for a notification."""

    message: str
    path: Path | None
    """The file holding the text, or ``None`` if it could not be written."""
    severity: Literal["information", "warning"]


def terminal_route(environ: Mapping[str, str], size: int) -> tuple[bool, str]:
    """(whether to send OSC 52 at all, what to say about it) for this terminal and ``size``."""
    if environ.get("TERM_PROGRAM") == "Apple_Terminal":
        return False, "macOS Terminal does not let programs set the clipboard"
    if size > OSC52_COMFORTABLE_BYTES:
        said = (
            f"sent to the terminal's clipboard (OSC 52), but at {size:,} bytes most terminals "
            "drop it"
        )
        return True, said
    if environ.get("TMUX"):
        return True, (
            "sent through tmux to the terminal's clipboard (OSC 52; tmux passes it on only with "
            "set-clipboard on, and the terminal does not confirm it)"
        )
    return True, "sent to the terminal's clipboard (OSC 52; the terminal does not confirm it)"


def save_copy(text: str, folder: Path) -> Path:
    """Write ``text`` to `COPY_FILE` in ``folder`` (mode 0600), replacing the last copy.

    Written beside and renamed over, so a reader never sees half a copy and a symlink planted
    at the name is replaced, not followed."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / COPY_FILE
    partial = folder / f".{COPY_FILE}.{os.getpid()}.tmp"
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(partial, target)
    return target


async def copy_text(
    app: App[Any],
    text: str,
    folder: Path,
    *,
    what: str = "the text",
    environ: Mapping[str, str] | None = None,
) -> CopyOutcome:
    """Send ``text`` to the terminal's clipboard where that can work, and save it to a file.

    Args:
        app: The app, which sends the clipboard escape to the terminal.
        text: The text to copy.
        folder: The download folder the copy is saved in.
        what: Names the text in the sentence ("the reply", "the code").
        environ: Read to know the terminal; None reads `os.environ`.
    """
    env = os.environ if environ is None else environ
    size = len(text.encode("utf-8"))
    send, said = terminal_route(env, size)
    if send:
        app.copy_to_clipboard(text)
    try:
        path = await asyncio.to_thread(save_copy, text, folder)
    except OSError as error:
        reason = error.strerror or str(error)
        if not send:
            return CopyOutcome(
                f"{_upper_first(what)} was not copied: {said}, and it could not be saved to "
                f"{folder / COPY_FILE}: {reason}",
                None,
                "warning",
            )
        return CopyOutcome(
            f"{_upper_first(what)} was {said}; it could not also be saved to "
            f"{folder / COPY_FILE}: {reason}",
            None,
            "warning",
        )
    if not send:
        return CopyOutcome(f"{said}: {what} is saved in {path}", path, "warning")
    severity: Literal["information", "warning"] = (
        "warning" if size > OSC52_COMFORTABLE_BYTES else "information"
    )
    return CopyOutcome(f"{_upper_first(what)} was {said}; it is also in {path}", path, severity)


def _upper_first(words: str) -> str:
    """``the JSON`` -> ``The JSON`` (`str.capitalize` would lower the rest)."""
    return words[:1].upper() + words[1:]
