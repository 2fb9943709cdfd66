"""Replies: the text streamed in chunks (``output.chunk``, ``ai.message.chunk``,
``node.message``…) and masked across them, the RFC 0005 conversation turns
(``conversation.*``), and the OpenClaw directives each reply is read for (`TurnDirectives`),
from its first chunk to the completion or turn that settles it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from openwop_tui.core.directives import TurnDirectives, structured_media
from openwop_tui.core.event_lines import line_for
from openwop_tui.core.fold._common import made, text_of
from openwop_tui.core.items import AssistantTurn, Change, Item, Updated, UserTurn
from openwop_tui.protocol.events import RunEvent, chunk_text
from openwop_tui.text.sanitize import HostText
from openwop_tui.text.split_keys import StreamMask
from openwop_tui.text.units import compact_json

if TYPE_CHECKING:
    from openwop_tui.core.fold.transcript import Transcript

# ----------------------------------------------------------------- masks


def masked(fold: Transcript, item_id: str, piece: str) -> str:
    """``piece`` of item ``item_id``'s stream as it may be shown (`StreamMask`)."""
    if not fold.secrets:
        return piece
    stream = fold._masks.get(item_id)
    if stream is None:
        stream = fold._masks[item_id] = StreamMask(fold.secrets)
    return stream.feed(piece)


def unmasked(fold: Transcript, item_id: str) -> str:
    """What item ``item_id``'s stream mask still holds, now that the stream ended."""
    stream = fold._masks.pop(item_id, None)
    return stream.flush() if stream is not None else ""


# ----------------------------------------------------------------- chunks


def on_chunk(fold: Transcript, event: RunEvent) -> list[Change]:
    payload = event.payload
    delta = chunk_text(event)
    if delta is None:
        return []
    if event.piece is not None:
        # The chunk as sent, only whole keys masked: a key cut between this chunk and the
        # next is masked once they are joined (the payload's copy masked its edge apart).
        delta = event.piece
    if event.node_id in fold._echo:
        delta = _unechoed(fold, event.node_id, delta)
        if not delta:
            return []
    meta = payload.get("meta")
    # (`is None` first: nearly every chunk has none, and the ABC's check is slow for None too.)
    if meta is None or not isinstance(meta, Mapping):
        meta = {}
    turn = fold._open_turns.get(event.node_id)
    changes: list[Change] = []
    if turn is None or turn.final:
        turn = new_turn(fold, event.node_id)
        fold._open_turns[event.node_id] = turn
        changes.append(fold._add(turn))
    turn.model = turn.model or text_of(meta.get("model"))
    turn.finish_reason = text_of(meta.get("finishReason")) or turn.finish_reason
    delta = masked(fold, turn.id, delta)
    if delta:
        # O(delta): the buffer keeps parts. Past the limit nothing more is drawn, but the
        # (empty) delta still tells the view that the "cut" count grew. Directives are
        # taken out first (held back while incomplete), so none flashes as raw text.
        visible, added, updated = directives_of(fold, turn).delta(delta, event, fold._next_id)
        if visible:
            changes.append(Updated(turn, turn.body.append(visible)))
        if added or updated:
            changes += directive_changes(fold, added, updated)
    # Structured media beside the text (OpenClaw's mediaUrl / mediaUrls), top level or meta.
    fields = [
        record
        for source in (payload, meta)
        if "mediaUrl" in source or "mediaUrls" in source
        for record in structured_media(source)
    ]
    if fields:
        state = directives_of(fold, turn)
        changes += directive_changes(
            fold, *state.items(fields, state.stream.found, event, fold._next_id)
        )
    return changes


def _unechoed(fold: Transcript, node_id: str | None, delta: str) -> str:
    """What of ``delta`` is new, given a reply of ``node_id`` already drawn in full: chunks
    that repeat it are dropped; from the first that does not, chunks draw again."""
    content, seen = fold._echo[node_id]
    if content.startswith(delta, seen):
        seen += len(delta)
        if seen >= len(content):
            del fold._echo[node_id]
        else:
            fold._echo[node_id] = (content, seen)
        return ""
    del fold._echo[node_id]
    return delta


# ---------------------------------------------------------- conversations


def on_conversation(fold: Transcript, event: RunEvent) -> list[Change]:
    """RFC 0005 conversation events as turns: ``conversation.opened``'s ``initialTurn``,
    each ``conversation.exchanged`` turn, ``conversation.closed``'s ``finalTurn``. A user
    turn this client sent is not drawn again; an agent turn that chunks already streamed
    settles that reply instead of adding one."""
    p = event.payload
    name = event.type.rsplit(".", 1)[-1]
    key = {"opened": "initialTurn", "exchanged": "turn", "closed": "finalTurn"}.get(name)
    turn = p.get(key) if key else None
    changes: list[Change] = []
    if isinstance(turn, Mapping):
        changes += _conversation_turn(fold, event, turn)
    line = line_for(event)
    if line is not None:
        level, text, verbose = line
        changes.append(fold._notice(level, text, verbose=verbose))
    return changes


def _conversation_turn(fold: Transcript, event: RunEvent, turn: Mapping[str, Any]) -> list[Change]:
    node_id = event.node_id
    text = turn_text(turn.get("content"))
    if not text:
        return []
    role = text_of(turn.get("role")) or ("user" if turn.get("from") == "user" else "agent")
    if role == "user":
        if text.strip() in fold._own_turns:
            fold._own_turns.remove(text.strip())
            return []
        # Someone else's turn (another client, or a history this client did not send).
        close_replies(fold)
        return [fold._add(UserTurn(fold._next_id("user"), made(text)))]
    if role == "system":
        return [fold._notice("info", text)]
    open_turn = fold._open_turns.get(node_id)
    if open_turn is not None and not open_turn.final:
        # Streamed already: the event settles it (its text is the authoritative one, its
        # directives read like a completion's).
        changes = final_directives(fold, open_turn, text, {}, event)
        open_turn.final = True
        open_turn.directives = None
        del fold._open_turns[node_id]
        return [Updated(open_turn), *changes]
    reply = new_turn(fold, node_id)
    added = fold._add(reply)
    changes = final_directives(fold, reply, text, {}, event)
    reply.final = True
    reply.directives = None
    fold._echo[node_id] = (text, 0)
    return [added, *changes]


def turn_text(content: Any) -> str | None:
    """A conversation turn's ``content`` (any JSON) as text: a string as it is, text parts
    joined, anything else as compact JSON."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [part.get("text") if isinstance(part, Mapping) else part for part in content]
        texts = [part for part in parts if isinstance(part, str)]
        if texts:
            return "\n".join(texts)
    if content is None:
        return None
    return compact_json(content, 2000)


# ------------------------------------------------------------- directives


def directives_of(fold: Transcript, turn: AssistantTurn) -> TurnDirectives:
    if turn.directives is None:
        turn.directives = TurnDirectives(markdown_images=fold.limits.markdown_images)
    state: TurnDirectives = turn.directives
    return state


def directive_changes(fold: Transcript, added: list[Item], updated: list[Item]) -> list[Change]:
    return [*(fold._add(item) for item in added), *(Updated(item) for item in updated)]


def final_directives(
    fold: Transcript,
    turn: AssistantTurn,
    completion: str | None,
    outputs: Mapping[str, Any],
    event: RunEvent,
) -> list[Change]:
    """The final payload's directives: the completion is authoritative (it replaces what the
    deltas built, capped the same way, its directives taken out like the stream's); what
    it and the structured fields name that the stream did not is added.

    Args:
        fold: The transcript the reply is in.
        turn: The reply being settled.
        completion: The authoritative text of the reply, if the event has one.
        outputs: The node's ``outputs`` (its structured media fields), or ``{}``.
        event: The event that settles the reply.
    """
    fold._masks.pop(turn.id, None)  # the completion replaces what the stream held
    visible, added, updated = directives_of(fold, turn).final(
        completion, outputs, event, fold._next_id
    )
    if visible is not None and turn.full_text != visible:
        turn.text = visible
    return directive_changes(fold, added, updated)


def finish_directives(
    fold: Transcript, turn: AssistantTurn, event: RunEvent | None
) -> list[Change]:
    """The turn is ending: the text its stream mask and directive reader held back, and its
    items."""
    held = unmasked(fold, turn.id)
    if turn.directives is None and not held:
        return []
    source = event or RunEvent(type=made("client.close"), payload={}, node_id=turn.node_id)
    changes: list[Change] = []
    if held:
        visible, added, updated = directives_of(fold, turn).delta(held, source, fold._next_id)
        if visible:
            changes.append(Updated(turn, turn.body.append(visible)))
        changes += directive_changes(fold, added, updated)
    visible, added, updated = directives_of(fold, turn).finish(source, fold._next_id)
    if visible:
        changes.append(Updated(turn, turn.body.append(visible)))
    return changes + directive_changes(fold, added, updated)


# ---------------------------------------------------------------- replies


def new_turn(fold: Transcript, node_id: HostText | None) -> AssistantTurn:
    return AssistantTurn(fold._next_id("assistant"), node_id, limit=fold.limits.reply_bytes)


def settle_replies(fold: Transcript) -> list[Change]:
    """Every open reply is final: what its directive reader held back joins its text."""
    changes: list[Change] = []
    for turn in fold._open_turns.values():
        if not turn.final:
            changes += finish_directives(fold, turn, None)
            turn.final = True
            turn.directives = None  # settled: nothing more to read or de-duplicate
            changes.append(Updated(turn))
    fold._open_turns.clear()
    return changes


def close_replies(fold: Transcript) -> None:
    """A user turn cuts the open replies short (the next reply is a new turn). Their
    changes are not returned: the view redraws a settled reply when it next draws it."""
    fold._echo.clear()
    settle_replies(fold)
