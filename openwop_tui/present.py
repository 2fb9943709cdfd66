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

#: Characters of reasoning drawn while it streams: the aside shows its newest lines, so a token
#: costs a redraw of this much, not of everything thought so far. All of it shows once done.
REASONING_TAIL = 2_000


def cut_marker(what: str, limit: int, cut_bytes: int, saved_to: str | None) -> Text:
    """The line a cut item carries: ``reply cut at 1.0 MB: 48.9 MB more not shown · saved to P``.

    Before the item is final (nothing saved yet) it says the rest is kept and will be saved.
    """
    text = f"{what} cut at {units.human_size(limit)}: {units.human_size(cut_bytes)} more not shown"
    text += f" · saved to {saved_to}" if saved_to else " · kept, saved when complete"
    return Text(clean(text), style="yellow")


def reply_marker(turn: AssistantTurn | Reasoning) -> Text | None:
    """The cut marker of a reply or reasoning block, or ``None`` when nothing was cut."""
    body = turn.body
    if not body.cut:
        return None
    what = "reply" if isinstance(turn, AssistantTurn) else "reasoning"
    return cut_marker(what, body.limit, body.cut_bytes, turn.saved_to)


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
    marker = reply_marker(turn)
    parts: list[RenderableType] = [body] if marker is None else [body, marker]
    return Group(heading(label, "bold green"), Padding(Group(*parts), (0, 0, 0, 2)))


def reasoning(item: Reasoning) -> RenderableType:
    """Reasoning, dimmed, so it reads as an aside; only its newest lines while it streams."""
    state = "thought" if item.done else "thinking…"
    text = Text.assemble((f"{clean(item.agent_id)} {state} ", "dim bold"))
    if item.done or item.body.shown_bytes <= REASONING_TAIL:
        shown = item.text
    else:
        shown = "…" + item.body.tail(REASONING_TAIL)
    text.append_text(safe_text(shown, "dim italic"))
    marker = reply_marker(item)
    if marker is not None:
        text.append("\n")
        text.append_text(marker)
    return text


def compact_json(value: Any, limit: int = 200) -> str:
    """One line of JSON, shortened and cleaned for the terminal."""
    return clean(units.compact_json(value, limit))


def _preview(serialised: str, value: Any, limit: int) -> str:
    """One line of a tool value: from the fold's capped JSON when it made one (so a redraw never
    serialises a huge value again), else from the value itself."""
    if not serialised:
        return compact_json(value, limit)
    cut = serialised if len(serialised) <= limit else serialised[: limit - 1] + "…"
    return clean(cut)


def tool_call(call: ToolCall) -> RenderableType:
    """A tool call line, with its outcome once it returned, and a cut marker if JSON was cut."""
    text = Text.assemble(("⚙ ", "magenta"), (clean(call.tool_name), "bold magenta"))
    if call.inputs is not None:
        text.append(f"({_preview(call.inputs_json, call.inputs, 120)})", style="magenta")
    if not call.done:
        text.append(" … running", style="dim")
    elif call.error is not None:
        text.append(f" ✖ {_preview(call.outcome_json, call.error, 200)}", style="red")
    else:
        status = call.status or "ok"
        text.append(f" → {status}", style="green" if status == "ok" else "yellow")
        if call.outcome is not None:
            text.append(f" {_preview(call.outcome_json, call.outcome, 200)}", style="dim")
    for what, cut in (("tool inputs", call.inputs_cut), ("tool result", call.outcome_cut)):
        if cut:
            saved = call.saved_to if call.done else None
            text.append("\n")
            text.append_text(cut_marker(what, call.json_limit, cut, saved))
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
