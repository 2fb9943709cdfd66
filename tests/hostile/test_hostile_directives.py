"""OpenClaw directives from a hostile agent, through ``render`` under every profile and through
the directive reader on its own (issue 8).

Every stream is printed with ``--images kitty|sixel|halfblock|none`` x ``--colors 16|none``: it
exits 0, prints nothing a terminal would execute beyond the printer's own styling and graphics,
and says specifically why a reference was refused. The reader's costs are counted (calls to the
media policy, records kept), never timed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile_media import (
    PROFILES,
    REFUSED_URLS,
    directive_texts,
    forget_rendered_colours,
    stream,
    terminal_leak,
    visible,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openwop_tui import __main__ as cli
from openwop_tui.openclaw import reader as directives
from openwop_tui.openclaw.policy import check_media
from openwop_tui.openclaw.reader import MAX_RECORDS, DirectiveStream, parse

TEXTS = directive_texts()


@pytest.fixture(autouse=True)
def _plain_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("OPENWOP_TUI_AUDIO", "off")
    monkeypatch.delenv("TMUX", raising=False)


@pytest.fixture(autouse=True, scope="module")
def _forget_colours() -> Iterator[None]:
    yield
    forget_rendered_colours()  # this module printed in 16 colours: see its docstring


def printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, images: str, colors: str
) -> str:
    path = tmp_path / "stream.sse"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    argv = ["render", str(path), "--images", images, "--colors", colors, "--width", "100"]
    code = cli.main([*argv, "--audio", "off"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Traceback" not in err and terminal_leak(err) is None, err
    return out


@pytest.mark.parametrize(("images", "colors"), PROFILES)
@pytest.mark.parametrize("name", sorted(TEXTS))
def test_hostile_directives_print_cleanly_under_every_profile(
    name: str, images: str, colors: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = printed(tmp_path, capsys, stream(TEXTS[name]), images, colors)
    assert terminal_leak(out) is None, terminal_leak(out)
    assert "run completed" in out


def test_every_refused_reference_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = visible(printed(tmp_path, capsys, stream(TEXTS["refused-urls"]), "halfblock", "16"))
    reasons = [
        "user name or password",
        "link-local address",
        "numeric host name but not a standard IP address",
        "the URL is malformed",
        "private address",
        "loopback address",
        "internal host name",
        "plain http: is not fetched",
        "single-label (internal) host name",
        "is a local path; a path the host names is never read from this machine's disk",
        "javascript: references are never fetched",
    ]
    for reason in reasons:
        assert reason in out, reason
    # Each refusal once: two references that name the same refused URL are one item.
    distinct = {(c.refused, c.reference) for c in map(check_media, REFUSED_URLS)}
    assert out.count("URL refused") == len(distinct) >= len(REFUSED_URLS) - 1


def test_url_credentials_in_directives_never_print(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for colors in ("16", "none"):
        out = printed(tmp_path, capsys, stream(TEXTS["credentials-in-urls"]), "none", colors)
        assert "hunter2" not in out
        assert "user name or password" in visible(out)


def test_a_refused_url_with_credentials_does_not_hide_the_same_url_without(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "MEDIA: https://u:pw@example.com/a.png\nMEDIA: https://example.com/a.png\n"
    found = parse(text)
    assert len(found.media) == 2 and len({m.key for m in found.media}) == 2
    assert all("pw" not in m.source and "pw" not in (m.check.reference or "") for m in found.media)
    out = visible(printed(tmp_path, capsys, stream([text]), "none", "none"))
    assert "URL refused" in out and "not fetched" in out and "pw@" not in out


def test_a_homograph_is_shown_as_the_host_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = visible(printed(tmp_path, capsys, stream(TEXTS["homographs"]), "none", "none"))
    assert "ex\u0430mple" not in out
    assert out.count("xn--exmple-4nf.com") == 2


def test_thousands_of_media_lines_keep_the_first_records_and_the_rest_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = visible(
        printed(tmp_path, capsys, stream(TEXTS["thousands-of-media-lines"]), "none", "none")
    )
    assert out.count("⌁ image · not fetched") == MAX_RECORDS
    assert f"more than {MAX_RECORDS} directives in this reply" in out
    assert "MEDIA: https://example.com/4999.png" in out  # past the cap: text, not lost


# ------------------------------------------------------------------------ the reader alone


class Counted:
    """Counts calls to the media policy (what a directive costs beyond reading its text)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        real = directives.check_media

        def counting(candidate: str) -> directives.MediaCheck:
            self.calls += 1
            return real(candidate)

        monkeypatch.setattr(directives, "check_media", counting)


def test_thousands_of_media_lines_cost_at_most_the_record_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counted = Counted(monkeypatch)
    found = parse("".join(f"MEDIA: https://example.com/{i}.png\n" for i in range(10_000)))
    assert counted.calls == MAX_RECORDS and len(found.records) == MAX_RECORDS
    assert found.overflow


def test_an_enormous_media_line_is_text_and_is_never_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counted = Counted(monkeypatch)
    line = "MEDIA: https://example.com/" + "a" * 1_000_000 + ".png"
    reader = DirectiveStream()
    shown = "".join(reader.feed(line[i : i + 997]) for i in range(0, len(line), 997))
    shown += reader.finish()
    assert shown == line and counted.calls == 0 and not reader.found.records


def test_an_unterminated_embed_fed_in_tiny_chunks_is_not_held_forever() -> None:
    reader = DirectiveStream()
    held = 0
    text = '[embed url="https://example.com/x" title="' + "t" * 50_000
    shown = []
    for i in range(0, len(text), 7):
        shown.append(reader.feed(text[i : i + 7]))
        held = max(held, i + 7 - sum(map(len, shown)))
    shown.append(reader.finish())
    assert "".join(shown) == text  # never a directive: all of it is text
    assert held <= 4096 + 7  # held back at most one shortcode's cap


SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_PIECES = st.sampled_from(
    [
        "MEDIA: ",
        "MEDIA:",
        "https://example.com/a.png",
        "https://127.1/x.png",
        "https://[::ffff:10.0.0.1]/a",
        "/etc/passwd",
        '"q u o t e d.png"',
        "[[audio_as_voice]]",
        "[[reply_to_current]]",
        "[[reply_to:",
        "]]",
        "[embed ",
        'url="https://example.com/c"',
        "ref='cv'",
        'title="\x1b]0;t\x07"',
        " /]",
        "]",
        "[/embed]",
        "[view ",
        "![a](https://example.com/i.png)",
        "`",
        "```",
        "    ",
        "\n",
        "\r\n",
        " ",
        "\t",
        "\x1b[2J",
        "\u202e",
        "\u200b",
        "\ud800",
        "x",
    ]
)


@SETTINGS
@given(
    st.lists(_PIECES, max_size=40).map("".join),
    st.lists(st.integers(0, 400), max_size=8),
    st.booleans(),
)
def test_a_reply_reads_the_same_however_it_is_cut(
    text: str, cuts: list[int], markdown_images: bool
) -> None:
    whole = parse(text, markdown_images=markdown_images)
    reader = DirectiveStream(markdown_images=markdown_images)
    shown, start = [], 0
    for cut in sorted(c % (len(text) + 1) for c in cuts):
        shown.append(reader.feed(text[start:cut]))
        start = max(start, cut)
    shown.append(reader.feed(text[start:]))
    shown.append(reader.finish())
    assert "".join(shown) == whole.text
    assert reader.found.records == whole.records
    assert (reader.found.reply, reader.found.audio_as_voice) == (whole.reply, whole.audio_as_voice)
    for record in whole.records:
        fields = [getattr(record, name, None) for name in ("source", "title", "ref", "url", "text")]
        for value in fields:
            assert value is None or terminal_leak(value) is None, value
    if whole.reply is not None and whole.reply.target is not None:
        assert terminal_leak(whole.reply.target) is None
    assert len(whole.records) <= MAX_RECORDS
