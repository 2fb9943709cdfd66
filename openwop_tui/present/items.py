"""Rich renderables for transcript items.

The pieces a user turn, a reply's heading and cut marker, reasoning, a tool call, a notice or a
rendered envelope are drawn with as plain Rich output. Which piece draws which item is decided
once, in `openwop_tui.present.dispatch` (a reply's markdown in `openwop_tui.draw.markdown`),
which the print commands and the app's transcript view both draw from. Every
colour comes from a `Palette` (the active theme's; the default theme's when none is given), never
from an ANSI colour name, so a light or high-contrast theme recolours everything.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from openwop_tui.core.fold import AssistantTurn, Notice, Reasoning, ToolCall, UserTurn
from openwop_tui.core.items import NO_TEXT
from openwop_tui.draw.palette import Palette
from openwop_tui.draw.safe_text import safe_text
from openwop_tui.renderers.base import Rendered
from openwop_tui.text import units, value_words
from openwop_tui.text.sanitize import HostText, clean, clean_label, clean_own

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

    Args:
        what: What was cut (``reply``, ``reasoning``…).
        limit: The bytes shown.
        cut_bytes: The bytes not shown.
        saved_to: Where the full text was saved; None when not saved yet.
        palette: The theme's colours; None for the default theme's.
    """
    text = f"{what} cut at {units.human_size(limit)}: {units.human_size(cut_bytes)} more not shown"
    text += f" · saved to {saved_to}" if saved_to else " · kept, saved when complete"
    # The client's own sentence around a path on this machine (which may hold anything).
    return Text(clean_own(text), style=_palette(palette).warning)


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
    """A user turn: literal text, as typed (never parsed as markdown). Its attachments follow
    it as items of their own, drawn as a host's media are (`openwop_tui.core.own_media`)."""
    colours = _palette(palette)
    body = safe_text(turn.text, colours.text)
    return Group(user_heading(colours), Padding(body, (0, 0, 0, 2)))


def assistant_heading(turn: AssistantTurn, palette: Palette | None = None) -> Text:
    """The line above a reply: who answered, and "…" while it is still arriving."""
    colours = _palette(palette)
    label = "Assistant" + (f" · {clean_label(turn.model)}" if turn.model else "")
    if not turn.final:
        return heading(f"{label} …", colours.streaming)
    return heading(label, colours.assistant)


def reasoning(item: Reasoning, palette: Palette | None = None) -> RenderableType:
    """Reasoning, dimmed, so it reads as an aside; only its newest lines while it streams.

    A block under its own line (``a1 thought``), indented like a reply under ``Assistant``: the
    text is the host's, many lines long, and a line of it (``• run completed``) must never read
    as a line of the client's own, which start at the margin."""
    colours = _palette(palette)
    state = "thought" if item.done else "thinking…"
    head = Text(f"{clean_label(item.agent_id)} {state}", style=f"bold {colours.muted}")
    if item.done or item.body.shown_bytes <= REASONING_TAIL:
        shown = item.text
    else:
        shown = HostText("…" + item.body.tail(REASONING_TAIL))  # a cut of the cleaned text
    body = safe_text(shown, f"italic {colours.muted}")
    marker = reply_marker(item, colours)
    if marker is not None:
        body.append("\n")
        body.append_text(marker)
    return Group(head, Padding(body, (0, 0, 0, 2)))


def _words(shown: HostText, value: Any, limit: int) -> HostText:
    """A tool value in words: the fold's bounded text when it made one, else the value's own
    (a payload value, cleaned by the boundary: its words are clean too)."""
    return shown or HostText(value_words.words(value, limit))


def _nothing_returned(outcome: Any) -> bool:
    """No outcome, an empty one, or one holding only the ``durationMs`` drawn on its own."""
    return outcome is None or (isinstance(outcome, dict) and set(outcome) <= {"durationMs"})


def tool_call(call: ToolCall, palette: Palette | None = None) -> Text:
    """A tool call line: its inputs in words, then once it returned its status, how long it took
    and what it returned, in words like the inputs; and a cut marker if its JSON was cut."""
    colours = _palette(palette)
    text = Text.assemble(("⚙ ", colours.accent), (clean_label(call.tool_name), colours.accent))
    if call.inputs is not None:
        text.append(f"({_words(call.inputs_text, call.inputs, 400)})", style=colours.text)
    took = value_words.milliseconds(call.duration_ms)
    took_text = f" in {took}" if took else ""
    if not call.done:
        text.append(" … running", style=colours.muted)
    elif call.error is not None:
        status = call.status if call.status and call.status != "ok" else "error"
        text.append(f" ✖ {status}{took_text}", style=colours.error)
        text.append(f" · {_words(call.outcome_text, call.error, 400)}", style=colours.error)
    else:
        status = call.status or "ok"
        style = colours.success if status == "ok" else colours.warning
        text.append(f" → {status}{took_text}", style=style)
        if call.outcome_text:
            text.append(f" · {call.outcome_text}", style=colours.muted)
        elif not _nothing_returned(call.outcome):
            text.append(f" · {_words(NO_TEXT, call.outcome, 400)}", style=colours.muted)
    for what, cut in (("tool inputs", call.inputs_cut), ("tool result", call.outcome_cut)):
        if cut:
            saved = call.saved_to if call.done else None
            text.append("\n")
            text.append_text(cut_marker(what, call.json_limit, cut, saved, colours))
    return text


def notice(item: Notice, palette: Palette | None = None) -> Text:
    """A lifecycle, warning or error line."""
    style = notice_style(item.level, palette)
    return Text.assemble((f"{NOTICE_ICON[item.level]} ", style), safe_text(item.text, style))


def envelope_title(
    rendered: Rendered, palette: Palette | None = None, *, own: bool = False
) -> Text:
    """An envelope's title line, saying when it is not shown in full; ``own``: it is one of the
    user's attachments (`openwop_tui.core.own_media`), said first, in the user's colour."""
    colours = _palette(palette)
    # A boundary: a renderer (perhaps a plugin's) made the title, from host values and its own
    # words; what it wrote is not trusted to be clean.
    title = safe_text(clean(rendered.title), colours.accent)
    if own:
        title = own_title(title, colours)
    if rendered.degraded:
        title.append("  (not shown in full)", style=colours.warning)
    return title


#: What the title line of a user's own attachment begins with.
OWN_TITLE = "you sent · "


def own_title(title: Text, palette: Palette | None = None) -> Text:
    """``title`` as the title of one of the user's own attachments: `OWN_TITLE` first, in the
    user's colour (drawn, or still loading)."""
    return Text.assemble((OWN_TITLE, f"bold {_palette(palette).user}"), title)


def badge(text: str, palette: Palette | None = None) -> Text:
    """The small muted line under an item naming what drew it (``⌁ image · half-blocks``)."""
    return Text(f"  ⌁ {clean_label(text)}", style=f"italic {_palette(palette).muted}", no_wrap=True)


def envelope_badge(rendered: Rendered, palette: Palette | None = None, lint: str = "") -> Text:
    """An envelope's badge: the renderer that drew it and, when one ran, the fallback and why
    (`Rendered.badge`), so every item shows why it looks the way it does; then ``lint``, the
    marks of the lint findings about its event (``⚠ OW214``), when there are any."""
    line = badge(rendered.badge, palette)
    if lint:
        # The lint marks are the client's own codes (``⚠ OW214``).
        line.append(f" · {clean_own(lint)}", style=f"not italic {_palette(palette).warning}")
    return line


def envelope(
    rendered: Rendered,
    palette: Palette | None = None,
    *,
    with_badge: bool = True,
    lint: str = "",
    own: bool = False,
) -> RenderableType:
    """A rendered envelope: its title line, the body (which already explains degradation), and its
    badge line.

    Args:
        rendered: The envelope's drawing.
        palette: The theme's colours; None for the default theme's.
        with_badge: False leaves the badge line out (the caller draws it, under a caption).
        lint: The marks of the lint findings about its event, on the badge line.
        own: It is one of the user's attachments: its title says so.
    """
    parts: list[RenderableType] = [
        envelope_title(rendered, palette, own=own),
        Padding(rendered.body, (0, 0, 0, 2)),
    ]
    if with_badge:
        parts.append(envelope_badge(rendered, palette, lint))
    return Group(*parts)
