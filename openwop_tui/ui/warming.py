"""What the first frame does without, loaded once the host is reached, before it is needed.

The app's first frame draws an empty chat (or a reopened one's newest runs), so what draws a
reply is not imported before it (`tests/ui/test_first_frame.py` holds it to that): markdown
(the parser, Rich's markdown module, and Rich's syntax module with Pygments behind it), some
30 ms of a start that must stay under half of a peer's. The first reply would pay for them on
the event loop instead, as it is drawn; `warm` imports them in a thread as soon as a host
answers (`openwop_tui.ui.controllers.runs.RunsController.discover`; a host that cannot be
reached sends nothing to draw, and nothing is warmed for it), long before a person has typed a
message and its answer comes back, then makes the common languages' Pygments lexers ready
(`openwop_tui.draw.lexers`: their rules are compiled when the first one is made, up to 170 ms
a language). A module imported by both threads at once is imported once (Python's import
lock); nothing else of the app runs in the thread.

The warming gives way to typing and to a session being read: a thread holds the interpreter's
lock most of the time it runs (0.4 s of CPU here, 0.15 s for the lint's schemas), so a key typed
meanwhile waited for its turn (the first keys after a session reopened echoed in 17-22 ms
instead of 11), and a long session's reading thread took twice as long to bring its oldest
turns in (issue 26). Each key the app takes says so (`typed`, from
`openwop_tui.ui.key_watch.KeysCounted`), a reading holds the warming back while it
goes on (`hold`, `release`); each warming step (one import, one language, the schemas) begins
with `give_way`: it waits until nothing is held and no key has come for `QUIET` seconds.
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
from collections.abc import Callable

__all__ = ["DRAWING", "QUIET", "give_way", "held", "hold", "release", "typed", "warm", "warm_lint"]

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
"""When a key was last typed (``time.monotonic``)."""


def typed() -> None:
    """A key was typed (into the prompt, the transcript, any widget): the warming waits until
    the typing pauses (one assignment: it is called for every key)."""
    global _typed_at
    _typed_at = time.monotonic()


_held: set[int] = set()
"""Who holds the warming back now (their ``id``)."""


def hold(owner: object) -> None:
    """Hold the warming back while ``owner`` does what comes first (reads a session onto the
    screen), until `release`; holding it again changes nothing."""
    _held.add(id(owner))


def release(owner: object) -> None:
    """``owner`` no longer holds the warming back (nothing happens if it did not)."""
    _held.discard(id(owner))


def held() -> bool:
    """Whether anything holds the warming back now."""
    return bool(_held)


def _typing_left() -> float:
    """Seconds until the typing has paused for `QUIET` (0 or less: it has)."""
    return _typed_at + QUIET - time.monotonic()


def quiet_now() -> bool:
    """Whether nothing holds the warming back and no key has been typed for `QUIET` seconds
    (`give_way`'s test, for a thread that must also notice it is told to stop)."""
    return not _held and _typing_left() <= 0


def give_way() -> None:
    """Return once nothing holds the warming back and no key has been typed for `QUIET`
    seconds (at once when neither happened). Called by the warming threads, between steps."""
    while not quiet_now():
        time.sleep(QUIET if _held else _typing_left())


_begun: set[str] = set()
"""The warming threads begun in this process (by name): each runs once, however many times a
host is reached (every tab's, every reconnection)."""


def _once(name: str, target: Callable[[], None]) -> None:
    """Run ``target`` in a daemon thread ``name`` (a quit does not wait for it), unless one of
    that name was begun already."""
    if name not in _begun:
        _begun.add(name)
        threading.Thread(target=target, name=name, daemon=True).start()


def warm() -> None:
    """Import `DRAWING` in a daemon thread, once (a quit does not wait for it); a failure is
    logged and left for the import where the module is used to report."""
    _once("openwop-draw-warm", _import_quietly)


def _import_quietly() -> None:
    for name in DRAWING:
        give_way()
        try:
            importlib.import_module(name)
        except Exception:  # the import where it is used says what went wrong, to the user
            log.warning("could not import %s ahead of use", name, exc_info=True)
            return
    try:
        from openwop_tui.draw import lexers

        lexers.warm(between=give_way)  # their rules compiled: not in a reply's first frame
    except Exception:  # (drawn as before where a language is first used)
        log.warning("could not make the common lexers ready ahead of use", exc_info=True)


def warm_lint() -> None:
    """Read and compile the lint's schemas in a thread of their own
    (`openwop_tui.inspect.schemas.warm`), so the first events of the first run do not wait for
    them on the event loop (130 ms to compile them all, and a second or more to import
    jsonschema where its format checkers are installed: a key typed as the first answer began
    waited behind it). Once, in a daemon: a quit does not wait for it."""
    _once("openwop-lint-warm", _lint_quietly)


def _lint_quietly() -> None:
    try:
        give_way()
        # Imported here, in the thread: the first frame does not load the inspector, and the
        # first event then finds it loaded.
        import openwop_tui.inspect.inspector  # noqa: F401
        from openwop_tui.inspect.schemas import warm as warm_schemas

        warm_schemas(between=give_way)
    except Exception:  # (the lint reads and compiles them on first use instead)
        log.debug("the lint's schemas could not be warmed ahead", exc_info=True)
