"""The reference hosts' own dialect of the event document, read as what it means.

The four hosts of ``openwop/openwop-examples`` (protocol.md §10) each spell the v1
``RunEventDoc`` their own way: the TypeScript in-memory host sends ``seq`` and ``data`` instead
of ``sequence`` and ``payload`` and no ``eventId``; the SQLite and Postgres hosts send both
spellings at once and ``null`` for what is absent; the Python host sends empty payloads whose
schema-required fields (``workflowId``, ``nodeId`` …) are missing or only on the event. A
client reads them all (`openwop_tui.protocol.events.normalize`), so a lint that calls them
schema errors cannot gate a host's CI.

`read` translates one document into the schema's spelling and says each difference as a
`Difference` with its own rule code; the lint validates the translation, so every dialect is
reported once, by its code (a warning, an error under ``--strict``), and a real fault still
fails: a ``seq`` that disagrees with ``sequence`` is one (``OW118``), whatever the mode.
`DIALECTS` names, for each code, the hosts that speak it; `describe` names the dialect a set
of codes matches best, for the summary line. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from openwop_tui.inspect.schemas import short

PYTHON = "openwop-examples Python host"
IN_MEMORY = "openwop-examples TypeScript in-memory host"
SQL = "openwop-examples SQLite and Postgres hosts"


@dataclass(frozen=True, slots=True)
class Dialect:
    """One way a known host departs from the schema."""

    label: str
    """A few words for the summary line (``seq beside sequence``)."""
    hosts: tuple[str, ...]
    """Who speaks it."""


#: Every dialect code, with the hosts that speak it.
DIALECTS: dict[str, Dialect] = {
    "OW120": Dialect("seq for sequence", (IN_MEMORY,)),
    "OW121": Dialect("seq beside sequence", (SQL,)),
    "OW122": Dialect("data for payload", (IN_MEMORY,)),
    "OW123": Dialect("data beside payload", (SQL,)),
    "OW124": Dialect("no eventId", (IN_MEMORY,)),
    "OW125": Dialect("no payload", (IN_MEMORY,)),
    "OW126": Dialect("null for absent fields", (SQL,)),
    "OW127": Dialect("empty payloads", (PYTHON, SQL)),
    "OW128": Dialect("nodeId on the event only", (PYTHON, SQL)),
    "OW129": Dialect("interrupts keyed by node", (SQL,)),
}

#: Optional top-level fields a host may send as ``null`` to mean absent.
_OPTIONAL = ("nodeId", "causationId", "engineVersion", "schemaVersion")


@dataclass(frozen=True, slots=True)
class Difference:
    """One departure from the schema's spelling, found in one event."""

    code: str
    message: str
    path: str


def read(raw: Mapping[str, Any]) -> tuple[dict[str, Any], list[Difference]]:
    """``raw`` in the schema's spelling (for validation only), and what was translated."""
    doc = dict(raw)
    found: list[Difference] = []
    for legacy, canonical, alone, beside in (
        ("seq", "sequence", "OW120", "OW121"),
        ("data", "payload", "OW122", "OW123"),
    ):
        if legacy not in raw:
            continue
        value = doc.pop(legacy)
        if canonical not in raw:
            doc[canonical] = value
            found.append(
                Difference(
                    alone, f"{legacy} instead of {canonical} (read as {canonical})", f"$.{legacy}"
                )
            )
        elif raw[canonical] != value:
            found.append(
                Difference(
                    "OW118",
                    f"{legacy} {short(value)} and {canonical} {short(raw[canonical])} "
                    "disagree: which one is the event's?",
                    f"$.{legacy}",
                )
            )
        else:
            found.append(
                Difference(
                    beside, f"{legacy} repeats {canonical} (a legacy duplicate)", f"$.{legacy}"
                )
            )
    if "eventId" not in doc:
        doc["eventId"] = "-"  # stands in for the absent id, said once by its own code
        found.append(Difference("OW124", "no eventId (consumers dedupe by sequence)", "$.eventId"))
    if "payload" not in doc:
        doc["payload"] = None
        found.append(Difference("OW125", "no payload (read as empty)", "$.payload"))
    for key in _OPTIONAL:
        if key in doc and doc[key] is None:
            del doc[key]
            found.append(Difference("OW126", f"{key}: null for an absent {key}", f"$.{key}"))
    return doc, found


def describe(codes: Iterable[str]) -> str | None:
    """The dialect ``codes`` (of `DIALECTS`) match best, in words: the host that speaks every
    one of them and the fewest others; each code's hosts when no one host speaks them all."""
    fired = sorted({code for code in codes if code in DIALECTS})
    if not fired:
        return None
    labels = ", ".join(DIALECTS[code].label for code in fired)
    speakers = set.intersection(*(set(DIALECTS[code].hosts) for code in fired))
    if not speakers:
        hosts = sorted({host for code in fired for host in DIALECTS[code].hosts})
        return f"{' and '.join(hosts)} mixed ({labels})"

    def unspoken(host: str) -> int:
        return sum(1 for dialect in DIALECTS.values() if host in dialect.hosts)

    return f"{min(sorted(speakers), key=unspoken)} ({labels})"
