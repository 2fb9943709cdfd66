"""``openwop-tui sessions search WORDS``, ``archive`` and ``unarchive`` (issue 27).

The search prints the count of occurrences, then each message or reply holding the words with
its session, date and a line of context; plain when piped (no colour codes), JSON with
``--json``, the occurrences marked on a terminal (the pty test, as users run it). A session
stored before the index is indexed first, said on stderr. Archiving takes a session out of
the default list, ``--archived`` lists it, ``unarchive`` brings it back.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from pty_support import Program, home

from openwop_tui.__main__ import main
from openwop_tui.store.database import default_path
from openwop_tui.store.records import Entry
from openwop_tui.store.search import IndexRow
from openwop_tui.store.sessions import Store

pytestmark = pytest.mark.usefixtures("cli_isolated")


def _sessions(path: Path | None = None) -> tuple[str, str]:
    with Store(path) as store:
        first = store.create(host="http://h:1", workflow="w", title="Birds")
        store.append(first, Entry("user", "the osprey and the OSPREY"))
        rows = [IndexRow("user-1", 0, "user", "the osprey and the OSPREY")]
        store.index(first, rows, through=1)
        second = store.create(host="http://h:1", workflow="w", title="Fish")
        store.append(second, Entry("user", "an osprey took a trout"))
        store.index(second, [IndexRow("user-1", 0, "user", "an osprey took a trout")], through=1)
    return first, second


def test_search_prints_occurrences_with_session_date_and_context(
    capsys: pytest.CaptureFixture[str],
) -> None:
    first, second = _sessions()
    assert main(["sessions", "search", "osprey"]) == 0
    out = capsys.readouterr().out
    assert "\x1b[" not in out  # piped: plain
    lines = out.splitlines()
    assert lines[0] == "3 occurrences in 2 messages of 2 sessions"
    assert lines[1].startswith(second) and "Fish" in lines[1] and "(you)" in lines[1]
    assert lines[2] == "  an osprey took a trout"
    assert lines[3].startswith(first) and "(you, 2 times)" in lines[3]
    assert main(["sessions", "search", "--", "NEAR", "-x"]) == 0  # FTS syntax is text
    assert "no match for “NEAR -x” in any session" in capsys.readouterr().out
    assert main(["sessions", "--json", "search", "OSPREY"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["occurrences"] == 3 and [r["session"] for r in found["results"]] == [
        second,
        first,
    ]


def test_a_store_from_before_the_index_is_indexed_first(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _sessions()
    with sqlite3.connect(default_path()) as db:
        db.execute("DELETE FROM search_rows")
        db.execute("UPDATE sessions SET indexed = 0")
    assert main(["sessions", "search", "osprey"]) == 0
    captured = capsys.readouterr()
    assert "indexing 2 stored sessions for search (once)" in captured.err
    assert captured.out.startswith("3 occurrences")
    assert main(["sessions", "search", "osprey"]) == 0
    assert "indexing" not in capsys.readouterr().err  # once


def test_archive_and_unarchive(capsys: pytest.CaptureFixture[str]) -> None:
    first, second = _sessions()
    assert main(["sessions", "archive", first]) == 0
    assert capsys.readouterr().out == f"archived session {first}\n"
    assert main(["sessions", "--json"]) == 0
    assert [s["id"] for s in json.loads(capsys.readouterr().out)] == [second]
    assert main(["sessions", "--json", "--archived"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(s["id"], s["archived"]) for s in listed] == [(second, False), (first, True)]
    assert main(["sessions", "--archived"]) == 0
    assert "Birds (archived)" in capsys.readouterr().out
    assert main(["sessions", "unarchive", first]) == 0
    assert capsys.readouterr().out == f"unarchived session {first}\n"
    assert main(["sessions", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2
    assert main(["sessions", "archive", "nope"]) == 2
    assert "no stored session 'nope'" in capsys.readouterr().err


def test_search_on_a_terminal_marks_the_occurrences(tmp_path: Path) -> None:
    env = home(tmp_path)
    _sessions(Path(env["XDG_DATA_HOME"]) / "openwop-tui" / "sessions.db")
    with Program(["sessions", "search", "osprey"], env, tmp_path) as program:
        assert program.wait() == 0
        words = program.words()
        assert "3 occurrences in 2 messages of 2 sessions" in words
        assert "an osprey took a trout" in words
        # On a terminal each occurrence stands out (reversed, bold): the plain output has none.
        assert "\x1b[1;7mosprey" in program.output() or "\x1b[7;1mosprey" in program.output()
