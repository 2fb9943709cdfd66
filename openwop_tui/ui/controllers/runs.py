"""The app's runs beyond a chat turn: following a run someone else started, playing a
recording, and choosing the workflow each message runs.

Functions of the `openwop_tui.ui.app.ChatApp` they are given (its workers call these), kept apart
so the app module stays about composition and routing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from openwop_tui.protocol.catalog import load_catalog, obvious_choice
from openwop_tui.protocol.errors import HostError
from openwop_tui.store.record import replay_frames
from openwop_tui.ui.screens.ask import AskScreen
from openwop_tui.ui.screens.workflows import WorkflowPicker
from openwop_tui.ui.widgets.prompt import PromptInput

if TYPE_CHECKING:
    from openwop_tui.ui.app import ChatApp


async def follow_run(app: ChatApp, run_id: str) -> None:
    """A run this client did not start, from its first event to its end. Stopping only stops
    following: nothing is cancelled."""
    prompt = app._part(PromptInput)
    app._busy = True
    prompt.set_busy(True)
    try:
        await app._notice("info", f"attaching to run {run_id}")
        async for update in app.conversation.attach(run_id):
            await app._draw([update])
    except HostError as error:
        await app._notice("error", error.message)
    finally:
        await app._run_ended(prompt)


def ask_for_run(app: ChatApp) -> None:
    """The palette's Attach: ask for a run id, then follow that run."""
    if app.session is None or app.session.discovery is None:
        app.notify("Not connected to a host yet.", severity="warning")
        return
    if app._busy:
        app.notify("A run is in progress: attach when it has ended.")
        return

    def chosen(run_id: str | None) -> None:
        if run_id:
            app.follow_run(run_id)

    app.push_screen(AskScreen("Attach to run", "the run id, as the host gave it"), chosen)


async def choose_workflow(app: ChatApp, *, ask: bool = False) -> None:
    """Decide what each message runs, from what the host offers (discovery ``fixtures``,
    ``/workflows``, ``/agents``): the configured workflow when the host has it, else the one
    obvious choice, else the picker (messages typed meanwhile wait in the queue). ``ask``:
    always show the picker (the palette's Pick a workflow)."""
    assert app.session is not None and app._client is not None
    try:
        choices = await load_catalog(app._client)
    except HostError as error:
        await app._notice("warning", f"could not list the host's workflows: {error.message}")
        choices = []
    current = app.session.workflow_id
    ids = [choice.id for choice in choices]
    chosen = None if ask else obvious_choice(choices, preferred=current)
    if not choices or (chosen is not None and chosen.id == current):
        app.call_later(app._send_queued)
        return
    if chosen is not None:
        use_workflow(app, chosen.id, "the host's only or default workflow")
        return
    if not ask and current not in ids:
        await app._notice(
            "info",
            f"this host has no workflow {current!r}: pick one of its {len(ids)} (Enter takes "
            "the highlighted one)",
        )
    app._picking = True

    def picked(workflow_id: str | None) -> None:
        app._picking = False
        if workflow_id:
            use_workflow(app, workflow_id, "picked")
        else:
            app.call_later(app._send_queued)

    app.push_screen(WorkflowPicker(choices, current=current), picked)


def use_workflow(app: ChatApp, workflow_id: str, why: str) -> None:
    """Run ``workflow_id`` for every message from now on, and say so."""
    assert app.session is not None
    app.session.workflow_id = workflow_id
    app.status.workflow = workflow_id
    app.notify(f"chatting with workflow {workflow_id} ({why})", markup=False)
    app.call_later(app._send_queued)


async def play_recording(app: ChatApp, path: Path, speed: float) -> None:
    """``replay FILE``: the recording's events through the same fold and view, paced."""
    app.status.host = f"replay of {path.name}"
    app.status.connection = "replaying"
    try:
        async for entry in replay_frames(path, speed):
            await app._draw(app.conversation.replay(entry))
        await app._draw(app.conversation.finish_replay())
    except OSError as error:
        await app._notice("error", f"cannot read {path}: {error.strerror or error}")
    app.status.connection = "replayed"
    await app._notice("info", "End of the recording. Nothing here talks to a host.")
