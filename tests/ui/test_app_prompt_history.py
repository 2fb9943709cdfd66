"""↑ after a restart recalls the last message sent to that host (issue 27 part 5): the prompt's
history is kept per host in the state folder (`openwop_tui.store.prompt_history`), read once the
first frame is drawn. Two app lifetimes on the same embedded demo host settings, and another
host's history kept apart."""

from __future__ import annotations

from app_support import NO_AUDIO, SIZE, demo_app, send, settle

from openwop_tui.config import Config
from openwop_tui.demo_host import DemoHost
from openwop_tui.store.prompt_history import MAX_CHARS, MAX_KEPT, PromptHistory, history_path
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.controllers.recall import EMBEDDED
from openwop_tui.ui.options import AppOptions
from openwop_tui.ui.widgets.prompt import PromptInput


async def _sent_and_kept(text: str) -> None:
    app = demo_app(images="halfblock")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, app, text)
        await settle(pilot, app, lambda: text in PromptHistory(EMBEDDED).load(), what="kept")


async def test_up_after_a_restart_recalls_the_last_message(host: DemoHost) -> None:
    await _sent_and_kept("the first question")
    await _sent_and_kept("the last question")
    app = demo_app(images="halfblock")
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one(PromptInput)
        await settle(pilot, app, lambda: bool(prompt._sent), what="the history read")
        prompt.focus()
        await pilot.press("up")
        assert prompt.text == "the last question"
        await pilot.press("up")
        assert prompt.text == "the first question"
    # Another host has a history of its own.
    other = ChatApp(
        Config(host=host.url, api_key=host.api_key, images="halfblock"),
        AppOptions(),
        audio_support=NO_AUDIO,
    )
    async with other.run_test(size=SIZE) as pilot:
        await other.workers.wait_for_complete()
        prompt = other.query_one(PromptInput)
        prompt.focus()
        await pilot.press("up")
        assert prompt.text == ""


def test_the_history_is_bounded_and_kept_from_the_user_s_eyes_only(tmp_path: object) -> None:
    history = PromptHistory("https://host.example")
    for n in range(2 * MAX_KEPT + 10):
        history.add(f"message {n}")
    history.add("x" * (MAX_CHARS + 1))  # a pasted document: sent, not kept for ↑
    history.add("   ")
    again = PromptHistory("https://host.example")
    kept = again.load()
    assert len(kept) == MAX_KEPT and kept[-1] == f"message {2 * MAX_KEPT + 9}"
    path = history_path("https://host.example")
    assert len(path.read_text().splitlines()) < 2 * MAX_KEPT  # compacted
    assert path.stat().st_mode & 0o077 == 0
    assert "host.example" not in path.name


def test_a_damaged_history_reads_as_what_can_be_read() -> None:
    path = history_path("h")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b'{"text": "kept"}\nnot json\n\xff\xfe\n{"text": 3}\n[1]\n{"text": "also"}\n')
    assert PromptHistory("h").load() == ["kept", "also"]


async def test_a_secret_typed_into_a_message_is_kept_masked() -> None:
    from app_support import connected

    from openwop_tui.text.redact import MASK

    app = demo_app(images="halfblock", api_key="sk-typed-by-mistake-4242")
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await send(pilot, app, "is sk-typed-by-mistake-4242 my key?")
        await settle(pilot, app, lambda: bool(PromptHistory(EMBEDDED).load()), what="kept")
    (kept,) = PromptHistory(EMBEDDED).load()
    assert kept == f"is {MASK} my key?"
    assert "4242" not in history_path(EMBEDDED).read_text()
