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


BINDINGS: list[BindingType] = [
    Binding("up,k", "cursor(-1)", "Previous", show=False),
    Binding("down,j", "cursor(1)", "Next", show=False),
    Binding("home", "first", "First", show=False),
    Binding("end", "last", "Last", show=False),
    Binding("pageup", "page(-1)", "Page up", show=False),
    Binding("pagedown", "page(1)", "Page down", show=False),
    Binding("escape", "leave", "Back to input", show=False),
    Binding("s", "request('save')", "Save"),
    Binding("S", "request('save-as')", "Save as…", show=False),
    Binding("o", "request('open')", "Open"),
    Binding("p", "request('play')", "Play"),
    Binding("x", "request('stop')", "Stop"),
    # The player keys (`openwop_tui.ui.controllers.playback`); left/right would scroll
    # sideways, which the transcript never does (overflow-x is hidden).
    Binding("space", "request('play')", "Pause", show=False),
    Binding("left,left_square_bracket", "request('seek-back')", "Back 5 s", show=False),
    Binding("right,right_square_bracket", "request('seek-forward')", "On 5 s", show=False),
    *(Binding(str(n), f"request('seek:{n}')", f"To {n}0%", show=False) for n in range(10)),
    Binding("c", "request('copy')", "Copy"),
    Binding("y", "request('copy-code')", "Copy code"),
    Binding("i", "request('inspect')", "Inspect"),
    Binding("m", "matrix", "Matrix"),
    Binding("e", "events", "Events"),
    Binding("E", "request('edit')", "Edit & resend"),
    Binding("r", "request('regenerate')", "Regenerate"),
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
