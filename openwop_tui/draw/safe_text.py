"""Cleaned text as a Rich `Text`, never parsed as markup: the sink host text is drawn through.

It takes `HostText` (`openwop_tui.text.sanitize`): text the boundary cleaned, or the client's own
cleaned with `clean_own`. A raw ``str`` passed here is a type error (mypy), so a path that
bypasses the boundary fails CI instead of reaching the terminal. Apart from
`openwop_tui.text.sanitize`, which stays free of Rich so the protocol core can clean text without
importing it.
"""

from __future__ import annotations

from rich.text import Text

from openwop_tui.text.sanitize import HostText

__all__ = ["safe_text"]


def safe_text(text: HostText, style: str = "") -> Text:
    """A Rich `Text` of cleaned ``text``: literal, never interpreted as console markup."""
    return Text(text, style=style)
