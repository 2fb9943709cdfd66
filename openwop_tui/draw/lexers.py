"""Pygments lexers made ready before a reply needs them.

A Pygments lexer compiles its rules (a few hundred regular expressions for the larger
languages) the first time one of its kind is made, and imports its module: 5-170 ms a language
on a 2-core machine, Python's, CSS's and SQL's among the longest. Made where a reply is drawn,
that work fell in the frame that first showed a code block in the language, on the event loop:
a rich answer's first frame took 170 ms, and every key typed meanwhile waited for it (issue 26).

`warm` makes one lexer of each language in `COMMON` (what answers hold most often), so their
rules are compiled once, before the first answer: the app calls it in its warming thread once
the host is reached (`openwop_tui.ui.warming`), where a person has not typed a message yet.
It costs about 4 MiB of memory. A language not among them is compiled where it is first drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pygments.lexers import get_lexer_by_name  # type: ignore[import-untyped]
from pygments.util import ClassNotFound  # type: ignore[import-untyped]

__all__ = ["COMMON", "warm"]

#: The languages whose lexers `warm` makes ready: those answers hold most often.
COMMON = (
    "python",
    "json",
    "bash",
    "javascript",
    "typescript",
    "yaml",
    "sql",
    "html",
    "css",
    "go",
    "rust",
    "java",
    "c",
    "cpp",
    "diff",
    "toml",
)


def warm(names: Iterable[str] = COMMON, *, between: Callable[[], None] = lambda: None) -> None:
    """Make one lexer of each language in ``names``: Pygments compiles a lexer's rules on its
    class the first time one is made, for every later one (in any thread) to use. ``between``
    is called before each (the app's warming thread waits there while keys are typed)."""
    for name in names:
        between()
        try:
            get_lexer_by_name(name)
        except ClassNotFound:  # (a Pygments without it: drawn as plain text where it is used)
            continue
