"""Hostile host data for the property and corpus tests: strings a terminal would execute or
misread, numbers and shapes that break naive code, and hypothesis strategies built from them.

A plain module (tests/ is on ``sys.path``), imported by ``test_properties`` and
``test_hostile_corpus``.
"""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st
from rich.console import Console

from openwop_tui.cli.output import Output
from openwop_tui.cli.render import render_file
from openwop_tui.config import Config
from openwop_tui.text.redact import RedactingWriter, Redactor

API_KEY = "sk-hostile-4f3e2d1c0b"
"""The key the tests configure; a host echoing it back must never get it shown."""

HOSTILE: tuple[str, ...] = (
    "\x1b]52;c;SGVsbG8gY2xpcGJvYXJk\x07",  # OSC 52: write the clipboard
    "\x1b]0;pwned title\x07",  # OSC 0: set the window title
    "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",  # OSC 8 hyperlink
    "\x1b[2J\x1b[H",  # CSI: clear the screen, home the cursor
    "\x9b31m\x9d0;c1 title\x9c",  # C1 forms of CSI and OSC
    "\x1bP1$r\x1b\\",  # DCS
    "\x1b_Gf=100;AAAA\x1b\\",  # APC (kitty graphics)
    "bell\x07\x08\x08\rover",  # BEL, backspace, bare CR
    "invoice_\u202efdp.exe",  # right-to-left override
    "invoice_&#x202e;fdp.exe",  # the same, as a markdown character reference
    "&rlm;&#x2066;&#27;[31m&#x9b;&#0;",  # more references that decode to controls
    "zero\u200bwidth\u200d\u2060\ufeffname",  # invisible characters
    "lone \ud800 surrogate \udfff",
    f"the host echoes {API_KEY} back",
    f"cut mid-key {API_KEY[:9]}",
    "https://[x]/a.png",
    "${jndi:ldap://x}<script>alert(1)</script>[bold red]markup?[/]",
)

#: What must never reach a terminal from a host: C0 except tab and newline, DEL, C1, bidi
#: controls and isolates, lone surrogates.
FORBIDDEN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
#: What may also not be in a saved file name or a title: zero-width and other invisible marks.
INVISIBLE = re.compile("[\u00ad\u034f\u180e\u200b-\u200f\u2060-\u2064\ufeff]")
#: Rich's own styling (SGR), the only escape sequences the printer itself writes.
_SGR = re.compile(r"\x1b\[[0-9;]*m")

EVENT_TYPES = (
    "run.started",
    "run.completed",
    "run.failed",
    "run.cancelled",
    "node.started",
    "node.completed",
    "node.failed",
    "node.suspended",
    "node.resumed",
    "output.chunk",
    "ai.message.chunk",
    "node.message",
    "media.image",
    "media.audio",
    "media.file",
    "agent.reasoning.delta",
    "agent.reasoned",
    "agent.toolCalled",
    "agent.toolReturned",
    "agent.tool-returned",
    "agent.handoff",
    "agent.decided",
    "provider.usage",
    "artifact.created",
    "log.appended",
    "envelope.refusal",
    "envelope.truncated",
    "envelope.retry.attempted",
    "interrupt.requested",
    "approval.requested",
    "clarification.requested",
    "state.snapshot",
    "vendor.acme.unknown",
)
DISPLAYS = ("markdown", "code", "card", "image", "audio", "file", "json", "hologram", None)


def leak(text: str) -> str | None:
    """What in printed ``text`` should not be there: a forbidden character or the key."""
    plain = _SGR.sub("", text)
    found = FORBIDDEN.search(plain)
    if found:
        start = max(found.start() - 30, 0)
        return f"{found.group()!r} in {plain[start : found.end() + 30]!r}"
    if API_KEY in plain:
        return "the API key"
    return None


# ------------------------------------------------------------------------- strategies

hostile_text = st.one_of(
    st.sampled_from(HOSTILE),
    st.text(max_size=40),
    st.builds(lambda a, b: a + b, st.sampled_from(HOSTILE), st.text(max_size=10)),
)
numbers = st.one_of(
    st.integers(),
    st.integers(min_value=10**200, max_value=10**300),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
)
json_values = st.recursive(
    st.none() | numbers | hostile_text,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            hostile_text | st.sampled_from(("type", "url", "bytes")), children, max_size=4
        )
    ),
    max_leaves=12,
)


def _media_payload() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "url": hostile_text
            | st.sampled_from(("https://[x]/a.png", "file:///etc/passwd", "/rel/a.png")),
            "base64": st.sampled_from(("iVBORw0KGgo=", "!!!", "", "A" * 9)) | hostile_text,
            "bytes": numbers | hostile_text,
            "mimeType": st.sampled_from(("image/png", "audio/ogg", "text/csv", "image/x-eps"))
            | hostile_text,
            "name": hostile_text,
            "durationSeconds": numbers,
            "durationMs": numbers,
        },
    )


envelopes = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            ("media.image", "media.audio", "media.file", "vendor.x.card", "code")
        )
        | hostile_text,
    },
    optional={
        "envelopeId": hostile_text,
        "correlationId": st.sampled_from(("c1", "c2")),
        "partial": st.fixed_dictionaries({"isPartial": st.booleans()}),
        "meta": st.fixed_dictionaries(
            {},
            optional={
                "rendering": st.fixed_dictionaries(
                    {},
                    optional={
                        "display": st.sampled_from(DISPLAYS) | hostile_text,
                        "title": hostile_text,
                        "alt": hostile_text,
                        "lang": hostile_text,
                        "mimeType": hostile_text,
                    },
                )
                | json_values
            },
        ),
        "payload": _media_payload() | json_values,
    },
)

payloads = st.one_of(
    json_values,
    _media_payload(),
    st.fixed_dictionaries(
        {},
        optional={
            "chunk": hostile_text,
            "delta": hostile_text,
            "reasoning": hostile_text,
            "status": hostile_text,
            "toolName": hostile_text,
            "callId": st.sampled_from(("call-1", "call-2")) | hostile_text,
            "outcome": json_values,
            "error": json_values,
            "message": hostile_text,
            "confidence": numbers,
            "durationMs": numbers,
            "inputTokens": numbers,
            "outputs": st.fixed_dictionaries(
                {},
                optional={
                    "completion": hostile_text,
                    "envelope": envelopes | st.lists(envelopes, max_size=3) | json_values,
                    "rendering": json_values,
                },
            ),
        },
    ),
)

event_documents = st.fixed_dictionaries(
    {"type": st.sampled_from(EVENT_TYPES) | hostile_text, "payload": payloads},
    optional={
        "runId": hostile_text,
        "nodeId": hostile_text,
        "sequence": numbers | hostile_text,
        "causationId": st.sampled_from(("c1", "c2")),
        "timestamp": hostile_text,
    },
)


def as_frame(doc: Any, ascii_only: bool) -> str:
    """One SSE frame carrying ``doc`` as JSON (lone surrogates survive only as \\u escapes)."""
    text = json.dumps(doc, ensure_ascii=ascii_only, allow_nan=True)
    if not ascii_only:
        text = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return f"event: {doc.get('type') if isinstance(doc, dict) else 'x'}\ndata: {text}\n\n"


# ------------------------------------------------------------------------ printing


def printed(
    sse_text: str,
    *,
    color: bool = False,
    width: int = 100,
    save_dir: Path | None = None,
    refused: bool = False,
) -> str:
    """What ``openwop-tui render -`` prints for ``sse_text`` (colour or plain), via the command's
    own code path; asserts it exits 0, or with ``refused`` 2 as well (input that holds no SSE
    event is refused: then what it said on stderr is returned)."""
    sink = io.StringIO()
    console = Console(
        # As `openwop-tui` runs it: `main` sends everything printed through a redacting writer.
        file=RedactingWriter(sink, Redactor([API_KEY])),
        width=width,
        force_terminal=color,
        color_system="truecolor" if color else None,
        no_color=not color,
        highlight=False,
        emoji=False,
        soft_wrap=False,
    )
    output = Output(Config(audio=False, images="halfblock", api_key=API_KEY), console, save_dir)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stdin", io.StringIO(sse_text))
        said = io.StringIO()
        patch.setattr(sys, "stderr", said)
        code = render_file("-", output)
    assert code == 0 or (refused and code == 2), (code, said.getvalue())
    return sink.getvalue() + said.getvalue()
