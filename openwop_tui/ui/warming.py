"""What the first frame does without, loaded once the host is reached, before it is needed.

The app's first frame draws an empty chat (or a reopened one's newest runs), so what draws a
reply is not imported before it (`tests/ui/test_first_frame.py` holds it to that): markdown
(the parser, Rich's markdown module, and Rich's syntax module with Pygments behind it), some
30 ms of a start that must stay under half of a peer's. The first reply would pay for them on
the event loop instead, as it is drawn; `warm` imports them in a thread as soon as the host is
reached (`openwop_tui.ui.app.ChatApp`), long before a person has typed a message and its answer
comes back, then makes the common languages' Pygments lexers ready (`openwop_tui.draw.lexers`:
their rules are compiled when the first one is made, up to 170 ms a language). A module
imported by both threads at once is imported once (Python's import lock); nothing else of the
app runs in the thread.

It gives way to typing: the thread holds the interpreter's lock most of the time it runs (0.4 s
of CPU), so a key typed meanwhile waited for its turn, and the first keys after a session
reopened echoed in 17-22 ms instead of 11 (issue 26). A prompt's key says so (`typed`); the
thread finishes the step it is in (one import, one language) and waits until no key has come
for `QUIET` seconds before the next.
"""

from __future__ import annotations

import importlib
import logging
import threading
import time

__all__ = ["DRAWING", "QUIET", "typed", "warm"]

log = logging.getLogger(__name__)

#: Imported by `warm`, in this order: a reply's markdown, and code in it (Pygments' lexers).
DRAWING = (
    "openwop_tui.draw.markdown",
    "pygments.lexers",
    "pygments.lexers.special",
    "rich.syntax",
)


#: Seconds without a key the warming waits for before its next step.
QUIET = 0.3

_typed_at = float("-inf")
"""When a key was last typed into a prompt (``time.monotonic``)."""


def typed() -> None:
    """A key was typed into a prompt: the warming waits until the typing pauses (one
    assignment: it is called for every key)."""
    global _typed_at
    _typed_at = time.monotonic()


def _give_way() -> None:
    """Return once no key has been typed for `QUIET` seconds (at once when none has)."""
    while (left := _typed_at + QUIET - time.monotonic()) > 0:
        time.sleep(left)


def warm() -> None:
    """Import `DRAWING` in a daemon thread (a quit does not wait for it); a failure is logged
    and left for the import where the module is used to report."""
    threading.Thread(target=_import_quietly, name="openwop-draw-warm", daemon=True).start()


def _import_quietly() -> None:
    for name in DRAWING:
        _give_way()
        try:
            importlib.import_module(name)
        except Exception:  # the import where it is used says what went wrong, to the user
            log.warning("could not import %s ahead of use", name, exc_info=True)
            return
    try:
        from openwop_tui.draw import lexers

        lexers.warm(between=_give_way)  # their rules compiled: not in a reply's first frame
    except Exception:  # (drawn as before where a language is first used)
        log.warning("could not make the common lexers ready ahead of use", exc_info=True)
