"""What a cut item keeps: writing the full text of a reply, reasoning or tool call to a file.

An item past its `Limits` draws only the first part; once it is final (it will not change any
more), the app and the print commands hand it here and the whole text goes to a file whose path
the item then shows (``saved_to``): once, under the budget of what is written unasked
(`openwop_tui.store.saving`). Plain functions, called in a thread; errors are `actions.ActionError`
with a sentence for the user.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TypeGuard

from openwop_tui.core.items import AssistantTurn, Item, Reasoning, ToolCall
from openwop_tui.store.saving import SaveBudget, save_once


def needs_saving(item: Item) -> TypeGuard[AssistantTurn | Reasoning | ToolCall]:
    """Whether ``item`` was cut, is final, and its full text has not been written yet."""
    if isinstance(item, AssistantTurn | Reasoning):
        return item.body.cut and item.settled and item.saved_to is None
    if isinstance(item, ToolCall):
        return bool(item.inputs_cut or item.outcome_cut) and item.done and item.saved_to is None
    return False


def full_text(item: AssistantTurn | Reasoning | ToolCall) -> tuple[str, str]:
    """``(file name, text)`` of everything the item holds, the cut part included."""
    if isinstance(item, AssistantTurn):
        return f"reply-{item.id}.md", item.full_text
    if isinstance(item, Reasoning):
        return f"reasoning-{item.id}.txt", item.full_text
    whole = {
        "tool": item.tool_name,
        "callId": item.call_id,
        "agentId": item.agent_id,
        "inputs": item.inputs,
        "status": item.status,
        "outcome": item.outcome,
        "error": item.error,
    }
    text = json.dumps(whole, ensure_ascii=False, indent=2, default=str)
    return f"tool-{item.id}.json", text


def save(
    item: AssistantTurn | Reasoning | ToolCall,
    folder: Path,
    budget: SaveBudget | None = None,
    redact: Callable[[str], str] | None = None,
) -> Path:
    """Write the item's full text under ``folder`` once and remember the path.

    A file already holding the text is reused (`saving.save_once`).

    Args:
        item: The reply, reasoning or tool call whose full text is saved; its ``saved_to`` is set.
        folder: The folder to write in.
        budget: The bytes the program may still write unasked, spent on what is written; None for no
            limit.
        redact: A `openwop_tui.text.redact.Redactor` masking secrets in what is written: a saved
            file is output too, and this is the second line after the fold's own masking; None
            writes the text as it is.
    """
    name, text = full_text(item)
    if redact is not None:
        text = redact(text)
    suffix = Path(name).suffix
    stem = name.split("-", 1)[0]
    path = save_once(text.encode("utf-8", "surrogatepass"), stem, suffix, folder, budget)
    item.saved_to = str(path)
    return path
