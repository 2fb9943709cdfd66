"""The message input remembers what was sent, as a shell does."""

from __future__ import annotations

from textual.app import App, ComposeResult

from openwop_tui.widgets.prompt import BUSY_PLACEHOLDER, IDLE_PLACEHOLDER, PromptInput


class PromptHost(App[None]):
    def compose(self) -> ComposeResult:
        yield PromptInput(id="prompt")


async def test_up_and_down_walk_the_sent_messages_and_keep_the_draft() -> None:
    app = PromptHost()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        for text in ("first", "second", "second"):
            prompt.remember(text)
        prompt.value = "draft"
        await pilot.press("up")
        assert prompt.value == "second"
        await pilot.press("up")
        assert prompt.value == "first"
        await pilot.press("up")  # stays at the oldest
        assert prompt.value == "first"
        await pilot.press("down", "down")
        assert prompt.value == "draft"
        assert prompt.cursor_location == (0, len("draft"))


async def test_placeholder_says_when_a_run_is_in_progress() -> None:
    app = PromptHost()
    async with app.run_test():
        prompt = app.query_one(PromptInput)
        prompt.set_busy(True)
        assert prompt.placeholder == BUSY_PLACEHOLDER
        prompt.set_busy(False)
        assert prompt.placeholder == IDLE_PLACEHOLDER
