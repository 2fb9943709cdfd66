"""The walk: every command that prints, run as users run it, never prints a piece of the key.

The installed program (``openwop-tui`` beside the test's interpreter) runs in a subprocess for
each printing command and each of its output forms, with the key known (``--api-key`` or
``OPENWOP_API_KEY``), fed `tests/data/KEY-SPLIT.sse` (the key whole, cut across two, three
and many chunks, one character each, in interleaved replies, JSON-escaped, cut across the
stream's last two frames): as a file, on stdin, from a loopback host that serves it as a run's
events and echoes the key whole in everything else (`key_split.KeySplitHost`), and as a
stored session (kept by a store that did not know the key). Each output, stdout and stderr,
and each file an export or ``--record`` writes, must hold no `key_split.PIECE`-character
piece of the key, read as printed and with its ``chunk`` and ``delta`` fields joined; what the
stream said must be there, the key masked (`MASK`), not dropped.

Measured before the fix (issue 23): ``render KEY-SPLIT.sse --json`` and the ``--json`` of
``replay``, ``run`` and ``attach`` printed the key's pieces, and joined, the key itself; so
did the file ``--record`` wrote; the Markdown export's title held it escaped (``sk\\-…``).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from installed import PROGRAM
from key_split import KEY, RECORDING, RUN, KeySplitHost, leaks, stream

from openwop_tui.protocol.hostdata import MASK
from openwop_tui.store.record import read_recording
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store

#: How long one command may take before the test says it hangs (a slow machine takes 5 s).
PATIENCE = 300


def test_the_recording_is_current() -> None:
    assert RECORDING.read_text(encoding="utf-8") == stream()


def by_stream(lines: list[str]) -> dict[str, str]:
    """Each stream's text (a node's reply, an agent's reasoning), its pieces joined in order,
    from NDJSON lines or SSE ``data:`` lines."""
    out: dict[str, str] = {}
    for line in lines:
        text = line[6:] if line.startswith("data: ") else line
        try:
            doc = json.loads(text)
        except ValueError:
            continue
        payload = doc.get("payload") if isinstance(doc, dict) else None
        if not isinstance(payload, dict):
            continue
        for field in ("chunk", "delta"):
            if isinstance(payload.get(field), str):
                name = doc.get("nodeId") or payload.get("nodeId") or payload.get("agentId")
                out[str(name)] = out.get(str(name), "") + payload[field]
                break
    return out


#: What the recording's streams say, the key masked: what every NDJSON output must hold.
EXPECTED = {
    name: text.replace(KEY, MASK)
    for name, text in by_stream(RECORDING.read_text(encoding="utf-8").splitlines()).items()
}


@pytest.fixture(scope="module")
def host() -> Iterator[KeySplitHost]:
    with KeySplitHost() as running:
        yield running


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """Private config, data and state folders, and a session stored in them from the
    recording by a store that did not know the key (an older version, a key set later)."""
    root = tmp_path_factory.mktemp("home")
    data = root / "data" / "openwop-tui"
    data.mkdir(parents=True)
    with Store(data / "sessions.db") as store:
        session = store.create(host="http://127.0.0.1:1", workflow="echo", title=f"key {KEY}")
        store.append(session, Entry("user", f"say my key, {KEY}"))
        store.append(session, Entry("run", "", run=RUN, meta={"workflow": "echo"}))
        for entry in read_recording(RECORDING.read_text(encoding="utf-8")).entries:
            store.append(session, Entry(entry.kind, entry.data, run=RUN, label=entry.label))
        store.append(session, Entry("end", "", run=RUN, meta={"status": "completed"}))
    return root, session


def run(
    home: tuple[Path, str], *args: str, key: str = "flag", stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    root, _ = home
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(root / "config"),
        "XDG_DATA_HOME": str(root / "data"),
        "XDG_STATE_HOME": str(root / "state"),
        "OPENWOP_TUI_AUDIO": "off",
        "TERM": "dumb",
        "COLUMNS": "100",
    }
    env.pop("OPENWOP_BASE_URL", None)
    env.pop("OPENWOP_API_KEY", None)
    flags = ["--api-key", KEY] if key == "flag" else []
    if key == "env":
        env["OPENWOP_API_KEY"] = KEY
    return subprocess.run(
        [PROGRAM, *flags, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=PATIENCE,
        check=False,
    )


def check(done: subprocess.CompletedProcess[str], *, codes: tuple[int, ...] = (0,)) -> None:
    """No piece of the key in what the command printed; it ran to its end."""
    assert done.returncode in codes, done.stderr
    assert "Traceback" not in done.stderr
    assert leaks(done.stdout) == [], done.stdout
    assert leaks(done.stderr) == [], done.stderr


def check_ndjson(done: subprocess.CompletedProcess[str]) -> None:
    """NDJSON on stdout: every line an object, every stream whole with the key masked."""
    check(done)
    lines = done.stdout.splitlines()
    assert all(isinstance(json.loads(line), dict) for line in lines)
    assert by_stream(lines) == EXPECTED


RECORDED = str(RECORDING)


@pytest.mark.parametrize("key", ["flag", "env"])
@pytest.mark.parametrize(
    "args",
    [["render", RECORDED, "--json"], ["replay", RECORDED, "--json", "--speed", "0"]],
    ids=["render", "replay"],
)
def test_ndjson_of_a_recording(home: tuple[Path, str], args: list[str], key: str) -> None:
    check_ndjson(run(home, *args, key=key))


def test_ndjson_of_a_recording_read_from_stdin(home: tuple[Path, str]) -> None:
    check_ndjson(run(home, "render", "-", "--json", stdin=RECORDING.read_text("utf-8")))


@pytest.mark.parametrize("args", [["run", "echo"], ["attach", RUN]], ids=["run", "attach"])
def test_ndjson_of_a_run_on_a_host(
    home: tuple[Path, str], host: KeySplitHost, args: list[str]
) -> None:
    check_ndjson(run(home, "--host", host.url, *args, "--json"))


@pytest.mark.parametrize(
    "args",
    [
        ["render", RECORDED],
        ["replay", RECORDED, "--speed", "0"],
        ["--host", "{host}", "run", "echo"],
        ["--host", "{host}", "attach", RUN],
    ],
    ids=["render", "replay", "run", "attach"],
)
def test_printed_transcripts(home: tuple[Path, str], host: KeySplitHost, args: list[str]) -> None:
    done = run(home, *(a.replace("{host}", host.url) for a in args))
    check(done)
    assert done.stdout.count(MASK) >= 10  # the replies were printed, the key masked


def test_a_printed_transcript_read_from_stdin(home: tuple[Path, str]) -> None:
    done = run(home, "render", "-", stdin=RECORDING.read_text("utf-8"))
    check(done)
    assert done.stdout.count(MASK) >= 10


@pytest.mark.parametrize(
    ("args", "codes"),
    [
        (["workflows"], (0,)),
        (["workflows", "--json"], (0,)),
        (["runs"], (0,)),
        (["runs", "--json"], (0,)),
        (["doctor"], (0, 1)),
        (["doctor", "--json"], (0, 1)),
        (["lint", RUN], (0, 1)),
        (["lint", RUN, "--json"], (0, 1)),
        (["stats", RUN], (0,)),
        (["stats", RUN, "--json"], (0,)),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else None,
)
def test_the_hosts_commands(
    home: tuple[Path, str], host: KeySplitHost, args: list[str], codes: tuple[int, ...]
) -> None:
    done = run(home, "--host", host.url, *args)
    check(done, codes=codes)
    assert done.stdout.strip()


@pytest.mark.parametrize(
    ("args", "codes"),
    [
        (["lint", RECORDED], (0, 1)),
        (["lint", RECORDED, "--json"], (0, 1)),
        (["lint", "-", "--json"], (0, 1)),
        (["lint", "--rules"], (0,)),
        (["stats", RECORDED], (0,)),
        (["stats", RECORDED, "--json"], (0,)),
        (["stats", "-"], (0,)),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else None,
)
def test_the_inspectors_of_a_recording(
    home: tuple[Path, str], args: list[str], codes: tuple[int, ...]
) -> None:
    done = run(home, *args, stdin=RECORDING.read_text("utf-8"))
    check(done, codes=codes)
    assert done.stdout.strip()


@pytest.mark.parametrize("args", [["sessions"], ["sessions", "--json"]], ids=["table", "json"])
def test_the_stored_sessions(home: tuple[Path, str], args: list[str]) -> None:
    done = run(home, *args)
    check(done)
    assert home[1] in done.stdout


@pytest.mark.parametrize("fmt", ["md", "jsonl", "sse"])
def test_the_exports_of_a_stored_session(home: tuple[Path, str], tmp_path: Path, fmt: str) -> None:
    target = tmp_path / f"out.{fmt}"
    done = run(home, "export", home[1], "--format", fmt, "-o", str(target))
    check(done)
    written = target.read_text(encoding="utf-8")
    assert leaks(written) == [], written
    if fmt != "md":
        assert by_stream(written.splitlines()) == EXPECTED
    else:
        assert written.count(MASK) >= 10


@pytest.mark.parametrize("args", [["run", "echo"], ["attach", RUN]], ids=["run", "attach"])
def test_a_recording_of_a_run(
    home: tuple[Path, str], host: KeySplitHost, tmp_path: Path, args: list[str]
) -> None:
    target = tmp_path / "recorded.sse"
    check_ndjson(run(home, "--host", host.url, *args, "--json", "--record", str(target)))
    written = target.read_text(encoding="utf-8")
    assert leaks(written) == [], written
    assert by_stream(written.splitlines()) == EXPECTED
