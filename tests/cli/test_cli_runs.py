"""``runs``: a host's runs from its run list (v2 ``GET /runs``, v1 ``GET /v1/runs``), over real
sockets to the demo host, with filters, a table and ``--json``; a host without a list says so."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from openwop_tui.__main__ import main
from openwop_tui.demo_host import DemoHost

pytestmark = pytest.mark.usefixtures("cli_isolated")


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[DemoHost, list[str]]]:
    """A v1+v2 demo host with three noop runs and a chat run, all finished."""
    with DemoHost(pace=0, protocol=2) as host:
        created: list[str] = []
        for workflow in ("conformance-noop", "conformance-noop", "conformance-noop", "demo.chat"):
            argv = ["run", workflow, "--host", host.url, "--api-key", host.api_key, "--json"]
            with pytest.MonkeyPatch.context() as patch:
                patch.setenv("OPENWOP_TUI_AUDIO", "off")
                import contextlib
                import io

                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    assert main(argv) == 0
            created.append(json.loads(out.getvalue().splitlines()[0])["runId"])
        yield host, created


def _args(host: DemoHost) -> list[str]:
    return ["--host", host.url, "--api-key", host.api_key]


def test_runs_table_lists_the_demo_hosts_runs_in_v2(
    served: tuple[DemoHost, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    host, created = served
    assert main(["runs", *_args(host)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "4 runs" in out[0]
    assert out[1].split() == ["RUN", "STATUS", "WORKFLOW", "STARTED", "ENDED"]
    rows = [line.split() for line in out[2:]]
    # v2 (the host speaks it): tenant-bound ids, newest first, one run a line.
    assert [row[0].split("/")[-1] for row in rows] == [r.split("/")[-1] for r in created[::-1]]
    assert all(row[0].startswith("demo/") for row in rows)
    assert [row[1] for row in rows] == ["completed"] * 4


@pytest.mark.parametrize("where", ["after", "before"])
def test_runs_filters_and_json(
    served: tuple[DemoHost, list[str]], capsys: pytest.CaptureFixture[str], where: str
) -> None:
    host, _ = served
    flags = ["--workflow", "demo.chat", "--status", "completed", "--json"]
    argv = ["runs", *flags, *_args(host)] if where == "after" else [*flags, "runs", *_args(host)]
    assert main(argv) == 0
    runs = json.loads(capsys.readouterr().out)
    assert [run["workflowId"] for run in runs] == ["demo.chat"]
    assert main(["runs", "--status", "failed,cancelled", *_args(host)]) == 0
    assert "no runs match" in capsys.readouterr().out


def test_runs_pages_until_the_limit(
    served: tuple[DemoHost, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    host, _ = served
    assert main(["runs", "--limit", "3", "--json", *_args(host)]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 3
    assert main(["runs", "--limit", "2", *_args(host)]) == 0
    assert "more on the host" in capsys.readouterr().out.splitlines()[0]


def test_runs_on_a_v1_host_uses_its_list(capsys: pytest.CaptureFixture[str]) -> None:
    with DemoHost(pace=0) as host:  # v1 only
        assert main(["run", "conformance-noop", *_args(host), "--json"]) == 0
        run_id = json.loads(capsys.readouterr().out.splitlines()[0])["runId"]
        assert main(["runs", "--json", *_args(host)]) == 0
        assert [run["runId"] for run in json.loads(capsys.readouterr().out)] == [run_id]


def test_a_v1_host_without_a_list_says_so_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from threading import Thread

    class NoList(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/.well-known/openwop":
                body = json.dumps({"protocolVersion": "1.0"}).encode()
                self.send_response(200)
            else:
                body = json.dumps({"error": {"code": "not_found", "message": "no"}}).encode()
                self.send_response(404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), NoList)
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        assert main(["runs", "--host", url]) == 2
    finally:
        server.shutdown()
        server.server_close()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the host serves no run list" in err
    assert "openwop-tui attach RUN_ID" in err


def test_an_unknown_status_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["runs", "--status", "done"])
    assert done.value.code == 2 and "unknown run status 'done'" in capsys.readouterr().err


def test_a_v2_host_without_run_list_says_so_without_asking(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A v2 host that advertises no ``runList`` is not asked for ``GET /runs`` (the family
    gates it): one line says it has no list."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from threading import Thread

    asked: list[str] = []

    class V2NoList(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            ok = self.path == "/.well-known/openwop"
            doc = {"protocolVersion": "2.0", "protocolVersions": ["2.0"]}
            body = json.dumps(doc if ok else {"error": {"code": "not_found"}}).encode()
            self.send_response(200 if ok else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("OpenWOP-Version", "2.0")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), V2NoList)
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        assert main(["runs", "--host", f"http://127.0.0.1:{server.server_address[1]}"]) == 2
    finally:
        server.shutdown()
        server.server_close()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no runList family" in err
    assert not any(path.split("?")[0] == "/runs" for path in asked)  # the list: never asked
