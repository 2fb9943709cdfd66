"""The log file: where details go so the screen only ever gets a sentence.

`setup_logging` is called once by ``__main__`` (never at import). It sends every record of the
program to a small rotating file in the platform's state folder (``$XDG_STATE_HOME/openwop-tui/
log/openwop-tui.log`` on Linux, via platformdirs), through a formatter that runs the whole
formatted record, traceback included, through a `Redactor`: the API key and URL credentials are
masked there as everywhere else. Nothing is printed to the terminal: Python's "last resort"
handler, which would print warnings to stderr over the app, is switched off.
"""

from __future__ import annotations

import logging
import os
from logging.handlers import RotatingFileHandler
from pathlib import Path

import platformdirs

from openwop_tui.text.redact import Redactor

__all__ = ["default_log_path", "setup_logging"]

#: Small: the log holds the last few sessions' problems, not an archive.
MAX_LOG_BYTES = 1_000_000
BACKUPS = 2


def default_log_path() -> Path:
    """Where the log file lives (honours ``XDG_STATE_HOME`` on Linux)."""
    return platformdirs.user_log_path("openwop-tui", appauthor=False) / "openwop-tui.log"


class RedactingFormatter(logging.Formatter):
    """Formats a record as usual, then masks secrets in the result (exception text included)."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")
        self.redactor = redactor

    def format(self, record: logging.LogRecord) -> str:
        return self.redactor(super().format(record))


def setup_logging(redactor: Redactor, path: Path | None = None) -> Path | None:
    """Log everything at INFO and above to ``path`` (default `default_log_path`), redacted.

    Returns the path, or ``None`` when the file cannot be opened (a read-only home): then
    records are dropped rather than printed over the user's terminal.
    """
    target: Path | None = path or default_log_path()
    assert target is not None
    root = logging.getLogger()
    for old in list(root.handlers):
        if getattr(old, "openwop_tui", False):  # called again (tests): replace, not stack
            root.removeHandler(old)
            old.close()
    logging.lastResort = None  # never print a record to stderr
    handler: logging.Handler
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handler = RotatingFileHandler(
            target, maxBytes=MAX_LOG_BYTES, backupCount=BACKUPS, encoding="utf-8"
        )
        # Host data may be quoted in it: only the user reads it.
        os.chmod(target, 0o600)
    except OSError:
        handler, target = logging.NullHandler(), None
    handler.setFormatter(RedactingFormatter(redactor))
    setattr(handler, "openwop_tui", True)  # noqa: B010  (marks our own handler for replacement)
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    logging.captureWarnings(True)
    return target


def mask_also(*secrets: str | None) -> None:
    """Mask ``secrets`` too in what the log file is given from now on (a key entered in the
    settings screen, which the redactor made at start did not know)."""
    for handler in logging.getLogger().handlers:
        formatter = handler.formatter
        if getattr(handler, "openwop_tui", False) and isinstance(formatter, RedactingFormatter):
            formatter.redactor = formatter.redactor.with_secrets(*secrets)
