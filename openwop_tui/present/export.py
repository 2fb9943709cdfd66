"""Exporting a stored session: Markdown with its assets, JSONL of the normalised events, raw SSE.

All three are folds of the session's log (`openwop_tui.store.sessions`), made without the host:

* ``md``: the transcript as Markdown, each envelope a readable section (code fenced with its
  language, a card as a table, JSON fenced, media written into ``<name>-assets/`` from the
  stored bytes or the inline base64 and linked relatively; what could not be included says
  what, why and where). Replies, reasoning and tool calls appear whole, the cut part included.
* ``jsonl``: one JSON object a line: the user's messages, the runs, the notices and every run
  event as normalised (cleaned) by the protocol layer.
* ``sse``: the raw stream, frame by frame as the host sent it (a recording `render` reads).

The Markdown is safe to open in a viewer that runs HTML: every piece of host text goes through
`openwop_tui.text.md_safe` (labels and titles on one line and escaped, bodies with HTML, character
references and unsafe link targets disarmed). The JSONL and SSE exports stay faithful: they
hold the host's text as it came, for tools, not viewers.

Secrets never leave: everything written goes through a `Redactor` (the API key, URL
credentials, Bearer tokens), a key split across the chunks of several
stored rows is masked in each (`openwop_tui.store.keys`), and across the chunk lines of the
JSONL by `JsonlMask`, the path every ``--json`` writes through too; asset file names go
through `safe_filename`.

The export keeps the data side only (no Rich): an envelope is drawn by the front end's
`EnvelopeDrawer` (`openwop_tui.present.envelope.Drawer`, with its own renderer registry), given
the stored assets to draw from, so an envelope's title, bytes and degradation are decided by
the same path the app and ``render`` draw with.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol
from urllib.parse import quote

from openwop_tui.core.conversation import Conversation
from openwop_tui.core.items import (
    AssistantTurn,
    EnvelopeItem,
    Item,
    Notice,
    Reasoning,
    ToolCall,
    UserTurn,
)
from openwop_tui.core.overflow import full_text
from openwop_tui.core.own_media import is_own
from openwop_tui.core.updates import EventArrived
from openwop_tui.protocol.asset import Asset
from openwop_tui.protocol.content_parts import read_parts, summary
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.store.keys import SplitKeyLines, masked_entries
from openwop_tui.store.record import Recorder
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store
from openwop_tui.text.md_safe import block, inline, quoted
from openwop_tui.text.redact import Redactor
from openwop_tui.text.sanitize import clean, safe_filename
from openwop_tui.text.units import compact_json

if TYPE_CHECKING:  # for the types only: drawing (Rich) is the front end's
    from openwop_tui.renderers.base import Degradation, Rendered

Format = Literal["md", "jsonl", "sse"]
FORMATS: tuple[Format, ...] = ("md", "jsonl", "sse")


Fetch = Callable[[Envelope, Callable[[str | None], bool]], Awaitable[Asset | None]]


class EnvelopeDrawer(Protocol):
    """How the front end draws an envelope for the export (`openwop_tui.present.envelope`)."""

    def needs_bytes(self, display: str | None, /) -> bool:
        """Whether the renderer for ``display`` draws bytes."""
        ...

    async def __call__(
        self, envelope: Envelope, fetch: Fetch, max_inline_bytes: int, /
    ) -> Rendered: ...


class ExportError(Exception):
    """The export could not be written; ``str()`` is one sentence for the user."""


@dataclass(frozen=True, slots=True)
class Exported:
    """What an export wrote."""

    path: Path
    assets: tuple[Path, ...] = ()
    unread: tuple[str, ...] = ()
    """Why each stored entry that could not be read was left out (damaged, or inflating past
    the store's cap: `openwop_tui.store.entry_bytes`), one sentence each; the file holds the
    same sentence in its place."""


def export_session(
    store: Store,
    session_id: str,
    fmt: Format,
    path: Path,
    *,
    redactor: Redactor | None = None,
    drawer: EnvelopeDrawer,
) -> Exported:
    """Write session ``session_id`` to ``path`` in ``fmt``, envelopes drawn by ``drawer``.

    Raises `ExportError`, `StoreError`.

    Args:
        store: The store the session is kept in.
        session_id: The session to export.
        fmt: ``md``, ``jsonl`` or ``sse``.
        path: The file to write; its folder is made if missing.
        redactor: Masks secrets in what is written, with the store's own added; None for one with
            only the store's.
        drawer: Draws envelopes for the Markdown export.
    """
    redact = (redactor or Redactor()).with_secrets(*store.secrets)
    # Rows stored before split keys were masked on the way in are masked here.
    entries = masked_entries(store.entries(session_id), store.secrets)
    unread = tuple(clean(e.data) for e in entries if e.kind == "notice" and "unread" in e.meta)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if fmt == "sse":
            done = _sse(entries, path, redact)
        elif fmt == "jsonl":
            done = _jsonl(entries, path, redact, store.secrets)
        else:
            title = store.info(session_id).title
            done = asyncio.run(_markdown(entries, store, path, redact, title, drawer))
    except OSError as error:
        raise ExportError(f"cannot write {path}: {error.strerror or error}") from None
    return dataclasses.replace(done, unread=unread)


def _sse(entries: list[Entry], path: Path, redact: Redactor) -> Exported:
    recorder = Recorder(path, redactor=redact, keep_times=True)
    try:
        for entry in entries:
            recorder.append(entry)
    finally:
        recorder.close()
    return Exported(path)


def _jsonl(entries: list[Entry], path: Path, redact: Redactor, secrets: Iterable[str]) -> Exported:
    """The session as ``replay --json`` lines.

    Args:
        entries: The session's entries, masked.
        path: The file to write.
        redact: Masks secrets in each line.
        secrets: The values (the API key) the replay masks.
    """
    conversation = Conversation(secrets=secrets)
    lines = JsonlMask(secrets)
    with path.open("w", encoding="utf-8") as out:

        def write(ready: list[dict[str, Any]]) -> None:
            for line in ready:
                out.write(redact(json.dumps(line, ensure_ascii=False, default=str)) + "\n")

        for entry in entries:
            write(lines.entry(entry, conversation.replay(entry)))
        write(lines.finish())
    return Exported(path)


def jsonl_lines(entry: Entry, updates: Iterable[object]) -> list[dict[str, Any]]:
    """The JSONL lines of one logged ``entry`` and of what folding it gave (``updates``).

    This is the one definition of the JSONL shape, shared by ``export --format jsonl`` and the
    ``--json`` of ``run``, ``attach``, ``render`` and ``replay`` (NDJSON on stdout). Every line
    is one JSON object whose ``kind`` says which of these it is; fields are only ever added:

    * ``{"kind": "user", "text", "parts"?}``: a message the user sent (``parts``: what it
      carried beside its text, each ``{"type", "mimeType", "name", "bytes" | "url", "inline",
      "durationSeconds"?}``, never the bytes themselves);
    * ``{"kind": "run", "runId", "workflow", "host"?}``: a run began (``workflow`` may be
      ``""``; ``host`` the base URL of the host that ran it, without credentials, when known);
    * ``{"kind": "event", "type", "sequence", "runId", "nodeId", "eventId", "timestamp",
      "payload"}``: one run event as the protocol layer normalised it (strings cleaned, the
      key masked; ``nodeId``, ``eventId``, ``timestamp`` may be ``null``; ``payload`` an
      object, the event's own fields);
    * ``{"kind": "notice", "level", "text"}``: a line of the client's own (``level`` ``info``,
      ``warning`` or ``error``: a malformed frame, a reconnect, an answer sent);
    * ``{"kind": "end", "runId", "status"?}``: the run's stream ended (``status`` the run's
      last, when known).
    """
    lines: list[dict[str, Any]] = []
    if entry.kind == "user":
        parts = [summary(part) for part in read_parts(entry.meta.get("parts"))]
        lines.append({"kind": "user", "text": entry.data, **({"parts": parts} if parts else {})})
    elif entry.kind == "notice":
        lines.append(notice_line(entry.label or "info", entry.data))
    elif entry.kind in ("run", "end"):
        lines.append({"kind": entry.kind, "runId": entry.run, **entry.meta})
    for update in updates:
        if isinstance(update, EventArrived):
            lines.append(event_line(update))
    return lines


class JsonlMask:
    """The JSONL lines (`jsonl_lines`) of a session as it is written, line by line, with the
    key masked where a host cut it across chunk lines (`openwop_tui.store.keys.SplitKeyLines`).

    The one path ``export --format jsonl`` and the ``--json`` of ``run``, ``attach``,
    ``render`` and ``replay`` write through, so what they mask cannot differ. Each method
    returns the lines that may be written now (a line whose chunk could start the key waits,
    and those after it, until the stream's next piece decides); `finish` the rest, at the end.
    Masking a line one at a time (a `Redactor` over each) cannot do this: the pieces of a key
    are in different lines.
    """

    def __init__(self, secrets: Iterable[str | None]) -> None:
        self._keys = SplitKeyLines(secrets)

    def entry(self, entry: Entry, updates: Iterable[object]) -> list[dict[str, Any]]:
        """The lines of a logged ``entry`` and of what folding it gave (as `jsonl_lines`)."""
        ready = []
        for line in jsonl_lines(entry, ()):
            ready += self._keys.add(line)
        for update in updates:
            if isinstance(update, EventArrived):
                ready += self.event(update)
        return ready

    def event(self, update: EventArrived) -> list[dict[str, Any]]:
        """The ``event`` line of ``update``, its chunk joined to the stream's others."""
        return self._keys.add(event_line(update), update.event.piece)

    def line(self, line: dict[str, Any]) -> list[dict[str, Any]]:
        """Any other line (a ``notice`` of the stream's own)."""
        return self._keys.add(line)

    def finish(self) -> list[dict[str, Any]]:
        """The lines still held: the output ends here."""
        return self._keys.finish()


def notice_line(level: str, text: str) -> dict[str, Any]:
    """A ``notice`` line of the JSONL shape (`jsonl_lines`)."""
    return {"kind": "notice", "level": level, "text": text}


def event_line(update: EventArrived) -> dict[str, Any]:
    """An ``event`` line of the JSONL shape (`jsonl_lines`)."""
    event = update.event
    return {
        "kind": "event",
        "type": event.type,
        "sequence": event.sequence,
        "runId": event.run_id,
        "nodeId": event.node_id,
        "eventId": event.event_id,
        "timestamp": event.timestamp,
        "payload": event.payload,
    }


# ------------------------------------------------------------------- Markdown


def _fence(text: str, lang: str = "") -> str:
    """``text`` in a code fence longer than any run of backticks inside it."""
    longest, run = 0, 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{text}\n{ticks}"


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else compact_json(value, 400)
    return inline(" ".join(text.split()), 400)


class _Assets:
    """The assets folder next to the Markdown file, created on first use."""

    def __init__(self, markdown: Path) -> None:
        self.folder = markdown.with_name(f"{markdown.stem}-assets")
        self.written: list[Path] = []

    def write(self, data: bytes, name: str | None, fallback: str) -> str:
        """Write ``data``; the relative link to it."""
        self.folder.mkdir(parents=True, exist_ok=True)
        base = safe_filename(name, fallback)
        target = self.folder / f"{len(self.written) + 1:03d}-{base}"
        target.write_bytes(data)
        self.written.append(target)
        # Percent-encoded: a name with spaces or brackets still links in every renderer.
        return quote(f"{self.folder.name}/{target.name}")


async def _markdown(
    entries: list[Entry],
    store: Store,
    path: Path,
    redact: Redactor,
    title: str,
    drawer: EnvelopeDrawer,
) -> Exported:
    """The session as Markdown, media written to an assets folder beside it.

    Args:
        entries: The session's entries, masked.
        store: The store, where the envelopes' bytes are kept.
        path: The Markdown file to write.
        redact: Masks secrets in the whole text.
        title: The session's title, the document's heading.
        drawer: Draws the envelopes.
    """
    conversation = Conversation.from_log(entries, store=store, secrets=store.secrets)
    assets = _Assets(path)
    # Masked before it is escaped: an escaped key (``sk\-…``) is no longer the key to the
    # redaction of the whole text below (a title stored before the key was known holds it).
    parts = [f"# {inline(redact(title)) or 'openwop-tui session'}"]
    for item in conversation.transcript.items:
        section = await _section(item, conversation, assets, drawer)
        if section:
            parts.append(section)
    path.write_text(redact("\n\n".join(parts)) + "\n", encoding="utf-8", errors="replace")
    return Exported(path, tuple(assets.written))


async def _section(
    item: Item, conversation: Conversation, assets: _Assets, drawer: EnvelopeDrawer
) -> str | None:
    """One item's Markdown; None for an item the export leaves out (a verbose notice).

    Args:
        item: The transcript item.
        conversation: The replayed conversation, which has the stored bytes.
        assets: The assets folder media are written to.
        drawer: Draws envelopes.
    """
    if isinstance(item, UserTurn):
        return f"## You\n\n{block(item.text)}"
    if isinstance(item, AssistantTurn):
        return f"## Assistant\n\n{block(item.full_text)}"
    if isinstance(item, Reasoning):
        return f"### Reasoning · {inline(item.agent_id)}\n\n{quoted(item.full_text)}"
    if isinstance(item, ToolCall):
        _, text = full_text(item)
        return f"### Tool call · {inline(item.tool_name)}\n\n{_fence(text, 'json')}"
    if isinstance(item, Notice):
        return None if item.verbose else quoted(f"{item.level}: {item.text}")
    return await _envelope(item, conversation, assets, drawer)


async def _envelope(
    item: EnvelopeItem, conversation: Conversation, assets: _Assets, drawer: EnvelopeDrawer
) -> str:
    """One envelope's Markdown: its bytes written and linked, or a note saying why they are not
    there, or its drawn body.

    Args:
        item: The envelope item.
        conversation: The replayed conversation, which has the stored bytes (and no host).
        assets: The assets folder the bytes are written to.
        drawer: Draws the envelope.
    """
    envelope = item.envelope
    fetched: list[Asset | None] = []

    async def fetch(envelope: Envelope, needs_bytes: Callable[[str | None], bool]) -> Asset | None:
        # Stored bytes only (the conversation has no host): kept to say where the thing is.
        asset = await conversation.asset_for(envelope, needs_bytes)
        fetched.append(asset)
        return asset

    rendered = await drawer(envelope, fetch, conversation.max_inline_bytes)
    asset = fetched[0] if fetched else None
    display = envelope.display or "json"
    title = rendered.title or envelope.kind
    head = f"### {'You sent · ' if is_own(item) else ''}{inline(title)}"
    ref = envelope.media_ref
    if ref is not None or drawer.needs_bytes(envelope.display):
        if rendered.data is not None:
            link = assets.write(rendered.data, rendered.filename, f"{display}.bin")
            alt = envelope.rendering.alt or title
            shown = (
                f"![{inline(alt)}]({link})" if display == "image" else f"[{inline(title)}]({link})"
            )
            # Not "degraded" here: the export holds the bytes themselves.
            return f"{head}\n\n{shown}"
        where = (asset.url if asset else None) or (ref.url if ref else None)
        return (
            f"{head}\n\n> **not included** · what: {inline(display)} ({inline(envelope.kind)}) · "
            f"why: {_why(rendered.degradation)} · where: {inline(where or 'nowhere given', 2000)}"
        )
    body = _body(envelope, rendered.data)
    if rendered.degradation is not None:
        body += (
            f"\n\n> degraded · what: {inline(envelope.kind)} · why: {_why(rendered.degradation)}"
        )
    return f"{head}\n\n{body}"


def _why(degradation: Degradation | None) -> str:
    """The reason and its stable code (``too-large``, ``fetch-refused`` …), for a reader and a
    script alike."""
    if degradation is None:
        return "no bytes"
    return f"{inline(degradation.reason, 400)} (`{degradation.code.value}`)"


def _body(envelope: Envelope, data: bytes | None) -> str:
    display, text, payload = envelope.display, envelope.text, envelope.payload
    if display == "code":
        source = data.decode("utf-8", "replace") if data is not None else (text or "")
        lang = envelope.rendering.lang or ""
        # A boundary: the bytes (fetched, or decoded base64) never went through `host_value`,
        # and `cat chat.md` would run their escapes.
        return _fence(clean(source), "".join(c for c in lang if c.isalnum() or c in "+-#._"))
    if display == "markdown" and (text or isinstance(payload, str)):
        return block(text or str(payload))
    if display == "card" and isinstance(payload, dict) and payload and not text:
        rows = [f"| {_cell(key)} | {_cell(value)} |" for key, value in payload.items()]
        return "\n".join(["| field | value |", "| --- | --- |", *rows])
    if text and display in ("card", "markdown", None) and not isinstance(payload, dict | list):
        return block(text)
    try:
        shown = json.dumps(payload, ensure_ascii=False, indent=2, default=str)
    except (TypeError, ValueError, RecursionError):
        shown = repr(payload)
    return _fence(shown, "json")
