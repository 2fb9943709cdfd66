"""Where Textual keeps what the app has let go of, worked around in one call before it draws.

Each is a module of its own, with the Textual issue it works around and the test that checks
it against the Textual the app depends on:

* `strip_cycles`: a drawn line that caches itself is a reference cycle, freed only by a pass
  over the whole heap (which the app makes rare);
* `watch_release`: a closed widget stays reachable from what it watched (the footer's keys,
  composed again at every run's start and end);
* `inner_outer`: a style cache per widget, and its drawn lines, kept by a cache of Textual's
  after the widget is removed.

Together they were most of what 300 short turns grew the app by (issue 26).
"""

from __future__ import annotations

from openwop_tui.ui import inner_outer, strip_cycles, watch_release

__all__ = ["install"]


def install() -> None:
    """Install each work-around (once: a second call changes nothing)."""
    strip_cycles.install()
    watch_release.install()
    inner_outer.install()
