"""A host on loopback that answers the catch-up of a cut run wrongly, in one of three ways
(issue 23: "catch-up trusts what comes back"), and the stored session it is asked about.

Standard library HTTP (a thread per request), so the client's whole path runs over a socket:
discovery, the run's snapshot, its event stream (with the client's ``Last-Event-ID``
recorded) and the poll. The run `RUN` is a chat reply of `WORDS` chunks, sequences 0 to
``len(WORDS) + 1`` (``run.started``, a chunk per word, ``run.completed``); the stored session
keeps its first `KEPT` events, as an app killed mid-reply leaves it.

``how`` is the fault:

* ``foreign``: the answer starts with `FOREIGN_EVENTS` events of run `OTHER` (chunks that say
  `FOREIGN_TEXT`), then the rest of `RUN`;
* ``replay``: ``Last-Event-ID`` is ignored, the whole run is sent from sequence 0;
* ``gap``: the rest of the run comes with its sequences pushed up by `GAP` (the events
  between never come);
* ``fine``: what a good host does (the rest, after ``Last-Event-ID``).

(A plain module, imported as ``from catch_up_host import ...``.)
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any, Literal

from loopback import Loopback

from openwop_tui.protocol.sse import SSEFrame
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store

Fault = Literal["foreign", "replay", "gap", "fine"]

RUN = "run_cut_0001"
OTHER = "run_someone_else"
KEY = "catch-up-key"
WORDS = [f"word{n} " for n in range(12)]
#: Events of `RUN` the stored session keeps (``run.started`` and the first chunks).
KEPT = 5
FOREIGN_EVENTS = 6
FOREIGN_TEXT = "NOT-THIS-RUN "
GAP = 10**15


def _doc(run: str, sequence: int, kind: str, **payload: Any) -> dict[str, Any]:
    return {
        "eventId": f"{run}-{sequence}",
        "runId": run,
        "type": kind,
        "payload": payload,
        "sequence": sequence,
    }


def run_events(run: str = RUN, words: list[str] = WORDS) -> list[dict[str, Any]]:
    """The whole run: started, a chunk per word, completed."""
    events = [_doc(run, 0, "run.started")]
    for n, word in enumerate(words, 1):
        events.append(_doc(run, n, "output.chunk", nodeId="reply", chunk=word))
    done = {"completion": "".join(words)}
    events.append(_doc(run, len(words) + 1, "run.completed", outputs=done))
    return events


def frame_of(doc: dict[str, Any]) -> SSEFrame:
    return SSEFrame(event=str(doc["type"]), data=json.dumps(doc), id=str(doc["sequence"]))


def cut_session(store: Store, host: str) -> str:
    """A stored session whose app was killed mid-reply: the message, the run's creation and
    its first `KEPT` events, no end. Its id."""
    session = store.create(host=host, workflow="chat")
    store.append(session, Entry("user", "hello"))
    store.append(session, Entry("run", run=RUN, meta={"workflow": "chat", "host": host}))
    for doc in run_events()[:KEPT]:
        frame = frame_of(doc)
        store.append(
            session, Entry("frame", frame.data, run=RUN, label=frame.event, frame_id=frame.id)
        )
    store.flush()
    return session


def _answer(how: Fault, after: int | None) -> list[dict[str, Any]]:
    """The events the host streams for a request that resumes after ``after``."""
    whole = run_events()
    rest = [doc for doc in whole if after is None or doc["sequence"] > after]
    if how == "replay":
        return whole
    if how == "gap":
        return [dict(doc, sequence=doc["sequence"] + GAP) for doc in rest]
    if how == "foreign":
        start = after + 1 if after is not None else 0
        stranger = [
            _doc(OTHER, start + n, "output.chunk", nodeId="reply", chunk=FOREIGN_TEXT)
            for n in range(FOREIGN_EVENTS)
        ]
        return stranger + rest
    return rest


class CatchUpHost(Loopback):
    """Serves run `RUN` with the fault ``how``; ``resumed_after`` holds each stream request's
    ``Last-Event-ID`` (``None`` where it sent none)."""

    def __init__(self, how: Fault) -> None:
        self.how: Fault = how
        self.resumed_after: list[str | None] = []
        host = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _send(self, status: int, body: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _json(self, status: int, doc: Any) -> None:
                self._send(status, json.dumps(doc).encode(), "application/json")

            def do_GET(self) -> None:
                path = self.path.partition("?")[0]
                if path.startswith("/.well-known/openwop"):
                    self._json(200, {"protocolVersion": "1.0.0", "supportedEnvelopes": []})
                elif path == f"/v1/runs/{RUN}/events":
                    header = self.headers.get("Last-Event-ID")
                    host.resumed_after.append(header)
                    after = int(header) if header is not None else None
                    frames = "".join(
                        f"id: {doc['sequence']}\nevent: {doc['type']}\ndata: {json.dumps(doc)}\n\n"
                        for doc in _answer(host.how, after)
                    )
                    self._send(200, frames.encode(), "text/event-stream")
                elif path == f"/v1/runs/{RUN}/events/poll":
                    self._json(200, {"events": [], "isTerminal": True})
                elif path == f"/v1/runs/{RUN}":
                    self._json(200, {"runId": RUN, "status": "completed", "workflowId": "chat"})
                else:
                    self._json(404, {"error": {"code": "not_found", "message": "no such thing"}})

        self.serve(Handler)
        self._server.daemon_threads = True
