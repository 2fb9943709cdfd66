"""The envelope lint: a fold over a run's events that gives `Finding`\\ s with stable codes.

`Linter` is fed events one at a time, live or from a log, in the order they arrived (duplicates
and all: a linter wants to see what the host sent, not what the client kept), and answers each
with its findings; `finish` adds what only the end can tell (a stream with no terminal event).
Everything found so far stays readable (`findings`, `for_sequence`), so a timeline can mark rows
and a badge can count. The rules are in `event_rules` (one event as a document),
`envelope_rules` (the envelopes it carries), `part_rules` (what the user sent, as a
``run.started`` echoes it) and here (the stream: sequence order, gaps, duplicates, events after
the end), each run of a multi-run log tracked by its own ``runId``.

Two things are read from the stream as a whole. The protocol major: the first event that shows
it (`openwop_tui.inspect.major`) decides how every later one is validated, unless the config
names it. And the reference hosts' dialect (`openwop_tui.inspect.dialects`): a host speaks it
in every event, so each of its codes is reported once per run, and `dialect` names the host
whose dialect the codes match (the summary line's ``dialect: …``).

Pure: no I/O, no Rich, no Textual. A frame that is not an event at all reaches the lint as a
sentence (`problem`), because it never became a `RunEvent`.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from openwop_tui.inspect import dialects, major
from openwop_tui.inspect.envelope_rules import EnvelopeContext, Fragment, lint_envelopes
from openwop_tui.inspect.event_rules import lint_event
from openwop_tui.inspect.findings import Finding, Severity, finding
from openwop_tui.inspect.part_rules import lint_parts
from openwop_tui.inspect.schemas import SchemaSet, shared
from openwop_tui.protocol.discovery import DEFAULT_MAX_INLINE_MEDIA_BYTES
from openwop_tui.protocol.events import RunEvent
from openwop_tui.protocol.media import DEFAULT_MAX_BYTES
from openwop_tui.text.sanitize import HostText, clean_own


@dataclass(frozen=True, slots=True)
class LintConfig:
    """What the lint is told about the host and the client."""

    max_inline_bytes: int = DEFAULT_MAX_INLINE_MEDIA_BYTES
    """The host's ``aiProviders.maxInlineMediaBytes`` (the spec's default when not known)."""
    base_url: str | None = None
    """The host's base URL, for the media URL policy; ``None`` when unknown (a recording)."""
    max_asset_bytes: int = DEFAULT_MAX_BYTES
    """The client's download ceiling."""
    protocol: int | None = None
    """1 or 2 to validate every event as that major; ``None``: read from the stream (the
    first event that shows its major decides; until one does, by each event's spelling)."""
    strict: bool = False
    """The schema's exact reading: a known host dialect is an error, not a warning."""
    supported_envelopes: frozenset[str] | None = None
    """The host's ``supportedEnvelopes`` (``None``: unknown, not checked)."""


@dataclass(slots=True)
class _Run:
    """What the stream rules remember of one run."""

    highest: int | None = None
    seen: _Seen = field(default_factory=lambda: _Seen())
    """Each sequence's fingerprint, to tell a redelivery from a different event (one per
    event of a run: eight bytes each, `_Seen`)."""
    ended: bool = False
    unsequenced: bool = False
    """An event without a sequence has been reported (once per run)."""
    dialect: set[str] = field(default_factory=set)
    """The dialect codes already reported in this run (each once per run)."""


class _Seen:
    """Each sequence's fingerprint in a run, eight bytes a sequence: the sequences a run
    numbers from 0 up, one after the other, are places in an array (a dict of ints cost about
    a hundred bytes an event, 60 MB over 600,000 chunks); one far from them (a host's own
    numbering, a jump) is kept in a dict beside it."""

    #: How far past the array's end a sequence may be and still grow it (the gap is zeros).
    _REACH = 4096

    __slots__ = ("_dense", "_sparse")

    def __init__(self) -> None:
        self._dense = array("Q")
        self._sparse: dict[int, int] = {}

    def get(self, sequence: int) -> int | None:
        """The fingerprint kept for ``sequence``, or ``None``."""
        if 0 <= sequence < len(self._dense):
            value = self._dense[sequence]
            return value - 1 if value else None
        return self._sparse.get(sequence)

    def put(self, sequence: int, fingerprint: int) -> None:
        """Keep ``fingerprint`` (below 2**63: `_fingerprint`) for ``sequence``."""
        dense = self._dense
        if 0 <= sequence < len(dense) + self._REACH:
            if sequence >= len(dense):
                dense.frombytes(bytes(8 * (sequence - len(dense) + 1)))
            dense[sequence] = fingerprint + 1  # (0 stands for none)
        else:
            self._sparse[sequence] = fingerprint


class Linter:
    """The lint of one log (one or more runs), fed an event at a time."""

    def __init__(
        self,
        config: LintConfig | None = None,
        *,
        schemas: SchemaSet | None = None,
        assets: Callable[[str], bytes | None] | None = None,
    ) -> None:
        """``schemas``: a `SchemaSet` (the process's shared one otherwise); ``assets``: bytes
        the caller already fetched for a URL, so their content is checked too (never fetched)."""
        self._schemas = schemas or shared()
        self._assets = assets
        self._configure(config or LintConfig())
        self._runs: dict[HostText, _Run] = {}
        self._emissions: dict[HostText, tuple[int | None, bool]] = {}
        """Each streamed emission's last fragment index, and whether it completed."""
        self._found: list[Finding] = []
        self._by_event: dict[tuple[str | None, int], list[Finding]] = {}
        self._major: tuple[int, str] | None = None
        """The major the stream showed, and what showed it (`openwop_tui.inspect.major`)."""
        self._dialect: set[str] = set()
        """Every dialect code met, reported or not (for `dialect`)."""

    def use_host(
        self,
        base_url: str | None,
        *,
        max_inline_bytes: int | None = None,
        supported_envelopes: frozenset[str] | None = None,
    ) -> None:
        """What is known of the host the next events come from (the app's linter exists
        before it connects): its own media URLs are then checked as the client fetches them,
        not refused as a stranger's. Events already linted keep their findings."""
        self._configure(
            replace(
                self.config,
                base_url=base_url,
                max_inline_bytes=max_inline_bytes or self.config.max_inline_bytes,
                supported_envelopes=supported_envelopes,
            )
        )

    def _configure(self, config: LintConfig) -> None:
        """Lint by ``config`` from now on (the envelope rules' context is made from it)."""
        self.config = config
        self._context = EnvelopeContext(
            max_inline_bytes=config.max_inline_bytes,
            base_url=config.base_url,
            max_asset_bytes=config.max_asset_bytes,
            assets=self._assets,
            supported_envelopes=config.supported_envelopes,
        )

    @property
    def findings(self) -> list[Finding]:
        """Every finding so far, in the order found."""
        return list(self._found)

    def for_event(self, run_id: str | None, sequence: int | None) -> list[Finding]:
        """The findings about the event ``sequence`` of run ``run_id`` (a timeline row's marks:
        `openwop_tui.inspect.timeline.Row.key`; an item's badge: its source event's)."""
        if sequence is None:
            return []
        return list(self._by_event.get((run_id, sequence), ()))

    @property
    def major(self) -> tuple[int, str] | None:
        """The protocol major the stream showed and what showed it (``None``: nothing yet,
        or ``LintConfig.protocol`` was given and the stream is not read for it)."""
        return self._major

    @property
    def dialect(self) -> str | None:
        """The known host dialect the events spoke, in words (``None``: the schema's own)."""
        return dialects.describe(self._dialect)

    def count(self, severity: Severity) -> int:
        """How many findings of ``severity`` so far."""
        return sum(1 for f in self._found if f.severity is severity)

    def feed(self, event: RunEvent) -> list[Finding]:
        """Lint one event as it arrived; its findings (also kept)."""
        found = self._stream(event)
        if not (isinstance(event.raw, dict) and event.raw.get("synthesized") is True):
            protocol = self.config.protocol
            if protocol is None and isinstance(event.raw, dict):
                if self._major is None:
                    self._major = major.mark(event.raw, self._schemas)
                protocol = self._major[0] if self._major is not None else None
            found.extend(
                self._once(
                    event.run_id,
                    lint_event(event, self._schemas, protocol, strict=self.config.strict),
                )
            )
            if isinstance(event.raw, dict):
                fragments: list[Fragment] = []
                found.extend(
                    lint_envelopes(
                        event.raw,
                        event.type,
                        event.causation_id,
                        event.sequence,
                        self._schemas,
                        self._context,
                        fragments,
                        major=protocol,
                    )
                )
                found.extend(self._fragments(fragments, event.sequence))
                found.extend(
                    lint_parts(event.raw, event.type, event.sequence, self.config.max_inline_bytes)
                )
        return self._keep([replace(item, run_id=event.run_id) for item in found])

    def _once(self, run_id: HostText | None, found: list[Finding]) -> list[Finding]:
        """``found`` without the dialect findings this run already had: a host speaks its
        dialect in every event, and one line per difference says it."""
        run = self._runs.setdefault(run_id or HostText("?"), _Run())
        kept = []
        for item in found:
            if item.code in dialects.DIALECTS:
                self._dialect.add(item.code)
                if item.code in run.dialect:
                    continue
                run.dialect.add(item.code)
                item = replace(item, message=HostText(item.message + " (said once per run)"))
            kept.append(item)
        return kept

    def _fragments(self, fragments: list[Fragment], sequence: int | None) -> list[Finding]:
        """Rule E1: the fragments of one emission come in order, and one completes it."""
        found = []
        for piece in fragments:
            shown = piece.correlation_id[:80]
            previous, done = self._emissions.get(piece.correlation_id, (None, False))
            if done:
                found.append(
                    finding(
                        "OW205",
                        f"a fragment of {shown} after the one that completed it",
                        sequence,
                        piece.path,
                    )
                )
            elif piece.index is not None and piece.index != (
                0 if previous is None else previous + 1
            ):
                expected = 0 if previous is None else previous + 1
                found.append(
                    finding(
                        "OW205",
                        f"fragment {piece.index} of {shown}, expected {expected}",
                        sequence,
                        piece.path,
                    )
                )
            index = piece.index if piece.index is not None else previous
            self._emissions[piece.correlation_id] = (index, done or piece.last)
        return found

    def problem(self, message: str) -> list[Finding]:
        """A frame that could not be read as an event (``message`` says why)."""
        # The client's own sentence, around host values and perhaps an exception's message.
        text: str = clean_own(message)
        text = text if len(text) <= 300 else text[:299] + "…"
        return self._keep([finding("OW107", text, None, "")])

    def finish(self) -> list[Finding]:
        """The end of the log: runs that never ended."""
        found = [
            replace(
                finding(
                    "OW117",
                    f"run {run_id[:80]} has no run.completed, run.failed or "
                    "run.cancelled (the recording stopped early, or the host never ended it)",
                    None,
                    "",
                ),
                run_id=run_id,
            )
            for run_id, run in self._runs.items()
            if not run.ended
        ]
        found.extend(
            finding(
                "OW204",
                f"the streamed envelope {cid[:80]} never completed (no "
                "fragment with partial.isPartial false): a consumer must not enable its "
                "actions",
                None,
                "",
            )
            for cid, (_, done) in self._emissions.items()
            if not done
        )
        return self._keep(found)

    def _keep(self, found: list[Finding]) -> list[Finding]:
        self._found.extend(found)
        for item in found:
            if item.sequence is not None:
                self._by_event.setdefault((item.run_id, item.sequence), []).append(item)
        return found

    def _stream(self, event: RunEvent) -> list[Finding]:
        if event.type == "state.snapshot" or (
            isinstance(event.raw, dict) and event.raw.get("synthesized") is True
        ):
            return []
        run = self._runs.setdefault(event.run_id or HostText("?"), _Run())
        sequence = event.sequence
        found: list[Finding] = []
        if sequence is None:
            if not run.unsequenced:
                run.unsequenced = True
                found.append(
                    finding(
                        "OW114",
                        f"a {event.type} without a sequence (bare chunks "
                        "in messages mode have none; later ones are not reported)",
                        None,
                        "$",
                    )
                )
            return found
        print_ = _fingerprint(event)
        known = run.seen.get(sequence)
        if known is not None:
            if known == print_:
                found.append(
                    finding(
                        "OW112",
                        f"sequence {sequence} delivered again (two stream "
                        "modes admitted it, or a resume overlapped)",
                        sequence,
                        "$.sequence",
                    )
                )
            else:
                found.append(
                    finding(
                        "OW113",
                        f"sequence {sequence} was already another event: "
                        "a sequence names one event",
                        sequence,
                        "$.sequence",
                    )
                )
            return found
        if run.ended:
            found.append(
                finding("OW116", f"{event.type} after the run's terminal event", sequence, "$")
            )
        if run.highest is None:
            if sequence != 0:
                found.append(
                    finding(
                        "OW115",
                        f"the stream starts at sequence {sequence} (a resumed "
                        "or attached stream, or lost events)",
                        sequence,
                        "$.sequence",
                    )
                )
        elif sequence < run.highest:
            found.append(
                finding(
                    "OW111",
                    f"sequence {sequence} after {run.highest}: sequences strictly increase",
                    sequence,
                    "$.sequence",
                )
            )
        elif sequence > run.highest + 1:
            missing = sequence - run.highest - 1
            span = f"{run.highest + 1}" if missing == 1 else f"{run.highest + 1} to {sequence - 1}"
            found.append(
                finding(
                    "OW110",
                    f"sequence {span} not in this stream ({missing} "
                    f"event{'s' if missing != 1 else ''}): a stream of some modes leaves out "
                    "the events of the others, else they were lost",
                    sequence,
                    "$.sequence",
                )
            )
        run.seen.put(sequence, print_)
        run.highest = sequence if run.highest is None else max(run.highest, sequence)
        run.ended = run.ended or event.is_terminal
        return found


def _fingerprint(event: RunEvent) -> int:
    """The identity of an event's content: a digest of its ``eventId``, else of its document,
    cut to 64 bits (kept for every event of a run: an int, not the digest's text; two events
    told apart by it differ, and one collision in 2**64 would only miss a lint finding)."""
    if event.event_id:
        text = "id:" + event.event_id
    else:
        try:
            text = "doc:" + json.dumps(event.raw, sort_keys=True, default=str)
        except (TypeError, ValueError, RecursionError):
            text = "doc:" + repr(event.raw)
    digest = hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=8).digest()
    # 63 bits: `_Seen` keeps one more than it, in eight bytes.
    return int.from_bytes(digest, "big") >> 1


def lint_events(events: Iterable[RunEvent], config: LintConfig | None = None) -> list[Finding]:
    """Every finding of a whole log, the end included."""
    linter = Linter(config)
    for event in events:
        linter.feed(event)
    linter.finish()
    return linter.findings


def has_errors(findings: Iterable[Finding]) -> bool:
    """Whether any finding is an error (``openwop-tui lint`` then exits 1)."""
    return any(f.severity is Severity.ERROR for f in findings)


def summary(findings: Iterable[Finding]) -> dict[str, Any]:
    """Counts by severity and by code (``{"error": 1, "warning": 3, "info": 0, "codes": …}``)."""
    counts: dict[str, Any] = {s.value: 0 for s in Severity}
    codes: dict[str, int] = {}
    for item in findings:
        counts[item.severity.value] += 1
        codes[item.code] = codes.get(item.code, 0) + 1
    counts["codes"] = dict(sorted(codes.items()))
    return counts
