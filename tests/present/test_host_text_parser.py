"""A reply's markdown is parsed without markdown-it's ``normalize`` rule
(`openwop_tui.draw.markdown._host_text_parser`): on host text, cleaned where it entered, the
rule changes nothing, so the tokens are the ones Rich's own parser makes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from openwop_tui.draw.markdown import _SHARED_PARSER, parser
from openwop_tui.text.sanitize import clean

#: Markdown with what ``normalize`` rewrites (CRLF, a lone CR, NUL) among what it parses.
_PIECES = st.sampled_from(
    ["\r\n", "\r", "\x00", "\n", "\n\n", "word ", "**b**", "`c`", "# h\n", "- i\n", "```\nx\n```\n",
     "a | b\n--|--\n", "===\n", "[l](u)", "&amp;", "&#0;", "\\\r\n", "  \r\n"]
)  # fmt: skip


@given(st.lists(_PIECES, max_size=40).map("".join))
def test_cleaned_host_text_parses_to_the_tokens_rich_s_parser_makes(raw: str) -> None:
    text = clean(raw)
    assert "\r" not in text and "\x00" not in text
    ours = [token.as_dict() for token in _SHARED_PARSER.parse(text)]
    assert ours == [token.as_dict() for token in parser().parse(text)]
