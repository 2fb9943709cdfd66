"""A streaming paragraph's inline parse goes on from its settled part
(`openwop_tui.draw.open_inline`): at every step the tokens are the ones a parse of the whole text
makes, what later text could still change is never settled, and tokens handed out stay as they
were."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it.token import Token

from openwop_tui.draw import open_inline
from openwop_tui.draw.markdown import _SHARED_PARSER, ReplyMarkdown
from openwop_tui.draw.markdown_images import images_as_links
from openwop_tui.draw.open_inline import KEY, OpenInline, finish_parsed
from openwop_tui.text.markdown import clean_tokens
from openwop_tui.text.sanitize import HostText

#: What a paragraph is made of, the constructs that reach across words among plain ones.
_ATOMS = [
    "word", "lorem", "ipsum", "x", "**bold**", "*em*", "_u_", "`code`", "`a b`",
    "[link](https://e.org/a)", "**", "*", "_", "__", "`", "``", "[", "]", "](", "(", ")", "<",
    ">", "<b>", "</b>", "<http://x.y/z>", "<a@b.co>", "\\", "\\*", "&amp;", "&", "&#96;",
    "![alt](i.png)", "![", "snake_case", "a*b", "5 * 3", "~~", "~~s~~", "~", "  \n", "\n",
    "   ", "\t", "1.", "-", "#", "a|b", "===", "[x]: http://d.e", "[x]", "[x][]", "\\\n",
    "<a href='x y'>", "[a `b](u) c`", "*a **b** c*", "***", "_a_b_", "日本", "😀", "x  ", "  x",
    "[l](u 't t')", "`` a ` b ``", "![a *b* &amp;](i.png)", "<kbd>", "</kbd>",
]  # fmt: skip
_SPACES = [" ", " ", " ", "", "\n", "  "]


def _flat(tokens: list[Token]) -> list[Any]:
    out: list[Any] = []
    for token in tokens:
        out.append(token.as_dict(children=False))
        if token.children:
            out.append(_flat(token.children))
    return out


def _ours(text: str, kept: OpenInline, references: dict[str, Any] | None = None) -> list[Token]:
    """``text`` parsed as a reply's open part is: resumed by ``kept``, cleaned, images made
    links (`openwop_tui.draw.markdown.ReplyMarkdown.update`)."""
    tokens = _SHARED_PARSER.parse(text, {"references": dict(references or {}), KEY: kept})
    finish_parsed(tokens, kept)
    return tokens


def _whole(text: str, references: dict[str, Any] | None = None) -> list[Token]:
    """``text`` parsed whole, then cleaned and its images made links."""
    tokens = _SHARED_PARSER.parse(text, {"references": dict(references or {})})
    clean_tokens(tokens)
    images_as_links(tokens)
    return tokens


def _steps(text: str, cuts: list[int], references: dict[str, Any] | None = None) -> OpenInline:
    """Parse ``text`` up to each of ``cuts`` in turn with one `OpenInline`, checking each
    parse against the whole text's; the `OpenInline` after the last."""
    kept = OpenInline()
    for at in cuts:
        ours = _ours(text[:at], kept, references)
        assert _flat(ours) == _flat(_whole(text[:at], references)), repr(text[:at])
    return kept


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(_ATOMS), st.sampled_from(_SPACES)), min_size=1),
    st.lists(st.integers(1, 25), min_size=1, max_size=60),
)
def test_a_streamed_paragraph_parses_to_the_whole_text_s_tokens_at_every_step(
    atoms: list[tuple[str, str]], steps: list[int]
) -> None:
    text = "".join(atom + space for atom, space in atoms)
    cuts, at = [], 0
    for step in steps:
        at = min(len(text), at + step)
        cuts.append(at)
    _steps(text, [*cuts, len(text)])


@pytest.mark.parametrize(
    ("opened", "closed"),
    [
        ("a **bold ", "words** b"),  # emphasis: an opener without its closer
        ("a ~~gone ", "words~~ b"),  # strikethrough
        ("a [the ", "docs](https://e.org) b"),  # a link's label
        ("a `some ", "code` b"),  # a code span
        ("a <a ", "href='x'>b</a> c"),  # raw HTML
        ("a <http://e.org/a ", "b> c"),  # not an autolink after all, but it might have been
        ("a [a `b](u) ", "c` d"),  # a code span begun in a link's label wins over the link
        ("a*b ", "c*d e"),  # an opener inside a word
    ],
)
def test_nothing_later_text_could_change_is_settled(opened: str, closed: str) -> None:
    head = "settled words come first "
    text = head + opened + closed
    kept = _steps(text, [len(head) + 2, len(head + opened) + 1, len(head + opened) + 3])
    assert kept.source.startswith(head)
    assert len(kept.source) <= len(head) + 2  # (up to the space after the "a")
    _steps(text, [len(text)])


def test_a_long_paragraph_of_prose_settles_up_to_its_last_word() -> None:
    words = ["**bold** words", "`code`", "[a link](https://e.org/x)", "plain", "_em_", "a &amp; b"]
    text = " ".join(words[n % len(words)] for n in range(400))
    kept = OpenInline()
    behind = []
    for at in range(40, len(text), 40):
        assert _flat(_ours(text[:at], kept)) == _flat(_whole(text[:at]))
        behind.append(at - len(kept.source))
    # What is parsed again at each step stays a few words long, however long the paragraph:
    # a construct still open is tried again once what follows the settled part has doubled.
    assert max(behind) < 200 and len(kept.source) > len(text) - 240


def test_tokens_handed_out_are_not_changed_by_the_parses_after_them() -> None:
    kept = OpenInline()
    text = "one &amp; two **three** four \\* five " * 20
    first = _ours(text[:300], kept)
    before = _flat(first)
    for at in range(301, len(text), 7):
        _ours(text[:at], kept)
    assert _flat(first) == before


def test_other_definitions_parse_the_settled_part_again() -> None:
    text = "see [the docs][x] for what comes next in a long paragraph"
    kept = OpenInline()
    older = {"X": {"href": "https://old.example", "title": ""}}
    newer = {"X": {"href": "https://new.example", "title": "moved"}}
    for references, at in ((older, 40), (newer, len(text))):
        ours = _ours(text[:at], kept, references)
        assert _flat(ours) == _flat(_whole(text[:at], references))
    link = next(t for t in ours[1].children or [] if t.type == "link_open")
    assert link.attrs["href"] == "https://new.example"


def test_only_the_last_inline_text_is_resumed() -> None:
    # Two paragraphs: the first is parsed whole, the last goes on from what was settled.
    kept = OpenInline()
    first = "an earlier paragraph with **bold** words\n\n"
    for at in (60, 80, 100):
        text = first + "the streaming one goes on and on " * 3
        assert _flat(_ours(text[:at], kept)) == _flat(_whole(text[:at]))
    assert kept.source.startswith("the streaming one")


def test_a_streamed_reply_s_tokens_are_cleaned_the_settled_ones_once() -> None:
    # Character references decode to what `clean` must rewrite: an escape, a C1, a bidi mark.
    text = "".join(f"word{n} &#27;c red &#x9b;2J &#x202e;mirror **b** " for n in range(60))
    reply = ReplyMarkdown()
    calls: list[int] = []
    counting: list[int] = []  # (the streamed reply's updates only, not the whole parse's)
    real = open_inline.clean_tokens

    def counted(tokens: Iterable[Token]) -> None:
        listed = list(tokens)
        counting.append(sum(1 + len(token.children or ()) for token in listed))
        real(listed)

    open_inline.clean_tokens = counted  # type: ignore[assignment]
    try:
        for at in range(0, len(text), 37):
            reply.feed(HostText(text[at : at + 37]))
            counting.clear()
            ours = reply.blocks()
            calls.append(sum(counting))
            whole = ReplyMarkdown.whole(HostText(reply.text)).blocks()
            assert [_flat(b.tokens) for b in ours] == [_flat(b.tokens) for b in whole]
            assert not any(
                "\x1b" in str(item) or "\x9b" in str(item) or "\u202e" in str(item)
                for block in ours
                for item in _flat(block.tokens)
            )
    finally:
        open_inline.clean_tokens = real  # type: ignore[assignment]
    # What an update cleans stays a few words long (the settled tokens were cleaned once).
    assert max(calls[len(calls) // 2 :]) < 60
