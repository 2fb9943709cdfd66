"""How an unexpected error is shown when the app has to stop: one sentence, never a traceback.

`Stopped` wraps the error that escaped a handler, a worker or a render. Textual shows an
exception that renders itself (has ``__rich__``) by rendering it, instead of its traceback with
local variables (where the API key is): so the sentence is all the user sees, and the details
are in the log file it names.
"""

from __future__ import annotations

from rich.console import RenderableType


class Stopped(Exception):
    """The app stopped after ``error``; ``sentence`` is what the user reads."""

    def __init__(self, error: BaseException, sentence: RenderableType) -> None:
        super().__init__(str(error))
        self.error = error
        self.sentence = sentence
        self.__cause__ = error

    def __rich__(self) -> RenderableType:
        return self.sentence
