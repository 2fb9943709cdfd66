"""Question forms reachable by keyboard (issue 15, Build 3): Esc or Shift+Tab out of a form
left no keyboard way back; F5 / Alt+A (and the palette's "Answer the open question") go back
from the prompt, and the footer shows that key only while a form is open. A choice question has
one control, its list.

Real demo host over loopback, Pilot keys. Without `InterruptsController.focus_open_form` the key
does nothing; without the app's `check_action` the footer names it with no form open; without
the form's one-control rule the choice question shows a visible text line beside its list.
"""

from __future__ import annotations

from app_support import SIZE, connected, demo_app, record_notifications, send, settle
from textual.widgets import Input, OptionList

from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.widgets.interrupt_form import InterruptForm
from openwop_tui.ui.widgets.prompt import PromptInput


def _footer_keys(app: ChatApp) -> set[str]:
    """The actions the footer shows as usable now."""
    return {
        active.binding.action for active in app.screen.active_bindings.values() if active.enabled
    }


async def test_f5_goes_back_from_the_prompt_to_the_open_form() -> None:
    app = demo_app(workflow="demo.clarify")
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        assert "focus_form" not in _footer_keys(app)  # nothing to answer yet
        await send(pilot, app, "go")
        await settle(pilot, app, lambda: bool(app.query(InterruptForm)), what="the form")
        form = app.query_one(InterruptForm)
        await pilot.pause()
        assert form.query_one(OptionList).has_focus
        # One control per question: the choice question has its list and no visible line.
        assert len([line for line in form.query(Input).results() if line.display]) == 1
        assert len(form.query(OptionList)) == 1
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.focused, PromptInput)
        assert "focus_form" in _footer_keys(app)
        await pilot.press("f5")
        await pilot.pause()
        assert app.focused is not None and form in app.focused.ancestors_with_self
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("alt+a")
        await pilot.pause()
        assert app.focused is not None and form in app.focused.ancestors_with_self
        await pilot.press("escape")
        await app.run_action("focus_form")  # what the palette's command runs
        await pilot.pause()
        assert app.focused is not None and form in app.focused.ancestors_with_self


async def test_f5_without_a_form_leaves_the_prompt_focused() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        notes = record_notifications(app)
        await pilot.press("f5")
        await pilot.pause()
        assert isinstance(app.focused, PromptInput) and not notes
