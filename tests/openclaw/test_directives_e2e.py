"""End to end: a recorded OpenClaw-bridged stream (`openclaw-directives.sse`) through ``render``
and through the app (Pilot), directives drawn as items, none printed raw.

The capture streams its reply in chunks that split directives (``[[reply_to`` | ``_current]]``,
``ME`` | ``DIA:``, ``[[audio_as_`` | ``voice]]``), names refused references of several kinds,
two embeds, a fenced ``MEDIA:`` line and the retired ``[view …]``, and its final payload repeats
the chart URL in the completion and in ``mediaUrls``.
"""

from __future__ import annotations

import pytest
from app_support import (
    NO_AUDIO,
    SIZE,
    draw_everything,
    envelope_views,
    record_notifications,
    select_item,
    settle,
)
from paths import TESTS

from openwop_tui.__main__ import main
from openwop_tui.config import Config
from openwop_tui.core.fold import AssistantTurn, Notice
from openwop_tui.renderers.base import Code
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.options import AppOptions, Replay

CAPTURE = TESTS / "data" / "captures" / "openclaw-directives.sse"

REFUSED = (
    "plain http: is not fetched",
    "192.168.1.10 is a private address",
    "printer.local is an internal host name",
    "/etc/passwd is a local path",
)


def test_render_draws_the_directives_as_items(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "140")
    assert main(["render", str(CAPTURE)]) == 0
    out = capsys.readouterr().out
    assert "[[" not in out.replace('[view id="v1"]', "")
    assert "MEDIA: http" not in out.split("In a code block it stays:")[0]
    assert "[embed ref" not in out
    assert out.count("image · q3.png") == 1  # stream, completion and mediaUrls: one item
    assert "MEDIA: https://cdn.example.com/charts/q3.png" in out  # the fenced one is text
    assert "↳ reply to the current message" in out
    assert "embed · Status board" in out and "embed · Board" in out
    assert "[view …] not run" in out
    for reason in REFUSED:
        assert reason in " ".join(out.split())


async def test_the_app_draws_the_directives_and_opens_an_embed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    app = ChatApp(
        Config(audio=False, images="none"),
        AppOptions(replay=Replay(path=CAPTURE, speed=0)),
        audio_support=NO_AUDIO,
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, lambda: app.status.connection == "replayed", what="replayed")
        await draw_everything(pilot, app)
        [turn] = [i for i in app.transcript.items if isinstance(i, AssistantTurn)]
        visible = turn.text.split("```")[0]
        assert "MEDIA:" not in visible and "[[" not in visible and "[embed" not in visible
        assert any(
            isinstance(n, Notice) and n.text == "↳ reply to the current message"
            for n in app.transcript.items
        )
        blocks = envelope_views(app)
        drawn = [b.rendered for b in blocks]
        assert all(r is not None for r in drawn)
        by_renderer = [r.renderer for r in drawn if r is not None]
        assert by_renderer.count("embed") == 3 and "image" in by_renderer
        refused = [
            r for r in drawn if r and r.degradation and r.degradation.code is Code.FETCH_REFUSED
        ]
        assert len(refused) == len(REFUSED)
        voice = [b for b in blocks if b.item.envelope.kind == "media.audio"]  # type: ignore[union-attr]
        assert [b.item.envelope.payload.get("audioAsVoice") for b in voice] == [True]  # type: ignore[union-attr]

        notes = record_notifications(app)
        board = next(b for b in blocks if b.rendered and b.rendered.title == "embed · Board")
        await select_item(pilot, app, board)
        await pilot.press("o")
        await settle(pilot, app, lambda: bool(opened), what="the browser was asked")
        assert opened == ["https://canvas.example.com/board/7"]
        assert any("opened https://canvas.example.com/board/7" in text for _, text in notes)


def test_the_demo_hosts_openclaw_workflow_folds_to_items() -> None:
    """``demo.openclaw`` over loopback HTTP, folded (its media are not fetched here: the one
    public URL would need the network)."""
    import json

    import httpx

    from openwop_tui.core.fold import EnvelopeItem, Transcript
    from openwop_tui.demo_host import DemoHost
    from openwop_tui.protocol.events import normalize

    transcript = Transcript()
    with DemoHost(pace=0) as host:
        headers = {"Authorization": f"Bearer {host.api_key}"}
        with httpx.Client(base_url=f"{host.url}/v1", headers=headers, timeout=10) as client:
            run = client.post("/runs", json={"workflowId": "demo.openclaw", "inputs": {}})
            run_id = run.json()["runId"]
            url = f"/runs/{run_id}/events"
            sse = {"Accept": "text/event-stream"}
            with client.stream("GET", url, params={"streamMode": "debug"}, headers=sse) as response:
                for line in response.iter_lines():
                    if line.startswith("data: "):
                        transcript.apply(normalize(json.loads(line[6:])))
    [turn] = [i for i in transcript.items if isinstance(i, AssistantTurn)]
    before_code = turn.text.split("```")[0]
    assert "MEDIA:" not in before_code and "[[" not in before_code and "[embed" not in before_code
    kinds = [i.envelope.kind for i in transcript.items if isinstance(i, EnvelopeItem)]
    assert kinds.count("media.image") == 2 and kinds.count("canvas") == 2
    voice = [
        i.envelope.payload
        for i in transcript.items
        if isinstance(i, EnvelopeItem) and i.envelope.kind == "media.audio"
    ]
    assert voice == [dict(voice[0], audioAsVoice=True)] and voice[0]["audioAsVoice"] is True
