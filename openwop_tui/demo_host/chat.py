"""``demo.chat``: one run per user turn (protocol.md §5 A), answering from keywords.

The "model" reads the last user message in ``inputs.messages``, thinks out loud (reasoning
deltas, sometimes a tool call), streams a markdown reply, then attaches the envelopes the user
asked for, each as its own node. Keywords combine: "an image and some code" gets both.
``ask``, ``approve`` and ``unsure`` make the turn wait for the human (`hitl.py`): a
clarification, an approval, a low-confidence decision to ratify.

A message with attachments (content parts: pictures, documents, voice) is answered first with
what each one holds, read from its bytes (`attachments`, `describe`); its words are then read
for keywords as always.
"""

from __future__ import annotations

import re
import time
from collections.abc import Generator, Iterator, Mapping
from typing import Any

from openwop_tui.demo_host import hitl, tour
from openwop_tui.demo_host.attachments import read_parts
from openwop_tui.demo_host.describe import section
from openwop_tui.demo_host.steps import Emit, Pause, Step, WorkflowContext, since, text_node
from openwop_tui.demo_host.streamed import streamed

AGENT = "agent:demo"

# Keyword → (pattern, phrase used in the reply, tour items it brings). Word boundaries keep
# "all" from matching "small" and "call"; plurals and inflections are allowed where natural.
_KEYWORDS: dict[str, tuple[str, str, tuple[tour.Item, ...]]] = {
    "image": (r"images?|pictures?", "**an image**: a bar chart, fetched by URL", (tour.chart,)),
    "audio": (
        r"audio|sounds?|speak\w*",
        "**audio**: a spoken clip, to play or to save",
        (tour.speech,),
    ),
    "code": (r"code", "**code**: a Python snippet", (tour.code,)),
    "card": (
        r"cards?",
        "**cards**: one with a markdown body, one built from JSON",
        (tour.card, tour.status),
    ),
    "file": (r"files?", "**a file**: a small CSV report to save", (tour.report,)),
    "script": (
        r"scripts?|shell",
        "**a shell script**: a file that asks before it is opened",
        (tour.script,),
    ),
    "json": (
        r"json",
        "**JSON oddities**: an unknown display value and an envelope with no hint",
        (tour.hologram, tour.raw),
    ),
    "stream": (
        r"stream\w*",
        "**a streamed envelope**: code arriving in three fragments",
        (streamed,),
    ),
    "everything": (r"everything|tour|all", "**everything**: the whole tour", tour.ITEMS),
    "ask": (
        r"ask\w*|clarif\w*|questions?",
        "**a question**: I ask you two things and answer with them",
        (),
    ),
    "approve": (r"approv\w*", "**an approval**: a draft to accept, reject or refine", ()),
    "unsure": (
        r"unsure|confiden\w*",
        "**a low-confidence decision**: confidence 0.4 below 0.7, for you to ratify",
        (),
    ),
    "fail": (r"fail\w*", "**a failure**: a node that breaks on purpose", ()),
    "slow": (r"slow\w*", "**a slow answer**, to try cancelling", ()),
}

HELP_LIST = """\
- `image`: a chart drawn on the host, fetched by URL
- `audio`: a short spoken clip, played where there is a sound device (else saved)
- `code`: a Python snippet with syntax highlighting
- `card`: a card with a markdown body, and one drawn from a JSON object
- `file`: a CSV report you can save
- `json`: an unknown display value and an envelope with no rendering hint
- `stream`: a code block that arrives in three fragments of one emission
- `everything`: the full tour, including media a client must refuse or degrade
- `ask`: I ask you two questions (a choice and free text) and answer with them
- `approve`: a draft for you to accept, reject or refine with feedback
- `unsure`: an agent too unsure of its decision (0.4 < 0.7) waits for you to ratify it
- `fail`: a node that fails on purpose, to see error handling
- `slow`: a long answer streamed slowly, to try cancelling
"""

SLOW_BODY = """\
This answer takes its time on purpose. Each little piece you see arrives as its own
`output.chunk` event on the run's event stream, a quarter of a second apart, so there is
plenty of time to **cancel** the run. When you do, the client asks the host to cancel, the
host records `run.cancelled`, and the stream closes right after it.

While you wait, a few facts about the protocol:

1. A chat turn here is *one run*: the whole history travels in `inputs.messages`.
2. Every event carries a `sequence`, so a client that loses its connection can resume with
   `Last-Event-ID` and miss nothing.
3. Envelopes are not frames of their own: they ride on `node.completed` events, under
   `outputs.envelope`, with a rendering hint in `meta.rendering`.
4. A client that meets a display value it does not know falls back to text or raw JSON.

If you are still reading, the cancel button has been waiting patiently for you.
"""


def last_user_message(inputs: Mapping[str, Any]) -> str:
    """The text of the last ``user`` message (string content, or the text parts of a list)."""
    messages = inputs.get("messages")
    if isinstance(messages, list):
        for message in reversed(messages):
            if isinstance(message, Mapping) and message.get("role") == "user":
                return _text_of(message.get("content"))
    for key in ("prompt", "message", "text"):
        value = inputs.get(key)
        if isinstance(value, str):
            return value
    return ""


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, Mapping)]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


def detect(text: str) -> list[str]:
    """The keywords present in ``text``, in the fixed order their envelopes are emitted."""
    lowered = text.lower()
    return [
        key
        for key, (pattern, _, _) in _KEYWORDS.items()
        if re.search(rf"\b(?:{pattern})\b", lowered)
    ]


def quote(text: str) -> str:
    """``text`` as a markdown block quote, cut to 200 characters."""
    short = text if len(text) <= 200 else text[:199] + "…"
    return "\n".join("> " + line for line in short.splitlines() or [""])


def compose_reply(text: str, wants: list[str]) -> str:
    """The markdown reply: what is coming for known keywords, a help text otherwise."""
    if not wants:
        said = f"You said:\n\n{quote(text)}\n\n" if text.strip() else ""
        return (
            "## Hello from the demo host\n\n"
            + said
            + "I am a pretend model running **inside openwop-tui**, so you can see how a "
            "terminal draws every kind of OpenWOP envelope. Type one of these words "
            "(several combine, like *code and an image*):\n\n"
            + HELP_LIST
            + "\nTry `everything` first if you are new here.\n"
        )
    lines = [f"- {_KEYWORDS[key][1]}" for key in wants]
    parts = ["## Coming right up\n\n", "You asked for:\n\n", "\n".join(lines), "\n\n"]
    if "everything" in wants:
        parts.append(
            "The tour ends with media a careful client must **refuse or degrade**: "
            "an oversized image, bytes that are not an image, a lost audio clip and a "
            "`file://` URL.\n\n"
        )
    if "slow" in wants:
        parts.append(SLOW_BODY + "\n")
    if "fail" in wants:
        parts.append(
            "After that, the `explode` node will fail with `demo_failure`, and the run "
            "with it. *That is the point.*\n"
        )
    else:
        parts.append(
            "Each item arrives as its own node, with its rendering hint in `meta.rendering`.\n"
        )
    return "".join(parts)


def _items(wants: list[str]) -> list[tour.Item]:
    if "everything" in wants:
        return list(tour.ITEMS)
    return [item for key in wants for item in _KEYWORDS[key][2]]


def after_attachments(text: str) -> str:
    """The rest of a reply to attachments when no keyword was asked for: the words echoed, and
    a hint instead of the whole help list."""
    said = f"You said:\n\n{quote(text)}\n\n" if text.strip() else ""
    return said + "Type `everything` to see every kind of envelope I can send back.\n"


def _think(ctx: WorkflowContext, text: str, wants: list[str], attached: int = 0) -> Iterator[Step]:
    """The ``think`` node: reasoning deltas, and a tool call when there are items to prepare.

    Args:
        ctx: The run's context.
        text: The words of the user's message.
        wants: The keywords found in them.
        attached: How many attachments the message has.
    """
    started = time.monotonic()
    yield Emit(
        "node.started", {"nodeId": "think", "typeId": "core.ai.callPrompt", "attempt": 0}, "think"
    )
    asked = ", ".join(wants) if wants else "nothing I recognise"
    deltas = [
        f"The user wrote {len(text)} characters"
        + (f" and attached {attached} file{'s' * (attached != 1)}. " if attached else ". "),
        f"Keywords found: {asked}. ",
        "I will answer in markdown first"
        + (", saying what each attachment holds, " if attached else ", "),
        "then attach one envelope per thing asked for."
        if wants
        else "with a hint of what to type."
        if attached
        else "so a friendly list of what to type is the most helpful answer.",
    ]
    for index, delta in enumerate(deltas):
        yield Pause(0.08)
        yield Emit(
            "agent.reasoning.delta", {"agentId": AGENT, "delta": delta, "sequence": index}, "think"
        )
    reasoning = "".join(deltas)
    yield Emit("agent.reasoned", {"agentId": AGENT, "reasoning": reasoning}, "think")
    items = _items(wants)
    if items:
        # A pretend tool call: it makes the inspector's tool rows have something to show.
        call = {"agentId": AGENT, "toolName": "assets.prepare", "callId": f"call_{ctx.run_id}"}
        yield Emit(
            "agent.toolCalled", {**call, "inputs": {"items": [i.__name__ for i in items]}}, "think"
        )
        yield Pause(0.3)
        yield Emit(
            "agent.toolReturned",
            {**call, "outcome": {"prepared": len(items)}, "status": "ok", "durationMs": 300},
            "think",
        )
    done = {"nodeId": "think", "durationMs": since(started), "outputs": {"reasoning": reasoning}}
    yield Emit("node.completed", done, "think")


def demo_chat(ctx: WorkflowContext) -> Generator[Step, None, None]:
    """The ``demo.chat`` workflow."""
    text = last_user_message(ctx.inputs)
    wants = detect(text)
    parts = read_parts(ctx)
    yield from _think(ctx, text, wants, len(parts))
    reply = compose_reply(text, wants)
    if parts:
        reply = section(parts) + (reply if wants else after_attachments(text))
    if "slow" in wants:
        yield from text_node(ctx, "reply", reply, chunk_delay=0.25, words=2)
    else:
        yield from text_node(ctx, "reply", reply)
    yield from tour.tour(ctx) if "everything" in wants else _each(ctx, _items(wants))
    outputs: dict[str, Any] = {"completion": reply}
    if not (yield from _human(ctx, wants, outputs)):
        return  # the human rejected, or nobody answered in time: the run has failed
    if "fail" in wants:
        message = "The demo was asked to fail, so this node did."
        error = {"code": "demo_failure", "message": message}
        yield Emit(
            "node.started",
            {"nodeId": "explode", "typeId": "core.ai.callPrompt", "attempt": 0},
            "explode",
        )
        yield Pause(0.3)
        yield Emit("node.failed", {"nodeId": "explode", "error": error, "attempts": 1}, "explode")
        yield Emit(
            "run.failed",
            {"error": error, "failedNodeId": "explode", "durationMs": ctx.elapsed_ms()},
        )
        return
    yield Emit("run.completed", {"outputs": outputs, "durationMs": ctx.elapsed_ms()})


def _human(
    ctx: WorkflowContext, wants: list[str], outputs: dict[str, Any]
) -> Generator[Step, None, bool]:
    """The turn's questions for the human; False once the run has failed (rejected, expired)."""
    if "ask" in wants:
        answers = yield from hitl.clarify_node(ctx, "ask", hitl.DEMO_QUESTIONS)
        if answers is None:
            return False
        outputs["answers"] = answers
        yield from hitl.after_answers(ctx, answers, "answered")
    if "approve" in wants:
        decision = yield from hitl.approval_node(
            ctx,
            "review",
            title="Publish the release notes?",
            description="Accept to publish, reject to stop, or refine with feedback.",
            actions=["accept", "reject", "refine"],
            artifact=hitl.DRAFT,
        )
        if decision is None:
            return False
        if decision["action"] == "reject":
            yield hitl.reject(ctx, "review", decision, "The draft")
            return False
        outputs["decision"] = decision
        yield from hitl.after_approval(ctx, decision)
    if "unsure" in wants:
        ratified = yield from hitl.low_confidence_node(
            ctx, "decider", agent_id="agent:local-unsure", confidence=0.4, decision=hitl.PROPOSED
        )
        if ratified is None:
            return False
        if ratified["action"] == "reject":
            yield hitl.reject(ctx, "decider", ratified, "The agent's decision")
            return False
        outputs["ratified"] = ratified
    return True


def _each(ctx: WorkflowContext, items: list[tour.Item]) -> Iterator[Step]:
    for item in items:
        yield Pause(0.15)
        yield from item(ctx)
