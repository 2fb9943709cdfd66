"""What the app shows of failures and notices: one sentence, never a traceback or a secret.

`Stopped` wraps the error that escaped a handler, a worker or a render. Textual shows an
exception that renders itself (has ``__rich__``) by rendering it, instead of its traceback with
local variables (where the API key is): so the sentence is all the user sees, and the details
are in the log file it names. `GuardedApp`, the app's base, hands Textual that wrapper and
cleans and masks every notification, whoever raised it.
"""

from __future__ import annotations

import logging
from pathlib import Path

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import App
from textual.driver import Driver
from textual.notifications import SeverityLevel

from openwop_tui.text.redact import Redactor
from openwop_tui.text.sanitize import clean, one_line

log = logging.getLogger("openwop_tui.ui.app")

#: The width exit lines are laid out at: never reached, so Rich never breaks one.
_UNWRAPPED = 100_000


class Stopped(Exception):
    """The app stopped after ``error``; ``sentence`` is what the user reads."""

    def __init__(self, error: BaseException, sentence: RenderableType) -> None:
        super().__init__(str(error))
        self.error = error
        self.sentence = sentence
        self.__cause__ = error

    @classmethod
    def after(cls, error: BaseException, log_file: Path | None) -> Stopped:
        """``error`` with the sentence the user reads: what stopped the app, where the
        details are. The log file's path is a line of its own, never folded: printed at the
        terminal's width, a path longer than a line was cut in two, and copied back it named
        no file."""
        said = f"openwop-tui stopped after an unexpected error ({type(error).__name__})."
        if log_file is None:
            return cls(error, Text(said, style="bold red"))
        path = Text(str(log_file), style="bold red", no_wrap=True, overflow="ignore")
        return cls(error, Group(Text(f"{said} Details are in:", style="bold red"), path))

    def __rich__(self) -> RenderableType:
        return self.sentence


class GuardedApp(App[None]):
    """A Textual app whose failures are one sentence naming ``log_file`` and whose
    notifications are cleaned and masked (``redact``: the API key and its long fragments)."""

    def __init__(self, log_file: Path | None, redact: Redactor) -> None:
        super().__init__()
        self.log_file = log_file
        """Where details of an unexpected error go, named in the sentence the user gets."""
        self.redact = redact
        # The lines said at exit name files (a log, a journal): Rich would break them at its
        # width, mid-path ("openwo" / "p-tui.log"), so they go out whole and the terminal
        # wraps them (a path copied from it is still the path).
        self.error_console.width = _UNWRAPPED

    def mask_also(self, *secrets: str | None) -> None:
        """Mask ``secrets`` too in notifications and the log file from now on (a key entered
        while the app runs)."""
        from openwop_tui.logs import mask_also

        self.redact = self.redact.with_secrets(*secrets)
        mask_also(*secrets)

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for this platform; on Linux and macOS one that survives its
        terminal going away (`hang_up_safe`)."""
        return hang_up_safe(super().get_driver_class())

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notification is cleaned and has its secrets masked, whoever raised it.

        A boundary: notifications come from everywhere (exception messages, a plugin's action
        handler, file names), so this one place cleans them all and callers do not. A toast is one
        line of text (wrapped in its box): a newline in a host's message shows as ``␊``, so the
        message cannot add a line that reads as the client's own.

        Args:
            message: The notification's text.
            title: Its title; empty for none.
            severity: ``information``, ``warning`` or ``error``.
            timeout: Seconds it stays; None for Textual's default.
            markup: True when ``message`` is Textual content markup.
        """
        super().notify(
            self.redact(one_line(clean(message))),
            title=self.redact(one_line(clean(title))),
            severity=severity,
            timeout=timeout,
            markup=markup,
        )

    def _handle_exception(self, error: Exception) -> None:
        """Textual calls this for an exception that escaped a handler, a worker or a render.

        Textual has no public hook for that moment, so this one private method is overridden,
        and only to change what is shown: its default prints a traceback with local variables
        when the app exits, and the API key is among them. The details go to the log (secrets
        masked); Textual is handed the error wrapped in `Stopped`, which it shows as it shows
        any exception that renders itself (``__rich__``): as one sentence naming the log file.
        Textual's own handling (the exit code, re-raising in Pilot) is left to Textual.
        `tests/ui/test_no_traceback.py` pins this against Textual's behaviour.
        """
        log.error("unexpected error in the app", exc_info=error)
        super()._handle_exception(Stopped.after(error, self.log_file))


def hang_up_safe(driver: type[Driver]) -> type[Driver]:
    """``driver`` made to drop its output once its terminal is gone, when it is Textual's
    Linux (and macOS) driver.

    Textual writes to the terminal from a thread through a bounded queue. When the terminal is
    closed under it (its window shut: SIGHUP), that thread dies on the first write (EIO) and the
    queue fills; the next write then blocks the event loop for ever, so the app can neither
    end its run nor exit. This needs the driver's private writer thread (Textual offers no
    hook for a lost terminal): `tests/ui/test_signals.py` closes the terminal under the app
    and pins it.
    """
    try:
        from textual.drivers.linux_driver import LinuxDriver
    except ImportError:  # Windows: another driver, another story
        return driver
    if not issubclass(driver, LinuxDriver):
        return driver

    class HangUpSafeDriver(driver):  # type: ignore[valid-type, misc]
        def _terminal_lost(self) -> bool:
            writer = self._writer_thread
            return writer is not None and not writer.is_alive()

        def write(self, data: str) -> None:
            if not self._terminal_lost():
                super().write(data)

        def close(self) -> None:
            if not self._terminal_lost():  # stopping a dead writer would wait on its queue
                super().close()

    return HangUpSafeDriver
