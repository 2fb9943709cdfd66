"""What was typed into the prompt, kept across restarts per host, as a shell keeps its history.

↑ in the prompt walks back through the messages sent (`openwop_tui.ui.widgets.prompt`); before,
that list started empty at every start (oterm keeps it). `PromptHistory` keeps it in the state
folder, one file per host (``$XDG_STATE_HOME/openwop-tui/history/<digest>.jsonl``: the host's
URL, without credentials, digested, so the file name says nothing of it), one JSON line per
message, readable by the user only.

Bounded: the last `MAX_KEPT` messages are read, a message longer than `MAX_CHARS` is not kept
(a pasted document is not something to recall with ↑), and the file is written again with
only those once it holds twice as many lines. The caller masks secrets before `add` (the app's
redactor). Best effort, as the state file: a file that cannot be read reads as no history, a
line that is not one of ours is skipped, and a failed write is logged, never raised.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path

import platformdirs

__all__ = ["MAX_CHARS", "MAX_KEPT", "PromptHistory", "history_path"]

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())

#: Messages recalled per host (the newest).
MAX_KEPT = 500
#: A message longer than this is sent but not kept for ↑.
MAX_CHARS = 16_384


def history_path(host: str) -> Path:
    """The file of ``host``'s history (honours ``XDG_STATE_HOME``)."""
    digest = hashlib.sha256(host.encode("utf-8")).hexdigest()[:24]
    return (
        platformdirs.user_state_path("openwop-tui", appauthor=False) / "history" / f"{digest}.jsonl"
    )


class PromptHistory:
    """One host's prompt history on disk."""

    def __init__(self, host: str, path: Path | None = None) -> None:
        """``host``: the URL the messages went to (without credentials), or a name for the
        embedded demo host; ``path``: the file (default `history_path`)."""
        self.path = path or history_path(host)
        self._lines = 0
        """Lines the file holds (counted by `load`, added to by `add`)."""

    def load(self) -> list[str]:
        """The newest `MAX_KEPT` messages, oldest first (the file written again with only them
        when it had grown to twice as many)."""
        try:
            raw = self.path.read_text(encoding="utf-8", errors="replace").splitlines()
        except FileNotFoundError:
            return []
        except OSError as error:
            log.warning("prompt history %s is not readable, ignored: %s", self.path, error)
            return []
        texts = [text for text in map(_text, raw) if text is not None]
        self._lines = len(raw)
        kept = texts[-MAX_KEPT:]
        if self._lines >= 2 * MAX_KEPT:
            self._rewrite(kept)
        return kept

    def add(self, text: str) -> None:
        """Keep ``text`` (already masked) at the end; a blank or too long one is not kept."""
        if not text.strip() or len(text) > MAX_CHARS:
            return
        line = json.dumps({"text": text}, ensure_ascii=False) + "\n"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            with os.fdopen(descriptor, "a", encoding="utf-8") as file:
                file.write(line)
        except OSError as error:
            log.warning("could not keep the prompt history in %s: %s", self.path, error)
            return
        self._lines += 1
        if self._lines >= 2 * MAX_KEPT:
            self.load()  # (compacts it)

    def _rewrite(self, kept: list[str]) -> None:
        try:
            fd, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".history-")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as file:
                    for text in kept:
                        file.write(json.dumps({"text": text}, ensure_ascii=False) + "\n")
                os.replace(temporary, self.path)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError as error:
            log.warning("could not compact the prompt history %s: %s", self.path, error)
            return
        self._lines = len(kept)


def _text(line: str) -> str | None:
    """The message a line of the file holds, or ``None`` for a line that is not one."""
    try:
        data = json.loads(line)
    except ValueError:
        return None
    text = data.get("text") if isinstance(data, dict) else None
    if isinstance(text, str) and text.strip() and len(text) <= MAX_CHARS:
        return text
    return None
