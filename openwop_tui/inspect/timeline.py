"""The event timeline's data: one `Row` per run event, and the filter a view applies to rows.

`timeline_row` turns an event (and the lint findings about it) into a row: its sequence, the
seconds since its run started, its type, its node, a one-line summary (a ``run.started`` names
what the user's last message attached) and its lint marks. The row keeps the event's
``sequence`` and ``run_id``: the key a view maps to the transcript item the event made
(`openwop_tui.core.fold` items keep their source event) and back. `Timeline` is the fold that
knows each run's start, so rows can be made as events arrive.

`RowFilter.parse` reads a filter line: ``node.*`` (a glob on the event type; several are
alternatives), ``node:respond`` (a glob on the node id), ``has:findings`` / ``has:errors`` /
``has:warnings``, ``code:OW214``, and any other word as free text that must appear in the type,
node or summary. Matching ignores case. Pure: no I/O, no Rich, no Textual.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from openwop_tui.inspect.findings import Finding, Severity
from openwop_tui.protocol.content_parts import KINDS, encoded_size
from openwop_tui.protocol.envelopes import extract_envelopes
from openwop_tui.protocol.events import RunEvent, chunk_text
from openwop_tui.text.sanitize import HostLine, HostText, one_line
from openwop_tui.text.units import human_size

#: Characters of a summary; a view cuts further to its width.
SUMMARY_CHARS = 160
#: Characters of one attachment's name or media type in a summary, so one long name cannot
#: crowd out the others.
_NAME_CHARS = 40
#: Attachments named in a summary (all are counted); the line is cut well before more fit.
_NAMED = 8
_SPACES = re.compile(r"[\r\n\t]+")
_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


@dataclass(frozen=True, slots=True)
class Row:
    """One event in the timeline. Strings are already safe to print (cleaned host data)."""

    sequence: int | None
    elapsed: float | None
    """Seconds since the event's run started (``None``: the event carries no time)."""
    type: HostLine
    node: HostLine | None
    summary: HostLine
    """Each on one line (a newline in a host's type or node shows as ``␊``): a row is a line."""
    marks: tuple[str, ...] = ()
    """The codes of the lint findings about this event (``OW214`` …), worst first."""
    worst: Severity | None = None
    """The most severe of those findings."""
    run_id: HostText | None = None

    @property
    def key(self) -> tuple[str | None, int | None]:
        """``(run_id, sequence)``: what links a row to the transcript item the event made."""
        return self.run_id, self.sequence


def timeline_row(
    event: RunEvent, findings: Sequence[Finding] = (), *, origin: float | None = None
) -> Row:
    """The row of ``event``; ``origin`` is its run's start (epoch seconds) for ``elapsed``."""
    ranked = sorted(findings, key=lambda f: _ORDER[f.severity])
    marks = tuple(dict.fromkeys(f.code for f in ranked))
    when = event_time(event)
    return Row(
        sequence=event.sequence,
        elapsed=when - origin if when is not None and origin is not None else None,
        type=one_line(event.type),
        node=one_line(event.node_id) if event.node_id is not None else None,
        summary=one_line(HostText(summary(event))),  # made of the event's cleaned fields
        marks=marks,
        worst=ranked[0].severity if ranked else None,
        run_id=event.run_id,
    )


def with_piece_text(row: Row, text: str) -> Row:
    """``row`` of a chunk or reasoning delta, summarised from ``text``: its piece as it may be
    shown (`openwop_tui.inspect.split_keys.EventPiece.text`, a key cut across pieces masked)."""
    return dataclasses.replace(row, summary=one_line(HostText(_one_line(repr(text)))))


def event_time(event: RunEvent) -> float | None:
    """The event's ``timestamp`` as epoch seconds, or ``None``."""
    stamp = event.timestamp
    if not stamp:
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except (ValueError, OverflowError, OSError):
        return None


class Timeline:
    """Rows made as events arrive, each timed from its own run's first event."""

    def __init__(self) -> None:
        self._origins: dict[str | None, float] = {}

    def add(self, event: RunEvent, findings: Sequence[Finding] = ()) -> Row:
        """The row of the next event."""
        when = event_time(event)
        if when is not None and (event.run_id not in self._origins or event.type == "run.started"):
            self._origins[event.run_id] = when
        return timeline_row(event, findings, origin=self._origins.get(event.run_id))


def _one_line(text: str, limit: int = SUMMARY_CHARS) -> str:
    flat = _SPACES.sub(" ⏎ ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _error(value: Any) -> str | None:
    if isinstance(value, Mapping):
        parts = [_text(value.get("code")), _text(value.get("message"))]
        return ": ".join(p for p in parts if p) or None
    return _text(value)


def summary(event: RunEvent) -> str:
    """A one-line summary of what the event says."""
    p = event.payload
    kind = event.type
    text = chunk_text(event)
    if text is not None:
        return _one_line(repr(text))
    parts: list[str | None]
    if kind == "run.started":
        parts = [_text(p.get("workflowId")), _attached(p.get("inputs"))]
    elif kind in ("run.failed", "node.failed"):
        parts = [_error(p.get("error")) or _error(p)]
    elif kind == "node.started":
        parts = [_text(p.get("typeId")), _attempt(p.get("attempt"))]
    elif kind == "node.completed":
        parts = [*_envelopes(event), _duration(p.get("durationMs"))]
    elif kind in ("run.completed", "run.cancelled"):
        parts = [_text(p.get("reason")), _duration(p.get("durationMs"))]
    elif kind == "provider.usage":
        parts = [
            _text(p.get("model")),
            f"in {p.get('inputTokens', '?')} out {p.get('outputTokens', '?')}",
        ]
    elif kind in ("agent.toolCalled", "agent.toolReturned"):
        parts = [_text(p.get("toolName")), _text(p.get("status"))]
    elif kind in ("node.suspended", "interrupt.requested", "interrupt.resolved"):
        parts = [_text(p.get("kind")), _text(p.get("reason"))]
    elif kind == "artifact.created":
        parts = [_text(p.get("artifactType")), _text(p.get("artifactId"))]
    elif kind == "log.appended":
        parts = [_text(p.get("level")), _text(p.get("message"))]
    elif kind in ("agent.reasoning.delta",):
        parts = [repr(p.get("delta", ""))]
    else:
        keys = [str(k) for k in list(p)[:6]]
        parts = [("{" + ", ".join(keys) + ("…" if len(p) > 6 else "") + "}") if keys else None]
    return _one_line(" · ".join(part for part in parts if part))


def _attempt(value: Any) -> str | None:
    return f"attempt {value}" if isinstance(value, int) and not isinstance(value, bool) else None


def _duration(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return f"{value:g} ms"


def _attached(inputs: Any) -> str | None:
    """What the run's last message carried, when it has attachments: ``3 attached:
    picture.png (image/png, 120.0 KB), …``. Only the last message is read (the history before
    it was said by earlier runs), and no bytes are decoded."""
    messages = inputs.get("messages") if isinstance(inputs, Mapping) else None
    last = messages[-1] if isinstance(messages, list) and messages else None
    content = last.get("content") if isinstance(last, Mapping) else None
    if not isinstance(content, list):
        return None
    attached = [p for p in content if isinstance(p, Mapping) and p.get("type") in KINDS]
    if not attached:
        return None
    named = ", ".join(_attachment(part) for part in attached[:_NAMED])
    more = ", …" if len(attached) > _NAMED else ""
    return f"{len(attached)} attached: {named}{more}"


def _attachment(part: Mapping[str, Any]) -> str:
    """One attachment as a summary names it: ``notes.md (text/markdown, 2.0 KB)``; its size
    told from its base64's length, ``uploaded`` for one sent by url, a clip's seconds."""
    kind = str(part.get("type"))
    name = _text(part.get("alt" if kind == "image" else "name")) or kind
    mime = _text(part.get("mimeType"))
    facts = [_cut(mime)] if mime else []
    seconds = _seconds(part.get("durationSeconds")) if kind == "audio" else None
    inline = part.get("dataBase64")
    if seconds is not None:
        facts.append(seconds)
    elif isinstance(inline, str):
        facts.append(human_size(encoded_size(inline)))
    if _text(part.get("url")):
        facts.append("uploaded")
    return f"{_cut(name)} ({', '.join(facts)})" if facts else _cut(name)


def _seconds(value: Any) -> str | None:
    """A clip's ``durationSeconds`` as ``3.0 s``; None for anything but a number not below 0."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        return None
    return _cut(f"{value:.1f} s")


def _cut(text: str) -> str:
    """A host's name or type on one line, cut to `_NAME_CHARS`."""
    flat = _SPACES.sub(" ", text)
    return flat if len(flat) <= _NAME_CHARS else flat[: _NAME_CHARS - 1] + "…"


def _envelopes(event: RunEvent) -> list[str | None]:
    found = extract_envelopes(event)
    if found:
        return [f"{e.kind}" + (f" ({e.display})" if e.display else "") for e in found]
    outputs = event.payload.get("outputs")
    completion = outputs.get("completion") if isinstance(outputs, Mapping) else None
    return [repr(completion)] if isinstance(completion, str) and completion else []


@dataclass(frozen=True, slots=True)
class RowFilter:
    """Which rows to show. Empty (the default) shows every row."""

    types: tuple[str, ...] = ()
    """Globs on the event type; a row matches any of them."""
    nodes: tuple[str, ...] = ()
    """Globs on the node id; a row matches any of them."""
    words: tuple[str, ...] = ()
    """Free text; a row must contain every word (in its type, node or summary)."""
    codes: tuple[str, ...] = ()
    """Lint codes; a row must carry one of them."""
    with_findings: Severity | None = None
    """Only rows with a finding at least this severe (``INFO``: any finding)."""
    text: str = field(default="", compare=False)
    """The filter line as typed (a view keeps it per session)."""

    @classmethod
    def parse(cls, text: str) -> RowFilter:
        """Read a filter line (see the module docstring)."""
        types: list[str] = []
        nodes: list[str] = []
        words: list[str] = []
        codes: list[str] = []
        level: Severity | None = None
        for token in text.split():
            low = token.lower()
            if low.startswith("type:") and len(low) > 5:
                types.append(low[5:])
            elif low.startswith("node:") and len(low) > 5:
                nodes.append(low[5:])
            elif low.startswith("code:") and len(low) > 5:
                codes.append(token[5:].upper())
            elif low in ("has:findings", "has:lint", "has:info"):
                level = _least(level, Severity.INFO)
            elif low in ("has:warnings", "has:warning"):
                level = _least(level, Severity.WARNING)
            elif low in ("has:errors", "has:error"):
                level = _least(level, Severity.ERROR)
            elif "." in low or "*" in low or "?" in low:
                types.append(low)
            else:
                words.append(low)
        return cls(tuple(types), tuple(nodes), tuple(words), tuple(codes), level, text)

    @property
    def empty(self) -> bool:
        """Whether the filter lets every row through."""
        return not (self.types or self.nodes or self.words or self.codes or self.with_findings)

    def matches(self, row: Row) -> bool:
        """Whether ``row`` passes."""
        if self.types and not any(fnmatch.fnmatchcase(row.type.lower(), g) for g in self.types):
            return False
        node = (row.node or "").lower()
        if self.nodes and not any(fnmatch.fnmatchcase(node, g) for g in self.nodes):
            return False
        if self.codes and not any(code in row.marks for code in self.codes):
            return False
        if self.with_findings is not None and (
            row.worst is None or _ORDER[row.worst] > _ORDER[self.with_findings]
        ):
            return False
        if self.words:
            haystack = f"{row.type} {row.node or ''} {row.summary}".lower()
            return all(word in haystack for word in self.words)
        return True

    def apply(self, rows: Iterable[Row]) -> list[Row]:
        """The rows that pass, in order."""
        return [row for row in rows if self.matches(row)]


def _least(current: Severity | None, wanted: Severity) -> Severity:
    """The laxer of two thresholds (``has:errors has:warnings`` shows both)."""
    if current is None:
        return wanted
    return current if _ORDER[current] >= _ORDER[wanted] else wanted
