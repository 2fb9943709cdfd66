"""A message's attachments travel with it (issue 25, part 3): as content parts in its history
message, sent again whole on later turns, or named when the host's request limit leaves their
turn out; logged byte for byte and read back the same (a forged part is left out, not guessed
at); kept in the history rows a long session's newest-first open reads. Each fails without its
part: the parts dropped from the history, the note silent about what was left out, a logged
part not read back, or a history row with parts refused."""

from __future__ import annotations

from openwop_tui.core.chat_history import ChatHistory
from openwop_tui.core.conversation import Conversation
from openwop_tui.core.items import UserTurn
from openwop_tui.protocol.content_parts import media_part, read_parts
from openwop_tui.store.histories import HistoryRow
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store

PICTURE = media_part("image", "image/png", "chart.png", data=b"\x89PNG\r\n\x1a\n" + b"p" * 40)


def test_the_parts_join_the_history_and_go_again_with_their_turn() -> None:
    history = ChatHistory()
    history.accepted("what is this?", [PICTURE])
    history.messages.append({"role": "assistant", "content": "a chart"})
    fitted = history.fitted("and now?")
    first = fitted.inputs["messages"][0]["content"]
    assert first == [{"type": "text", "text": "what is this?"}, PICTURE]
    assert fitted.inputs["messages"][-1] == {"role": "user", "content": "and now?"}
    assert fitted.note is None


def test_a_turn_left_out_for_the_request_limit_names_its_attachments() -> None:
    history = ChatHistory()
    big = media_part("file", "text/plain", "log.txt", data=b"x" * 50_000)
    history.accepted("read this", [big])
    history.messages.append({"role": "assistant", "content": "read"})
    fitted = history.fitted("next", max_body_bytes=10_000)
    assert fitted.left_out == 1 and fitted.attachments == ("log.txt",)
    assert fitted.note is not None and "(with log.txt)" in fitted.note


def test_a_logged_message_reads_back_with_its_parts_and_not_a_forged_one() -> None:
    forged = {"type": "image", "mimeType": "image/png", "dataBase64": "%%%"}
    entries = [
        Entry("user", "what is this?", meta={"parts": [PICTURE, forged, "junk"]}),
        Entry("run", run="r1", meta={"workflow": "demo.chat"}),
        Entry("end", run="r1", meta={"status": "completed"}),
    ]
    chat = Conversation.from_log(entries)
    (turn,) = [i for i in chat.transcript.items if isinstance(i, UserTurn)]
    assert [a.name for a in turn.attachments] == ["chart.png"]
    assert chat.history[0]["content"] == [{"type": "text", "text": "what is this?"}, PICTURE]


def test_a_history_row_keeps_a_message_with_parts() -> None:
    with Store() as store:
        session_id = store.create(host="h", workflow="w")
        store.append(session_id, Entry("user", "look"))
        store.append(session_id, Entry("run", run="r1"))
        store.append(session_id, Entry("end", run="r1"))
        store.append(session_id, Entry("run", run="r2"))
        content = [{"type": "text", "text": "look"}, PICTURE]
        first = HistoryRow.of(1, 0, [{"role": "user", "content": content}])
        store.keep_histories(session_id, [first, HistoryRow.of(3, 1, [])])
        before = store.history_before(session_id, 3)
        assert before is not None and before[0]["content"] == content
        assert [p.name for p in read_parts(before[0]["content"])] == ["chart.png"]
