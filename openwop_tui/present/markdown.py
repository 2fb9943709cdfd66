"""Rich's ``Markdown`` with its parsed tokens cleaned (`openwop_tui.text.markdown`).

Rich builds its own parser, so the cleaning cannot go in as a parser rule: the tokens are
cleaned after Rich parsed them, before anything is drawn.
"""

from __future__ import annotations

from typing import Any

from rich.markdown import Markdown

from openwop_tui.text.markdown import clean_tokens
from openwop_tui.text.sanitize import clean

__all__ = ["SafeMarkdown"]


class SafeMarkdown(Markdown):
    """Rich ``Markdown`` whose parsed tokens are cleaned (see the module docstring)."""

    def __init__(self, markup: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(clean(markup), *args, **kwargs)
        clean_tokens(self.parsed)
