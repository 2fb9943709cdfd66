"""``openwop-tui lint FILE.sse… | - | RUN_ID [--host URL] [--json] [--strict]``: a run's findings.

Every event and envelope is checked (`openwop_tui.inspect.lint.Linter`) and each finding
printed on one line, ``SEQUENCE  CODE  SEVERITY  MESSAGE  PATH`` (``-`` for a finding about the
stream rather than one event), then a count on stderr. ``--rules`` lists every rule instead.

``--json`` prints NDJSON, one object per finding and nothing else on stdout::

    {"sequence": 12, "code": "OW214", "severity": "error",
     "source": "RFC 0055 §C; ai-envelope.md §Media reference payloads",
     "message": "the payload has both url and base64: …",
     "path": "$.payload.outputs.envelope.payload", "runId": "run_42"}

``sequence`` is the event's sequence (``null`` for the stream), ``severity`` one of
``error``, ``warning``, ``info``, ``path`` a JSON path inside the event (``""`` for the stream),
``runId`` the event's run (``null`` when unknown; a recording may hold several runs), ``input``
what was linted (a path, ``stdin``, ``run ID on HOST``: several may be given at once).

The count on stderr also names the protocol major the events were read as (``--protocol``, else
the host's, else read from the stream: `openwop_tui.inspect.major`) and the known host dialect
they speak (`openwop_tui.inspect.dialects`): a reference host's own spelling is a warning with
its own code, an error with ``--strict``.

Exit codes: 1 when any finding is an error (whatever ``--min-severity`` prints), 0 otherwise, 2
when an input cannot be read (the reason on stderr; the other inputs are still linted).
"""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.text import Text

from openwop_tui.cli.inspector import printing_console
from openwop_tui.cli.source import Source, SourceError, read_source
from openwop_tui.config import Config
from openwop_tui.inspect.findings import RULES, Finding, Severity
from openwop_tui.inspect.lint import LintConfig, Linter, has_errors, summary
from openwop_tui.protocol.discovery import DEFAULT_MAX_INLINE_MEDIA_BYTES

EXIT_CLEAN, EXIT_ERRORS, EXIT_BAD_INPUT = 0, 1, 2

_STYLES = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "dim"}
_RANK = {"info": 0, "warning": 1, "error": 2}


def lint_command(args: argparse.Namespace, config: Config) -> int:
    """Run ``lint`` as parsed; the exit code."""
    console, _ = printing_console(args)
    if args.rules:
        for rule in RULES.values():
            line = Text(f"{rule.code}  {rule.severity.value:<7}  {rule.title}  ")
            line.append(rule.source, style="dim")
            console.print(line, soft_wrap=True)
        return EXIT_CLEAN
    if not args.source:
        print(
            "openwop-tui lint: give FILE.sse (one or more), - (stdin) or RUN_ID (with --host)",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    if args.max_inline_bytes is not None and args.max_inline_bytes < 0:
        print("openwop-tui lint: --max-inline-bytes must be 0 or more", file=sys.stderr)
        return EXIT_BAD_INPUT
    # Each input on its own (a CI job lints a folder of recordings at once); one that cannot
    # be read is said and the rest are still linted, and the exit code is the worst of them.
    worst = EXIT_CLEAN
    for spec in args.source:
        worst = max(worst, _lint_one(spec, args, config, console))
    return worst


def _lint_one(spec: str, args: argparse.Namespace, config: Config, console: Console) -> int:
    """Lint one input, print its findings and its summary line; its exit code.

    Args:
        spec: The input to lint: a path, ``-`` for stdin, or a run id on the host.
        args: The ``lint`` command's parsed arguments (``--strict``, ``--protocol``,
            ``--max-inline-bytes``…).
        config: The configuration (host, key, asset limit).
        console: Where the findings are printed.
    """
    try:
        source = read_source(spec, config)
    except SourceError as error:
        print(f"openwop-tui lint: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    cap = args.max_inline_bytes or source.max_inline_bytes or DEFAULT_MAX_INLINE_MEDIA_BYTES
    linter = Linter(
        LintConfig(
            max_inline_bytes=cap,
            base_url=source.base_url or config.host,
            max_asset_bytes=config.max_asset_bytes,
            protocol=args.protocol or source.major,
            supported_envelopes=source.supported_envelopes,
            strict=args.strict,
        )
    )
    for observed in source.items:
        if observed.event is not None:
            linter.feed(observed.event)
        elif observed.problem is not None:
            linter.problem(observed.problem)
    linter.finish()
    findings = linter.findings
    shown = [f for f in findings if _RANK[f.severity.value] >= _RANK[args.min_severity]]
    if args.json:
        for item in shown:
            line = {**item.as_json(), "input": source.name}
            sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
    else:
        for item in shown:
            console.print(_line(item), soft_wrap=True)  # one finding, one line
    counts = summary(findings)
    events = sum(1 for observed in source.items if observed.event is not None)
    tally = ", ".join(
        _plural(n, word)
        for n, word in (
            (events, "event"),
            (counts["error"], "error"),
            (counts["warning"], "warning"),
            (counts["info"], "note"),
        )
    )
    facts = [tally, _protocol(args.protocol, source, linter)]
    dialect = linter.dialect
    if dialect is not None:
        facts.append(f"dialect: {dialect}" + (" (errors: --strict)" if args.strict else ""))
    print(f"openwop-tui lint: {source.name}: {'; '.join(facts)}", file=sys.stderr)
    return EXIT_ERRORS if has_errors(findings) else EXIT_CLEAN


def _protocol(given: int | None, source: Source, linter: Linter) -> str:
    """Which major the events were read as, and what said so."""
    if given is not None:
        return f"protocol v{given} (--protocol)"
    if source.major is not None:
        return f"protocol v{source.major} (the host's)"
    if linter.major is not None:
        major, reason = linter.major
        return f"protocol v{major} (read from the stream: {reason})"
    return "protocol v1 or v2 (no event shows which: each read by its own spelling)"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _line(item: Finding) -> Text:
    sequence = "-" if item.sequence is None else str(item.sequence)
    line = Text(f"{sequence:>5}  {item.code}  ")
    line.append(f"{item.severity.value:<7}", style=_STYLES[item.severity])
    line.append(f"  {item.message}")
    if item.path:
        line.append(f"  {item.path}", style="dim")
    return line
