"""Host text as a Rich `Text`: cleaned (`openwop_tui.text.sanitize.clean`), never parsed as markup.

Apart from `openwop_tui.text.sanitize`, which stays free of Rich so the protocol core can clean text
without importing it.
"""

from __future__ import annotations

from rich.text import Text

from openwop_tui.text.sanitize import clean

__all__ = ["safe_text"]


def safe_text(text: str, style: str = "") -> Text:
    """A Rich `Text` of the cleaned ``text``: literal, never interpreted as console markup."""
    return Text(clean(text), style=style)
