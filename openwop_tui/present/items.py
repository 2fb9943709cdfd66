"""Rich renderables for transcript items.

One place decides how a user turn, a reply, reasoning, a tool call, a notice or a rendered
envelope looks as plain Rich output. The non-interactive commands print these; the app's
transcript view (`openwop_tui.ui.widgets.blocks`) draws every item from them, however old. Every
colour comes from a `Palette` (the active theme's; the default theme's when none is given), never
from an ANSI colour name, so a light or high-contrast theme recolours everything.
"""

from __future__ import annotations

from typing import Any, cast

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from openwop_tui.core.fold import AssistantTurn, Notice, Reasoning, ToolCall, UserTurn
from openwop_tui.present.markdown import SafeMarkdown
from openwop_tui.present.palette import Palette, Themed
from openwop_tui.present.safe_text import safe_text
from openwop_tui.renderers.base import Rendered
from openwop_tui.text import units
from openwop_tui.text.sanitize import clean

NOTICE_ICON = {"info": "•", "warning": "⚠", "error": "✖"}

#: Characters of reasoning drawn while it streams: the aside shows its newest lines, so a token
#: costs a redraw of this much, not of everything thought so far. All of it shows once done.
REASONING_TAIL = 2_000


_DEFAULT: Palette | None = None


def _palette(palette: Palette | None) -> Palette:
    """The palette given, or the default theme's (made once)."""
    global _DEFAULT
    if palette is not None:
        return palette
    if _DEFAULT is None:
        _DEFAULT = Palette.default()
    return _DEFAULT


def notice_style(level: str, palette: Palette | None = None) -> str:
    """The style of a notice of ``level`` (info, warning, error)."""
    colours = _palette(palette)
    return {"info": colours.muted, "warning": colours.warning}.get(level, colours.error)


def cut_marker(
    what: str, limit: int, cut_bytes: int, saved_to: str | None, palette: Palette | None = None
) -> Text:
    """The line a cut item carries: ``reply cut at 1.0 MB: 48.9 MB more not shown · saved to P``.

    Before the item is final (nothing saved yet) it says the rest is kept and will be saved.
    """
    text = f"{what} cut at {units.human_size(limit)}: {units.human_size(cut_bytes)} more not shown"
    text += f" · saved to {saved_to}" if saved_to else " · kept, saved when complete"
    return Text(clean(text), style=_palette(palette).warning)


def reply_marker(turn: AssistantTurn | Reasoning, palette: Palette | None = None) -> Text | None:
    """The cut marker of a reply or reasoning block, or ``None`` when nothing was cut."""
    body = turn.body
    if not body.cut:
        return None
    what = "reply" if isinstance(turn, AssistantTurn) else "reasoning"
    return cut_marker(what, body.limit, body.cut_bytes, turn.saved_to, palette)


def heading(label: str, style: str) -> Text:
    """The one-line header above a turn."""
    return Text(label, style=style)


def user_heading(palette: Palette | None = None) -> Text:
    """The line above a user turn."""
    return heading("You", _palette(palette).user)


def user(turn: UserTurn, palette: Palette | None = None) -> RenderableType:
    """A user turn: literal text, as typed (never parsed as markdown)."""
    colours = _palette(palette)
    body = safe_text(turn.text, colours.text)
    return Group(user_heading(colours), Padding(body, (0, 0, 0, 2)))


def assistant_heading(turn: AssistantTurn, palette: Palette | None = None) -> Text:
    """The line above a reply: who answered, and "…" while it is still arriving."""
    colours = _palette(palette)
    label = "Assistant" + (f" · {clean(turn.model)}" if turn.model else "")
    if not turn.final:
        return heading(f"{label} …", colours.streaming)
    return heading(label, colours.assistant)


def reply_part(markdown: str, palette: Palette | None = None) -> RenderableType:
    """Some blocks of a reply's markdown, indented under its heading.

    Same rule as the markdown renderer: no terminal hyperlinks from host text, the URL shows;
    cleaned before and after parsing (character references decode to controls).
    """
    colours = _palette(palette)
    body = _markdown(markdown, colours)
    return Padding(body, (0, 0, 0, 2), style=colours.text)


def _markdown(source: str, colours: Palette, code_theme: str | None = None) -> RenderableType:
    """Host markdown drawn in the theme: Rich's Markdown styles its headings, inline code and
    rules by named styles of its own (``markdown.code`` is cyan on black: a slab on a light
    theme), so it is drawn through `Themed`, which maps those names to the palette."""
    code = code_theme or cast(str, colours.syntax_theme())
    return Themed(SafeMarkdown(source, code_theme=code, hyperlinks=False), colours)


def assistant(
    turn: AssistantTurn, code_theme: str | None = None, *, palette: Palette | None = None
) -> RenderableType:
    """A reply rendered as markdown (incomplete markdown shows as it stands)."""
    colours = _palette(palette)
    body: RenderableType = (
        _markdown(turn.text, colours, code_theme) if turn.text else Text("…", style=colours.muted)
    )
    marker = reply_marker(turn, colours)
    parts: list[RenderableType] = [body] if marker is None else [body, marker]
    label = "Assistant" + (f" · {clean(turn.model)}" if turn.model else "")
    return Group(heading(label, colours.assistant), Padding(Group(*parts), (0, 0, 0, 2)))


def reasoning(item: Reasoning, palette: Palette | None = None) -> RenderableType:
    """Reasoning, dimmed, so it reads as an aside; only its newest lines while it streams."""
    colours = _palette(palette)
    state = "thought" if item.done else "thinking…"
    text = Text.assemble((f"{clean(item.agent_id)} {state} ", f"bold {colours.muted}"))
    if item.done or item.body.shown_bytes <= REASONING_TAIL:
        shown = item.text
    else:
        shown = "…" + item.body.tail(REASONING_TAIL)
    text.append_text(safe_text(shown, f"italic {colours.muted}"))
    marker = reply_marker(item, colours)
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


def tool_call(call: ToolCall, palette: Palette | None = None) -> RenderableType:
    """A tool call line, with its outcome once it returned, and a cut marker if JSON was cut."""
    colours = _palette(palette)
    text = Text.assemble(("⚙ ", colours.accent), (clean(call.tool_name), colours.accent))
    if call.inputs is not None:
        text.append(f"({_preview(call.inputs_json, call.inputs, 120)})", style=colours.text)
    if not call.done:
        text.append(" … running", style=colours.muted)
    elif call.error is not None:
        text.append(f" ✖ {_preview(call.outcome_json, call.error, 200)}", style=colours.error)
    else:
        status = call.status or "ok"
        text.append(f" → {status}", style=colours.success if status == "ok" else colours.warning)
        if call.outcome is not None:
            text.append(f" {_preview(call.outcome_json, call.outcome, 200)}", style=colours.muted)
    for what, cut in (("tool inputs", call.inputs_cut), ("tool result", call.outcome_cut)):
        if cut:
            saved = call.saved_to if call.done else None
            text.append("\n")
            text.append_text(cut_marker(what, call.json_limit, cut, saved, colours))
    return text


def notice(item: Notice, palette: Palette | None = None) -> RenderableType:
    """A lifecycle, warning or error line."""
    style = notice_style(item.level, palette)
    return Text.assemble((f"{NOTICE_ICON[item.level]} ", style), safe_text(item.text, style))


def envelope_title(rendered: Rendered, palette: Palette | None = None) -> Text:
    """An envelope's title line, saying when it is not shown in full."""
    colours = _palette(palette)
    title = safe_text(rendered.title, colours.accent)
    if rendered.degraded:
        title.append("  (not shown in full)", style=colours.warning)
    return title


def badge(text: str, palette: Palette | None = None) -> Text:
    """The small muted line under an item naming what drew it (``⌁ image · half-blocks``)."""
    return Text(f"  ⌁ {clean(text)}", style=f"italic {_palette(palette).muted}", no_wrap=True)


def envelope_badge(rendered: Rendered, palette: Palette | None = None, lint: str = "") -> Text:
    """An envelope's badge: the renderer that drew it and, when one ran, the fallback and why
    (`Rendered.badge`), so every item shows why it looks the way it does; then ``lint``, the
    marks of the lint findings about its event (``⚠ OW214``), when there are any."""
    line = badge(rendered.badge, palette)
    if lint:
        line.append(f" · {clean(lint)}", style=f"not italic {_palette(palette).warning}")
    return line


def envelope(
    rendered: Rendered, palette: Palette | None = None, *, with_badge: bool = True, lint: str = ""
) -> RenderableType:
    """A rendered envelope: its title line, the body (which already explains degradation), and
    its badge line (with ``lint``'s marks)."""
    parts: list[RenderableType] = [
        envelope_title(rendered, palette),
        Padding(rendered.body, (0, 0, 0, 2)),
    ]
    if with_badge:
        parts.append(envelope_badge(rendered, palette, lint))
    return Group(*parts)
