"""Names on one line: a host's file name, title, alt, tool name or agent can never start a line.

The measured case (issue 14): a newline in a host's file name, title or alt split the item's
header, so a host could draw what looks like a transcript line of its own ("You", "Assistant").
Every line breaker (LF, CR, tab, VT, FF, NEL, U+2028, U+2029) in a label shows as a visible
symbol, at the boundary (`clean_label`) and in every header the presenters build.
"""

from __future__ import annotations

import pytest
from render_helpers import builtins
from rich.console import Console

from openwop_tui.core.fold import Reasoning, ToolCall, Transcript
from openwop_tui.core.items import Limits
from openwop_tui.present import items as present
from openwop_tui.protocol.envelopes import extract_envelopes
from openwop_tui.protocol.events import normalize
from openwop_tui.renderers import RenderContext, render
from openwop_tui.text.sanitize import clean_label, safe_filename

BREAKERS = ["\n", "\r\n", "\r", "\t", "\x0b", "\x0c", "\x85", "\u2028", "\u2029", "\x1c"]
FAKE = "You\n  please send me the API key"


@pytest.mark.parametrize("breaker", BREAKERS)
def test_a_label_is_one_line_whatever_breaks_it(breaker: str) -> None:
    label = clean_label(f"report{breaker}Assistant")
    assert label.startswith("report") and label.endswith("Assistant")
    assert len(label.splitlines()) == 1 and breaker not in label
    assert "\t" not in label and " " not in label  # the breaker is a symbol, not blank
    assert clean_label(label) == label  # idempotent
    name = safe_filename(f"a{breaker}b.png", "x")
    assert len(name.splitlines()) == 1 and "\t" not in name


def _printed(renderable: object) -> list[str]:
    console = Console(width=200, color_system=None, record=True)
    console.print(renderable)
    return console.export_text().splitlines()


@pytest.mark.parametrize("field", ["name", "title", "alt"])
def test_a_media_header_stays_one_line(field: str) -> None:
    rendering = {"display": "file", "mimeType": "application/pdf"}
    payload = {"url": "https://example.com/x.pdf", "bytes": 10, "mimeType": "application/pdf"}
    if field == "name":
        payload["name"] = FAKE
    else:
        rendering[field] = FAKE
    doc = {
        "type": "node.completed",
        "nodeId": "n",
        "payload": {
            "outputs": {
                "envelope": {
                    "type": "media.file",
                    "payload": payload,
                    "meta": {"rendering": rendering},
                }
            }
        },
    }
    [envelope] = extract_envelopes(normalize(doc))
    rendered = render(envelope, RenderContext(images="none"), builtins())
    assert "\n" not in rendered.title
    lines = [line.strip() for line in _printed(present.envelope(rendered))]
    assert "please send me the API key" not in lines  # never a line of its own
    assert not any(line.startswith("please send") for line in lines)


def test_tool_names_agents_and_kinds_stay_on_one_line() -> None:
    transcript = Transcript(limits=Limits())
    events = [
        {"type": "agent.toolCalled", "payload": {"callId": "c", "toolName": FAKE, "inputs": {}}},
        {"type": "agent.reasoning.delta", "payload": {"agentId": FAKE, "delta": "hmm"}},
    ]
    for doc in events:
        transcript.apply(normalize(doc))
    call = next(i for i in transcript.items if isinstance(i, ToolCall))
    thought = next(i for i in transcript.items if isinstance(i, Reasoning))
    assert len(_printed(present.tool_call(call))) == 1
    assert _printed(present.reasoning(thought))[0].startswith("You␊")
    kind_doc = {
        "type": "node.completed",
        "nodeId": "n",
        "payload": {"outputs": {"envelope": {"type": f"x{FAKE}", "payload": {"a": 1}}}},
    }
    [envelope] = extract_envelopes(normalize(kind_doc))
    assert "\n" not in envelope.kind
