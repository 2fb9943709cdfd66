"""A host's JSON-schema ``pattern`` cannot freeze the client (issue 14 item 2).

The measured case, ``^(a|aa)+$`` against a's and a ``b``, doubles its time every two characters
under a backtracking engine. The sizes here (hundreds of a's) could never finish that way, and
the checks that would hang run in a subprocess with a generous bound, so a regression fails
instead of hanging the suite. The same check serves the answer form and ``run --answer`` (both
go through `Question.check` / `build_answer`); the form runs it in a thread.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from typing import Any

import pytest
from patience import PATIENCE
from textual.app import App, ComposeResult
from textual.widgets import Input, Static

from openwop_tui.core.fold import Transcript
from openwop_tui.core.items import Interrupt
from openwop_tui.protocol import resume_schema
from openwop_tui.protocol.events import normalize
from openwop_tui.protocol.interrupt_answers import AnswerError, build_answer
from openwop_tui.protocol.interrupts import read_request
from openwop_tui.protocol.patterns import (
    MAX_PATTERN_CHARS,
    MAX_VALUE_CHARS,
    check_pattern,
    to_re2,
)
from openwop_tui.protocol.resume_schema import pattern_notes, schema_problem
from openwop_tui.ui.messages import InterruptAnswered
from openwop_tui.ui.widgets.interrupt_form import InterruptForm

EVIL = "^(a|aa)+$"


def clarification(pattern: str) -> dict[str, Any]:
    return {
        "type": "interrupt.requested",
        "sequence": 1,
        "runId": "run-1",
        "nodeId": "ask",
        "payload": {
            "kind": "clarification",
            "interruptId": "i1",
            "key": "k1",
            "data": {
                "questions": [
                    {
                        "id": "code",
                        "question": "Code?",
                        "schema": {"type": "string", "pattern": pattern},
                    }
                ]
            },
        },
    }


def run_bounded(code: str) -> str:
    """Run ``code`` in a fresh interpreter; fail (not hang) if it takes more than 120 s, a
    bound a linear-time check misses by orders of magnitude on any machine."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=PATIENCE,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the pattern check did not return: it backtracks")
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_measured_pattern_answers_from_the_form_check_and_run_answer() -> None:
    out = run_bounded(
        f"""
        from openwop_tui.protocol.events import normalize
        from openwop_tui.protocol.interrupts import read_request
        from openwop_tui.protocol.interrupt_answers import AnswerError, build_answer
        from openwop_tui.protocol.resume_schema import schema_problem
        event = normalize({clarification(EVIL)!r})
        request = read_request(event.type, event.payload, node_id=event.node_id)
        value = "a" * 400 + "b"  # 2**200 paths for a backtracking engine
        print(schema_problem({{"type": "string", "pattern": {EVIL!r}}}, value, "v"))
        try:
            request.questions[0].check(value)  # the form's check
        except AnswerError as error:
            print("form:", error)
        try:
            build_answer(request, answers={{"code": value}})  # run --answer
        except AnswerError as error:
            print("answer:", error)
        print(build_answer(request, answers={{"code": "a" * 400}}))
        """
    )
    lines = out.splitlines()
    assert lines[0] == f"v must match {EVIL}"
    assert lines[1].startswith("form: code (Code?)") and lines[1].endswith(f"must match {EVIL}")
    assert lines[2].startswith("answer: code (Code?) must match")
    assert "'answer': '" + "a" * 400 in lines[3]


def test_a_pattern_that_needs_backtracking_is_left_to_the_host_never_to_re() -> None:
    # A backreference re2 cannot compile: under `re` this value would never finish.
    pattern = r"^(a|aa)+\1$"
    out = run_bounded(
        f"""
        from openwop_tui.protocol.patterns import check_pattern
        print(check_pattern({pattern!r}, "a" * 400 + "b").outcome)
        """
    )
    assert out.strip() == "unchecked"
    assert schema_problem({"type": "string", "pattern": pattern}, "zzz", "v") is None
    notes = pattern_notes({"properties": {"x": {"pattern": pattern}}}, "the answer")
    assert len(notes) == 1
    assert notes[0].startswith("the answer.x is not checked against the host's pattern here")
    assert "backreference" in notes[0] and notes[0].endswith("the host checks it")
    look = check_pattern("^(?=a)a$", "a")
    assert look.outcome == "unchecked" and "look-around" in look.reason


def test_the_engine_is_re2_and_says_nothing_on_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    import re2

    assert resume_schema.check_pattern.__module__ == "openwop_tui.protocol.patterns"
    assert check_pattern("(?=x)", "x").outcome == "unchecked"
    assert capfd.readouterr().err == ""  # RE2 logs parse errors unless told not to
    assert re2.compile(to_re2(EVIL)).search("aa") is not None


def test_bounds_on_the_value_and_the_pattern() -> None:
    long_value = "a" * (MAX_VALUE_CHARS + 1)
    problem = schema_problem({"type": "string", "pattern": "a"}, long_value, "v")
    assert problem is not None and problem.startswith("v is too long to check against its pattern")
    assert check_pattern("a" * (MAX_PATTERN_CHARS + 1), "a").outcome == "unchecked"
    huge = check_pattern("(a{1000}){1000}", "a")  # a program over RE2's memory budget
    assert huge.outcome == "unchecked"


@pytest.mark.parametrize(
    ("pattern", "value", "outcome"),
    [
        (r"^\u00e9$", "é", "match"),
        (r"^\uD83D\uDE00$", "😀", "match"),  # a surrogate pair is one code point
        (r"^\u{1F600}$", "😀", "match"),
        (r"^\cA$", "\x01", "match"),
        (r"^[^]$", "\n", "match"),
        (r"[]", "x", "mismatch"),
        (r"^[\]a]+$", "]a", "match"),
        ("^a$", "a\n", "mismatch"),  # ECMA's $ is the end; Python's would allow a newline
        (r"^[A-Z]{2}-\d{3}$", "AB-123", "match"),
        (r"^(?<year>\d{4})$", "2026", "match"),
        ("b", "abc", "match"),  # JSON Schema searches: unanchored
        (r"^\s$", "\u00a0", "match"),  # ECMA's \s has the Unicode spaces (RE2's is ASCII)
        (r"^[\s]+$", "\u2028\u3000", "match"),
        (r"^\S$", "\u3000", "mismatch"),
        (r"^.$", "\r", "mismatch"),  # ECMA's . stops at every line terminator
        (r"^a.b$", "a\u2029b", "mismatch"),
        (r"^.+$", "é😀", "match"),
    ],
)
def test_ecma_spellings_are_read(pattern: str, value: str, outcome: str) -> None:
    assert check_pattern(pattern, value).outcome == outcome


class FormHost(App[None]):
    def __init__(self, interrupt: Interrupt) -> None:
        super().__init__()
        self.interrupt = interrupt
        self.answers: list[Any] = []

    def compose(self) -> ComposeResult:
        yield InterruptForm(self.interrupt)

    def on_interrupt_answered(self, message: InterruptAnswered) -> None:
        self.answers.append(message.value)


def folded(pattern: str) -> Interrupt:
    transcript = Transcript()
    transcript.apply(normalize(clarification(pattern)))
    return next(i for i in transcript.items if isinstance(i, Interrupt))


async def test_the_form_checks_patterns_off_the_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    threads: list[str] = []
    real = resume_schema.check_pattern

    def recording(pattern: str, value: str) -> Any:
        threads.append(threading.current_thread().name)
        return real(pattern, value)

    monkeypatch.setattr(resume_schema, "check_pattern", recording)
    app = FormHost(folded(EVIL))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.query_one(InterruptForm).query_one(Input).value = (
            "a" * 20 + "b"
        )  # small: this test is about the thread
        await pilot.press("enter")
        await pilot.pause()
        assert app.answers == []
        notes = [str(s.render()) for s in app.query(Static) if s.display]
        assert any("must match" in n for n in notes)
        app.query_one(InterruptForm).query_one(Input).value = "aaaa"
        await pilot.press("enter")
        await pilot.pause()
        assert app.answers == [{"answers": [{"id": "code", "answer": "aaaa"}]}]
    assert threads and threading.main_thread().name not in threads


async def test_the_form_says_when_the_hosts_pattern_is_not_checked_here() -> None:
    app = FormHost(folded(r"^(a)\1$"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        form = app.query_one(InterruptForm)
        form.query_one(Input).value = "zz"
        await pilot.press("enter")
        await pilot.pause()
        shown = " ".join(str(s.render()) for s in form.query(Static) if s.display)
        assert "not checked against the host's pattern here" in shown
        # The host decides: the answer went.
        assert app.answers == [{"answers": [{"id": "code", "answer": "zz"}]}]


def test_run_answer_refuses_with_the_patterns_sentence() -> None:
    event = normalize(clarification("^[0-9]+$"))
    request = read_request(event.type, event.payload, node_id=event.node_id)
    with pytest.raises(AnswerError, match=r"must match \^\[0-9\]\+\$"):
        build_answer(request, answers={"code": "12a"})


def test_run_answer_names_the_patterns_it_cannot_check() -> None:
    from openwop_tui.protocol.interrupt_answers import unchecked_patterns

    event = normalize(clarification(r"^(a)\1$"))
    request = read_request(event.type, event.payload, node_id=event.node_id)
    assert build_answer(request, answers={"code": "zz"})  # sent: the host decides
    [note] = unchecked_patterns(request)
    assert note.startswith("the answer to code is not checked against the host's pattern here")
    ok = normalize(clarification("^a+$"))
    assert unchecked_patterns(read_request(ok.type, ok.payload, node_id=ok.node_id)) == []


def test_no_backtracking_engine_is_imported_where_patterns_are_checked() -> None:
    import ast
    from pathlib import Path

    from openwop_tui.protocol import patterns

    for module in (resume_schema, patterns):
        tree = ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8"))
        imported = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            for alias in (node.names if isinstance(node, ast.Import) else [])
        } | {
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
        }
        assert not {"re", "regex"} & imported, module.__name__


def _counting_walk(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the calls of the schema walk behind `pattern_notes` (it recurses through the
    module's global, so the wrapper sees every call)."""
    calls = [0]
    walk = resume_schema._notes

    def counted(*args: Any) -> None:
        calls[0] += 1
        walk(*args)

    monkeypatch.setattr(resume_schema, "_notes", counted)
    return calls


def test_the_pattern_walk_visits_each_subschema_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # An approval's schema: three plain properties. The walk used to descend into every absent
    # `items` and `additionalProperties` to depth 20 (2**21 calls): `attach --approve` sat
    # there for minutes on a loaded machine, past the interrupt's deadline.
    calls = _counting_walk(monkeypatch)
    schema = {"properties": {"a": {"type": "string"}, "b": {}, "c": {"type": "number"}}}
    assert pattern_notes(schema, "the answer") == []
    assert calls[0] <= 4 * 3  # each present subschema, plus the absent ones it looked for


def test_a_deep_bad_pattern_is_still_found_and_a_huge_schema_costs_a_bounded_walk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    deep: dict[str, Any] = {"pattern": "(a)\\1"}  # a backreference: RE2 cannot run it
    for _ in range(15):
        deep = {"items": deep}
    [note] = pattern_notes(deep, "the answer")
    assert note.startswith("the answer" + "[]" * 15 + " is not checked")
    calls = _counting_walk(monkeypatch)
    wide = {"properties": {f"p{i}": {"properties": {"q": {}}} for i in range(50_000)}}
    assert pattern_notes(wide, "the answer") == []
    assert calls[0] <= 3 * resume_schema._NODES_WALKED
