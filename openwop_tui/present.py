"""Rich renderables for transcript items.

One place decides how a user turn, a reply, reasoning, a tool call, a notice or a rendered
envelope looks as plain Rich output. The non-interactive commands print these; the app's
line-cached history keeps them for turns that scrolled far enough up to stop being widgets.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from openwop_tui import units
from openwop_tui.renderers.base import Rendered
from openwop_tui.sanitize import clean, safe_text
from openwop_tui.sanitize_markdown import SafeMarkdown
from openwop_tui.transcript import AssistantTurn, Notice, Reasoning, ToolCall, UserTurn

NOTICE_STYLE = {"info": ("•", "dim"), "warning": ("⚠", "yellow"), "error": ("✖", "bold red")}


def heading(label: str, style: str) -> Text:
    """The one-line header above a turn."""
    return Text(label, style=style)


def user(turn: UserTurn) -> RenderableType:
    """A user turn: literal text, as typed (never parsed as markdown)."""
    return Group(heading("You", "bold cyan"), Padding(safe_text(turn.text), (0, 0, 0, 2)))


def assistant(turn: AssistantTurn, code_theme: str = "monokai") -> RenderableType:
    """A reply rendered as markdown (incomplete markdown shows as it stands)."""
    label = "Assistant" + (f" · {clean(turn.model)}" if turn.model else "")
    # Same rule as the markdown renderer: no terminal hyperlinks from host text, the URL shows;
    # cleaned before and after parsing (character references decode to controls).
    body = (
        SafeMarkdown(turn.text, code_theme=code_theme, hyperlinks=False) if turn.text else Text("…")
    )
    return Group(heading(label, "bold green"), Padding(body, (0, 0, 0, 2)))


def reasoning(item: Reasoning) -> RenderableType:
    """Reasoning, dimmed, so it reads as an aside."""
    state = "thought" if item.done else "thinking…"
    text = Text.assemble((f"{clean(item.agent_id)} {state} ", "dim bold"))
    text.append_text(safe_text(item.text, "dim italic"))
    return text


def compact_json(value: Any, limit: int = 200) -> str:
    """One line of JSON, shortened and cleaned for the terminal."""
    return clean(units.compact_json(value, limit))


def tool_call(call: ToolCall) -> RenderableType:
    """A tool call line, with its outcome once it returned."""
    text = Text.assemble(("⚙ ", "magenta"), (clean(call.tool_name), "bold magenta"))
    if call.inputs is not None:
        text.append(f"({compact_json(call.inputs, 120)})", style="magenta")
    if not call.done:
        text.append(" … running", style="dim")
    elif call.error is not None:
        text.append(f" ✖ {compact_json(call.error)}", style="red")
    else:
        status = call.status or "ok"
        text.append(f" → {status}", style="green" if status == "ok" else "yellow")
        if call.outcome is not None:
            text.append(f" {compact_json(call.outcome)}", style="dim")
    return text


def notice(item: Notice) -> RenderableType:
    """A lifecycle, warning or error line."""
    icon, style = NOTICE_STYLE[item.level]
    return Text.assemble((f"{icon} ", style), safe_text(item.text, style))


def envelope(rendered: Rendered) -> RenderableType:
    """A rendered envelope: its title line, then the body (which already explains degradation)."""
    title = safe_text(rendered.title, "bold")
    if rendered.degraded:
        title.append("  (not shown in full)", style="yellow")
    return Group(title, Padding(rendered.body, (0, 0, 0, 2)))
