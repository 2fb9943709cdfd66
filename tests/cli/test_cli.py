"""The command line: ``render`` and ``run`` print transcripts and exit with the right codes.

``run`` talks to a real embedded demo host over loopback (``--demo-pace 0`` so nothing waits).
Output is captured, so it is plain text: no colours, images described rather than drawn.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from paths import TESTS

from openwop_tui.__main__ import main
from openwop_tui.demo_host import DemoHost

CAPTURES = TESTS / "data" / "captures"


pytestmark = pytest.mark.usefixtures("cli_isolated_wide")


@pytest.fixture
def demo() -> Iterator[DemoHost]:
    with DemoHost(pace=0) as host:
        yield host


@pytest.mark.parametrize("capture", sorted(p.name for p in CAPTURES.glob("*.sse")))
def test_render_prints_every_capture(capture: str, capsys: pytest.CaptureFixture[str]) -> None:
    if not (CAPTURES / capture).read_text(encoding="utf-8").strip():
        # A host that sent nothing (the Python host's noop in messages mode): no events to
        # show is exit 2 with the reason, not an empty transcript and 0.
        assert main(["render", str(CAPTURES / capture)]) == 2
        assert "is empty: it holds no SSE events" in capsys.readouterr().err
        return
    assert main(["render", str(CAPTURES / capture)]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert out.strip()  # something was printed for every capture
    assert "\x1b" not in out  # plain text when stdout is not a terminal


def test_render_rich_capture_describes_what_it_cannot_show(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["render", str(CAPTURES / "example-rich-envelopes.sse")]) == 0
    out = capsys.readouterr().out
    assert "print('hello, terminal')" in out
    assert "Bar chart of Q3 revenue by region" in out  # alt text of an image not drawn
    assert "https://api.example.com/v1/host/sample/assets/" in out  # where to get it
    assert 'unknown display "hologram"' in out
    assert "[image/png]" not in out


def test_render_reads_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    text = (CAPTURES / "python-host-noop.sse").read_text(encoding="utf-8")
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert main(["render", "-"]) == 0
    assert "run completed" in capsys.readouterr().out


def test_render_malformed_frames_are_reported_not_fatal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.sse"
    bad.write_text(
        'id: 0\nevent: run.started\ndata: {"type": "run.started", "sequence": 0}\n\n'
        "id: 1\nevent: node.completed\ndata: {not json\n\n"
        'id: 2\nevent: run.completed\ndata: {"type": "run.completed", "sequence": 2}\n\n',
        encoding="utf-8",
    )
    assert main(["render", str(bad)]) == 0
    out = capsys.readouterr().out
    assert "not valid JSON" in out and "{not json" in out
    assert "run completed" in out


def test_render_missing_file_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", "/nonexistent/file.sse"]) == 2
    assert "cannot read /nonexistent/file.sse" in capsys.readouterr().err


def test_run_tour_on_the_embedded_host_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "demo.tour", "--demo-pace", "0"]) == 0
    out = capsys.readouterr().out
    for needle in (
        "fib.py",
        "Deployment summary",
        "Demo revenue by region",
        "tour-report.csv",
        'unknown display "hologram"',
        "too large: 50.3 MB advertised, limit 16.0 MB",
        "cannot decode image/png",
        "HTTP 404 from host",
        "refused: file: URLs are never fetched",
        "run completed",
    ):
        assert needle in out, needle


def test_run_saves_media_when_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "media"
    args = ["run", "demo.chat", "--demo-pace", "0", "--message", "file please"]
    assert main([*args, "--save-media", str(folder)]) == 0
    assert (folder / "tour-report.csv").read_bytes().startswith(b"family")
    # A path longer than the line is folded across lines, as any long word is, and one that
    # fits goes on a line of its own (the line before ends without its space): read as a whole.
    out = "".join(capsys.readouterr().out.split())
    assert f"savedto{folder / 'tour-report.csv'}" in out


def test_run_against_a_host_given_by_url(demo: DemoHost, capsys: pytest.CaptureFixture[str]):
    code = main(["run", "conformance-noop", "--host", demo.url, "--api-key", demo.api_key])
    assert code == 0
    out = capsys.readouterr().out
    assert "run started" in out and "node noop completed" in out and "run completed" in out


def test_run_failed_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "demo.chat", "--demo-pace", "0", "--message", "fail"]) == 1
    assert "demo_failure" in capsys.readouterr().out


def test_a_host_refusal_exits_3_not_2(capsys: pytest.CaptureFixture[str]) -> None:
    # The host was reached and said no (404 workflow_not_found): not a connection problem.
    assert main(["run", "nope", "--demo-pace", "0"]) == 3
    err = capsys.readouterr().err
    assert "no workflow 'nope'" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "demo.tour", "--host", "http://127.0.0.1:9"], "Cannot reach http://127.0.0.1:9"),
        (["run", "demo.tour", "--input", "{nope"], "--input is not valid JSON"),
        (["run", "demo.tour", "--input", "[1]"], "--input must be a JSON object"),
    ],
)
def test_run_usage_and_connection_errors_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_wrong_key_exits_2_without_echoing_it(
    demo: DemoHost, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = "sk-very-secret-value"
    assert main(["run", "conformance-noop", "--host", demo.url, "--api-key", secret]) == 2
    out, err = capsys.readouterr()
    assert "API key" in err
    assert secret not in out + err


def test_unknown_config_key_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    config = tmp_path / "config.toml"
    config.write_text('imagez = "none"\n', encoding="utf-8")
    with pytest.raises(SystemExit) as exited:
        main(["--config", str(config), "render", "-"])
    assert exited.value.code == 2
    assert "unknown setting 'imagez'" in capsys.readouterr().err
