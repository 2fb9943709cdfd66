"""The app's first frame waits for nothing it does not draw (issue 26).

As the program starts it (`AppOptions.draw_first`), the chat itself is made after the first
frame (`openwop_tui.ui.first_frame`): its controllers, the conversation pipeline, the store and
the renderers are not even imported before it (`test_the_program_draws_before_the_chat_is_made`).

A fresh interpreter starts the real `ChatApp` on the embedded demo host (``images`` half-block,
off-screen under `App.run_test`) and notes ``sys.modules`` the moment the first frame has been
drawn, which is when the app starts reaching its host (`ChatApp.start_connecting`, called
after the first refresh). What is not in that list was not paid for before the first frame: a
change that imports one of these early again fails here, by name.

The connection's own modules (httpx, the demo host) load after that, in a worker and its
threads, while the screen already says it is connecting, and what draws a reply once the host
is reached (`openwop_tui.ui.warming`), with the common languages' lexers compiled
(`openwop_tui.draw.lexers`); the test checks that too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from patience import PATIENCE

_PROBE = """
import asyncio, json, sys, threading
from openwop_tui.config import Config
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.widgets.prompt import PromptInput

seen = {}
start = ChatApp.start_connecting

def noted(app):
    # The first frame is drawn: what is loaded now is what it cost.
    if "modules" not in seen:
        seen["modules"] = sorted(sys.modules)
        seen["connection"] = str(app.status.connection)
        seen["prompt"] = app.query_one(PromptInput).placeholder
    start(app)

ChatApp.start_connecting = noted

async def main():
    app = ChatApp(Config(host=None, audio=False, images="halfblock", demo_pace=0))
    async with app.run_test(size=(120, 40)) as pilot:
        while "modules" not in seen:
            await pilot.pause()
        await app.workers.wait_for_complete()
        seen["then"] = str(app.status.connection)
        for thread in threading.enumerate():
            if thread.name == "openwop-draw-warm":
                thread.join()
        later = ("httpx", "openwop_tui.demo_host", "openwop_tui.draw.markdown", "rich.syntax")
        seen["later"] = [m for m in later if m in sys.modules]
        # (Each common language's lexer class, its rules compiled: not found by making one.)
        # (JSON's is written by hand: nothing to compile.)
        from pygments.lexer import RegexLexer
        from pygments.lexers import find_lexer_class_by_name
        from openwop_tui.draw.lexers import COMMON
        classes = [find_lexer_class_by_name(name) for name in COMMON]
        classes = [c for c in classes if issubclass(c, RegexLexer)]
        seen["uncompiled"] = [c.__name__ for c in classes if "_tokens" not in c.__dict__]

asyncio.run(main())
print(json.dumps(seen))
"""

#: Not needed to draw the first screen: pictures (Pillow, rich-pixels), sound (numpy and the
#: sound libraries), the inspector and its lint (the schema validators), the config file's
#: editor, the HTTP client and the embedded host (loaded while the screen says "connecting"),
#: the screens opened on request (the help's key table and the widgets it lists, the doctor,
#: the search of every session), the config file's parser (no file here), the keychain (the
#: demo host needs no key), and what draws a reply: markdown (markdown-it, Rich's
#: markdown module), code (Rich's syntax module, Pygments) and the export's markdown
#: (`openwop_tui.ui.warming` loads them once the host is reached).
NOT_BEFORE_THE_FIRST_FRAME = (
    "markdown_it",
    "pygments",
    "rich.markdown",
    "rich.syntax",
    "openwop_tui.draw.markdown",
    "openwop_tui.text.md_safe",
    "openwop_tui.present.export",
    "PIL",
    "rich_pixels",
    "numpy",
    "sounddevice",
    "soundfile",
    "jsonschema",
    "fastjsonschema",
    "openwop_tui.inspect.inspector",
    "openwop_tui.inspect.lint",
    "tomlkit",
    "httpx",
    "httpx_sse",
    "openwop_tui.demo_host",
    "openwop_tui.ui.screens.help",
    "openwop_tui.ui.screens.send_anyway",
    "openwop_tui.ui.key_help",
    "openwop_tui.ui.widgets.json_tree",
    "openwop_tui.doctor",
    "openwop_tui.core.searching",
    "tomllib",
    "keyring",
    "openwop_tui.ui.screens.inspect",
    "openwop_tui.ui.screens.sessions",
    "openwop_tui.ui.screens.settings",
)


def _probe(tmp_path: Path, source: str) -> dict[str, Any]:
    """Run ``source`` in a fresh interpreter as a user of its own (config, data and state under
    ``tmp_path``); what it printed last, as JSON."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENWOP_", "XDG_"))}
    env |= {
        "HOME": str(tmp_path),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    done = subprocess.run(
        [sys.executable, "-c", source],
        capture_output=True,
        text=True,
        timeout=PATIENCE,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return seen


def test_the_first_frame_loads_nothing_it_does_not_draw(tmp_path: Path) -> None:
    seen = _probe(tmp_path, _PROBE)
    loaded = set(seen["modules"])
    assert "openwop_tui.ui.app" in loaded
    early = [name for name in NOT_BEFORE_THE_FIRST_FRAME if name in loaded]
    assert not early, f"loaded before the first frame: {early}"
    # Honest meanwhile: the prompt is there and the status line says it is connecting.
    assert seen["prompt"].startswith("Message the host")
    assert seen["connection"] == "connecting"
    # And then the host was reached, the HTTP client and the embedded host loaded for it, and
    # what draws a reply loaded before one comes.
    assert seen["then"] == "connected"
    assert seen["later"] == [
        "httpx",
        "openwop_tui.demo_host",
        "openwop_tui.draw.markdown",
        "rich.syntax",
    ]
    # And the common languages' lexers compiled, not in a reply's first frame.
    assert seen["uncompiled"] == []


_UNREACHED = """
import asyncio, json, socket, sys, threading
from openwop_tui.config import Config
from openwop_tui.ui.app import ChatApp

# A port nothing listens on (taken, then let go): the host is never reached.
with socket.socket() as free:
    free.bind(("127.0.0.1", 0))
    port = free.getsockname()[1]

async def main():
    app = ChatApp(Config(host=f"http://127.0.0.1:{port}", audio=False, images="halfblock"))
    async with app.run_test(size=(120, 40)) as pilot:
        while str(app.status.connection) in ("", "connecting"):
            await pilot.pause()
        await app.workers.wait_for_complete()
        seen = {
            "then": str(app.status.connection),
            "threads": sorted(t.name for t in threading.enumerate() if "warm" in t.name),
            "markdown": "openwop_tui.draw.markdown" in sys.modules,
        }
    print(json.dumps(seen))

asyncio.run(main())
"""


def test_a_host_never_reached_warms_nothing_for_its_replies(tmp_path: Path) -> None:
    """The warming (what draws a reply, the lint) begins once a host answers: one that cannot
    be reached sends nothing to draw, and its start spent 0.45 s of CPU on it regardless."""
    seen = _probe(tmp_path, _UNREACHED)
    assert seen["then"] == "disconnected"
    assert seen["threads"] == []
    assert seen["markdown"] is False


_DRAWN_FIRST = """
import asyncio, json, sys
from openwop_tui.config import Config
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.options import AppOptions

seen = {}
after = ChatApp.after_first_frame

async def noted(app):
    # The first frame is drawn, and the chat not made yet: what is loaded is what it cost.
    seen["modules"] = sorted(sys.modules)
    seen["prompt"] = app.query_one("#prompt").placeholder
    seen["status"] = str(app.query_one("#status").connection)
    await after(app)

ChatApp.after_first_frame = noted

async def main():
    options = AppOptions(draw_first=True)
    app = ChatApp(Config(host=None, audio=False, images="halfblock", demo_pace=0), options)
    async with app.run_test(size=(120, 40)) as pilot:
        while "modules" not in seen or str(app.status.connection) == "connecting":
            await pilot.pause()
        seen["then"] = str(app.status.connection)
        seen["panes"] = [child.id for child in app.chat.parts.pane.children]

asyncio.run(main())
print(json.dumps(seen))
"""

#: Made after the first frame when the program starts the app: the chat's controllers and
#: the way it is put together, the conversation pipeline and its items, the protocol's model
#: (and the regex engine its patterns use), the store, the renderers, and the transcript view.
MADE_AFTER_THE_FIRST_FRAME = (
    "openwop_tui.ui.assembly",
    "openwop_tui.ui.controllers.tabs",
    "openwop_tui.ui.controllers.tab",
    "openwop_tui.ui.controllers.chat",
    "openwop_tui.ui.controllers.runs",
    "openwop_tui.ui.controllers.connection",
    "openwop_tui.ui.controllers.profile",
    "openwop_tui.ui.transcript.view",
    "openwop_tui.ui.widgets.timeline_panel",
    "openwop_tui.core.conversation",
    "openwop_tui.core.fold",
    "openwop_tui.core.items",
    "openwop_tui.protocol.envelopes",
    "openwop_tui.protocol.interrupts",
    "re2",
    "openwop_tui.store.database",
    "openwop_tui.renderers.registry",
    "openwop_tui.inspect",
)


def test_the_program_draws_before_the_chat_is_made(tmp_path: Path) -> None:
    seen = _probe(tmp_path, _DRAWN_FIRST)
    loaded = set(seen["modules"])
    early = [
        name
        for name in (*NOT_BEFORE_THE_FIRST_FRAME, *MADE_AFTER_THE_FIRST_FRAME)
        if name in loaded
    ]
    assert not early, f"loaded before the first frame: {early}"
    # The first frame is the chat's: its prompt and status line, saying it is connecting.
    assert seen["prompt"].startswith("Message the host")
    assert seen["status"] == "connecting"
    # Then the chat was made around them, in the pane's order, and reached its host.
    assert seen["panes"] == ["status", "events", "transcript", "search", "input-area"]
    assert seen["then"] == "connected"
