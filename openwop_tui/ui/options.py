"""What the chat app is started with, as one typed object.

`openwop_tui.__main__` reads the command line into an `AppOptions` and hands it to
`openwop_tui.ui.app.ChatApp`; tests build the same object. One frozen dataclass, not a bag of
keyword arguments passed through ``**options``: a misspelt or forgotten option is a type error
that mypy reports (and a ``TypeError`` at the call), never a crash the user meets once the
terminal is theirs. (``replay --save-media`` was passed through such a bag into a constructor
that did not take it, and ``replay`` stopped at once on every file.)

This module imports nothing of Textual, so the command line can build it before the slow
imports.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openwop_tui.devices.terminal import ImageSupport

__all__ = ["AppOptions", "Replay"]


@dataclass(frozen=True, kw_only=True)
class Replay:
    """``replay FILE``: a recording played through the app as if live, without any host."""

    path: Path
    """The recording (an SSE file this program or curl wrote)."""
    speed: float = 1.0
    """1 as recorded, 2 twice as fast, 0 all at once."""
    save_media: Path | None = None
    """Where the full text of cut replies may be written (``--save-media``). A replay writes
    nothing unasked: ``None`` keeps every cut part in the recording only, and its item says how
    to save it."""


@dataclass(frozen=True, kw_only=True)
class AppOptions:
    """How the chat app starts: which conversation it shows first, and what the command line
    found out about the terminal before the app took it."""

    session_id: str | None = None
    """A stored session to open (drawn at once, without the host); checked to exist."""
    record: Path | None = None
    """Write the raw event stream to this SSE file as it arrives (``--record``)."""
    replay: Replay | None = None
    """Play a recording instead of talking to a host (``replay FILE``)."""
    attach: str | None = None
    """Follow this run on the host once connected: its history, then live (``--attach``)."""
    config_path: Path | None = None
    """The config file read (``--config``), which the settings screen shows and writes;
    ``None``: the default one."""
    typed: str = ""
    """Keys typed while the app started (`openwop_tui.devices.typeahead`), put in the prompt
    before any key the app reads."""
    image_support: ImageSupport | None = None
    """The image protocol detected before the app started; ``None`` (tests) draws images in
    half-blocks."""
    log_file: Path | None = None
    """Where details of an unexpected error go, named in the one sentence the user gets
    instead of a traceback."""
    draw_first: bool = False
    """Draw the first frame (the status line, the prompt, the footer) before the chat and its
    controllers are made, and make them after (`openwop_tui.ui.first_frame`): the program
    does; ``False`` (tests) makes them in the app's ``__init__``, so they are there at once."""
