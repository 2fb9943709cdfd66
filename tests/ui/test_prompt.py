"""The message input remembers what was sent, as a shell does."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.events import Key, Paste

from openwop_tui.ui.messages import MessageSubmitted
from openwop_tui.ui.widgets.prompt import BUSY_PLACEHOLDER, IDLE_PLACEHOLDER, PromptInput


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


class SendingHost(App[None]):
    """The prompt alone, keeping what it sent."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[str] = []

    def compose(self) -> ComposeResult:
        yield PromptInput(id="prompt")

    def on_message_submitted(self, message: MessageSubmitted) -> None:
        self.sent.append(message.text)


async def test_enter_sends_and_empties_the_prompt() -> None:
    app = SendingHost()
    async with app.run_test() as pilot:
        await pilot.press(*"hello", "enter")
        assert app.sent == ["hello"]
        assert app.query_one(PromptInput).text == ""
        await pilot.press("enter")  # nothing typed: nothing sent
        await pilot.press("space", "enter")
        assert app.sent == ["hello"]


async def test_ctrl_j_and_shift_enter_insert_a_newline_and_enter_sends_every_line() -> None:
    app = SendingHost()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press(*"one", "ctrl+j", *"two", "shift+enter", *"three")
        assert prompt.text == "one\ntwo\nthree"
        assert app.sent == []
        await pilot.press("enter")
        assert app.sent == ["one\ntwo\nthree"]


async def test_keys_typed_in_a_burst_are_taken_in_order() -> None:
    """A terminal delivers "hi⏎there⏎" in one read: the Enters must see the text before them
    (a priority binding runs ahead of the queued letters, an ordinary one behind the later ones)."""
    app = SendingHost()
    async with app.run_test() as pilot:
        assert app.query_one(PromptInput).has_focus
        for key, character in [*(("h", "h"), ("i", "i")), ("ctrl+j", "\n"), ("x", "x"),
                               ("enter", "\r"), ("y", "y"), ("enter", "\r")]:  # fmt: skip
            app.post_message(Key(key, character))  # as the driver does
        await pilot.pause()
        assert app.sent == ["hi\nx", "y"]


async def test_a_pasted_text_keeps_every_line() -> None:
    app = SendingHost()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        app.post_message(Paste("first\r\nsecond\rthird"))  # as the driver does
        await pilot.pause()
        assert prompt.text == "first\nsecond\nthird"
        assert prompt.document.line_count == 3
        await pilot.press("enter")
        assert app.sent == ["first\nsecond\nthird"]


async def test_up_recalls_only_on_the_first_line_and_down_only_on_the_last() -> None:
    app = SendingHost()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        prompt.remember("earlier")
        prompt.value = "line one\nline two\nline three"  # the cursor is at the end
        await pilot.press("up")
        assert prompt.text == "line one\nline two\nline three"
        assert prompt.cursor_location[0] == 1
        await pilot.press("up")
        assert prompt.cursor_location[0] == 0
        await pilot.press("up")  # on the first line: the earlier message
        assert prompt.text == "earlier"
        await pilot.press("down")  # one line: it is the last too, back to the draft
        assert prompt.text == "line one\nline two\nline three"
        prompt.move_cursor((0, 0))
        await pilot.press("down")  # not the last line: the cursor moves
        assert prompt.cursor_location[0] == 1
        assert prompt.text == "line one\nline two\nline three"


async def test_a_soft_wrapped_line_is_several_lines_for_up() -> None:
    app = SendingHost()
    async with app.run_test(size=(30, 10)) as pilot:
        prompt = app.query_one(PromptInput)
        prompt.remember("earlier")
        prompt.value = "word " * 20  # one line, wrapped on screen
        await pilot.pause()
        await pilot.press("up")
        assert prompt.text == "word " * 20
        assert prompt.wrapped_document.location_to_offset(prompt.cursor_location).y > 0


async def test_send_and_newline_keys_follow_the_keymap() -> None:
    app = SendingHost()
    app.set_keymap({"send": "ctrl+r", "newline": "enter"})
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press(*"a", "enter", *"b")
        assert prompt.text == "a\nb"
        await pilot.press("ctrl+r")
        assert app.sent == ["a\nb"]
