"""What the transcript is made of: its items, and the changes the fold reports.

Plain mutable dataclasses (``eq=False``: an item is itself, whatever its text), shared by the
fold (`openwop_tui.transcript`), the app's widgets and the print commands. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.protocol.events import RunEvent

Level = Literal["info", "warning", "error"]


@dataclass(slots=True, eq=False)
class UserTurn:
    """Something the user typed."""

    id: str
    text: str


@dataclass(slots=True, eq=False)
class AssistantTurn:
    """A reply, growing while chunks arrive; ``final`` once the node completed."""

    id: str
    node_id: str | None
    text: str = ""
    final: bool = False
    model: str | None = None
    finish_reason: str | None = None


@dataclass(slots=True, eq=False)
class Reasoning:
    """An agent's reasoning, streamed, then replaced by the authoritative ``agent.reasoned``."""

    id: str
    agent_id: str
    text: str = ""
    done: bool = False


@dataclass(slots=True, eq=False)
class ToolCall:
    """A tool call and, once it returned, its outcome."""

    id: str
    call_id: str
    agent_id: str
    tool_name: str
    inputs: Any = None
    outcome: Any = None
    error: Any = None
    status: str | None = None
    done: bool = False


@dataclass(slots=True, eq=False)
class EnvelopeItem:
    """An envelope to draw through the renderer registry."""

    id: str
    envelope: Envelope


@dataclass(slots=True, eq=False)
class Notice:
    """A line about the run: lifecycle, failures, interrupts, stream trouble.

    ``verbose`` notices (node starts, usage figures) are the ones a chat view may hide and an
    inspector shows.
    """

    id: str
    level: Level
    text: str
    verbose: bool = False
    event: RunEvent | None = None


Item = UserTurn | AssistantTurn | Reasoning | ToolCall | EnvelopeItem | Notice


@dataclass(frozen=True, slots=True)
class Added:
    """A new item at the end of the transcript."""

    item: Item


@dataclass(frozen=True, slots=True)
class Updated:
    """An existing item changed. ``delta`` is the appended text when the change was an append;
    ``None`` means the item's text was replaced (or it changed otherwise) and must be redrawn."""

    item: Item
    delta: str | None = None


Change = Added | Updated
