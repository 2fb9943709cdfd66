"""What the first frame does without, loaded before the host is reached, before it is needed.

The app's first frame draws an empty chat (or a reopened one's newest runs), so what draws a
reply is not imported before it (`tests/ui/test_first_frame.py` holds it to that): markdown
(the parser, Rich's markdown module, and Rich's syntax module with Pygments behind it), some
30 ms of a start that must stay under half of a peer's. The first reply would pay for them on
the event loop instead, as it is drawn; `warmed` imports them in a thread past the first frame,
before the host is reached (`openwop_tui.ui.app.ChatApp`), so no answer meets the import half
done. A module imported by both threads at once is imported once (Python's import lock);
nothing else of the app runs in the thread.
"""

from __future__ import annotations

import asyncio
import importlib
import logging

__all__ = ["DRAWING", "warmed"]

log = logging.getLogger(__name__)

#: Imported by `warmed`, in this order: a reply's markdown, and code in it (Pygments' lexers).
DRAWING = (
    "openwop_tui.draw.markdown",
    "pygments.lexers",
    "pygments.lexers.special",
    "rich.syntax",
)


async def warmed() -> None:
    """Import `DRAWING` in a thread and wait for it: the app does so before it reaches the
    host, so an answer asked for the moment it says it is connected (a script) does not meet
    the import half done (its first drawing, and a key typed into it, waited for it)."""
    await asyncio.to_thread(_import_quietly)


def _import_quietly() -> None:
    for name in DRAWING:
        try:
            importlib.import_module(name)
        except Exception:  # the import where it is used says what went wrong, to the user
            log.warning("could not import %s ahead of use", name, exc_info=True)
            return
