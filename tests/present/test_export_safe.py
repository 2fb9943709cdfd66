"""The Markdown export is safe to open: no live HTML, script, unsafe link or decoded control.

The measured case (issue 14): three live ``<script>`` tags, an ``onerror`` image, a
``javascript:`` link, an iframe and an image pointing at loopback reached a Markdown viewer; a
newline in a tool name or title made headings; alt text broke out of its link; ``&#x202e;``
decoded to a real bidi control; a session title with escapes landed raw in the first line;
``rename`` took 100,000 characters. A session full of that is exported here and the Markdown
rendered to HTML by markdown-it (as a naive viewer: every scheme followed), and nothing live
may be left in it.
"""

from __future__ import annotations

import base64
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from PIL import Image
from render_helpers import builtins

from openwop_tui.__main__ import main
from openwop_tui.present.envelope import export_drawer
from openwop_tui.present.export import export_session
from openwop_tui.store.database import StoreError, default_path
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import RENAME_CHARS, Store
from openwop_tui.text.md_safe import block, inline, live_parts, safe_target

ATTACKS = [
    "<script>alert(1)</script>",
    "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
    "<img src=x onerror=alert(1)>",
    '<iframe src="https://evil.example"></iframe>',
    "[click me](javascript:alert(1))",
    "[click me](JaVaScRiPt:alert(1))",
    "[data](data:text/html;base64,PHNjcmlwdD4=)",
    "[vb](vbscript:msgbox)",
    "![pixel](http://127.0.0.1:8080/track.png)",
    "![pixel](http://[::1]/x.png)",
    "![pixel](https://evil.example/track.png)",
    "[local](http://192.168.1.1/admin)",
    "<http://127.0.0.1/>",
    "<javascript:alert(1)>",
    "[ref][evil]\n\n[evil]: javascript:alert(2)",
    "&#x202e;gpj.exe",
    "&#8238;also",
    "&rlm;&lrm;",
    "<a href='javascript:alert(3)'>x</a>",
    "<svg onload=alert(4)>",
    "<details open ontoggle=alert(5)>",
    "`code` then <b onmouseover=alert(6)>bold</b>",
    "[nested ![img](javascript:x)](https://ok.example)",
    "line\n# Fake heading\n## You\nplease paste your key",
]
HOSTILE = "\n\n".join(ATTACKS)
TOOL = "search\n## You\nsend me the key <script>x</script>"
TITLE = "\x1b]52;c;SGVsbG8=\x07\x1b[2J chat <script>t</script>\nsecond line"


def _png() -> str:
    out = io.BytesIO()
    Image.new("RGB", (2, 2), "red").save(out, "PNG")
    return base64.b64encode(out.getvalue()).decode()


def _frame(doc: dict[str, object]) -> Entry:
    return Entry("frame", json.dumps(doc), run="r1", label="message")


def _session(store: Store) -> str:
    session = store.create(host="http://h", workflow="w")
    store.append(session, Entry("user", TITLE))
    store.append(session, Entry("run", run="r1", meta={"workflow": "w"}))
    store.append(session, _frame({"type": "run.started", "payload": {}}))
    for piece in (HOSTILE[: len(HOSTILE) // 2], HOSTILE[len(HOSTILE) // 2 :]):
        store.append(
            session, _frame({"type": "output.chunk", "nodeId": "n", "payload": {"chunk": piece}})
        )
    envelopes = [
        {
            "type": "x.md",
            "payload": HOSTILE,
            "meta": {"rendering": {"display": "markdown", "title": TOOL}},
        },
        {
            "type": "media.image",
            "payload": {
                "base64": _png(),
                "mimeType": "image/png",
                "name": "../../x\n.png",
                "bytes": 70,
            },
            "meta": {"rendering": {"alt": "a](javascript:alert(7)) ![b", "title": "pic\n# h"}},
        },
        {
            "type": "media.image",
            "payload": {"url": "http://127.0.0.1:9/x.png", "mimeType": "image/png", "bytes": 5},
            "meta": {"rendering": {"title": "<img src=x onerror=alert(8)>"}},
        },
        {
            "type": "x.card",
            "payload": {"<b>k</b>": "[x](javascript:1)", "t": "&#x202e;"},
            "meta": {"rendering": {"display": "card"}},
        },
        {
            "type": "x.code",
            "payload": "</code><script>alert(9)</script>\x1b]52;c;SGVsbG8=\x07",
            "meta": {"rendering": {"display": "code", "lang": "py\n<script>"}},
        },
    ]
    store.append(
        session,
        _frame(
            {
                "type": "node.completed",
                "nodeId": "n",
                "payload": {"outputs": {"envelope": envelopes}},
            }
        ),
    )
    store.append(
        session,
        _frame(
            {
                "type": "agent.toolCalled",
                "payload": {"callId": "c", "toolName": TOOL, "inputs": {"q": HOSTILE}},
            }
        ),
    )
    store.append(
        session,
        _frame({"type": "agent.reasoning.delta", "payload": {"agentId": TOOL, "delta": HOSTILE}}),
    )
    store.append(
        session,
        _frame({"type": "run.failed", "payload": {"error": {"code": "x", "message": HOSTILE}}}),
    )
    return session


#: What markdown-it writes for Markdown itself; any other tag came from the text.
_MARKDOWN_TAGS = frozenset(
    {"p", "em", "strong", "code", "pre", "blockquote", "ul", "ol", "li", "a", "img", "hr", "br"}
    | {"h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "del", "s"}
)


class _Live(HTMLParser):
    """Collects what a browser would act on in rendered HTML."""

    def __init__(self, assets: str) -> None:
        super().__init__()
        self.assets, self.found = assets, []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag not in _MARKDOWN_TAGS:
            self.found.append(f"<{tag}>")
        self.found += [f"{name}=" for name in named if name.startswith("on")]
        href, src = named.get("href") or "", named.get("src")
        if tag == "a" and not (safe_target(href) or href.startswith(f"{self.assets}/")):
            self.found.append(href)
        if tag == "img" and not (src or "").startswith(f"{self.assets}/"):
            self.found.append(f"img {src}")

    def handle_data(self, data: str) -> None:
        self.found += re.findall("[\u202a-\u202e\u2066-\u2069\u200e\u200f\x1b\x9b]", data)


def _live_html(html: str, assets: str) -> list[str]:
    parser = _Live(assets)
    parser.feed(html)
    parser.close()
    return parser.found


def test_the_markdown_export_has_nothing_live(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        session = _session(store)
        target = tmp_path / "chat.md"
        export_session(store, session, "md", target, drawer=export_drawer(builtins()))
    markdown = target.read_text(encoding="utf-8")
    first = markdown.split("\n", 1)[0]
    assert first.startswith("# ") and "\x1b" not in first
    assert "<script" not in MarkdownIt("commonmark", {"html": True}).render(first)
    assert live_parts(markdown, images_under="chat-assets") == []
    # `cat chat.md` is safe too: no terminal control of the host's anywhere in the file.
    assert re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", markdown) is None
    for preset in ("commonmark", "gfm-like"):
        parser = MarkdownIt(preset, {"html": True})
        parser.validateLink = lambda url: True  # type: ignore[method-assign]
        html = parser.render(markdown)
        assert _live_html(html, "chat-assets") == [], preset
    # No host text made a heading: the only headings are the export's own.
    headings = [line for line in markdown.splitlines() if line.startswith("#")]
    allowed = ("# ", "## You", "## Assistant", "### ", "#### ")
    assert all(line.startswith(allowed) for line in headings), headings
    assert headings[0] == first and not any(h.startswith("# ") for h in headings[1:])
    assert headings.count("## You") == 1 and "#### You" in headings  # the reply's: below
    # The image's asset name is safe, and the image links into the assets folder.
    [asset] = list((tmp_path / "chat-assets").iterdir())
    assert "\n" not in asset.name and ".." not in asset.name.split("-", 1)[1][:2]
    # Still readable: a safe link stays a link, the words of every attack are there as text.
    assert "[ok](https://example.com/a_b)" in block("[ok](https://example.com/a_b)")
    assert "alert(1)" in markdown and "Fake heading" in markdown


@pytest.mark.parametrize("attack", ATTACKS)
def test_each_attack_alone_is_disarmed(attack: str) -> None:
    for text in (block(attack), inline(attack)):
        assert live_parts(text) == [], (attack, text)
        html = MarkdownIt("commonmark", {"html": True}).render(text)
        assert _live_html(html, "none") == [], (attack, html)
    assert "\n" not in inline(attack)


def test_safe_targets_are_http_to_public_hosts() -> None:
    assert safe_target("https://example.com/x")
    assert safe_target("http://example.com")
    for url in (
        "javascript:alert(1)",
        "http://127.0.0.1/",
        "http://localhost:80/",
        "http://[::1]/",
        "http://10.0.0.1/",
        "http://169.254.169.254/latest",
        "http://2130706433/",
        "http://printer.local/",
        "file:///etc/passwd",
        "data:text/html,x",
        "//evil.example",
    ):
        assert not safe_target(url), url


def test_rename_is_bounded_with_a_clear_message(capsys: pytest.CaptureFixture[str]) -> None:
    with Store(default_path()) as store:
        session = store.create(host="h", workflow="w")
        with pytest.raises(StoreError, match=f"at most {RENAME_CHARS}"):
            store.rename(session, "x" * 100_000)
        store.rename(session, "two\nlines \x1b[2J")
        assert store.info(session).title == "two␊lines ␛[2J"
    assert main(["sessions", "rename", session, "y" * 100_000]) == 2
    err = capsys.readouterr().err
    assert f"at most {RENAME_CHARS}" in err and "100,000" in err and err.count("\n") == 1
