"""Answer flags on ``run`` and ``attach`` (issue 15 item 5, the command-line part).

Flags that cannot answer what the run asks exit at once with the reason (exit 2) instead of
printing it and waiting until killed; an answered question is not asked again when the replay
of ``attach --from`` catches up with the answer; ``--from`` past a run's end says how many
events the run has. Against a real embedded demo host over loopback; runs that flags answer get
an interrupt deadline (``timeoutMs``) as a safety net, so a command that waited by mistake ends
(exit 1) instead of hanging the suite.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import httpx
import pytest
from hitl_support import Log, start
from installed import printing_env, run_installed
from rich.console import Console

from openwop_tui.__main__ import main
from openwop_tui.cli.answering import AnswerFlags, Asker, HowTo
from openwop_tui.core.fold import Added, Transcript
from openwop_tui.core.items import Interrupt
from openwop_tui.demo_host import DemoHost
from openwop_tui.protocol.events import normalize

SAFETY = {"timeoutMs": 600_000}


pytestmark = pytest.mark.usefixtures("cli_isolated_wide")


def on(host: DemoHost) -> list[str]:
    return ["--host", host.url, "--api-key", host.api_key]


def waiting(client: httpx.Client, workflow: str, event: str) -> tuple[str, dict[str, Any]]:
    run_id = start(client, workflow, **SAFETY)
    return run_id, Log(client, run_id).wait_for(event)


def test_refine_on_an_approval_that_offers_none_exits_2_at_once(
    host: DemoHost, client: httpx.Client, capsys: pytest.CaptureFixture[str]
) -> None:
    run_id, _ = waiting(client, "conformance-approval", "interrupt.requested")
    assert main(["attach", run_id, *on(host), "--feedback", "shorter"]) == 2
    err = capsys.readouterr().err
    assert "openwop-tui: this approval does not offer 'refine'; it offers: accept, reject" in err
    assert "--approve | --reject" in err  # how to answer it instead
    assert "Nothing was sent; the run waits at the host" in err
    assert client.get(f"/v1/runs/{run_id}").json()["status"].startswith("waiting")


def test_an_unknown_question_id_exits_2_at_once(
    host: DemoHost, client: httpx.Client, capsys: pytest.CaptureFixture[str]
) -> None:
    run_id, _ = waiting(client, "demo.clarify", "interrupt.requested")
    assert main(["attach", run_id, *on(host), "--answer", "nope=1"]) == 2
    err = capsys.readouterr().err
    assert "no question 'nope' here; the questions are: colour, name" in err
    assert "--answer colour=VALUE --answer name=VALUE" in err
    # At once: the run still waits (a command that waited would have seen it time out).
    assert client.get(f"/v1/runs/{run_id}").json()["status"].startswith("waiting")


def test_a_value_the_question_refuses_exits_2_at_once(
    host: DemoHost, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["run", "demo.clarify", *on(host), "--input", '{"timeoutMs": 60000}']
    assert main([*args, "--answer", "colour=teal", "--answer", "name=Ann"]) == 2
    assert "takes one of: red, green, blue, purple (got 'teal')" in capsys.readouterr().err


def test_attach_from_2_with_approve_answers_once_and_completes(
    host: DemoHost, client: httpx.Client, capsys: pytest.CaptureFixture[str]
) -> None:
    run_id, _ = waiting(client, "demo.approve", "interrupt.requested")
    assert main(["attach", run_id, *on(host), "--from", "2", "--approve"]) == 0
    out, err = capsys.readouterr()
    assert out.count("the run waits for approval at node review") == 1
    assert out.count("✓ answered at node review: accept") == 1
    assert "waits for an answer" not in err and "run completed" in out


def test_the_replay_catching_up_after_the_answer_is_not_a_new_question() -> None:
    """``attach --from`` answers the snapshot's question, and the replay may reach the events
    that asked it only afterwards: the reference hosts' ``node.suspended`` names no
    interrupt, so it used to be taken for a new question (asked again)."""
    snapshot = {
        "runId": "r1",
        "status": "waiting-approval",
        "interrupt": {"kind": "approval", "nodeId": "review", "interruptId": "i1", "payload": {}},
    }
    transcript = Transcript()
    [added] = [c for c in transcript.take_snapshot_question(snapshot) if isinstance(c, Added)]
    assert isinstance(added.item, Interrupt)
    transcript.interrupt_answered(added.item, {"action": "accept"})

    def ev(seq: int, type_: str, **payload: Any) -> Any:
        doc = {"type": type_, "sequence": seq, "runId": "r1", "nodeId": "review"}
        return normalize({**doc, "payload": payload})

    late = [
        ev(11, "node.started"),
        ev(12, "node.suspended", kind="approval"),
        ev(13, "interrupt.requested", kind="approval", interruptId="i1"),
    ]
    for event in late:
        added_items = [c.item for c in transcript.apply(event) if isinstance(c, Added)]
        assert [i for i in added_items if isinstance(i, Interrupt)] == []
    assert transcript.pending_interrupts() == []
    # Once the node has moved on, the same node suspending again is a new question.
    transcript.apply(ev(15, "node.resumed"))
    again = transcript.apply(ev(16, "node.suspended", kind="approval"))
    assert [c for c in again if isinstance(c, Added) and isinstance(c.item, Interrupt)] != []


def test_from_past_the_end_says_how_many_events_the_run_has(
    host: DemoHost, client: httpx.Client, capsys: pytest.CaptureFixture[str]
) -> None:
    done = start(client, "conformance-noop")
    last = Log(client, done).to_end()[-1]["sequence"]
    assert main(["attach", done, *on(host), "--from", "100"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    count = last + 1
    assert (
        f"has {count} events (sequences 0 to {last}), so sequence 100 is past its end. "
        f"The run is completed. See its events with: openwop-tui attach {done} --host {host.url}"
    ) in out
    assert f"(with --from N, N up to {last}, to begin part way)" in out
    assert "missed" not in out and "missing" not in out
    assert "run completed" in out


def test_the_installed_command_attached_past_a_runs_end_says_its_true_length(
    host: DemoHost, tmp_path: Path
) -> None:
    """``openwop-tui run`` then ``attach RUN --from 99``, as a user types them."""
    env = printing_env(
        tmp_path,
        columns=300,
        XDG_DATA_HOME=str(tmp_path / "data"),
        OPENWOP_API_KEY=host.api_key,
    )

    def command(*args: str) -> str:
        return run_installed([*args, "--host", host.url], env).stdout

    ran = command("run", "conformance-noop")
    run_id = ran.split("\n")[1].split()[1]  # "run <id> · <workflow>" under the header
    events = httpx.get(
        f"{host.url}/v1/runs/{run_id}/events/poll",
        params={"afterSequence": "-1", "timeout": "0"},
        headers={"Authorization": f"Bearer {host.api_key}"},
    ).json()["events"]
    last = events[-1]["sequence"]
    assert last < 98
    out = command("attach", run_id, "--from", "99")
    assert f"Run {run_id} has {last + 1} events (sequences 0 to {last}), so sequence 99 is " in out
    assert "99 events" not in out


class _Conversation:
    run_id = "run-9"


async def test_flags_on_a_pause_with_nothing_to_resolve_stop_the_command() -> None:
    """The Postgres host's low-confidence pause: ``node.suspended`` and no interrupt."""
    transcript = Transcript()
    pause = normalize(
        {
            "type": "node.suspended",
            "sequence": 3,
            "runId": "run-9",
            "nodeId": "decide",
            "payload": {"reason": "low-confidence", "agentId": "a", "threshold": 0.7},
        }
    )
    [added] = [c for c in transcript.apply(pause) if isinstance(c, Added)]
    err = io.StringIO()
    stopped = asyncio.Event()
    asker = Asker(
        _Conversation(),  # type: ignore[arg-type]  # nothing is sent: no conversation needed
        AnswerFlags.parse(None, approve=True),
        Console(file=io.StringIO()),
        interactive=False,
        howto=HowTo("http://h", lambda r, n: "", lambda t: "", keyed=False),
        err=err,
        on_refused=stopped.set,
    )
    await asker.handle(added)
    await asyncio.wait_for(stopped.wait(), 30)  # a safety bound, not a measure
    await asker.close()
    assert asker.refused is not None and "offers no interrupt to resolve" in asker.refused
    assert "the answer flags cannot apply" in err.getvalue()
