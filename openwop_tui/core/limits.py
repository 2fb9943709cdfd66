"""The caps on what the transcript draws and what a message carries (`Limits`), and their
defaults: plain values, importable without the model (``--version`` and the configuration read
them; `openwop_tui.core.items` re-exports them)."""

from __future__ import annotations

from dataclasses import dataclass

KiB = 1024
MiB = 1024 * KiB

#: The default caps (see `Limits`).
REPLY_BYTES = 1 * MiB
REASONING_BYTES = 256 * KiB
TOOL_BYTES = 64 * KiB
EVENTS_SHOWN = 2_000


@dataclass(frozen=True, slots=True)
class Limits:
    """How much of each item is drawn (design.md §Boundaries: resources are budgeted).

    Sizes are UTF-8 bytes. What is past a limit is kept, not drawn: the item says it was cut and
    by how much, and the full text is saved once the item is final. The defaults are far above
    what normal work produces (a long model reply is tens of KB).
    """

    reply_bytes: int = REPLY_BYTES
    """Text drawn per assistant reply."""
    reasoning_bytes: int = REASONING_BYTES
    """Text drawn per reasoning block."""
    tool_bytes: int = TOOL_BYTES
    """JSON of a tool call's inputs, and of its outcome, beyond which the call says it was cut."""
    events_shown: int = EVENTS_SHOWN
    """Events the events panel keeps on screen (older ones scroll away, counted)."""
    markdown_images: bool = False
    """Read ``![alt](https://…)`` in replies as media to fetch (``--markdown-images``); off,
    markdown images stay text."""
    history_turns: int | None = None
    """Earlier turns a message carries to the host at most (``[chat] history_turns``; ``None``:
    as many as fit the host's request limit). Not a fold limit: it shapes what is sent."""
    history_bytes: int | None = None
    """Bytes of earlier messages a message carries at most (``[chat] history_bytes``)."""
