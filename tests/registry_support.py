"""Renderer plugins as users install them: a distribution's ``*.dist-info`` with an
``entry_points.txt`` and its module, written into a temporary folder put on ``sys.path``, so
`importlib.metadata.entry_points` finds them exactly as it finds an installed wheel's.

A plain module (tests/ is on ``sys.path``, as for `render_helpers`)."""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

import pytest

#: A plugin with a ``video`` renderer that needs its bytes, redraws on resize and has an action
#: of its own (``v``: "Describe"), whose handler says how many bytes it was given.
VIDEO_PLUGIN = """
from openwop_tui.protocol.envelopes import MediaRef
from openwop_tui.renderers import PluginAction, Rendered, register
from rich.text import Text


def describe(envelope, rendered):
    return f"video of {len(rendered.data or b'')} bytes described"


@register(
    "video",
    name="Video (acme)",
    needs_bytes=True,
    redraw_on_resize=True,
    actions=(PluginAction("describe", "Describe", key="v", handler=describe),),
)
def render_video(envelope, context):
    asset = context.asset
    data = asset.data if asset is not None else None
    ref = MediaRef.from_payload(envelope.payload)
    size = "no bytes" if data is None else f"{len(data)} bytes"
    return Rendered(
        title=f"video · {size}",
        body=Text(f"a video at {ref.url if ref else '?'} ({size})"),
        data=data,
    )
"""

#: A plugin that claims the built-in ``image`` key.
IMAGE_PLUGIN = """
from openwop_tui.renderers import Rendered, register
from rich.text import Text


@register("image", name="Acme image", needs_bytes=True)
def acme_image(envelope, context):
    return Rendered(title="acme image", body=Text("drawn by acme"))
"""

#: A plugin whose import fails.
BROKEN_PLUGIN = """
import a_module_that_is_not_installed_anywhere
"""


def install_plugin(
    root: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    dist: str,
    entry: str,
    module: str,
    source: str,
    target: str | None = None,
) -> None:
    """Install distribution ``dist`` whose ``openwop_tui.renderers`` entry point ``entry``
    names ``target`` (default: the module itself), the module holding ``source``.

    Only registries that load plugins see it (the renderer tests' `render_helpers.builtins`
    loads none); the module is forgotten after the test."""
    (root / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    # Named as wheels name it (``-`` in the name becomes ``_``): the part before the first
    # ``-`` is the distribution's identity for importlib.metadata.
    info = root / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        f"[openwop_tui.renderers]\n{entry} = {target or module}\n", encoding="utf-8"
    )
    if str(root) not in sys.path:
        monkeypatch.syspath_prepend(str(root))
    importlib.invalidate_caches()
    monkeypatch.delitem(sys.modules, module, raising=False)
