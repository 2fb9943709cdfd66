"""``openwop-tui doctor``: each check's verdict and fix (pure, on a machine the test describes),
the report on this machine, and the host checks against the demo host (a wrong key fails)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from openwop_tui import doctor
from openwop_tui.__main__ import main
from openwop_tui.demo_host import DemoHost
from openwop_tui.devices.terminal import ImageSupport
from openwop_tui.protocol.discovery import Discovery
from openwop_tui.renderers.base import AudioSupport


@pytest.fixture(scope="module")
def demo() -> Iterator[DemoHost]:
    with DemoHost(pace=0) as host:
        yield host


def test_size() -> None:
    assert doctor.check_size(os.terminal_size((120, 40))).status == "ok"
    small = doctor.check_size(os.terminal_size((60, 20)))
    assert small.status == "warn" and "80x24" in (small.fix or "")
    assert doctor.check_size(None).status == "info"


def test_colours() -> None:
    assert doctor.check_colours({"COLORTERM": "truecolor", "TERM": "xterm"}).status == "ok"
    assert doctor.check_colours({"NO_COLOR": "1"}).status == "info"
    low = doctor.check_colours({"TERM": "vt100"})
    assert low.status == "warn" and "COLORTERM" in (low.fix or "")
    # Into a pipe: no terminal to judge, nothing in the printed report to lose (issue 27).
    piped = doctor.check_colours({"TERM": "vt100"}, interactive=False)
    assert piped.status == "info" and "standard colours" in piped.detail


@pytest.mark.usefixtures("cli_isolated")
def test_doctor_into_a_pipe_warns_of_nothing_it_cannot_see() -> None:
    """The installed program with its report piped: the size, the colours and the images
    are news (what the environment says), not warnings about a terminal it cannot see."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("COLORTERM", "NO_COLOR")}
    done = subprocess.run(
        [sys.executable, "-m", "openwop_tui", "doctor", "--no-audio"],
        env={**env, "TERM": "vt100"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    lines = {
        line.split(":")[0].split(None, 1)[1]: line.split()[0]
        for line in done.stdout.splitlines()
        if ":" in line
    }
    assert lines["terminal size"] == "info"
    assert lines["colours"] == "info"
    assert lines["images"] == "info"


def test_images_name_the_protocol_and_a_blocked_forced_one_fails() -> None:
    kitty = doctor.check_images(ImageSupport("kitty", "the terminal answered the query"), "auto")
    assert kitty.status == "ok" and kitty.detail.startswith("kitty:")
    half = doctor.check_images(ImageSupport("halfblock", "no answer"), "auto")
    assert half.status == "warn" and half.fix
    piped = doctor.check_images(ImageSupport("halfblock", "no answer"), "auto", interactive=False)
    assert piped.status == "info"
    blocked = ImageSupport("kitty", "as set", blocked="tmux passes no kitty commands through")
    assert doctor.check_images(blocked, "kitty").status == "fail"


def test_tmux() -> None:
    assert doctor.check_tmux({}, lambda: None).detail == "not inside tmux"
    off = doctor.check_tmux({"TMUX": "/tmp/x,1,0"}, lambda: False)
    assert off.status == "warn" and off.fix == "tmux set -g allow-passthrough on"
    assert doctor.check_tmux({"TMUX": "/tmp/x,1,0"}, lambda: True).status == "ok"


def test_audio() -> None:
    ok = doctor.check_audio(True, lambda: AudioSupport(True), lambda: "pulse")
    assert ok.status == "ok" and "pulse" in ok.detail
    missing = doctor.check_audio(
        True, lambda: AudioSupport(False, "PortAudio library not found"), lambda: None
    )
    assert missing.status == "warn" and "libportaudio2" in (missing.fix or "")
    assert doctor.check_audio(False, lambda: AudioSupport(True), lambda: None).status == "info"


def test_paths(tmp_path: Path) -> None:
    assert doctor.check_writable("store", tmp_path / "new" / "sessions.db").status == "ok"
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    # A folder cannot be made under a file, whoever runs the test (root included).
    under_a_file = doctor.check_writable("store", blocker / "sessions.db")
    assert under_a_file.status == "fail" and under_a_file.fix
    assert doctor.check_config(tmp_path / "none.toml", given=False).status == "info"
    assert doctor.check_config(tmp_path / "none.toml", given=True).status == "fail"


def test_on_this_machine_it_names_images_audio_and_the_store(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["doctor", "--json"]) == 0
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert checks["images"]["detail"].split(":")[0] in ("kitty", "sixel", "halfblock", "none")
    assert checks["audio"]["status"] in ("ok", "warn")
    assert checks["audio"]["detail"]
    data_home = os.environ["XDG_DATA_HOME"]  # conftest points it at a temporary folder
    assert checks["session store"]["detail"].startswith(str(Path(data_home)))
    assert "log file" in checks and "terminal size" in checks and "tmux passthrough" in checks


def test_printed_report_has_one_line_per_check(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "60")  # narrower than the checks' lines: still one each
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    for name in ("images:", "audio:", "session store:", "log file:", "colours:"):
        assert name in out
    lines = out.splitlines()
    assert all(line.split()[0] in ("ok", "info", "warn", "FAIL") for line in lines), lines
    assert main(["doctor", "--json"]) == 0
    assert len(lines) == len(json.loads(capsys.readouterr().out)["checks"])


def test_a_wrong_key_says_it_was_refused_and_exits_non_zero(
    demo: DemoHost, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["doctor", "--host", demo.url, "--api-key", "wrong-key-5678"]) == 1
    out = capsys.readouterr().out
    (line,) = [line for line in out.splitlines() if "API key:" in line]
    assert "FAIL" in line and "the key was refused" in line
    assert "wrong-key-5678" not in out
    # What to do is said once (the host error's sentence says it).
    assert out.count("--api-key") == 1, out


def test_the_right_key_reports_versions_and_capabilities(
    demo: DemoHost, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["doctor", "--host", demo.url, "--api-key", demo.api_key, "--json"]) == 0
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert checks["API key"]["status"] == "ok"
    assert "v1" in checks["protocol"]["detail"]
    assert "media.image" in checks["capabilities"]["detail"]


def test_an_unreachable_host_fails_with_what_to_do(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--host", "http://127.0.0.1:9", "--json"]) == 1
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert checks["host"]["status"] == "fail" and checks["host"]["fix"]


def test_a_host_missing_the_universal_kinds_is_told(capsys: pytest.CaptureFixture[str]) -> None:
    import asyncio

    import httpx

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/.well-known/openwop":
            return httpx.Response(
                200, json={"protocolVersion": "1.0", "supportedEnvelopes": ["media.image"]}
            )
        return httpx.Response(404, json={"error": "not_found", "message": "no such run"})

    checks = asyncio.run(
        doctor.host_checks("http://host.test", "k", transport=httpx.MockTransport(answer))
    )
    (universal,) = [c for c in checks if c.name == "universal envelopes"]
    assert universal.status == "warn" and "schema.request" in universal.detail
    assert not doctor.failed(checks)


def test_a_path_with_controls_is_one_line_with_marks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The measured case (issue 23): a folder named with an OSC title sequence and a newline
    # (as XDG_CONFIG_HOME or XDG_DATA_HOME may name one) was printed raw: the terminal took
    # the title, and the newline printed a line that read as a failed check.
    evil = "\x1b]0;pwned\x07\nFAIL session store"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / f"conf{evil}"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / f"data{evil}"))
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    lines = out.splitlines()
    assert all(line.split()[0] in ("ok", "info", "warn", "FAIL") for line in lines), lines
    assert [line for line in lines if "FAIL" in line.split()[0]] == []
    assert "conf␛]0;pwned␇␊FAIL session store" in out


def test_what_the_host_takes_from_a_person_is_said(
    demo: DemoHost, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 25, part 4: pictures and sound read or not, the inline cap, the upload route."""
    assert main(["doctor", "--host", demo.url, "--api-key", demo.api_key, "--json"]) == 0
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    said = checks["attachments"]
    assert said["status"] == "ok"
    assert "pictures read; sound read" in said["detail"]
    assert "inline up to 262.1 KB" in said["detail"] and "/media/upload" in said["detail"]


def test_a_host_without_an_upload_route_or_vision_is_warned_about() -> None:
    doc = {"protocolVersion": "1.0", "modelCapabilities": {"advertised": ["tool-calling"]}}
    found = doctor.attachments_check(Discovery.from_document(doc, version_header=None))
    assert found.status == "warn" and found.fix is not None
    assert "no vision-input" in found.detail and "no upload route" in found.detail


def test_it_says_where_the_key_comes_from_never_the_key(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from keychain_support import no_keychain

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("OPENWOP_API_KEY", raising=False)
    assert main(["doctor", "--json", "--no-audio", "--api-key", "sk-doctor-1234"]) == 0
    out = capsys.readouterr().out
    checks = {c["name"]: c for c in json.loads(out)["checks"]}
    source = checks["API key source"]
    assert source["status"] == "ok" and source["detail"].startswith("from the command line; ")
    assert "system keychain" in source["detail"] and "sk-doctor" not in out
    # A config file holding a key that others may read: a warning saying how to close it.
    config = tmp_path / "config" / "openwop-tui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('api_key = "sk-doctor-5678"\n', encoding="utf-8")
    config.chmod(0o644)
    with no_keychain():
        assert main(["doctor", "--json", "--no-audio"]) == 0
    out = capsys.readouterr().out
    source = {c["name"]: c for c in json.loads(out)["checks"]}["API key source"]
    assert source["status"] == "warn" and "others may read it (644)" in source["detail"]
    assert source["detail"].startswith("from the config file")
    assert "chmod 600" in source["fix"] and "sk-doctor" not in out
    assert "no system keychain here" in doctor.check_key_source("", None, None).detail
