"""The lint of what a person sent (`openwop_tui.inspect.part_rules`): each rule on a message's
content parts fires on the fault it names, at the part's path, and a message of good parts
has no finding, so a rule that is removed or loosened fails here."""

from __future__ import annotations

import base64
import math
from typing import Any

import pytest

from openwop_tui.core.attachments import ACCEPTED
from openwop_tui.inspect.findings import RULES, Severity
from openwop_tui.inspect.lint import LintConfig, Linter
from openwop_tui.inspect.schemas import SchemaSet
from openwop_tui.protocol.content_parts import ACCEPTED_TYPES, encoded_size, media_part
from openwop_tui.protocol.events import RunEvent, normalize

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
OGG = b"OggS\x00" + bytes(40)
PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"
NOTES = b"# Notes\n\n- one\n- two\n"

GOOD: list[dict[str, Any]] = [
    {"type": "text", "text": "what is in these?"},
    media_part("image", "image/png", "picture.png", data=PNG),
    media_part("file", "text/markdown", "notes.md", data=NOTES),
    media_part("file", "application/pdf", "paper.pdf", url="https://host.example/m/1"),
    media_part("audio", "audio/ogg", "voice.ogg", data=OGG, duration=3.0),
]


@pytest.fixture(scope="module")
def schemas() -> SchemaSet:
    return SchemaSet()


def started(*contents: Any, sequence: int = 0) -> RunEvent:
    """A ``run.started`` echoing a history whose messages have these contents."""
    messages = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": content}
        for i, content in enumerate(contents)
    ]
    return normalize(
        {
            "eventId": f"evt_{sequence}",
            "runId": "run_1",
            "type": "run.started",
            "payload": {"workflowId": "demo.chat", "inputs": {"messages": messages}},
            "timestamp": "2026-12-01T10:00:00.000Z",
            "sequence": sequence,
        }
    )


def found(
    schemas: SchemaSet, event: RunEvent, config: LintConfig | None = None
) -> list[tuple[str, str]]:
    """``(code, path)`` of every finding about ``event``."""
    return [(f.code, f.path) for f in Linter(config, schemas=schemas).feed(event)]


def test_a_message_of_good_parts_has_no_finding(schemas: SchemaSet) -> None:
    assert found(schemas, started("hi", "hello", GOOD)) == []


def test_the_allow_list_is_the_one_attachments_are_picked_by() -> None:
    # The lint cannot import `core`: its list is the wire's, and the two must not drift.
    assert set(ACCEPTED) == set().union(*ACCEPTED_TYPES.values())


# Each fault in the second part of the third message, so its path says where.
PATH = "$.payload.inputs.messages[2].content[1]"
IMAGE = GOOD[1]


@pytest.mark.parametrize(
    ("part", "code"),
    [
        ("just a string", "OW230"),
        ({"type": "video", "mimeType": "video/mp4", "url": "https://h.example/v"}, "OW230"),
        ({"mimeType": "image/png", "dataBase64": IMAGE["dataBase64"]}, "OW230"),  # no type
        ({**IMAGE, "mimeType": None}, "OW231"),
        ({k: v for k, v in IMAGE.items() if k != "mimeType"}, "OW231"),
        ({"type": "image", "mimeType": "image/png", "alt": "x"}, "OW232"),  # neither
        ({**IMAGE, "url": "https://host.example/m/2"}, "OW232"),  # both
        ({**IMAGE, "dataBase64": "not*base64!"}, "OW233"),
        ({**IMAGE, "dataBase64": 42}, "OW233"),
        ({**IMAGE, "mimeType": "image/svg+xml"}, "OW235"),  # not on the list
        ({**IMAGE, "mimeType": "application/pdf"}, "OW235"),  # a file's type
        ({**IMAGE, "mimeType": "image/jpeg"}, "OW236"),  # a PNG's bytes
        (media_part("file", "text/plain", "a.txt", data=PNG), "OW236"),
        (media_part("file", "application/pdf", "a.pdf", data=NOTES), "OW236"),
        (media_part("audio", "audio/wav", "a.wav", data=OGG), "OW236"),
        ({**GOOD[4], "durationSeconds": -1}, "OW237"),
        ({**GOOD[4], "durationSeconds": "3 s"}, "OW237"),
        ({**GOOD[4], "durationSeconds": True}, "OW237"),
        ({"type": "text", "text": 42}, "OW238"),
        ({"type": "text"}, "OW238"),
    ],
)
def test_each_part_fault_has_its_code_at_the_parts_path(
    schemas: SchemaSet, part: Any, code: str
) -> None:
    said = found(schemas, started("hi", "hello", [GOOD[0], part]))
    assert (code, PATH) in said
    # Nothing from the rest of the history, nor another part.
    assert all(path == PATH for _, path in said)
    assert found(schemas, started("hi", "hello", [GOOD[0], IMAGE])) == []


def test_inline_bytes_over_the_hosts_cap_say_the_size_and_the_cap(schemas: SchemaSet) -> None:
    big = media_part("image", "image/png", "big.png", data=PNG + bytes(307_200 - len(PNG)))
    event = started([big])
    (over,) = [f for f in Linter(schemas=schemas).feed(event) if f.code == "OW234"]
    assert over.severity is Severity.ERROR
    assert over.path == "$.payload.inputs.messages[0].content[0]"
    assert "307.2 KB (307,200 bytes) inline, over the host's 262.1 KB (262,144 bytes) cap" in (
        over.message
    )
    # The host's own cap, when it advertises one.
    assert "OW234" not in [c for c, _ in found(schemas, event, LintConfig(max_inline_bytes=10**6))]
    assert "OW234" in [
        c for c, _ in found(schemas, started([GOOD[1]]), LintConfig(max_inline_bytes=10))
    ]


def test_the_rules_are_in_the_catalogue_with_their_sources() -> None:
    for code in ("OW230", "OW231", "OW232", "OW233", "OW234", "OW235", "OW236", "OW237", "OW238"):
        assert code in RULES
    assert RULES["OW234"].source.startswith("RFC 0055 §C")
    assert "web chat" in RULES["OW235"].source


def test_a_string_content_and_other_events_are_not_read(schemas: SchemaSet) -> None:
    assert found(schemas, started("plain text", "more")) == []
    # A node's outputs are not what a person sent.
    bad = {"messages": [{"role": "user", "content": ["not a part"]}]}
    log = normalize(
        {
            "eventId": "e1",
            "runId": "run_1",
            "type": "node.completed",
            "nodeId": "n",
            "payload": {"nodeId": "n", "outputs": bad},
            "timestamp": "2026-12-01T10:00:01.000Z",
            "sequence": 1,
        }
    )
    assert [c for c, _ in found(schemas, log) if c.startswith("OW23")] == []


def test_the_in_memory_hosts_data_dialect_is_read(schemas: SchemaSet) -> None:
    doc = dict(started([{"type": "text", "text": 1}]).raw)
    doc["data"] = doc.pop("payload")
    said = found(schemas, normalize(doc))
    assert ("OW238", "$.data.inputs.messages[0].content[0]") in said


def test_hostile_values_never_raise_and_stay_printable(schemas: SchemaSet) -> None:
    nasty = "\x1b]52;c;ZXZpbA==\x07\u202e"
    parts = [
        {"type": nasty, "text": nasty},
        {"type": "image", "mimeType": nasty, "dataBase64": nasty, "url": {"a": 1}},
        {"type": "audio", "mimeType": [1], "dataBase64": "é" * 9, "durationSeconds": nasty},
        {"type": "file", "mimeType": "text/plain", "dataBase64": None, "url": 7},
        {"type": ["image"]},
        None,
        [],
    ]
    event = started([*parts, *GOOD])
    findings = Linter(schemas=schemas).feed(event)
    assert {f.code for f in findings} >= {"OW230", "OW231", "OW232", "OW233", "OW235", "OW237"}
    assert all("\x1b" not in f.message and "\u202e" not in f.message for f in findings)
    # A hand-built event, not through `normalize` (which makes NaN a null): NaN seconds.
    odd = {"type": "audio", "mimeType": "audio/ogg", "url": "u", "durationSeconds": math.nan}
    payload = {"inputs": {"messages": [{"content": [odd]}]}}
    raw = RunEvent("run.started", {}, raw={"type": "run.started", "payload": payload})
    assert "OW237" in [f.code for f in Linter(schemas=schemas).feed(raw)]


def test_a_long_history_decodes_each_part_once(
    schemas: SchemaSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """3,000 messages with parts: each inline part decoded once, its head sniffed once, and no
    path made for a part with nothing to say (what keeps the walk linear)."""
    from openwop_tui.inspect import part_rules

    calls = {"decode": 0, "sniff": 0, "path": 0}

    def counted(name: str, real: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return real(*args, **kwargs)

        return call

    decoder = type("Base64", (), {"b64decode": staticmethod(counted("decode", base64.b64decode))})
    monkeypatch.setattr(part_rules, "base64", decoder)
    monkeypatch.setattr(part_rules, "sniff", counted("sniff", part_rules.sniff))
    monkeypatch.setattr(part_rules, "show_path", counted("path", part_rules.show_path))
    assert found(schemas, started(*([GOOD] * 3000))) == []
    inline = sum(1 for part in GOOD if "dataBase64" in part)
    assert calls == {"decode": 3000 * inline, "sniff": 3000 * inline, "path": 0}


def test_the_size_of_base64_is_told_from_its_length() -> None:
    for size in range(0, 10):
        assert encoded_size(base64.b64encode(bytes(size)).decode()) == size
    assert encoded_size("") == 0 and encoded_size("=") == 0
