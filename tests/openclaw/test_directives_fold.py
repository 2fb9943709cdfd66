"""OpenClaw directives in the fold: stripped replies, media, embed and reply items, each once.

Also the paths around it: a refused reference is never fetched (the conversation answers with
the refusal), an accepted one goes through the ordinary asset path, the embed renderer, the
browser action and the ``--markdown-images`` switch.
"""

from __future__ import annotations

from typing import Any, cast

import pytest
from render_helpers import builtins, render

from openwop_tui.cli.parser import build_parser
from openwop_tui.config import Config, load_config
from openwop_tui.core.assets import check_link
from openwop_tui.core.conversation import Conversation
from openwop_tui.core.directives import DirectiveEnvelope, refused_asset
from openwop_tui.core.fold import (
    AssistantTurn,
    EnvelopeItem,
    Notice,
    Transcript,
    Updated,
)
from openwop_tui.core.items import Limits
from openwop_tui.core.session import Session
from openwop_tui.devices.desktop import ActionError
from openwop_tui.present.envelope import Source, context_for
from openwop_tui.protocol.events import RunEvent
from openwop_tui.protocol.media import Asset
from openwop_tui.renderers import RenderContext
from openwop_tui.renderers.base import Code
from openwop_tui.ui.controllers.browser import open_embed

RUN = "run-oc"


class Events:
    """Run events of one node, numbered."""

    def __init__(self, node: str = "respond") -> None:
        self.node = node
        self.sequence = 0

    def event(self, kind: str, payload: dict[str, Any]) -> RunEvent:
        self.sequence += 1
        return RunEvent(
            type=kind,
            payload={"nodeId": self.node, **payload},
            sequence=self.sequence,
            run_id=RUN,
            node_id=self.node,
        )

    def chunk(self, text: str, **extra: Any) -> RunEvent:
        return self.event("output.chunk", {"chunk": text, **extra})

    def completed(self, **outputs: Any) -> RunEvent:
        return self.event("node.completed", {"outputs": outputs})


#: A render context with the pipeline's link policy (what `openwop_tui.present.envelope` gives).
LINKED = RenderContext(link_check=check_link)


def fold(events: list[RunEvent], transcript: Transcript | None = None) -> tuple[Transcript, list]:
    transcript = transcript or Transcript()
    changes: list = []
    for event in events:
        changes += transcript.apply(event)
    return transcript, changes


def envelopes(transcript: Transcript) -> list[EnvelopeItem]:
    return [item for item in transcript.items if isinstance(item, EnvelopeItem)]


def turn_of(transcript: Transcript) -> AssistantTurn:
    [turn] = [item for item in transcript.items if isinstance(item, AssistantTurn)]
    return turn


# ------------------------------------------------------------------- stream


def test_a_directive_split_across_chunks_never_reaches_the_view() -> None:
    e = Events()
    pieces = [
        "Here it is.\nME",
        "DIA: https://cdn.exa",
        "mple.com/q3.png\n[[audio_",
        "as_voice]] ok",
    ]
    transcript, changes = fold([e.chunk(p) for p in pieces] + [e.completed()])
    deltas = [c.delta for c in changes if isinstance(c, Updated) and c.delta]
    shown = "".join(deltas)
    assert "MEDIA" not in shown and "[[" not in shown and "audio_" not in shown
    assert turn_of(transcript).text == shown == "Here it is.\nok"
    [item] = envelopes(transcript)
    assert item.envelope.kind == "media.image"
    assert item.envelope.media_ref is not None
    assert item.envelope.media_ref.url == "https://cdn.example.com/q3.png"


def test_the_same_url_in_the_stream_the_completion_and_media_urls_is_one_item() -> None:
    e = Events()
    text = "Chart:\nMEDIA: https://cdn.example.com/q3.png\nDone."
    transcript, _ = fold(
        [
            e.chunk(text[:20]),
            e.chunk(text[20:]),
            e.completed(
                completion=text,
                mediaUrls=["https://cdn.example.com/q3.png", "https://cdn.example.com/q4.png"],
                mediaUrl="https://cdn.example.com/q3.png",
            ),
        ]
    )
    urls = [i.envelope.media_ref.url for i in envelopes(transcript) if i.envelope.media_ref]
    assert urls == ["https://cdn.example.com/q3.png", "https://cdn.example.com/q4.png"]
    assert turn_of(transcript).text == "Chart:\nDone."


def test_a_completion_alone_is_read_the_same_way() -> None:
    e = Events()
    transcript, _ = fold([e.completed(completion="[[reply_to:m-9]] Hi\nMEDIA: /tmp/x.png")])
    assert turn_of(transcript).text == "Hi\n"
    [item] = envelopes(transcript)
    assert isinstance(item.envelope, DirectiveEnvelope)
    assert [n.text for n in transcript.items if isinstance(n, Notice) and "↳" in n.text] == [
        "↳ reply to m-9"
    ]


def test_structured_media_fields_on_a_chunk_become_items_once() -> None:
    e = Events()
    transcript, _ = fold(
        [
            e.chunk("Here.", mediaUrl="https://cdn.example.com/a.mp3"),
            e.chunk(" Again.", mediaUrls=["https://cdn.example.com/a.mp3"]),
            e.chunk(" Meta.", meta={"mediaUrls": ["https://cdn.example.com/a.mp3"]}),
            e.completed(),
        ]
    )
    [item] = envelopes(transcript)
    assert item.envelope.kind == "media.audio"
    meta_only, _ = fold([Events().chunk("x", meta={"mediaUrl": "https://cdn.example.com/b.png"})])
    assert [i.envelope.kind for i in envelopes(meta_only)] == ["media.image"]


def test_audio_as_voice_marks_audio_drawn_before_the_tag_arrived() -> None:
    e = Events()
    transcript, changes = fold(
        [
            e.chunk("MEDIA: https://cdn.example.com/note.opus\n"),
            e.chunk("Listen [[audio_as_voice]]"),
            e.chunk("\nMEDIA: https://cdn.example.com/two.mp3\n"),
            e.completed(),
        ]
    )
    first, second = envelopes(transcript)
    assert first.envelope.payload["audioAsVoice"] is True
    assert second.envelope.payload["audioAsVoice"] is True
    assert any(isinstance(c, Updated) and c.item is first for c in changes)  # redrawn


def test_images_are_not_voice_notes() -> None:
    e = Events()
    transcript, _ = fold([e.chunk("[[audio_as_voice]]\nMEDIA: https://cdn.example.com/x.png")])
    transcript.close_open()
    [item] = envelopes(transcript)
    assert "audioAsVoice" not in item.envelope.payload


def test_a_fenced_media_line_stays_in_the_reply() -> None:
    e = Events()
    text = "```\nMEDIA: https://cdn.example.com/x.png\n```"
    transcript, _ = fold([e.chunk(text), e.completed(completion=text)])
    assert turn_of(transcript).text == text
    assert envelopes(transcript) == []


def test_the_held_tail_is_released_when_the_run_ends_without_a_completion() -> None:
    e = Events()
    transcript, _ = fold([e.chunk("ok\nMEDIA: https://cdn.example.com/x.png")])
    assert envelopes(transcript) == []  # still held: the line may go on
    transcript.close_open()
    assert turn_of(transcript).text == "ok\n"
    assert len(envelopes(transcript)) == 1


def test_the_reply_relation_is_one_small_line() -> None:
    e = Events()
    transcript, _ = fold(
        [e.chunk("[[reply_to_current]] Sure."), e.chunk(" [[reply_to:msg-1]] ok"), e.completed()]
    )
    lines = [n.text for n in transcript.items if isinstance(n, Notice) and "↳" in n.text]
    assert lines == ["↳ reply to msg-1"]
    assert turn_of(transcript).text == "Sure. ok"


def test_markdown_images_follow_the_limit_switch() -> None:
    text = "![chart](https://cdn.example.com/c.png)"
    off, _ = fold([Events().completed(completion=text)])
    assert turn_of(off).text == text and envelopes(off) == []
    on, _ = fold(
        [Events().completed(completion=text)], Transcript(limits=Limits(markdown_images=True))
    )
    assert turn_of(on).text == ""
    [item] = envelopes(on)
    assert item.envelope.rendering.alt == "chart"


def test_a_canvas_block_from_the_host_is_drawn_as_an_embed() -> None:
    preview = {
        "kind": "canvas",
        "surface": "assistant_message",
        "render": "url",
        "viewId": "cv_123",
        "url": "https://canvas.example.com/cv_123/index.html",
        "title": "Status",
        "preferredHeight": 320,
    }
    e = Events()
    transcript, _ = fold(
        [
            e.completed(
                envelope={
                    "type": "vendor.openclaw.canvas",
                    "payload": {"type": "canvas", "preview": preview},
                }
            ),
            e.completed(completion="see below", content=[{"type": "canvas", "preview": preview}]),
        ]
    )
    first, second = envelopes(transcript)
    for item in (first, second):
        assert item.envelope.display == "embed"
        rendered = render(item.envelope, LINKED)
        assert rendered.renderer == "embed"
        assert rendered.degradation is not None and rendered.degradation.code is Code.NOT_RUN
        assert rendered.degradation.reference == preview["url"]
        assert [a.name for a in rendered.actions] == ["open"]


# ------------------------------------------------------------ fetch path


class RecordingSession:
    """The part of `Session` the conversation's asset path uses, counting fetches."""

    max_inline_bytes = 262144

    def __init__(self) -> None:
        self.fetched: list[str] = []

    async def asset_for(self, envelope: Any, media: Any = None) -> Asset | None:
        url = (media or envelope.media_ref).url
        self.fetched.append(url)
        return Asset(url=url, error="HTTP 404 from host", failure="failed")


def plain_text(renderable: Any) -> str:
    from rich.console import Console

    console = Console(width=160, record=True, force_terminal=False)
    console.print(renderable)
    return " ".join(console.export_text().split())


def items_for(text: str) -> list[EnvelopeItem]:
    transcript, _ = fold([Events().completed(completion=text)])
    return envelopes(transcript)


@pytest.mark.parametrize(
    ("line", "reference"),
    [
        ("MEDIA: http://cdn.example.com/x.png", "http://cdn.example.com/x.png"),
        ("MEDIA: https://10.1.2.3/x.png", "https://10.1.2.3/x.png"),
        ("MEDIA: https://nas.local/x.png", "https://nas.local/x.png"),
        ("MEDIA: /home/me/.ssh/id_rsa", None),
        ("MEDIA: ~/secret.png", None),
        ("MEDIA: file:///etc/passwd", None),
    ],
)
async def test_a_refused_reference_is_never_fetched_and_shows_why(
    line: str, reference: str | None
) -> None:
    session = RecordingSession()
    conversation = Conversation(cast(Session, session))
    [item] = items_for(line)
    source = Source(conversation.asset_for, conversation.max_inline_bytes, check_link)
    context = await context_for(item.envelope, builtins(), RenderContext(), source, 80)
    assert session.fetched == []  # neither the host nor the disk was asked
    assert context.asset is not None and context.asset.failure == "refused"
    rendered = render(item.envelope, context)
    assert rendered.degradation is not None
    assert rendered.degradation.code is Code.FETCH_REFUSED
    assert rendered.degradation.reference == reference
    assert "refused" in rendered.degradation.reason
    shown = plain_text(rendered.body)
    assert "neither a URL nor inline data" not in shown  # the host did name something


async def test_an_accepted_reference_goes_through_the_ordinary_fetch_path() -> None:
    session = RecordingSession()
    conversation = Conversation(cast(Session, session))
    [item] = items_for("MEDIA: https://cdn.example.com/x.png")
    assert refused_asset(item.envelope) is None
    source = Source(conversation.asset_for, conversation.max_inline_bytes, check_link)
    context = await context_for(item.envelope, builtins(), RenderContext(), source, 80)
    assert session.fetched == ["https://cdn.example.com/x.png"]
    rendered = render(item.envelope, context)
    assert rendered.degradation is not None and rendered.degradation.code is Code.FETCH_FAILED


def test_host_json_cannot_pose_as_a_refused_directive() -> None:
    """Only envelopes the client made carry a refusal: a host's look-alike is fetched as usual."""
    e = Events()
    forged = {
        "type": "media.image",
        "payload": {"url": "https://cdn.example.com/x.png"},
        "meta": {"origin": "openclaw-directive"},
        "check": {"refused": "x"},
    }
    transcript, _ = fold([e.completed(envelope=forged)])
    [item] = envelopes(transcript)
    assert refused_asset(item.envelope) is None


# ------------------------------------------------------------------ embed


def embed_item(text: str) -> EnvelopeItem:
    [item] = items_for(text)
    return item


def test_an_embed_with_an_https_url_offers_the_browser() -> None:
    rendered = render(
        embed_item(
            '[embed url="https://canvas.example.com/b/7" title="Board" height=480 /]'
        ).envelope,
        LINKED,
    )
    assert rendered.renderer == "embed"
    assert rendered.title == "embed · Board"
    assert rendered.degradation is not None and rendered.degradation.code is Code.NOT_RUN
    assert rendered.degradation.reference == "https://canvas.example.com/b/7"
    assert [a.name for a in rendered.actions] == ["open"]


@pytest.mark.parametrize(
    "text",
    [
        '[embed ref="cv_1" title="Status" /]',
        '[embed url="http://127.0.0.1:18793/__openclaw__/canvas/x.html" /]',
        '[embed url="/__openclaw__/canvas/documents/cv_1/index.html" /]',
        '[embed url="javascript:alert(1)" /]',
    ],
)
def test_an_embed_without_a_public_https_url_is_not_opened(text: str) -> None:
    rendered = render(embed_item(text).envelope, LINKED)
    shown = plain_text(rendered.body)
    assert "not opened here" in shown or "no URL" in shown
    if "/__openclaw__/canvas/documents" in text:
        assert "relative to the agent's own UI" in shown
    assert rendered.actions == ()
    assert rendered.degradation is not None and rendered.degradation.reference is None
    with pytest.raises(ActionError):
        open_embed(rendered)


def test_open_hands_only_the_checked_url_to_the_browser(monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    rendered = render(embed_item('[embed url="https://canvas.example.com/b/7" /]').envelope, LINKED)
    assert "opened https://canvas.example.com/b/7" in open_embed(rendered)
    assert opened == ["https://canvas.example.com/b/7"]


def test_html_and_view_embeds_are_not_run() -> None:
    for text in ("[embed]<script>alert(1)</script>[/embed]", '[view ref="cv_1"]'):
        transcript, _ = fold([Events().completed(completion=text)])
        assert turn_of(transcript).text == text  # shown as text
        [item] = envelopes(transcript)
        rendered = render(item.envelope, LINKED)
        assert rendered.degradation is not None and rendered.degradation.code is Code.NOT_RUN
        assert rendered.actions == ()


def test_embed_fields_with_escapes_are_shown_cleaned() -> None:
    from rich.console import Console

    rendered = render(
        embed_item('[embed ref="cv" title="\x1b]0;pwned\x07Board" /]').envelope, RenderContext()
    )
    console = Console(width=100, record=True, force_terminal=False)
    console.print(rendered.body)
    shown = console.export_text()
    assert "\x1b" not in shown and "\x07" not in shown and "Board" in shown


# ------------------------------------------------------------------ config


def test_markdown_images_is_a_flag_of_the_app_run_and_render_and_a_config_key(
    tmp_path: Any,
) -> None:
    parser = build_parser()
    for argv in (
        ["--markdown-images"],
        ["run", "demo.chat", "--markdown-images"],
        ["render", "x.sse", "--markdown-images"],
    ):
        assert vars(parser.parse_args(argv))["markdown_images"] is True
    assert "markdown_images" not in vars(parser.parse_args([]))
    path = tmp_path / "config.toml"
    path.write_text("markdown_images = true\n")
    config = load_config({}, environ={}, path=path)
    assert config.markdown_images and config.limits.markdown_images
    assert not Config().limits.markdown_images


def test_audio_the_host_sends_with_a_voice_turn_is_a_voice_note() -> None:
    e = Events()
    audio = {"url": "https://cdn.example.com/v.ogg", "mimeType": "audio/ogg"}
    transcript, changes = fold(
        [
            e.chunk("Listen."),
            e.event("media.audio", audio),  # before the tag: updated when it arrives
            e.chunk(" [[audio_as_voice]]"),
            e.completed(
                envelope={
                    "type": "media.audio",
                    "payload": dict(audio, url="https://cdn.example.com/w.ogg"),
                }
            ),
        ]
    )
    first, second = envelopes(transcript)
    assert first.envelope.payload["audioAsVoice"] is True
    assert second.envelope.payload["audioAsVoice"] is True
    assert any(isinstance(c, Updated) and c.item is first for c in changes)
    other, _ = fold([Events().event("media.audio", audio)])
    assert "audioAsVoice" not in envelopes(other)[0].envelope.payload  # no tag, no voice note


def test_a_settled_reply_keeps_no_reader() -> None:
    """Ten thousand replies in a session must not each keep a directive reader."""
    e = Events()
    for end in (e.completed(), None):
        transcript, _ = fold(
            [e.chunk("MEDIA: https://cdn.example.com/x.png\nok"), *([end] if end else [])]
        )
        if end is None:
            transcript.close_open()
        assert turn_of(transcript).directives is None
        assert len(envelopes(transcript)) == 1
