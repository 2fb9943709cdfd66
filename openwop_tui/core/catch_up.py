"""A run the log left open, and whether the connected host can give what the log lacks.

When the app is killed mid-run (``kill -9``, a power cut), the session's log ends inside the
run: its ``run`` entry and the frames that had arrived, no ``end``. The host still holds the
rest. Reopened, such a session remembers the run as a `CutRun`: its id, the highest sequence
logged and the host that ran it. The app reads it with ``resume``: the run is left open, the
reply cut where the log stops. Once connected, it asks that host for the events after that
sequence (or follows the run if it still runs), folds them into the open run and logs them, so
the next reopen has them too (`openwop_tui.core.conversation.Conversation.catch_up`); when the
host cannot give them, or another run begins first, the run is settled as it was kept
(`Conversation.settle_cut`). A reopen without ``resume`` (``render``, an export) settles it at
once.

Only the log's last run is caught up: a run followed by other runs was settled by them. Pure:
no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from openwop_tui.core.origins import host_url


@dataclass(frozen=True, slots=True)
class CutRun:
    """The run a replayed log left open (its stream never reached the run's end)."""

    run_id: str
    after: int | None
    """The highest sequence the log holds (``None``: none; everything is missing)."""
    host: str | None
    """The base URL of the host that ran it, when the log says (`openwop_tui.core.origins`)."""


def same_host(a: str, b: str) -> bool:
    """Whether two base URLs name one host (scheme, host and port; case and a trailing
    slash aside)."""
    first, second = host_url(a), host_url(b)
    return first is not None and second is not None and first.lower() == second.lower()


def why_not(cut: CutRun, connected: str, *, demo: bool) -> str | None:
    """Why the host at ``connected`` cannot catch ``cut`` up (``None``: it may; a run whose
    host the log does not name is asked of the connected one). ``demo``: the app runs its
    embedded demo host, which is new with each start (its runs go with the app that ran them)."""
    if cut.host is None or same_host(cut.host, connected):
        return None
    if demo:
        return (
            f"run {cut.run_id} was cut off when the app stopped and cannot be caught up: it ran "
            f"on an embedded demo host ({cut.host}) that stopped with that app"
        )
    return (
        f"run {cut.run_id} was cut off when the app stopped and cannot be caught up here: it "
        f"ran on {cut.host}, and this app is connected to {host_url(connected) or connected} "
        f"(openwop-tui --host {cut.host} --continue catches it up)"
    )
