"""App-wide messages: what happened, posted by widgets and workers, handled by the app.

Each is a dataclass named in the past tense (design.md Practices 4): a widget says what the user
did or what it needs (`ActionRequested`, `EnvelopeRenderRequested`) and never calls back into the
app; the app and tests wait on these messages instead of polling state. Widget-local messages stay
nested in their widget.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.message import Message

from openwop_tui.core.attachments import Attachment
from openwop_tui.text.sanitize import NO_TEXT, HostText

if TYPE_CHECKING:
    from openwop_tui.ui.widgets.timeline_panel import TimelinePanel

__all__ = [
    "ActionRequested",
    "Connection",
    "ConnectionChanged",
    "DraftReturned",
    "EnvelopeRenderRequested",
    "FilesPasted",
    "HostShown",
    "InterruptAnswered",
    "InterruptFormClosed",
    "InterruptFormLeft",
    "MessageSubmitted",
    "RunCancelRequested",
    "RunChanged",
    "RunPhase",
    "SessionChosen",
    "SessionDeleted",
    "SessionKept",
    "SessionRenamed",
    "TitleShown",
    "TranscriptEnd",
    "TranscriptLeft",
    "WorkflowChosen",
]


class Latest(Message):
    """A message that says how something is now (not that something happened): one still
    waiting in the receiver's queue is replaced by a newer one of its kind (Textual's
    ``can_replace``), so a burst of them costs the receiver one update, not one each."""

    def can_replace(self, message: Message) -> bool:
        return type(message) is type(self)


@dataclass
class MessageSubmitted(Message):
    """The user sent a message from the input (possibly several lines; empty when it carries
    attachments only)."""

    text: str


class TranscriptEnd(Message):
    """End in the input with nothing past its cursor (the end of its text): go to the
    transcript's end and follow it, as its "new output below ↓ (End)" line says."""


@dataclass
class FilesPasted(Message):
    """A paste into the prompt was nothing but paths of files a host takes: attach them."""

    paths: list[Path]


@dataclass
class DraftReturned(Message):
    """A message did not go (an attachment the host cannot take): its text and attachments
    go back to the prompt and the chips."""

    text: str
    attachments: tuple[Attachment, ...]


@dataclass
class ActionRequested(Message):
    """The user asked for an action on a transcript item: ``save``, ``open``, ``play``,
    ``stop``, ``copy``, ``copy-code``, ``inspect``…"""

    item_id: str
    action: str


@dataclass
class EnvelopeRenderRequested(Message):
    """The transcript needs an envelope drawn at ``width`` cells (first show, a resize, a later
    fragment, a theme change). The app fetches its asset and renders it off the event loop."""

    item_id: str
    width: int


@dataclass
class TranscriptLeft(Message):
    """The user left the transcript (Esc): focus goes back to the input."""


class Connection(StrEnum):
    """Where the app stands with its host (the status line shows the value)."""

    CONNECTING = "connecting"
    CONNECTED = "connected"
    STREAMING = "streaming"
    RECONNECTING = "reconnecting"
    DISCONNECTED = "disconnected"
    ERROR = "error"
    REPLAYING = "replaying"
    REPLAYED = "replayed"


@dataclass
class ConnectionChanged(Latest):
    """The connection to the host changed state (posted by the connection and runs
    controllers; the status line shows it)."""

    state: Connection


@dataclass
class HostShown(Latest):
    """What the status line names as the host: ``host`` (never the key), and once discovery
    answered its ``protocol`` version and ``implementation`` name. Cleaned text, like every
    field the status line shows (its sender cleans the user's own with ``clean_own``)."""

    host: HostText
    protocol: HostText = NO_TEXT
    implementation: HostText = NO_TEXT


class RunPhase(StrEnum):
    """What happened to a run."""

    STARTED = "started"
    """The host accepted it (or the app attached to it); its events follow."""
    STATUS = "status"
    """The fold saw a new run status."""
    ENDED = "ended"
    """Its stream is over, whatever ended it."""


@dataclass
class RunChanged(Message):
    """A run started, changed status or ended (posted by the runs controller). ``status`` is
    the run's status as last seen (``None``: unknown)."""

    phase: RunPhase
    run_id: HostText | None = None
    status: HostText | None = None
    workflow: HostText | None = None


@dataclass
class SessionKept(Latest):
    """Whether the session is being written to the store now; ``reason`` says why not."""

    kept: bool
    reason: str | None = None


@dataclass
class SessionChosen(Message):
    """The user picked a saved session to open (the sessions screen, Enter)."""

    session_id: str


@dataclass
class SessionRenamed(Message):
    """The user gave a saved session a new title (already trimmed, never empty)."""

    session_id: str
    title: str


@dataclass
class TitleShown(Message):
    """The chat's title as the status line shows it (``""``: the chat is not kept, so it has
    none). ``new_chat``: a new chat replaced the one on screen, so the last run's id and
    status belong to the old one."""

    title: HostText
    new_chat: bool = False


@dataclass
class ReadingChanged(Latest):
    """How far the older turns of a session opened newest first are read
    (`openwop_tui.ui.controllers.reopening`), in the words the status line shows: ``reading
    2,988 older turns… 35%``; ``""`` once they are in (or no longer read)."""

    text: str


@dataclass
class LoadingChanged(Latest):
    """Envelopes on screen still being drawn (their media fetched or decoded: each says
    "loading…"): the status line says "completed, N loading" until they are all drawn, so a
    run is not called completed while its items are not settled."""

    count: int


@dataclass
class SessionArchived(Message):
    """The user archived a stored session (out of the default list, kept), or put it back."""

    session_id: str
    archived: bool


@dataclass
class SessionDeleted(Message):
    """The user confirmed deleting a saved session."""

    session_id: str


@dataclass
class InterruptAnswered(Message):
    """The user answered a waiting run's question in its form: ``value`` is the resume value
    built by `openwop_tui.protocol.interrupts.build_answer` (already checked against the
    questions and the ``resumeSchema``; ``None`` for a conversation start). Not yet sent: the
    app sends it and reports the host's verdict with `InterruptForm.show_outcome`."""

    item_id: str
    value: Any


@dataclass
class InterruptFormLeft(Message):
    """The user left an interrupt's form without answering (Esc): focus goes back to the
    prompt; the form stays, still waiting."""

    item_id: str


@dataclass
class InterruptFormClosed(Message):
    """An interrupt's form closed (answered, answered elsewhere, expired, nothing to resolve);
    ``message`` says why, for a notification. Focus goes back to the prompt."""

    item_id: str
    message: str | None


@dataclass
class RunCancelRequested(Message):
    """The user asked to cancel a run (a pause the host offers no way to resolve).
    ``run_id`` is ``None`` when the interrupt did not name its run: the one being followed."""

    item_id: str
    run_id: str | None


@dataclass
class WorkflowChosen(Message):
    """The workflow each message runs was chosen: configured, picked by the user (the workflow
    picker, Enter) or the host's only one. The status line shows it."""

    workflow_id: HostText


@dataclass
class ItemEventsRequested(Message):
    """The user asked for the run events that made transcript item ``item_id`` (the timeline,
    filtered to them)."""

    item_id: str


@dataclass
class TimelineScreenOpened(Message):
    """The timeline screen is up: its panel is to be filled with the chat's timeline."""

    panel: TimelinePanel
