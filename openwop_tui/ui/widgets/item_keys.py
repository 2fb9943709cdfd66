"""Which of the transcript's item keys apply to the selected item (what the footer shows).

The transcript binds one key per item action (s save, p play, c copy, E edit …). The footer
lists only the ones that apply to the item under the cursor: save and open on a file, play and
stop on a clip, copy code on a reply with a code block, edit and regenerate on the last message
the user sent, and nothing item-wise with no item selected (a clip that cannot play here shows
no Play; pressing p says why). `applies` answers for the view's
``check_action``; a key that does not apply still says why when pressed (the view routes it to
the action, which explains), it is only not offered.
"""

from __future__ import annotations

from openwop_tui.core.fold import EnvelopeItem, Notice, UserTurn
from openwop_tui.ui.widgets.blocks import Block

#: The player keys: offered wherever play is (`TranscriptView.action_item_action`).
PLAYER = frozenset({"seek-back", "seek-forward", "pause"})
#: The actions of the last user message.
LAST_MESSAGE = frozenset({"edit", "regenerate"})
#: The view's actions that act on the selected item (the others move or leave).
ITEM_ACTIONS = frozenset({"request", "matrix", "events"})


def applies(
    block: Block | None, action: str, parameters: tuple[object, ...], *, last_message: bool
) -> bool:
    """Whether item action ``action`` (``request('save')`` is ``("request", ("save",))``)
    applies to ``block`` (``None``: nothing selected). ``last_message``: the block is the last
    message the user sent."""
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
    if name in PLAYER or name.startswith("seek"):
        return "play" in available
    return name in available
