"""OpenClaw rich-output directives read out of assistant text (`openwop_tui.openclaw.reader`).

Every form of the protocol, the media policy for each refused URL class, code blocks left alone,
directives split across chunks, and hostile input (escapes in fields, huge inputs).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openwop_tui.openclaw.reader import (
    MAX_MEDIA_LINE,
    MAX_RECORDS,
    MAX_TAG,
    DirectiveStream,
    Embed,
    Inert,
    MediaDirective,
    Reply,
    check_media,
    parse,
)


def media(text: str, **options: bool) -> list[MediaDirective]:
    return parse(text, **options).media


def streamed(text: str, sizes: list[int]) -> list[str]:
    """The outputs of a stream fed ``text`` in chunks of the given sizes (cycled)."""
    stream = DirectiveStream()
    outputs: list[str] = []
    at = 0
    turn = 0
    while at < len(text):
        size = sizes[turn % len(sizes)]
        outputs.append(stream.feed(text[at : at + size]))
        at += size
        turn += 1
    outputs.append(stream.finish())
    return outputs


# ------------------------------------------------------------------- MEDIA:


def test_a_media_line_becomes_a_reference_and_leaves_the_text() -> None:
    found = parse("Here it is.\nMEDIA: https://cdn.example.com/q3.png\nBye.")
    assert found.text == "Here it is.\nBye."
    [ref] = found.media
    assert ref.check.url == "https://cdn.example.com/q3.png"
    assert ref.line == 2
    assert (ref.family, ref.mime_type, ref.name) == ("image", "image/png", "q3.png")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("MEDIA:https://a.example/x.png", ["https://a.example/x.png"]),
        ("   MEDIA: https://a.example/x.png", ["https://a.example/x.png"]),
        ("MEDIA: https://a.example/x.png\u240d", ["https://a.example/x.png"]),
        ("MEDIA: `https://a.example/x.png`", ["https://a.example/x.png"]),
        ('MEDIA: "https://a.example/x.png"', ["https://a.example/x.png"]),
        ("MEDIA: (https://a.example/x.png),", ["https://a.example/x.png"]),
        (
            "MEDIA: https://a.example/x.png https://a.example/y.mp3",
            ["https://a.example/x.png", "https://a.example/y.mp3"],
        ),
    ],
)
def test_media_line_forms(line: str, expected: list[str]) -> None:
    found = parse(line)
    assert [m.check.url for m in found.media] == expected
    assert found.text == ""


def test_a_quoted_path_may_hold_spaces_and_so_may_an_unquoted_local_path() -> None:
    for line in ('MEDIA: "/Users/pete/My File.png"', "MEDIA: /Users/pete/My File.png"):
        [ref] = media(line)
        assert ref.source == "/Users/pete/My File.png"
        assert ref.check.url is None and "local path" in (ref.check.refused or "")


def test_words_that_are_no_reference_stay_text() -> None:
    found = parse("MEDIA: https://a.example/x.png is the chart")
    assert found.text == "is the chart"
    assert len(found.media) == 1
    # A line with no reference at all is ordinary text.
    assert parse("MEDIA: nothing to see").text == "MEDIA: nothing to see"
    assert parse("MEDIA:").text == "MEDIA:"


@pytest.mark.parametrize(
    "text",
    [
        "the tool said MEDIA: https://a.example/x.png",
        "> MEDIA: https://a.example/x.png",
        "- MEDIA: https://a.example/x.png",
        "Media: https://a.example/x.png",  # upper case only, as OpenClaw's pattern
    ],
)
def test_media_only_counts_in_capitals_at_the_start_of_a_line(text: str) -> None:
    assert parse(text).text == text
    assert media(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "```\nMEDIA: https://a.example/x.png\n```",
        "~~~text\nMEDIA: https://a.example/x.png\n[[audio_as_voice]]\n~~~",
        "````md\n```\nMEDIA: https://a.example/x.png\n```\n````",
        "para\n\n    MEDIA: https://a.example/x.png",
        '`[[audio_as_voice]]` and `[embed ref="x" /]` in inline code',
    ],
)
def test_directives_inside_code_are_left_alone(text: str) -> None:
    found = parse(text)
    assert found.text == text
    assert found.records == [] and not found.audio_as_voice


def test_a_media_line_after_a_closed_fence_counts_again() -> None:
    found = parse("```\ncode\n```\nMEDIA: https://a.example/x.png")
    assert found.text == "```\ncode\n```\n"
    assert len(found.media) == 1


# ------------------------------------------------------------------- policy


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("http://cdn.example.com/x.png", "plain http:"),
        ("https://127.0.0.1/x.png", "loopback"),
        ("https://[::1]/x.png", "loopback"),
        ("https://169.254.169.254/latest/meta-data", "link-local"),
        ("https://[fe80::1]/x", "link-local"),
        ("https://10.0.0.1/x.png", "private"),
        ("https://172.16.5.4/x.png", "private"),
        ("https://192.168.1.10/x.png", "private"),
        ("https://[fd00::1]/x", "private"),
        ("https://100.64.0.1/x.png", "CGNAT"),
        ("https://224.0.0.1/x.png", "multicast"),
        ("https://[ff02::1]/x", "multicast"),
        ("https://0.0.0.0/x.png", "unspecified"),
        ("https://[::]/x.png", "unspecified"),
        ("https://240.0.0.1/x.png", "reserved"),
        ("https://[::ffff:127.0.0.1]/x", "loopback"),
        ("https://[64:ff9b::a00:1]/x", "private"),
        ("https://[2002:7f00:1::]/x", "loopback"),
        ("https://localhost/x.png", "internal host name"),
        ("https://app.localhost/x.png", "internal host name"),
        ("https://printer.local/x.png", "internal host name"),
        ("https://metadata.google.internal/x", "internal host name"),
        ("https://nas.lan/x.png", "internal host name"),
        ("https://router.home.arpa/x.png", "internal host name"),
        ("https://intranet/x.png", "single-label"),
        ("https://LOCALHOST./x.png", "internal host name"),
        ("https://user:pw@cdn.example.com/x.png", "user name or password"),
        ("https://2130706433/x.png", "numeric host name"),
        ("https://127.1/x.png", "numeric host name"),
        ("ftp://cdn.example.com/x.png", "never fetched"),
    ],
)
def test_refused_urls_say_why_and_keep_the_url_as_reference(url: str, words: str) -> None:
    [ref] = media(f"MEDIA: {url}")
    assert ref.check.url is None
    assert words in (ref.check.refused or ""), ref.check.refused
    assert ref.check.reference is not None  # a URL: the user may follow it elsewhere


@pytest.mark.parametrize(
    "path",
    [
        "/tmp/x.png",
        "/etc/passwd",
        "~/Pictures/x.png",
        "./out/x.png",
        "../../.env",
        "out/x.png",
        "x.png",
        "C:\\Users\\x.png",
        "\\\\server\\share\\x.png",
        "file:///etc/passwd",
        "FILE:/tmp/x.png",
    ],
)
def test_a_local_path_is_refused_and_never_a_reference(path: str) -> None:
    [ref] = media(f"MEDIA: {path}")
    assert ref.check.url is None
    assert "never read from this machine's disk" in (ref.check.refused or "")
    assert ref.check.reference is None


@pytest.mark.parametrize("url", ["data:image/png;base64,AAAA", "javascript:alert(1)"])
def test_inline_schemes_are_refused_without_a_reference(url: str) -> None:
    check = check_media(url)
    assert check.url is None and "never fetched" in (check.refused or "")
    assert check.reference is None


def test_public_https_urls_are_accepted_for_the_fetch_path() -> None:
    for url in (
        "https://cdn.example.com/a.png",
        "https://93.184.215.14/a.png",
        "https://[2606:4700::1]/a",
    ):
        check = check_media(url)
        assert check.url == url and check.refused is None


# ------------------------------------------------------- voice, reply, embed


def test_audio_as_voice_is_stripped_wherever_it_is() -> None:
    found = parse("Hello [[audio_as_voice]] world\n[[ Audio_As_Voice ]]")
    assert found.audio_as_voice
    assert found.text == "Hello world\n"


def test_reply_tags() -> None:
    assert parse("[[reply_to_current]] Sure.").reply == Reply(current=True)
    found = parse("[[reply_to: msg-42 ]] Sure.")
    assert found.reply == Reply(target="msg-42") and found.text == "Sure."
    # The last explicit id wins over the current message.
    assert parse("[[reply_to_current]] a [[reply_to:1]] b [[reply_to:2]]").reply == Reply("2")
    # Glued to a word it is no tag (OpenClaw requires start of line or white space).
    assert parse("x[[reply_to:1]]").text == "x[[reply_to:1]]"
    assert Reply(current=True).line == "↳ reply to the current message"
    assert Reply(target="m1").line == "↳ reply to m1"


def test_an_unknown_double_bracket_is_text() -> None:
    assert parse("see [[wiki link]]").text == "see [[wiki link]]"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[embed ref="cv_123" title="Status" /]', Embed("cv_123", None, "Status", None, 1)),
        (
            '[embed url="https://c.example/b" height=480 /]',
            Embed(None, "https://c.example/b", None, 480, 1),
        ),
        ("[embed ref='cv_1' height=\"320px\"/]", Embed("cv_1", None, None, 320, 1)),
        (
            "[embed url=https://c.example/b/7 /]",
            Embed(None, "https://c.example/b/7", None, None, 1),
        ),
    ],
)
def test_self_closing_embeds(text: str, expected: Embed) -> None:
    found = parse(f"Look: {text} there")
    assert found.records == [expected]
    assert found.text == "Look: there"


def test_an_embed_without_ref_or_url_is_text() -> None:
    assert parse('[embed title="x" /]').text == '[embed title="x" /]'


def test_block_form_html_embeds_and_view_are_text_marked_not_run() -> None:
    text = '[embed title="x"]<script>alert(1)</script>[/embed]\n[view ref="cv_1"]'
    found = parse(text)
    assert found.text == text
    assert [type(r) for r in found.records] == [Inert, Inert]
    html, view = found.records
    assert isinstance(html, Inert) and html.form == "html-embed" and "HTML" in html.reason
    assert isinstance(view, Inert) and view.form == "view" and "retired" in view.reason


def test_markdown_images_stay_text_unless_opted_in() -> None:
    text = "A chart: ![Q3 chart](https://cdn.example.com/q3.png) and ![local](img/x.png)"
    assert parse(text).text == text and parse(text).records == []
    found = parse(text, markdown_images=True)
    [ref] = found.media
    assert (ref.check.url, ref.alt, ref.origin) == (
        "https://cdn.example.com/q3.png",
        "Q3 chart",
        "markdown",
    )
    assert found.text == "A chart: and ![local](img/x.png)"
    [refused] = media("![x](http://cdn.example.com/x.png)", markdown_images=True)
    assert refused.check.url is None and "http:" in (refused.check.refused or "")


# ----------------------------------------------------------------- streaming

SAMPLE = (
    "[[reply_to_current]] Here is the chart.\n"
    "MEDIA: https://cdn.example.com/q3.png\n"
    "Voice: [[audio_as_voice]] done.\n"
    "MEDIA: `https://cdn.example.com/a.opus` words\n"
    'Board [embed ref="cv_1" title="Status" height=320 /] end\n'
    "```\nMEDIA: https://cdn.example.com/in-code.png\n```\n"
    "[view x]\n"
    "MEDIA: /tmp/local.png"
)


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 13, 64])
def test_a_streamed_reply_ends_as_the_whole_one(size: int) -> None:
    whole = parse(SAMPLE)
    outputs = streamed(SAMPLE, [size])
    assert "".join(outputs) == whole.text
    assert "MEDIA: https://cdn.example.com/q3.png" not in "".join(outputs)


def test_no_directive_ever_flashes_as_raw_text() -> None:
    """Every partial output is a prefix of the final text, which has no directive in it: a
    directive split over chunks is held until it is complete, never shown then taken back."""
    final = parse(SAMPLE).text
    rng = random.Random(8)
    for _ in range(200):
        sizes = [rng.randint(1, 9) for _ in range(20)]
        shown = ""
        for output in streamed(SAMPLE, sizes):
            shown += output
            assert final.startswith(shown)
            for raw in (
                "[[reply_to",
                "[[audio_as",
                "[embed ref",
                "MEDIA: https://cdn.example.com/q",
            ):
                assert raw not in shown


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "MEDIA: https://a.example/x.png",
                "MEDIA:",
                "media: /tmp/y.mp3",
                "[[audio_as_voice]]",
                "[[reply_to:7]]",
                "[[",
                "]]",
                '[embed ref="a" /]',
                '[embed url="https://e.example"',
                "[view",
                "![a](https://b.example/c.png)",
                "```",
                "    ",
                "`",
                " ",
                "\n",
                "\n\n",
                "text",
                "[",
                "!",
            ]
        ),
        max_size=25,
    ),
    st.lists(st.integers(1, 12), min_size=1, max_size=8),
    st.booleans(),
)
def test_any_chunking_gives_the_same_text_and_records(
    pieces: list[str], sizes: list[int], images: bool
) -> None:
    text = "".join(pieces)
    whole = parse(text, markdown_images=images)
    stream = DirectiveStream(markdown_images=images)
    out: list[str] = []
    at = turn = 0
    while at < len(text):
        size = sizes[turn % len(sizes)]
        out.append(stream.feed(text[at : at + size]))
        at, turn = at + size, turn + 1
    out.append(stream.finish())
    assert "".join(out) == whole.text
    assert stream.found.records == whole.records
    assert stream.found.audio_as_voice == whole.audio_as_voice
    assert stream.found.reply == whole.reply


def test_text_is_not_held_longer_than_a_directive_can_be() -> None:
    stream = DirectiveStream()
    assert stream.feed("[[" + "a" * (MAX_TAG + 5)) != ""  # no tag is that long: shown
    stream = DirectiveStream()
    assert stream.feed("MEDIA: " + "x" * MAX_MEDIA_LINE) != ""
    stream = DirectiveStream()
    assert stream.feed("plain words then ") == "plain words then "  # nothing held


# ------------------------------------------------------------------- hostile


def test_escape_sequences_in_directive_fields_are_cleaned() -> None:
    found = parse(
        '[embed ref="cv\x1b]52;c;aGk=\x07" title="\x1b[31mred\u202e" '
        'url="https://e.example/\x9b" /]\n'
        "MEDIA: https://cdn.example.com/\x1b[2Jx.png\n"
        "[[reply_to:\x1b[5mblink]]"
    )
    assert [type(r).__name__ for r in found.records] == ["Embed", "MediaDirective"]
    for record in found.records:
        for value in vars_of(record):
            assert "\x1b" not in value and "\x07" not in value and "\u202e" not in value
            assert "\x9b" not in value
    assert found.reply is not None and "\x1b" not in (found.reply.target or "")


def vars_of(record: object) -> list[str]:
    values: list[str] = []
    for name in getattr(record, "__slots__", ()):
        value = getattr(record, name)
        if isinstance(value, str):
            values.append(value)
        elif hasattr(value, "__slots__"):
            values += vars_of(value)
    return values


def test_huge_inputs_are_bounded() -> None:
    many = "\n".join(f"MEDIA: https://cdn.example.com/{i}.png" for i in range(500))
    found = parse(many)
    assert len(found.records) == MAX_RECORDS and found.overflow
    assert found.text.count("MEDIA:") == 500 - MAX_RECORDS  # the rest stayed text
    long_line = "MEDIA: https://cdn.example.com/" + "a" * 5_000_000 + ".png"
    assert parse(long_line).records == []  # too long to be one: text
    long_tag = "[[" + "x" * 1_000_000
    assert parse(long_tag).text == long_tag
    title = "t" * 3_000
    [embed] = parse(f'[embed ref="r" title="{title}" /]').records
    assert isinstance(embed, Embed) and len(embed.title or "") <= 200


def test_a_huge_reply_streamed_in_small_chunks_is_read_once() -> None:
    """The cost of a chunk is the chunk plus at most one held directive: feeding a 2 MB reply
    50 bytes at a time reads it linearly (a rescan per chunk would be 40,000 x 2 MB)."""
    stream = DirectiveStream()
    text = ("word " * 9 + "\n") * 40_000
    shown = sum(len(stream.feed(text[at : at + 50])) for at in range(0, len(text), 50))
    assert shown + len(stream.finish()) == len(text)
    assert len(stream._line) < 100  # only the current line is kept, never the whole text


def test_a_line_that_never_ends_is_not_kept_whole() -> None:
    """A 2 MB reply with no newline: the stream keeps only the untranslated tail of the line
    (a copy of the whole line per chunk would be quadratic), and still reads its directives."""
    stream = DirectiveStream()
    text = "word " * 400_000 + "[[audio_as_voice]] tail " + '[embed ref="r" /]'
    longest = 0
    for at in range(0, len(text), 40):
        stream.feed(text[at : at + 40])
        longest = max(longest, len(stream._line))
    stream.finish()
    assert longest < 2_000
    assert stream.found.audio_as_voice and len(stream.found.records) == 1


@pytest.mark.parametrize("size", [1, 7, 333])
def test_long_lines_stream_as_they_parse(size: int) -> None:
    text = (
        "x" * 3000
        + " [[reply_to:1]] "
        + "y" * 2000
        + "\n```"
        + "z" * 2000
        + "\nMEDIA: https://a.example/in-fence.png\n```\n"
        + " " * 9000
        + "MEDIA: https://a.example/x.png\nend"
    )
    whole = parse(text)
    assert "".join(streamed(text, [size])) == whole.text
    assert whole.reply == Reply("1") and whole.media == []
