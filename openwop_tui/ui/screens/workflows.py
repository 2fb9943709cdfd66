"""The workflow picker: what a host offers to talk to, one to choose.

Given the `~openwop_tui.protocol.catalog.WorkflowChoice` list of
`~openwop_tui.protocol.catalog.load_catalog`, it
shows each workflow's title, id, description and agents (persona, model class, what runs
degraded: `~openwop_tui.protocol.catalog.describe`). Enter takes the highlighted one
(`WorkflowChosen`
is posted and the screen is dismissed with its id); Esc dismisses it with ``None``. The host's
default, or ``current``, is highlighted first. Everything shown is literal text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from openwop_tui.protocol.catalog import WorkflowChoice, describe
from openwop_tui.text.sanitize import HostText, clean_label
from openwop_tui.ui.messages import WorkflowChosen

HINT = "Enter takes the highlighted workflow · Esc cancels"


def choice_text(choice: WorkflowChoice, *, current: bool = False) -> Text:
    """A workflow's lines in the list: title and id, then description and agents, dimmed."""
    text = Text(clean_label(choice.title), style="bold")
    if choice.label:
        text.append(f"  {clean_label(choice.id)}", style="dim")
    marks = [m for m, on in (("default", choice.default), ("in use", current)) if on]
    if marks:
        text.append(f"  ({', '.join(marks)})", style="italic")
    # Both cleaned where they entered: the catalog's host answers went through `host_value`.
    for line in (choice.description, describe(choice)):
        if line:
            text.append("\n  " + " ".join(line.split()), style="dim")
    return text


class WorkflowPicker(ModalScreen[str | None]):
    """Choose a workflow; dismissed with its id, or ``None`` (Esc)."""

    DEFAULT_CSS = """
    WorkflowPicker { align: center middle; }
    WorkflowPicker > Vertical {
        width: 100; max-width: 100%; height: auto; max-height: 100%; margin: 1 2;
        background: $panel; border: round $primary; padding: 0 1;
    }
    WorkflowPicker OptionList { height: auto; max-height: 24; }
    WorkflowPicker #workflow-note { color: $text-muted; height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        choices: Sequence[WorkflowChoice],
        *,
        current: str | None = None,
        announce: bool = True,
    ) -> None:
        """List ``choices``, ``current`` highlighted; ``announce``: a workflow taken is also
        posted to the app as `WorkflowChosen` (the chat runs it at once); else it is only the
        screen's answer (the settings screen fills its field with it)."""
        super().__init__()
        self.choices = list(choices)
        self.current = current
        self.announce = announce

    def compose(self) -> ComposeResult:
        with Vertical() as panel:
            panel.border_title = "Workflows"
            yield OptionList(
                *(Option(choice_text(c, current=c.id == self.current)) for c in self.choices)
            )
            note = HINT if self.choices else "This host lists no workflows. Esc closes."
            yield Static(note, id="workflow-note", markup=False)

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        first = next(
            (i for i, c in enumerate(self.choices) if c.id == self.current),
            next((i for i, c in enumerate(self.choices) if c.default), 0),
        )
        if self.choices:
            options.highlighted = first
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter (or a click) on a workflow: take it."""
        event.stop()
        workflow_id = self.choices[event.option_index].id
        if self.announce:
            # The catalog's id (through `host_value`); the screen is going away.
            self.app.post_message(WorkflowChosen(HostText(workflow_id)))
        self.dismiss(workflow_id)

    def action_cancel(self) -> None:
        self.dismiss(None)
