"""``bench.list``: an answer that is mostly one long numbered list, streamed as a model streams it.

"Give me the checklist" answers are a line of prose and then a list of a hundred items or more,
each a sentence or two with bold, code and links. While such a list streams it is the reply's
open block, parsed and drawn again at every redraw: what `openwop_tui.draw.list_pieces` keeps to
its last item. `ITEMS` items in chunks of two words (a model's tokens,
`openwop_tui.demo_host.rich_answer.chunks`); the answer ends ``answer over``, as ``bench.rich``
and ``bench.code`` do, so the same harness waits for it.
"""

from __future__ import annotations

__all__ = ["ITEMS", "TEXT"]

#: Items in the list.
ITEMS = 100

_ACTIONS = ("Check", "Drain", "Restart", "Rotate", "Compare", "Archive")
_THINGS = ("the queue", "the cache", "the workers", "the keys", "the replicas", "the logs")


def _item(n: int) -> str:
    action, thing = _ACTIONS[n % len(_ACTIONS)], _THINGS[n % len(_THINGS)]
    return (
        f"{n + 1}. **{action} {thing}**: run `ops {action.lower()} --step {n + 1}` and compare "
        f"what it prints with [the runbook](https://example.org/runbook#{n + 1}); if it is off, "
        "stop here and say so in the channel.\n"
    )


#: The answer: a sentence, the list, a sentence after it, then ``answer over``.
TEXT = (
    "Here is the checklist, one step an item:\n\n"
    + "".join(_item(n) for n in range(ITEMS))
    + "\nEach step is safe to repeat. answer over"
)
