"""The chat app end to end, over a real demo host: a chat turn with its reply and code envelope,
the tour that draws every envelope family (or says why it cannot), the history a second turn
carries, and the renderer-registry race a fresh process's first tour could hit.

Every wait is `app_support.settle`, never a fixed sleep.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from app_support import (
    SIZE,
    builtin_renderers_loaded,  # noqa: F401  (an autouse fixture: importing it applies it here)
    connected,
    demo_app,
    draw_everything,
    envelope_views,
    items_of,
    notices,
    plain,
    run_over,
    settle,
    turn,
)
from patience import PATIENCE

from openwop_tui.core.fold import AssistantTurn, EnvelopeItem, Notice, UserTurn
from openwop_tui.demo_host import chat, media
from openwop_tui.ui.widgets.prompt import PromptInput

# ------------------------------------------------------------------------ chat turns


async def test_a_chat_turn_draws_the_reply_once_and_the_code_envelope() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        assert app.status.connection == "connected"
        assert app.status.host == "embedded demo host"
        assert app.query_one(PromptInput).has_focus
        await pilot.press(*"code please", "enter")
        await settle(pilot, app, lambda: run_over(app), what="the run ended")

        (user,) = items_of(app, UserTurn)
        assert user.text == "code please"
        (reply,) = items_of(app, AssistantTurn)
        assert reply.final
        assert reply.text == chat.compose_reply("code please", ["code"])
        # Regression: the first streamed delta used to be drawn twice.
        drawn = app.view.text_of(reply.id)
        assert drawn.splitlines()[0].startswith("Assistant · ")  # no "…": not streaming
        assert "…" not in drawn.splitlines()[0]
        assert drawn.count("Coming right up") == 1
        assert reply.text.count("Coming right up") == 1

        (envelope,) = items_of(app, EnvelopeItem)
        assert envelope.envelope.display == "code"
        view = app.view.block_for(envelope.id)
        assert view is not None
        assert view.rendered is not None
        assert view.rendered.degraded is None
        assert "not shown in full" not in app.view.text_of(envelope.id)
        assert "fib.py" in view.rendered.title
        assert "def fib(n: int) -> int:" in plain(view.rendered.body)

        order = [type(item) for item in app.transcript.items if not getattr(item, "verbose", 0)]
        assert order == [Notice, UserTurn, AssistantTurn, EnvelopeItem, Notice]
        assert notices(app)[-1].text.startswith("run completed")
        assert not notices(app, "error")

        status = app.status
        assert status.connection == "connected"
        assert status.run_status == "completed"
        assert status.run_id == "run_00000000000000000001"
        line = str(status.render())
        assert "run completed" in line and "disconnected" not in line

        assert app.session is not None
        assert app.conversation.history == [
            {"role": "user", "content": "code please"},
            {"role": "assistant", "content": reply.text},
        ]
        assert not app.query_one(PromptInput).value  # the prompt was cleared


async def test_everything_draws_every_family_and_says_why_when_it_cannot() -> None:
    app = demo_app(images="halfblock")
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "show me everything")
        await draw_everything(pilot, app)

        # By title, or by kind for the two JSON fallbacks, which have none.
        views = {
            v.item.envelope.rendering.title or v.item.envelope.kind: v for v in envelope_views(app)
        }
        assert len(views) == 18 == len(items_of(app, EnvelopeItem))

        def rendered(key: str) -> Any:
            result = views[key].rendered
            assert result is not None, key
            return result

        displays = [view.item.envelope.display for view in envelope_views(app)]
        assert displays == [
            "code", "card", "card", "image", "image", "audio", "file", "hologram", None,
            "image", "image", "audio", "image", "image", "image", "image", "image", "image",
        ]  # fmt: skip

        shown = [
            "fib.py", "Deployment summary", "Host status", "Demo revenue by region",
            "Inline image", "tour-report.csv",
            "vendor.openwop-tui-demo.hologram", "vendor.openwop-tui-demo.metrics",
        ]  # fmt: skip
        for key in shown:
            assert rendered(key).degraded is None, key
            assert "not shown in full" not in app.view.text_of(views[key].item_id), key

        # The image by URL is drawn in half-block pixels, with its alt text as the caption.
        chart = views["Demo revenue by region"]
        assert chart.item.envelope.media is not None
        assert chart.item.envelope.media.url is not None
        assert chart.item.envelope.media.base64 is None
        chart_text = plain(rendered("Demo revenue by region").body)
        assert chart_text.count("▄") > 100
        assert "Bar chart of demo revenue by region" in chart_text
        assert [a.name for a in rendered("Demo revenue by region").actions] == ["save", "open"]
        assert "▄" in plain(rendered("Inline image").body)

        card_text = plain(rendered("Deployment summary").body)
        assert "Deploy succeeded" in card_text
        assert "uptimeSeconds" in plain(rendered("Host status").body)
        assert rendered("tour-report.csv").data == media.report_csv()

        # JSON fallbacks: an unknown display value, and no rendering hint at all.
        assert 'unknown display "hologram"' in rendered("vendor.openwop-tui-demo.hologram").title
        assert "no rendering hint" in rendered("vendor.openwop-tui-demo.metrics").title
        assert "p95" in plain(rendered("vendor.openwop-tui-demo.metrics").body)

        # Degraded: each with its specific reason, drawn with the warning border.
        reasons = {
            "Spoken greeting": "no audio device (test)",
            "Oversized image": "too large",
            "Undecodable image": "cannot decode",
            "Missing audio": "HTTP 404",
            "Unsafe URL": "refused: file:",
            "Pixel bomb": "decompression-bomb guard",
            "Private address": "refused",
            "Image without an image": "neither a url nor base64",
        }
        for key, reason in reasons.items():
            degraded = rendered(key).degraded
            assert degraded is not None and reason in degraded, (key, degraded)
            assert "not shown in full" in app.view.text_of(views[key].item_id), key
            assert reason in plain(rendered(key).body), key
        # The clip that is here keeps its player line and says why it cannot play; the rest
        # are the "not shown here" block, with where to get them.
        speech = plain(rendered("Spoken greeting").body)
        assert "cannot play here: no audio device (test)" in speech
        assert [a.name for a in rendered("Spoken greeting").actions] == ["save"]
        for key in ("Oversized image", "Undecodable image", "Missing audio", "Unsafe URL"):
            assert "not shown here" in plain(rendered(key).body), key
        assert "http" in plain(rendered("Missing audio").body)
        assert "file:///etc/passwd" in plain(rendered("Unsafe URL").body)
        # The animated GIF is drawn, its first frame, and its badge says so.
        assert rendered("Animated GIF").fallback is not None
        assert "first frame" in app.view.text_of(views["Animated GIF"].item_id)
        assert app.status.run_status == "completed"
        assert not notices(app, "error")


async def test_a_second_turn_carries_the_history() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "code please")
        await turn(pilot, app, "and a card")

        first, second = items_of(app, AssistantTurn)
        assert second.text == chat.compose_reply("and a card", ["card"])
        expected = [
            {"role": "user", "content": "code please"},
            {"role": "assistant", "content": first.text},
            {"role": "user", "content": "and a card"},
        ]
        assert app.session is not None
        assert app.conversation.history == [
            *expected,
            {"role": "assistant", "content": second.text},
        ]

        # What the host was sent: the second run.started carries the whole history.
        # (Read from the stored log: a notice keeps its event's place, not its payload.)
        assert app.chat.store is not None
        session_id = app.conversation.logs[0].session_id  # type: ignore[attr-defined]
        started = [
            json.loads(entry.data)["payload"]
            for entry in app.chat.store.entries(session_id)
            if entry.kind == "frame" and '"run.started"' in entry.data
        ]
        assert len(started) == 2
        assert started[0]["inputs"] == {"messages": expected[:1]}
        assert started[1]["inputs"] == {"messages": expected}
        assert app.status.run_id == "run_00000000000000000002"
        # Both replies are still drawn, each once.
        for reply in (first, second):
            drawn = app.view.text_of(reply.id)
            assert drawn.count("Coming right up") == reply.text.count("Coming right up") == 1


# ------------------------------------------------------------- renderer registry

#: In a fresh interpreter: while one thread is loading the built-in renderers, another asks for
#: one (what happens when the first envelopes of a run are rendered in `asyncio.to_thread`).
REGISTRY_RACE_SCRIPT = """
import json, threading
import openwop_tui.renderers.registry as loader

real_import = loader.import_module
outcome = {}

def other_thread():
    try:
        outcome["other"] = registry.resolve("card").__name__  # the same registry, still loading
    except Exception as error:
        outcome["other"] = f"{type(error).__name__}: {error}"

threads = []

def import_module(name):
    if name.endswith(".markdown"):  # the first built-in: the registry is still empty
        thread = threading.Thread(target=other_thread)
        thread.start()
        threads.append(thread)
    return real_import(name)

loader.import_module = import_module
registry = loader.Registry(plugins=False)
outcome["first"] = registry.resolve("image").__name__
for thread in threads:
    thread.join(timeout=30)
print(json.dumps(outcome))
"""


def test_the_renderer_registry_loads_safely_from_two_threads() -> None:
    done = subprocess.run(
        [sys.executable, "-c", REGISTRY_RACE_SCRIPT],
        capture_output=True,
        text=True,
        timeout=PATIENCE,
    )
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome == {"first": "render_image", "other": "render_card"}
