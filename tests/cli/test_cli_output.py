"""``render -`` draws as stdin arrives; ``workflows`` lists a host's catalog; piped output keeps
headers, URLs and errors on one line; the exit codes are documented where users look."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys

import httpx
import pytest
from paths import TESTS
from patience import PATIENCE

from openwop_tui.__main__ import main
from openwop_tui.cli.parser import build_parser
from openwop_tui.demo_host import DemoHost
from openwop_tui.demo_host.catalog import WORKFLOW_INFO
from openwop_tui.protocol import catalog
from openwop_tui.protocol.client import HostClient

CAPTURES = TESTS / "data" / "captures"
README = TESTS.parent / "README.md"


pytestmark = pytest.mark.usefixtures("cli_isolated_wide")


# ------------------------------------------------------------------------------ render -


def test_render_stdin_prints_the_first_item_before_stdin_is_closed() -> None:
    text = (CAPTURES / "python-host-noop.sse").read_text(encoding="utf-8")
    first_frame_end = text.index("\n\n") + 2
    env = {**os.environ, "NO_COLOR": "1", "OPENWOP_TUI_AUDIO": "off"}
    process = subprocess.Popen(
        [sys.executable, "-m", "openwop_tui", "render", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(text[:first_frame_end].encode())
        process.stdin.flush()
        # The first line must come while stdin is still open. The wait is a safety net that
        # turns "never printed" into a failure, not a measure of speed.
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            assert selector.select(timeout=60), "nothing printed before stdin was closed"
        first = process.stdout.readline().decode()
        assert "run started" in first
        out, _ = process.communicate(text[first_frame_end:].encode(), timeout=PATIENCE)
    finally:
        process.kill()
    assert process.returncode == 0
    assert "run completed" in out.decode()


# ---------------------------------------------------------------------------- workflows


def test_workflows_lists_the_demo_hosts_workflows_and_agents(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["workflows", "--demo-pace", "0"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert f"· {len(WORKFLOW_INFO)} workflows" in lines[0]
    for workflow_id, info in WORKFLOW_INFO.items():
        assert any(line.startswith(workflow_id) and info.name in line for line in lines)
    # What each agent cannot read is said where it is true: the text-only one, not demo.chat's.
    assert "Demo assistant · persona demo-assistant · chat\n" in out
    assert (
        "Text-only assistant · persona text-only-assistant · chat · "
        "degraded: vision-input, audio-input"
    ) in out


def test_workflows_json_merges_fixtures_listing_and_agents(
    host: DemoHost, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["workflows", "--host", host.url, "--api-key", host.api_key, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [w["id"] for w in listed] == list(WORKFLOW_INFO)
    chat = next(w for w in listed if w["id"] == "demo.chat")
    assert chat["label"] == "Demo chat" and "chat" in chat["tags"]
    assert chat["agents"] == [
        {
            "agentId": "agent:demo",
            "persona": "demo-assistant",
            "label": "Demo assistant",
            "modelClass": "chat",
            "degraded": [],
        }
    ]
    text = next(w for w in listed if w["id"] == "demo.text")
    assert text["agents"] == [
        {
            "agentId": "agent:demo-text",
            "persona": "text-only-assistant",
            "label": "Text-only assistant",
            "modelClass": "chat",
            "degraded": ["vision-input", "audio-input"],
        }
    ]


def test_workflows_with_a_wrong_key_exits_2(
    host: DemoHost, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["workflows", "--host", host.url, "--api-key", "sk-wrong-key-value"]) == 2
    out, err = capsys.readouterr()
    assert "API key" in err and "sk-wrong-key-value" not in out + err


async def test_catalog_without_a_listing_reads_each_definition() -> None:
    # A host like the reference ones: fixtures in discovery, no GET /v1/workflows, a
    # definition per workflow, no agents listing.
    def answer(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/.well-known/openwop":
            return httpx.Response(200, json={"protocolVersion": "1.0", "fixtures": ["a", "b"]})
        if path == "/v1/workflows/a":
            nodes = [{"id": "n", "agent": {"agentId": "ag"}}]
            return httpx.Response(200, json={"id": "a", "name": "Alpha\x1b[31m", "nodes": nodes})
        return httpx.Response(404, json={"error": "not_found", "message": "no"})

    async with HostClient("http://h.test", transport=httpx.MockTransport(answer)) as client:
        choices = await catalog.load_catalog(client)
    assert [c.id for c in choices] == ["a", "b"]
    label = choices[0].label
    assert label is not None and label.startswith("Alpha") and "\x1b" not in label
    assert choices[1].label is None
    assert choices[0].agents == (catalog.AgentInfo("ag"),)


def test_one_obvious_choice() -> None:
    one, two = catalog.WorkflowChoice("one"), catalog.WorkflowChoice("two")
    assert catalog.obvious_choice([one]) is one
    assert catalog.obvious_choice([one, two]) is None
    marked = catalog.WorkflowChoice("two", default=True)
    assert catalog.obvious_choice([one, marked]) is marked
    assert catalog.obvious_choice([one, two], preferred="two") is two
    assert catalog.obvious_choice([one, two], preferred="gone") is None
    assert catalog.obvious_choice([]) is None


# ----------------------------------------------------------------------- piped output


def test_piped_run_output_keeps_headers_and_errors_on_one_line(
    host: DemoHost, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    base = host.url.replace("http://", "http://bob:hunter2@") + "/v1"
    args = ["run", "demo.chat", "--host", base, "--api-key", host.api_key, "--message", "fail"]
    assert main(args) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    # The header names the host as the client reaches it: no credentials, no trailing /v1.
    assert lines[0].endswith(f"at {host.url} · protocol 1.0"), lines[0]
    assert "hunter2" not in out
    assert any(
        "run failed at node explode" in line and line.endswith("so this node did.")
        for line in lines
    ), out


# ------------------------------------------------------------------------- exit codes


@pytest.mark.parametrize("command", [[], ["run"], ["attach"], ["render"], ["workflows"]])
def test_exit_codes_are_in_the_help(command: list[str]) -> None:
    parser = build_parser()
    if command:
        actions = [a for a in parser._actions if a.dest == "command"]
        parser = actions[0].choices[command[0]]  # type: ignore[index]
    text = parser.format_help()
    for line in ("0    the run completed", "1    the run failed", "2    a usage error"):
        assert line in text
    assert "3    the host refused the request" in text
    assert "130  interrupted by Ctrl-C" in text


def test_exit_codes_are_in_the_readme() -> None:
    text = README.read_text(encoding="utf-8")
    for code in ("| 0 |", "| 1 |", "| 2 |", "| 3 |", "| 70 |", "| 130 |"):
        assert code in text
