"""The renderer registry: what each renderer declares, plugins loaded once from entry points
(installed as a wheel installs them), built-ins replaced only when the config says so, and every
outcome a visible one-line notice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from registry_support import BROKEN_PLUGIN, IMAGE_PLUGIN, VIDEO_PLUGIN, install_plugin
from render_helpers import envelope, render

from openwop_tui import renderers
from openwop_tui.renderers import RenderContext, Rendered, RendererSpec
from openwop_tui.renderers.registry import Registry

BUILTINS = ("markdown", "code", "card", "image", "audio", "file", "embed", "json")


def test_the_built_ins_declare_what_they_need() -> None:
    registry = Registry(plugins=False)
    assert registry.registered() == list(BUILTINS)
    assert {key for key in BUILTINS if registry.needs_bytes(key)} == {"image", "audio", "file"}
    assert {key for key in BUILTINS if registry.redraw_on_resize(key)} == {"image"}
    assert all(registry.origin(key) == "built-in" for key in BUILTINS)
    # An unknown display is drawn as JSON, which fetches nothing and does not redraw.
    assert not registry.needs_bytes("video") and not registry.redraw_on_resize("video")
    assert not registry.needs_bytes(None)
    assert registry.notices == []


def test_a_plugin_from_an_installed_entry_point_is_registered_with_its_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(
        tmp_path, monkeypatch, dist="acme-video", entry="acme", module="acme_video_a",
        source=VIDEO_PLUGIN,
    )  # fmt: skip
    registry = Registry()
    assert "video" in registry.registered()
    assert registry.origin("video") == "plugin acme"
    assert registry.needs_bytes("video") and registry.redraw_on_resize("video")
    assert registry.spec("video").title == "Video (acme)"
    assert registry.notices == []
    # The built-ins are as they were.
    assert registry.origin("image") == "built-in"


def test_a_plugin_item_offers_its_declared_action_and_its_handler_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(
        tmp_path, monkeypatch, dist="acme-video", entry="acme", module="acme_video_b",
        source=VIDEO_PLUGIN,
    )  # fmt: skip
    registry = Registry()
    env = envelope("vendor.acme.clip", {"url": "https://x.test/a.mp4"}, {"display": "video"})
    context = RenderContext(asset=renderers.Asset(url="https://x.test/a.mp4", data=b"0123"))
    rendered = render(env, context, registry)
    assert rendered.renderer == "video"
    assert [(a.name, a.label, a.key) for a in rendered.actions] == [("describe", "Describe", "v")]
    message = registry.run_action("video", "describe", env, rendered)
    assert message == "video of 4 bytes described"


def test_a_failing_action_handler_is_a_sentence_not_a_traceback() -> None:
    def fails(env: Any, rendered: Rendered) -> str:
        raise OSError("disk gone")

    def draw(env: Any, context: RenderContext) -> Rendered:
        return Rendered(title="x", body="x")

    spec = RendererSpec(
        "clip", draw, actions=(renderers.PluginAction("crop", "Crop", handler=fails),)
    )
    registry = Registry(plugins=False, entry_points=lambda: [])
    registry.add(spec)
    env = envelope("vendor.x", {}, {"display": "clip"})
    message = registry.run_action("clip", "crop", env, Rendered(title="x", body="x"))
    assert message == "crop failed in the clip renderer: OSError: disk gone"
    drawn = spec.render(env, RenderContext())
    assert "cannot carry it out" in registry.run_action("clip", "nope", env, drawn)


def test_replacing_a_built_in_is_refused_without_the_config_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(
        tmp_path, monkeypatch, dist="acme-image", entry="acme", module="acme_image_a",
        source=IMAGE_PLUGIN,
    )  # fmt: skip
    registry = Registry()
    assert registry.origin("image") == "built-in"
    assert registry.resolve("image").__module__ == "openwop_tui.renderers.image"
    [notice] = registry.notices
    assert notice == (
        "renderer plugin 'acme' wants to replace the built-in 'image' renderer: refused; "
        'allow it with [renderers] override = ["image"] in the config'
    )


def test_replacing_a_built_in_listed_in_the_override_is_done_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(
        tmp_path, monkeypatch, dist="acme-image", entry="acme", module="acme_image_b",
        source=IMAGE_PLUGIN,
    )  # fmt: skip
    registry = Registry(override=["image"])
    assert registry.origin("image") == "plugin acme"
    rendered = render(envelope("media.image", {"base64": "AA=="}), RenderContext(), registry)
    assert rendered.title == "acme image" and rendered.renderer == "image"
    assert registry.notices == [
        "renderer plugin 'acme' replaces the built-in 'image' renderer "
        "(renderers.override in the config)"
    ]
    # The override is the registry's, not the process's: another registry keeps the built-in.
    assert Registry().origin("image") == "built-in"


def test_a_broken_plugin_is_one_line_and_the_rest_still_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(
        tmp_path, monkeypatch, dist="acme-broken", entry="broken", module="acme_broken",
        source=BROKEN_PLUGIN,
    )  # fmt: skip
    registry = Registry()
    [notice] = registry.notices
    assert notice == (
        "renderer plugin 'broken' failed to load (ModuleNotFoundError: No module named "
        "'a_module_that_is_not_installed_anywhere'); it is not used"
    )
    assert "Traceback" not in notice and "\n" not in notice
    assert registry.registered() == list(BUILTINS)
    drawn = render(envelope("vendor.x", {"markdown": "**hi**"}, {"display": "markdown"}),
                   RenderContext(), registry)  # fmt: skip
    assert drawn.renderer == "markdown" and drawn.degradation is None


def test_callable_entry_points_load_once_in_name_order() -> None:
    calls: list[str] = []

    def draw(env: Any, context: RenderContext) -> Rendered:
        return Rendered(title="x", body="x")

    class Entry:
        def __init__(self, name: str, produced: Any) -> None:
            self.name, self.value, self.dist = name, f"pkg:{name}", None
            self._produced = produced

        def load(self) -> Any:
            def provide() -> Any:
                calls.append(self.name)
                return self._produced

            return provide

    entries: list[Any] = [
        Entry("zeta", [RendererSpec("video", draw, name="zeta's")]),
        Entry("alpha", RendererSpec("video", draw, name="alpha's", needs_bytes=True)),
        Entry("junk", ["not a spec"]),
    ]
    registry = Registry(entry_points=lambda: entries)
    registry.load()
    registry.load()
    assert registry.needs_bytes("video") and registry.spec("video").name == "alpha's"
    assert calls == ["alpha", "junk", "zeta"]  # once each, by name
    assert registry.notices == [
        "renderer plugin 'junk' failed to load (TypeError: returned str, not RendererSpec); "
        "it is not used",
        "renderer plugin 'zeta' offers a 'video' renderer, already provided by plugin alpha: "
        "refused (the first plugin in name order keeps it)",
    ]


def test_a_plugin_text_in_a_notice_is_cleaned() -> None:
    def boom() -> Any:
        raise RuntimeError("bad\x1b[31m\nthing")

    class Entry:
        name, value, dist = "ev\x1bil", "x:y", None

        def load(self) -> Any:
            return boom

    registry = Registry(entry_points=lambda: [Entry()])  # type: ignore[list-item]
    [notice] = registry.notices if registry.load() else []
    assert "\x1b" not in notice and "\n" not in notice


def test_unreadable_plugin_metadata_is_a_notice_and_the_built_ins_stay() -> None:
    def broken() -> list[Any]:
        raise ValueError("bad METADATA")

    registry = Registry(entry_points=broken)
    assert registry.registered() == list(BUILTINS)
    assert registry.notices == [
        "renderer plugins could not be listed (ValueError: bad METADATA); none is used"
    ]


def test_a_spec_without_a_display_name_is_refused() -> None:
    def draw(env: Any, context: RenderContext) -> Rendered:
        return Rendered(title="x", body="x")

    class Entry:
        name, value, dist = "nameless", "x:y", None

        def load(self) -> Any:
            return lambda: [RendererSpec("", draw)]

    registry = Registry(entry_points=lambda: [Entry()])  # type: ignore[list-item]
    assert registry.registered() == list(BUILTINS)
    assert registry.notices == [
        "renderer plugin 'nameless' offers a renderer without a display name or a function"
    ]
