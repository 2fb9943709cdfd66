"""A host that echoes the client's API key cut across streamed pieces: the recorded stream
``tests/data/KEY-SPLIT.sse`` and the checks every output of it must pass.

``python tests/key_split.py`` writes the recording (committed; `test_the_recording_is_current`
checks it is what this module makes). It is constructed, not captured: one run whose replies,
reasoning and node messages hold `KEY` whole, cut across two, three and many pieces (one
character each), in the replies of two nodes interleaved, spelled with JSON escapes, in every
chunk event's spelling and the v2 one of a reasoning delta, and cut across the stream's last
two frames, with no terminal event after them.

A plain module (``tests/`` is on ``sys.path``), imported by the tests that walk the outputs.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from loopback import Loopback

#: The key the tests configure (36 characters: `fragment_floor` is 18).
KEY = "sk-keysplit-7Qm2Vx9Lp4Rt8Wn3Zc6Yb1Hd"
#: The shortest piece of `KEY` an output may not hold: 8 characters is already a password.
PIECE = 8
RUN = "run_split"
RECORDING = Path(__file__).resolve().parent / "data" / "KEY-SPLIT.sse"


def pieces_of(key: str = KEY, size: int = PIECE) -> list[str]:
    """Every ``size``-character piece of ``key``."""
    return [key[i : i + size] for i in range(len(key) - size + 1)]


def key_piece(text: str, key: str = KEY) -> str | None:
    """The first `PIECE`-character piece of ``key`` found in ``text``, or ``None``."""
    return next((piece for piece in pieces_of(key) if piece in text), None)


def joined_texts(lines: Iterable[str]) -> str:
    """The ``chunk`` and ``delta`` fields of NDJSON or SSE ``lines`` (each one JSON document,
    ``data: `` taken off), joined in order as a reader of the stream would join them."""
    out: list[str] = []
    for line in lines:
        text = line[6:] if line.startswith("data: ") else line
        try:
            doc = json.loads(text)
        except ValueError:
            continue
        out += [value for value in _texts(doc)]
    return "".join(out)


def _texts(doc: Any) -> Iterator[str]:
    """The ``chunk`` and ``delta`` strings of ``doc``, in document order, at any depth."""
    if isinstance(doc, dict):
        for name, value in doc.items():
            if name in ("chunk", "delta") and isinstance(value, str):
                yield value
            else:
                yield from _texts(value)
    elif isinstance(doc, list):
        for value in doc:
            yield from _texts(value)


def leaks(output: str, key: str = KEY) -> list[str]:
    """What of ``key`` ``output`` shows: pieces found in it as printed and with its chunk
    fields joined (an empty list: nothing)."""
    found = []
    printed = key_piece(output, key)
    if printed is not None:
        found.append(f"printed: {printed!r}")
    joined = key_piece(joined_texts(output.splitlines()), key)
    if joined is not None:
        found.append(f"joined: {joined!r}")
    return found


# ------------------------------------------------------------------------------ the stream


class _Stream:
    """Builds the run's frames, numbering them."""

    def __init__(self) -> None:
        self.frames: list[str] = []

    def event(self, kind: str, payload: dict[str, Any], *, node: str | None = None) -> None:
        doc: dict[str, Any] = {"type": kind, "runId": RUN, "sequence": len(self.frames) + 1}
        if node is not None:
            doc["nodeId"] = node
        doc["payload"] = payload
        self.raw(kind, json.dumps(doc))

    def raw(self, label: str, data: str) -> None:
        self.frames.append(f"id: {len(self.frames) + 1}\nevent: {label}\ndata: {data}\n\n")

    def reply(self, node: str, *parts: str, kind: str = "output.chunk", key: str = "chunk") -> None:
        for part in parts:
            self.event(kind, {"nodeId": node, key: part}, node=node)


def _escaped(text: str) -> str:
    """``text`` as a JSON string with every character spelled ``\\uXXXX``."""
    return '"' + "".join(f"\\u{ord(c):04x}" for c in text) + '"'


def stream() -> str:
    """The recording's text."""
    s = _Stream()
    s.event("run.started", {"workflowId": "echo"})
    s.reply("a", f"Whole: {KEY}. ")
    s.reply("a", f"Two: {KEY[:17]}", f"{KEY[17:]}. ")
    s.reply("a", f"Three: {KEY[:5]}", KEY[5:20], f"{KEY[20:]}. ")
    s.reply("a", "Ones: ", *KEY, ". ")
    # A piece that could start the key, and does not: held back, then shown as it is.
    s.reply("a", f"Skills {KEY[:4]}", "ip the rest. ")
    # Two nodes streaming at once, each cutting the key at another point.
    s.reply("a", f"A: {KEY[:10]}")
    s.reply("b", f"B: {KEY[:25]}")
    s.reply("a", f"{KEY[10:]}. ")
    s.reply("b", f"{KEY[25:]}. ")
    s.event("agent.reasoning.delta", {"agentId": "x", "delta": f"I think {KEY[:12]}"})
    s.event("agent.reasoning-delta", {"agentId": "x", "delta": f"{KEY[12:]} is it."})
    s.event("agent.reasoned", {"agentId": "x"})
    s.reply("c", f"Message {KEY[:20]}", f"{KEY[20:]}. ", kind="node.message", key="delta")
    s.reply("d", f"AI: {KEY[:14]}", f"{KEY[14:]}. ", kind="ai.message.chunk")
    s.reply("d", f"Vendor: {KEY[:9]}", f"{KEY[9:]}. ", kind="openwop-app.ai.message-chunk")
    # Spelled with JSON escapes, so the key is not in the frame's text as such.
    for part in (f"Escaped: {KEY[:16]}", f"{KEY[16:]}. "):
        body = f'"type": "output.chunk", "runId": "{RUN}", "nodeId": "e"'
        s.raw("output.chunk", f'{{{body}, "payload": {{"chunk": {_escaped(part)}}}}}')
    s.event("node.completed", {"nodeId": "a", "outputs": {}}, node="a")
    # The stream ends mid-reply: the key cut across its last two frames, nothing after.
    s.reply("f", f"Last: {KEY[:13]}", KEY[13:])
    return "".join(s.frames)


# -------------------------------------------------------------------------------- the host


class KeySplitHost(Loopback):
    """An OpenWOP v1 host on loopback that serves `RECORDING` as the events of every run and
    echoes `KEY` (whole: it has no chunks) in everything else it says: its name, its
    workflows, its runs, their snapshots, and its errors (the Authorization header it got).

    The events honour ``Last-Event-ID``: a client that reconnects after the stream ended
    without a terminal event gets nothing more, and learns the run's end from its snapshot.
    """

    def __init__(self, events: str | None = None) -> None:
        text = events if events is not None else RECORDING.read_text(encoding="utf-8")
        self.frames = [f"{frame}\n\n" for frame in text.split("\n\n") if frame.strip()]
        host = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _json(self, status: int, doc: Any) -> None:
                body = json.dumps(doc).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                path = self.path.split("?")[0]
                if path == "/.well-known/openwop":
                    self._json(200, host.discovery())
                elif path == "/v1/workflows":
                    workflow = {"workflowId": "echo", "name": f"Echo {KEY}", "default": True}
                    self._json(200, {"workflows": [{**workflow, "description": KEY}]})
                elif path == "/v1/runs":
                    self._json(200, {"runs": [host.snapshot()]})
                elif path == f"/v1/runs/{RUN}":
                    self._json(200, host.snapshot())
                elif path == f"/v1/runs/{RUN}/events":
                    self._events(int(self.headers.get("Last-Event-ID") or 0))
                else:
                    self._refused()

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path == "/v1/runs":
                    self._json(201, {"runId": RUN, "status": "running", "note": KEY})
                else:
                    self._refused()

            def _events(self, after: int) -> None:
                body = "".join(host.frames[after:]).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _refused(self) -> None:
                sent = self.headers.get("Authorization", "")
                self._json(404, {"error": {"code": "not_found", "message": f"you sent {sent}"}})

        self.serve(Handler)

    @staticmethod
    def discovery() -> dict[str, Any]:
        return {
            "protocolVersion": "1.0.0",
            "supportedVersions": ["1.0.0"],
            "implementation": {"name": f"Echo host {KEY}", "version": KEY},
        }

    @staticmethod
    def snapshot() -> dict[str, Any]:
        return {
            "runId": RUN,
            "workflowId": f"echo {KEY}",
            "status": "completed",
            "outputs": {"echo": KEY},
        }


if __name__ == "__main__":
    RECORDING.write_text(stream(), encoding="utf-8")
    print(f"wrote {RECORDING}")
