"""What the transcript's search looks for: the query, and whether case and whole words count.

`Finder` finds the occurrences of a query in a text (every one, not overlapping), with the
find bar's two toggles: case-sensitive, and whole words only (a word boundary on each side,
by Unicode's word characters, so ``cat`` is not found in ``concatenate``). The view counts
occurrences with it ("3 of 17" is over occurrences, not items) and highlights their spans.
No Textual: plain strings in, spans out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rich.cells import cell_len


@dataclass(frozen=True, slots=True)
class Finder:
    """A query with its toggles; an empty query finds nothing."""

    query: str = ""
    case: bool = False
    """Case-sensitive: ``Code`` does not find ``code``."""
    whole_word: bool = False
    """Whole words only: ``code`` does not find ``codec``."""
    _pattern: re.Pattern[str] | None = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        pattern = None
        if self.query:
            body = re.escape(self.query)
            if self.whole_word:
                # \b would need a word character at the query's own ends; this works for a
                # query that starts or ends with punctuation too.
                body = rf"(?<!\w){body}(?!\w)"
            pattern = re.compile(body, 0 if self.case else re.IGNORECASE)
        object.__setattr__(self, "_pattern", pattern)

    def __bool__(self) -> bool:
        return bool(self.query)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """(start, end) of every occurrence in ``text``, as string indices, in order."""
        if self._pattern is None:
            return []
        return [match.span() for match in self._pattern.finditer(text)]

    def count(self, text: str) -> int:
        """How many times it occurs in ``text``."""
        return len(self.spans(text))

    def cells(self, text: str) -> list[tuple[int, int]]:
        """The `spans` as terminal cells (a wide character takes two), for a drawn line."""
        return [(cell_len(text[:start]), cell_len(text[:end])) for start, end in self.spans(text)]

    def describe(self) -> str:
        """The toggles in words, for a count: ``"case, whole words"`` (``""``: neither)."""
        return ", ".join(
            word for word, on in (("case", self.case), ("whole words", self.whole_word)) if on
        )
