"""The transcript's keys: what each does, and which apply to the selected item.

`BINDINGS` are the view's keys. It binds one key per item action (s save, p play, c copy,
E edit …). The footer lists only the ones that apply to the item under the cursor: save and
open on a file, play and stop on a clip, copy code on a reply with a code block, edit and
regenerate on the last message the user sent, and nothing item-wise with no item selected (a
clip that cannot play here shows no Play; pressing p says why). `applies` answers for the
view's ``check_action``; a key that does not apply still says why when pressed (`refusal`), it
is only not offered.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

from openwop_tui.core.fold import EnvelopeItem, Notice, UserTurn
from openwop_tui.renderers.base import Code
from openwop_tui.ui.transcript.blocks import Block

#: Actions of the player keys, valid on any item that can play (they are not buttons).
PLAYER_KEYS = frozenset({"seek-back", "seek-forward", *(f"seek:{n}" for n in range(10))})
#: What the footer offers wherever play is: the player keys, and pausing.
PLAYER = PLAYER_KEYS | {"pause"}
#: The actions of the last user message.
LAST_MESSAGE = frozenset({"edit", "regenerate"})
#: The view's actions that act on the selected item (the others move or leave).
ITEM_ACTIONS = frozenset({"request", "matrix", "events"})


def applies(
    block: Block | None, action: str, parameters: tuple[object, ...], *, last_message: bool
) -> bool:
    """Whether an item action applies to the selected block.

    Args:
        block: The selected block; ``None``: nothing selected (no item action applies).
        action: The action's name (``request('save')`` is ``"request"``).
        parameters: The action's parameters (``request('save')``'s are ``("save",)``).
        last_message: The block is the last message the user sent (edit and regenerate
            apply to it only).
    """
    if block is None:
        return False
    item = block.item
    if action == "matrix":
        return isinstance(item, EnvelopeItem) and block.rendered is not None
    if action == "events":
        return not isinstance(item, UserTurn | Notice)  # those came from no run event
    if action != "request" or not parameters:
        return True
    name = str(parameters[0])
    if name in LAST_MESSAGE:
        return last_message
    available = block.actions()
    if name == "save-as":
        return "save" in available
    if name in PLAYER:
        return "play" in available
    return name in available


def refusal(block: Block, name: str) -> str | None:
    """Why action ``name`` cannot be carried out on ``block`` (``None``: it can): a sound that
    cannot play here says why, and what can be done instead."""
    available = block.actions()
    # "Save as…" is a save that asks for the folder: offered wherever save is; the player
    # keys wherever play is.
    wanted = "save" if name == "save-as" else name
    if wanted in available or (name in PLAYER_KEYS and "play" in available):
        return None
    rendered = block.rendered
    why = rendered.degradation if rendered is not None else None
    if (name == "play" or name in PLAYER_KEYS) and why and why.code == Code.NO_AUDIO:
        hint = " — s saves it" if "save" in available else ""
        return f"cannot play here: {why.reason}{hint}"
    what = "seek" if name in PLAYER_KEYS else name
    return f"nothing to {what} here"


#: The footer's one entry for the vim-style keys (shown while ``vim_keys`` is on).
VIM_GROUP = Binding.Group("Move", compact=True)


def vim_binding(binding: Binding) -> bool:
    """Whether ``binding`` is one of the vim-style keys (bound only while ``vim_keys`` is on:
    `TranscriptView.check_action`)."""
    return binding.action.startswith("vim(")


#: The view's keys; each one's ``tooltip`` is its line in the help (F1) and its hint in the
#: footer. A key added here is in F1 as soon as it has one (tests/ui/test_key_help.py).
BINDINGS: list[BindingType] = [
    Binding("up", "cursor(-1)", "Previous", show=False, tooltip="the previous item"),
    Binding("down", "cursor(1)", "Next", show=False, tooltip="the next item"),
    Binding("home", "first", "First", show=False, tooltip="the first item"),
    Binding("end", "last", "Last", show=False, tooltip="the last item, and follow new ones"),
    Binding("pageup", "page(-1)", "Page up", show=False, tooltip="a page up"),
    Binding("pagedown", "page(1)", "Page down", show=False, tooltip="a page down"),
    Binding("escape", "leave", "Back to input", tooltip="back to the input"),
    # vim-style movement, off unless the config's vim_keys is on (check_action).
    Binding("j", "vim('next')", "Next", group=VIM_GROUP, tooltip="vim: the next item"),
    Binding("k", "vim('previous')", "Previous", group=VIM_GROUP, tooltip="vim: the previous item"),
    Binding("g", "vim('first')", "First", group=VIM_GROUP, tooltip="vim: the first item (gg)"),
    Binding("G", "vim('last')", "Last", group=VIM_GROUP, tooltip="vim: the last item"),
    Binding("ctrl+d", "vim('down')", "Half down", group=VIM_GROUP, tooltip="vim: half a page down"),
    Binding("ctrl+u", "vim('up')", "Half up", group=VIM_GROUP, tooltip="vim: half a page up"),
    Binding(
        "s", "request('save')", "Save", tooltip="on an envelope: save it to the download folder"
    ),
    Binding(
        "S",
        "request('save-as')",
        "Save as…",
        show=False,
        tooltip="on a file: save as… into a folder you choose",
    ),
    Binding("o", "request('open')", "Open", tooltip="on a file or link: open it with the desktop"),
    Binding("p", "request('play')", "Play", tooltip="on a clip: play it"),
    Binding("x", "request('stop')", "Stop", tooltip="on a clip: stop it"),
    # The player keys (`openwop_tui.ui.controllers.playback`); left/right would scroll
    # sideways, which the transcript never does (overflow-x is hidden).
    Binding("space", "request('play')", "Pause", show=False, tooltip="on a clip: pause / resume"),
    Binding(
        "left,left_square_bracket",
        "request('seek-back')",
        "Back 5 s",
        show=False,
        tooltip="on a clip: 5 s back",
    ),
    Binding(
        "right,right_square_bracket",
        "request('seek-forward')",
        "On 5 s",
        show=False,
        tooltip="on a clip: 5 s on",
    ),
    *(
        Binding(
            str(n),
            f"request('seek:{n}')",
            f"To {n}0%",
            show=False,
            tooltip="on a clip: jump to that tenth of it (0 the start, 5 the middle)",
        )
        for n in range(10)
    ),
    Binding("c", "request('copy')", "Copy", tooltip="copy the item's text (or an envelope's)"),
    Binding("y", "request('copy-code')", "Copy code", tooltip="on a reply: copy its code block"),
    Binding(
        "i",
        "request('inspect')",
        "Inspect",
        tooltip="on an envelope: inspect it beside its run event",
    ),
    Binding(
        "m",
        "matrix",
        "Matrix",
        tooltip="on an envelope: the degradation lab's matrix view (drawn under each profile)",
    ),
    Binding(
        "e",
        "events",
        "Events",
        tooltip="the run events that made the item (the timeline, filtered)",
    ),
    Binding(
        "E",
        "request('edit')",
        "Edit & resend",
        tooltip=(
            "on your last message: edit it in the input; Enter sends it in place of its exchange"
        ),
    ),
    Binding(
        "r",
        "request('regenerate')",
        "Regenerate",
        tooltip=(
            "on your last message: send it again for a new reply (the session keeps the old one)"
        ),
    ),
]


def _item_action(binding: Binding) -> tuple[str, tuple[object, ...]] | None:
    """``request('save')`` -> ``("request", ("save",))``, for the item actions only."""
    name, _, rest = binding.action.partition("(")
    if name not in ITEM_ACTIONS:
        return None
    return name, tuple(part.strip().strip("'\"") for part in rest.rstrip(")").split(",") if part)


#: Each item key with its action and parameters (`applies` answers for them).
ITEM_KEYS: dict[str, tuple[str, tuple[object, ...]]] = {
    key.strip(): parsed
    for binding in BINDINGS
    if isinstance(binding, Binding) and (parsed := _item_action(binding)) is not None
    for key in binding.key.split(",")
}

#: Keys the view binds itself (a renderer's action cannot take them).
VIEW_KEYS = frozenset(
    key.strip()
    for binding in BINDINGS
    if isinstance(binding, Binding)
    for key in binding.key.split(",")
)
