"""The app owns its registry: what the plugins did is shown at start (a notice line and a
notification), a plugin's item is drawn by the plugin, and its declared action is offered as a
button and a key and carried out by the plugin's handler."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_support import (
    SIZE,
    connected,
    demo_app,
    notices,
    record_notifications,
    select_item,
    settle,
)
from registry_support import BROKEN_PLUGIN, IMAGE_PLUGIN, VIDEO_PLUGIN, install_plugin
from render_helpers import envelope

from openwop_tui.core.fold import Added, EnvelopeItem

REFUSED = (
    "renderer plugin 'acme' wants to replace the built-in 'image' renderer: refused; allow it "
    'with [renderers] override = ["image"] in the config'
)


async def test_a_refused_and_a_broken_plugin_are_shown_at_start_and_the_app_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(
        tmp_path, monkeypatch, dist="acme-image", entry="acme", module="acme_image_app",
        source=IMAGE_PLUGIN,
    )  # fmt: skip
    (tmp_path / "b").mkdir()
    install_plugin(
        tmp_path / "b", monkeypatch, dist="acme-broken", entry="broken",
        module="acme_broken_app", source=BROKEN_PLUGIN,
    )  # fmt: skip
    app = demo_app()
    seen = record_notifications(app)
    assert app.chat.registry.origin("image") == "built-in"
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        texts = [notice.text for notice in notices(app, "warning")]
        assert REFUSED in texts
        assert any(t.startswith("renderer plugin 'broken' failed to load (") for t in texts)
        assert ("warning", REFUSED) in seen
        assert not any("Traceback" in text for text in texts)


async def test_an_override_in_the_config_replaces_the_built_in_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(
        tmp_path, monkeypatch, dist="acme-image", entry="acme", module="acme_image_app2",
        source=IMAGE_PLUGIN,
    )  # fmt: skip
    app = demo_app(renderer_override=("image",))
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        assert app.chat.registry.origin("image") == "plugin acme"
        assert [n.text for n in notices(app, "warning")] == [
            "renderer plugin 'acme' replaces the built-in 'image' renderer "
            "(renderers.override in the config)"
        ]


async def test_a_plugin_action_is_a_button_and_a_key_and_its_handler_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(
        tmp_path, monkeypatch, dist="acme-video", entry="acme", module="acme_video_app",
        source=VIDEO_PLUGIN,
    )  # fmt: skip
    app = demo_app()
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        clip = envelope("vendor.acme.clip", {"base64": "AAAA", "bytes": 3}, {"display": "video"})
        item = EnvelopeItem(id="clip-1", envelope=clip)
        await app.view.apply([Added(item)])
        block = app.view.block_for(item.id)
        assert block is not None
        await select_item(pilot, app, block)
        assert block.rendered is not None and block.rendered.renderer == "video"
        assert "describe" in block.actions()
        assert "[Describe]" in app.view.text_of(item.id)
        await pilot.press("v")
        await settle(
            pilot, app, lambda: ("information", "video of 0 bytes described") in seen,
            what="the plugin's handler ran",
        )  # fmt: skip
        # The view's own keys stay its own: "s" is Save, never a plugin's.
        assert block.rendered.actions[0].key == "v"
