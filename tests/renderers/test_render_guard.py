"""A renderable that fails when drawn (not when built) becomes one visible line, never an
exception in the printer or the app's compositor (issue 5, part 3: a renderer that fails falls
back without a traceback anywhere)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import render_helpers
from render_helpers import envelope, terminal_output
from rich.console import Console, ConsoleOptions

from openwop_tui.renderers import RenderContext, Rendered, RendererSpec
from openwop_tui.renderers.guard import Guarded


class _Explodes:
    """Builds fine; raises when Rich asks it for its lines."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Any]:
        yield "half a line"
        raise RuntimeError("lexer broke")


def test_a_renderable_that_fails_when_drawn_is_one_line() -> None:
    _, text = terminal_output(Guarded(_Explodes(), "code · fib.py"))
    assert "code · fib.py could not be drawn: RuntimeError" in text
    assert "half a line" not in text  # nothing half-drawn


def test_the_registry_guards_every_body(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(env: Any, context: RenderContext) -> Rendered:
        return Rendered(title="code · x", body=_Explodes())

    monkeypatch.setitem(render_helpers.builtins()._specs, "code", RendererSpec("code", broken))
    rendered = render_helpers.render(
        envelope("code", {"code": "x"}, {"display": "code"}), RenderContext()
    )
    _, text = terminal_output(rendered.body)
    assert "could not be drawn" in text
