"""Where the client writes files it was not told to write, and how much.

Two things are written without a path from the user: the full text of a reply (or reasoning
block, or tool call) cut past its limit (`openwop_tui.core.overflow`), and what "save", "copy" and
"export" write when no folder is configured. Both go to `actions.download_dir`: the platform's
download folder (``~/Downloads/openwop-tui``) when the platform has one, else the data folder
(``~/.local/share/openwop-tui/downloads``), never the folder the program happened to start in.

What is written unasked is bounded: a `SaveBudget` (``max_saved_bytes``, 200 MB by default) is
spent as cut parts are written, and once it is spent a cut part is not written and its item
says why and how to raise it. A cut part is written once: its name is its content's hash, so
drawing it again (a reopened session, a second ``render``) finds the file already there.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from openwop_tui.devices import desktop as actions
from openwop_tui.text import units

__all__ = ["SAVED_BYTES", "SaveBudget", "save_once"]

#: What cut parts written unasked may take in all, per run of the program (``max_saved_bytes``).
SAVED_BYTES = 200_000_000


@dataclass
class SaveBudget:
    """Bytes the program may still write unasked."""

    limit: int = SAVED_BYTES
    used: int = 0

    def spend(self, size: int) -> None:
        """Take ``size`` bytes of the budget; `actions.ActionError` saying so when it is spent."""
        if self.used + size > self.limit:
            raise actions.ActionError(
                f"not saved: {units.human_size(size)} would pass the "
                f"{units.human_size(self.limit)} this run may write unasked "
                f"({units.human_size(self.used)} written); raise max_saved_bytes in the config "
                "file, or save it yourself"
            )
        self.used += size


def save_once(data: bytes, stem: str, suffix: str, folder: Path, budget: SaveBudget | None) -> Path:
    """Write ``data`` as ``<stem>-<hash><suffix>`` in ``folder``, unless that file already holds it.

    Raises `actions.ActionError`.

    Args:
        data: The bytes to save.
        stem: The file name's start.
        suffix: The file name's end, with its dot.
        folder: The folder to write in.
        budget: The bytes the program may still write unasked, spent only on what is written; None
            for no limit.
    """
    name = f"{stem}-{hashlib.sha256(data).hexdigest()[:16]}{suffix}"
    target = folder / name
    try:
        if target.is_file() and target.stat().st_size == len(data) and target.read_bytes() == data:
            return target
    except OSError:
        pass  # unreadable: written again under a fresh name below
    if budget is not None:
        budget.spend(len(data))
    return actions.save_bytes(data, name, folder)
