# ruff: noqa: E501  (long JSON literals read better whole than wrapped)
"""Write the hostile stream corpus next to this file: ``python tests/data/hostile/make_corpus.py``.

Each ``.sse`` file is a run as a hostile or broken host could send it, ending in
``run.completed``, so a test can tell "the client survived and the run went on" from "the client
stopped reading". The files are committed; this script documents how they were made and
regenerates them after a deliberate change.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
KEY = "sk-hostile-4f3e2d1c0b"  # tests/hostile.py API_KEY: the key the tests configure
OSC52 = "\x1b]52;c;SGVsbG8gY2xpcGJvYXJk\x07"
TITLE = "\x1b]0;pwned\x07"
C1 = "\x9b2J\x9d0;t\x9c"
RLO = "invoice_\u202efdp.exe"
ZW = "re\u200bport\u2060.csv"
EVIL = f"{OSC52}{TITLE}{C1}\x1b[2J\x07{RLO}"

_seq = 0


def ev(kind: str, payload: Any, **top: Any) -> dict[str, Any]:
    global _seq
    _seq += 1
    return {"type": kind, "runId": "run_hostile", "sequence": _seq, "payload": payload, **top}


def frame(doc: Any, *, raw: str | None = None) -> str:
    data = raw if raw is not None else json.dumps(doc, allow_nan=True)
    label = doc.get("type", "x") if isinstance(doc, dict) else "x"
    return f"event: {label}\ndata: {data}\n\n"


def envelope(kind: str, payload: Any, rendering: Any, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "payload": payload, "meta": {"rendering": rendering}, **extra}


def completed(node: str, env: Any, completion: str | None = None) -> dict[str, Any]:
    outputs: dict[str, Any] = {"envelope": env}
    if completion is not None:
        outputs["completion"] = completion
    return ev("node.completed", {"nodeId": node, "outputs": outputs}, nodeId=node)


def write(name: str, docs: list[Any], extra: str = "") -> None:
    global _seq
    text = "".join(d if isinstance(d, str) else frame(d) for d in docs) + extra
    text += frame(ev("run.completed", {"durationMs": 12}))
    (HERE / f"{name}.sse").write_text(text, encoding="utf-8", errors="surrogatepass")
    _seq = 0


def injection() -> None:
    """Every string field of every event family carries terminal escapes."""
    write(
        "injection-every-field",
        [
            ev("run.started", {"workflowId": EVIL}),
            ev("node.started", {"nodeId": EVIL, "typeId": EVIL}, nodeId=EVIL),
            ev("output.chunk", {"chunk": f"hello {EVIL}", "nodeId": "n1"}, nodeId="n1"),
            ev("agent.reasoning.delta", {"agentId": EVIL, "delta": EVIL}),
            ev("agent.reasoned", {"agentId": EVIL, "reasoning": EVIL}),
            ev(
                "agent.toolCalled",
                {"callId": "c1", "agentId": EVIL, "toolName": EVIL, "inputs": {EVIL: EVIL}},
            ),
            ev(
                "agent.toolReturned",
                {"callId": "c1", "status": EVIL, "outcome": EVIL, "error": {"message": EVIL}},
            ),
            ev("agent.handoff", {"fromAgentId": EVIL, "toAgentId": EVIL, "reason": EVIL}),
            ev("agent.decided", {"agentId": EVIL, "decision": {EVIL: EVIL}, "confidence": 0.5}),
            ev(
                "provider.usage",
                {"provider": EVIL, "model": EVIL, "inputTokens": EVIL, "outputTokens": 3},
            ),
            ev("artifact.created", {"artifactId": EVIL, "artifactType": EVIL, "summary": EVIL}),
            ev("log.appended", {"level": EVIL, "message": EVIL}),
            ev("envelope.refusal", {"refusalText": EVIL}),
            ev("envelope.truncated", {"stopReason": EVIL}),
            ev("envelope.retry.attempted", {"attempt": EVIL, "reason": EVIL}),
            ev(
                "node.suspended",
                {"kind": EVIL, "config": {"title": EVIL, "description": EVIL}},
                nodeId=EVIL,
            ),
            ev("node.resumed", {}, nodeId=EVIL),
            completed(
                "md",
                envelope(
                    "markdown",
                    {"markdown": f"# {EVIL}\n\n`{EVIL}` [{EVIL}]({EVIL})"},
                    {"display": "markdown", "title": EVIL},
                ),
            ),
            completed(
                "code",
                envelope(
                    "code",
                    {"code": EVIL, "filename": EVIL},
                    {"display": "code", "lang": EVIL, "title": EVIL},
                ),
            ),
            completed(
                "card",
                envelope(
                    "vendor.x.card",
                    {EVIL: EVIL, "rows": [{EVIL: EVIL}]},
                    {"display": "card", "title": EVIL},
                ),
            ),
            completed(
                "img",
                envelope(
                    "media.image",
                    {
                        "url": f"https://example.invalid/{EVIL}.png",
                        "mimeType": EVIL,
                        "name": EVIL,
                        "bytes": 10,
                    },
                    {"display": "image", "title": EVIL, "alt": EVIL},
                ),
            ),
            completed(
                "aud",
                envelope(
                    "media.audio",
                    {"base64": "AAAA", "mimeType": EVIL, "name": EVIL, "bytes": 3},
                    {"display": "audio", "title": EVIL, "alt": EVIL},
                ),
            ),
            completed(
                "file",
                envelope(
                    "media.file",
                    {
                        "base64": "aGVsbG8=",
                        "mimeType": "text/plain",
                        "name": f"{RLO}{ZW}{EVIL}",
                        "bytes": 5,
                    },
                    {"display": "file", "title": EVIL},
                ),
            ),
            completed("json", envelope(EVIL, {EVIL: [EVIL]}, {"display": EVIL, "title": EVIL})),
            ev("node.failed", {"error": {"code": EVIL, "message": EVIL}}, nodeId=EVIL),
        ],
    )


def charrefs() -> None:
    """Markdown whose character references decode to controls only after parsing."""
    text = "\n\n".join(
        [
            "Open invoice_&#x202e;fdp.exe now",
            "A mark &rlm; and an isolate &#x2066;x&#x2069;",
            "Escape &#27;[31mred&#27;[0m and C1 &#x9b;2J and NUL &#0; and BEL &#7;",
            "`code &#x202e; stays literal` and a [link &#x202e;](https://example.org/&#x202e;)",
        ]
    )
    write(
        "markdown-character-references",
        [
            ev("output.chunk", {"chunk": text, "nodeId": "n1"}, nodeId="n1"),
            completed(
                "md",
                envelope(
                    "markdown",
                    {"markdown": text},
                    {"display": "markdown", "title": "Invoice &#x202e;fdp.exe"},
                ),
            ),
            completed(
                "file",
                envelope(
                    "media.file",
                    {
                        "base64": "aGk=",
                        "name": ZW + "\u200f.txt",
                        "mimeType": "text/plain",
                        "bytes": 2,
                    },
                    {"display": "file", "title": ZW},
                ),
            ),
            ev("node.completed", {"nodeId": "n1", "outputs": {"completion": text}}, nodeId="n1"),
        ],
    )


def numbers() -> None:
    """Numbers no naive code survives: hundreds of digits, NaN, infinities, overflowing floats."""
    big = "9" * 600
    rows = [
        (
            "media.image",
            f'{{"url": "https://example.invalid/a.png", "bytes": {big}, "mimeType": "image/png"}}',
        ),
        (
            "media.audio",
            f'{{"base64": "AAAA", "bytes": -{big}, "durationSeconds": {big}, "durationMs": NaN, "mimeType": "audio/ogg"}}',
        ),
        ("agent.decided", f'{{"agentId": "a", "decision": "x", "confidence": {big}}}'),
        ("agent.decided", '{"agentId": "a", "decision": "x", "confidence": NaN}'),
        ("agent.decided", '{"agentId": "a", "decision": "x", "confidence": -Infinity}'),
        (
            "provider.usage",
            f'{{"provider": "p", "model": "m", "inputTokens": {big}, "outputTokens": 1e999}}',
        ),
        (
            "node.completed",
            f'{{"nodeId": "n", "durationMs": {big}, "outputs": {{"completion": "ok"}}}}',
        ),
        ("envelope.retry.attempted", f'{{"attempt": {big}, "reason": "r"}}'),
    ]
    docs: list[Any] = []
    for i, (kind, payload) in enumerate(rows, start=1):
        raw = f'{{"type": "{kind}", "runId": "run_hostile", "sequence": {i}, "payload": {payload}}}'
        docs.append(f"event: {kind}\ndata: {raw}\n\n")
    docs.append(f'data: {{"type": "node.started", "sequence": {big}, "payload": {{}}}}\n\n')
    global _seq
    _seq = len(rows) + 1
    write("numbers", docs)


def urls() -> None:
    """Media URLs that are malformed, hostile or the wrong type."""
    bad = [
        "https://[x]/a.png",
        "http://example.org:notaport/a.png",
        "http://example.org:99999/a.png",
        "https://%zz%/a.png",
        "https://" + "a" * 70 + ".example/a.png",
        "https://xn--/a.png",
        "file:///etc/passwd",
        "javascript:alert(1)",
        "data:image/png;base64,AAAA",
        "http://169.254.169.254/latest/meta-data/",
        "https://user:pass@example.org/a.png",
        "https://example.org/\x00\x1b]52;c;eA==\x07.png",
        "//evil.example/a.png",
        "https://example.org/" + "x" * 100_000,
    ]
    docs: list[Any] = [
        completed(
            f"u{i}",
            envelope(
                "media.image",
                {"url": url, "mimeType": "image/png", "bytes": 10},
                {"display": "image", "title": f"bad url {i}"},
            ),
        )
        for i, url in enumerate(bad)
    ]
    for i, wrong in enumerate([42, ["https://example.org/a.png"], {"href": "x"}, True, None]):
        docs.append(
            completed(
                f"w{i}",
                envelope(
                    "media.image", {"url": wrong, "mimeType": "image/png"}, {"display": "image"}
                ),
            )
        )
    write("urls", docs)


def nesting() -> None:
    """Envelopes and payloads nested far deeper than any renderer should walk."""
    deep_obj: Any = "bottom"
    for _ in range(600):
        deep_obj = {"a": deep_obj}
    deep_list: Any = []
    for _ in range(900):
        deep_list = [deep_list]
    docs = [
        completed(
            "d1", envelope("vendor.deep", deep_obj, {"display": "card", "title": "deep card"})
        ),
        completed("d2", envelope("vendor.deep", deep_list, {"title": "deep json"})),
        ev("agent.toolCalled", {"callId": "c", "toolName": "t", "inputs": deep_obj}),
        ev("agent.toolReturned", {"callId": "c", "outcome": deep_list}),
        ev("log.appended", {"level": "info", "message": deep_obj}),
    ]
    text = "".join(frame(d) for d in docs)
    # Deeper than Python's json module will parse: must be one visible problem, not a crash.
    text += "event: node.completed\ndata: " + "[" * 50_000 + "]" * 50_000 + "\n\n"
    (HERE / "nesting.sse").write_text(text + frame(ev("run.completed", {})), encoding="utf-8")


def wrong_types() -> None:
    """Every field the client reads, with the wrong JSON type."""
    docs = [
        ev("run.started", ["not", "an", "object"]),
        ev("output.chunk", {"chunk": {"text": "x"}, "nodeId": 7}),
        ev("output.chunk", {"chunk": ["a"], "meta": "m"}),
        ev("node.completed", {"outputs": "a string"}),
        ev("node.completed", {"outputs": {"envelope": 42, "completion": ["x"]}}),
        ev(
            "node.completed", {"outputs": {"envelope": {"type": 5, "meta": ["r"], "payload": None}}}
        ),
        ev(
            "node.completed",
            {
                "outputs": {
                    "envelope": {
                        "type": "media.image",
                        "meta": {"rendering": "image"},
                        "payload": "x",
                    }
                }
            },
        ),
        ev(
            "node.completed",
            {
                "outputs": {
                    "envelope": {
                        "type": "code",
                        "meta": {"rendering": {"display": ["code"], "title": 3}},
                        "payload": {"code": 12},
                    }
                }
            },
        ),
        ev(
            "node.completed",
            {
                "outputs": {
                    "envelope": {
                        "type": "x",
                        "partial": "yes",
                        "correlationId": 4,
                        "meta": {"rendering": {"display": "card"}},
                        "payload": [1, 2],
                    }
                }
            },
        ),
        ev("node.completed", {"outputs": {"rendering": {"display": "code"}, "completion": 5}}),
        ev("agent.toolCalled", {"callId": ["c"], "toolName": {"n": 1}, "inputs": "i"}),
        ev(
            "agent.toolReturned",
            {"callId": None, "status": 404, "outcome": {"a": [1]}, "error": True},
        ),
        ev("agent.reasoning.delta", {"agentId": 3, "delta": 4}),
        ev("agent.reasoned", {"agentId": [], "reasoning": {}}),
        ev("agent.decided", {"agentId": {}, "decision": None, "confidence": "high"}),
        ev("media.image", {"url": 3, "base64": 4, "bytes": "big", "mimeType": 5, "name": 6}),
        ev("media.audio", {"base64": "AAAA", "durationSeconds": "long", "bytes": True}),
        ev("media.file", {"envelope": "x"}),
        ev("log.appended", {"level": 3, "message": 4}),
        ev("node.failed", {"error": 42}),
        ev("node.suspended", {"config": "c", "kind": 1}),
        {
            "type": "node.started",
            "runId": 42,
            "sequence": "abc",
            "nodeId": ["n"],
            "payload": {},
            "timestamp": 5,
        },
        {"type": ["node.started"], "payload": {}},
        {"payload": {"no": "type"}},
        [1, 2, 3],
        "just a string",
        None,
    ]
    write("wrong-types", docs)


def surrogates() -> None:
    """Lone surrogates (valid JSON escapes, invalid Unicode) in every kind of field."""
    lone = "\\ud800 and \\udfff"
    rows = [
        f'{{"type": "output.chunk", "sequence": 1, "nodeId": "n", "payload": {{"chunk": "reply {lone}"}}}}',
        f'{{"type": "node.completed", "sequence": 2, "nodeId": "n", "payload": {{"outputs": {{"completion": "done {lone}"}}}}}}',
        f'{{"type": "node.completed", "sequence": 3, "payload": {{"outputs": {{"envelope": {{"type": "media.file", "payload": {{"base64": "aGk=", "name": "n{lone}.txt", "mimeType": "text/plain"}}, "meta": {{"rendering": {{"display": "file", "title": "{lone}"}}}}}}}}}}}}',
        f'{{"type": "agent.toolReturned", "sequence": 4, "payload": {{"callId": "c", "status": "{lone}", "outcome": {{"{lone}": "{lone}"}}}}}}',
        f'{{"type": "node.failed", "sequence": 5, "nodeId": "{lone}", "payload": {{"error": {{"code": "{lone}", "message": "{lone}"}}}}}}',
    ]
    global _seq
    _seq = len(rows)
    write("surrogates", [f"data: {row}\n\n" for row in rows])


def secrets() -> None:
    """A host that echoes the client's key back: in text, in errors, cut in the middle."""
    write(
        "echoed-secrets",
        [
            ev(
                "output.chunk",
                {"chunk": f"Your key is {KEY}. Authorization: Bearer {KEY}", "nodeId": "n"},
                nodeId="n",
            ),
            ev(
                "log.appended", {"level": "error", "message": f"auth header was 'Bearer {KEY[:12]}"}
            ),
            ev("node.failed", {"error": {"code": "auth", "message": f"bad key {KEY}"}}, nodeId="n"),
            completed(
                "c",
                envelope(
                    "code", {"code": f"OPENWOP_API_KEY={KEY}\n"}, {"display": "code", "lang": "sh"}
                ),
            ),
            ev(
                "agent.toolReturned",
                {
                    "callId": "c",
                    "status": "ok",
                    "outcome": {"echo": KEY, "url": f"https://bob:{KEY}@example.org/"},
                },
            ),
        ],
    )


def frames() -> None:
    """Broken framing: garbage, binary junk, odd line ends, a BOM, huge ids, empty data."""
    body = (
        "\ufeff: a comment after a BOM\n\n"
        "data: {not json at all\n\n"
        "data: \x00\x01\x02\x1b]52;c;eA==\x07\n\n"
        'event: run.started\r\ndata: {"type": "run.started", "sequence": 1, "payload": {}}\r\n\r\n'
        'event: node.started\rdata: {"type": "node.started", "sequence": 2, "payload": {}}\r\r'
        "id: " + "9" * 5000 + '\ndata: {"type": "node.started", "sequence": 3, "payload": {}}\n\n'
        "data:\n\n"
        "retry: -5\nretry: 99999999999999999999\n\n"
        'event: batch\ndata: [{"type": "output.chunk", "sequence": 4, "payload": {"chunk": "batched"}}, 5, null]\n\n'
        + "data: "
        + json.dumps({"type": "output.chunk", "sequence": 5, "payload": {"chunk": "x" * 200_000}})
        + "\n\n"
    )
    global _seq
    _seq = 5
    write("broken-frames", [body])


def main() -> None:
    injection()
    charrefs()
    numbers()
    urls()
    nesting()
    wrong_types()
    surrogates()
    secrets()
    frames()


if __name__ == "__main__":
    main()
