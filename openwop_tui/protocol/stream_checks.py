"""What a run's stream is checked for as its events arrive, in words: events of another run,
and sequences that never came.

The checks themselves are `openwop_tui.protocol.stream`'s acceptance rules (`_State.accept`),
one function used by a live stream, its reconnects, a catch-up of a cut run and a log read
back: an event naming another run is refused (not shown, not logged as this run's), an event
already given (its sequence not above the highest, or the same event id) is dropped and its
frame not logged again, and a jump in the sequence is said here.

A gap is not always a loss: a stream that asks for some modes only (``updates,messages``, the
app's) is sent the events of those modes, so the sequences of the others are missing by design
(protocol.md §3.4). So every gap is said on a stream of every event (``debug``), and on a
filtered one only past `FILTERED_GAP`, which no run's left-out events explain. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping

from openwop_tui.text.sanitize import clean_label

__all__ = ["FILTERED_GAP", "every_event", "foreign_sentence", "gap_sentence", "number"]

#: The most sequences a filtered stream may skip without a word: the events the other modes
#: would have brought (a long tool run's logs and node starts), never a lost million.
FILTERED_GAP = 100_000
#: Digits past which a number is given by its size, not spelled whole (a host may send a
#: sequence of thousands of digits; Python reads it).
_SPELLED_DIGITS = 18


def every_event(modes: str | None) -> bool:
    """Whether a stream asked for ``modes`` is sent every event of the run (``debug``)."""
    return "debug" in (modes or "").split(",")


def number(value: int) -> str:
    """``1,000,000,000,000,000``; a number of more than 18 digits by its size
    (``a 4,300-digit number``), so a hostile sequence cannot fill the line."""
    digits = len(str(abs(value))) if value.bit_length() > 60 else 0
    if digits > _SPELLED_DIGITS:
        sign = "-" if value < 0 else ""
        return f"{sign}a {digits:,}-digit number"
    return f"{value:,}"


def gap_sentence(last: int | None, sequence: int, *, every: bool) -> str | None:
    """What to say when the event after sequence ``last`` (``None``: none yet) has sequence
    ``sequence``: ``None`` when nothing is missing, or when the gap is small enough for the
    stream's modes to explain it (``every``: the stream is sent every event)."""
    before = last if last is not None else -1
    missing = sequence - before - 1
    if missing <= 0 or (not every and missing <= FILTERED_GAP):
        return None
    many = "1 event is" if missing == 1 else f"{number(missing)} events are"
    where = (
        f"between sequence {number(before)} and {number(sequence)}"
        if last is not None
        else f"before sequence {number(sequence)}"
    )
    maybe = "" if every else " (some may be events the stream's modes leave out)"
    return f"The host skipped sequences: {many} missing {where}{maybe}."


def foreign_sentence(counts: Mapping[str, int], run_id: str, *, catching_up: bool) -> str:
    """One line for the events of other runs refused on ``run_id``'s stream (``counts``: how
    many of each run)."""
    parts = [
        f"{number(count)} event{'s' if count != 1 else ''} of run {clean_label(other)[:200]}"
        for other, count in counts.items()
    ]
    doing = "catching up" if catching_up else "streaming"
    sent = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + f" and {parts[-1]}"
    return (
        f"The host sent {sent} while {doing} run {clean_label(run_id)[:200]}; they were not "
        "shown or kept."
    )
