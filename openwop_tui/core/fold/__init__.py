"""The transcript fold (`Transcript`): run events in, turns and envelopes out.

A package so that each family of events is folded in a module of its own; `transcript` holds
the state and the public API. The names callers import from ``openwop_tui.core.fold`` (the
transcript and the item types it makes) are re-exported here.
"""

from __future__ import annotations

from openwop_tui.core.fold.transcript import (
    Added,
    ArtifactNotice,
    AssistantTurn,
    Change,
    EnvelopeItem,
    Interrupt,
    Item,
    Level,
    Limits,
    Notice,
    Reasoning,
    ToolCall,
    Transcript,
    Updated,
    Usage,
    UserTurn,
)

__all__ = [
    "Added",
    "ArtifactNotice",
    "AssistantTurn",
    "Change",
    "EnvelopeItem",
    "Interrupt",
    "Item",
    "Level",
    "Limits",
    "Notice",
    "Reasoning",
    "ToolCall",
    "Transcript",
    "Updated",
    "Usage",
    "UserTurn",
]
