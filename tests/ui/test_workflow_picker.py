"""The workflow picker: Enter takes the highlighted workflow, Esc cancels, and what a host wrote
is shown as literal text."""

from __future__ import annotations

from textual.app import App
from textual.widgets import OptionList

from openwop_tui.protocol.catalog import AgentInfo, WorkflowChoice
from openwop_tui.ui.messages import WorkflowChosen
from openwop_tui.ui.screens.workflows import WorkflowPicker

CHOICES = [
    WorkflowChoice("conformance-clarification"),
    WorkflowChoice(
        "support.triage",
        label="Support triage",
        description="Sorts tickets [bold]by urgency[/]",
        agents=(AgentInfo("agent:t", "triager", "Triage", "small", ("vision-input",)),),
    ),
    WorkflowChoice("conformance-approval", default=True),
]


class PickerHost(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[WorkflowChosen] = []
        self.result: list[str | None] = []

    def on_workflow_chosen(self, message: WorkflowChosen) -> None:
        self.seen.append(message)


async def test_enter_takes_the_highlighted_workflow() -> None:
    app = PickerHost()
    async with app.run_test(size=(110, 30)) as pilot:
        app.push_screen(WorkflowPicker(CHOICES), app.result.append)
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        assert options.highlighted == 2  # the host's default first
        await pilot.press("up", "enter")
        await pilot.pause()
        assert app.result == ["support.triage"]
        assert app.seen == [WorkflowChosen("support.triage")]
        assert not isinstance(app.screen, WorkflowPicker)


async def test_the_workflow_in_use_is_highlighted_and_esc_cancels() -> None:
    app = PickerHost()
    async with app.run_test(size=(110, 30)) as pilot:
        app.push_screen(
            WorkflowPicker(CHOICES, current="conformance-clarification"), app.result.append
        )
        await pilot.pause()
        assert app.screen.query_one(OptionList).highlighted == 0
        await pilot.press("escape")
        await pilot.pause()
        assert app.result == [None] and app.seen == []


async def test_labels_agents_and_degraded_capabilities_are_shown_literally() -> None:
    app = PickerHost()
    async with app.run_test(size=(110, 30)) as pilot:
        app.push_screen(WorkflowPicker(CHOICES))
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        text = str(options.get_option_at_index(1).prompt)
        assert "Support triage" in text and "support.triage" in text
        assert "[bold]by urgency[/]" in text
        assert "persona triager" in text and "small" in text and "degraded: vision-input" in text
