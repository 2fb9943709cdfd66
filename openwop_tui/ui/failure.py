"""How an unexpected error is shown when the app has to stop: one sentence, never a traceback.

`Stopped` wraps the error that escaped a handler, a worker or a render. Textual shows an
exception that renders itself (has ``__rich__``) by rendering it, instead of its traceback with
local variables (where the API key is): so the sentence is all the user sees, and the details
are in the log file it names.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import RenderableType
from rich.text import Text


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
        details are."""
        where = f" Details are in {log_file}." if log_file else ""
        sentence = Text(
            f"openwop-tui stopped after an unexpected error ({type(error).__name__}).{where}",
            style="bold red",
        )
        return cls(error, sentence)

    def __rich__(self) -> RenderableType:
        return self.sentence
