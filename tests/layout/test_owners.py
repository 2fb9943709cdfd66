"""Each controller owns its state (issue 24, item 3): no module sets another controller's
fields, and each field of the shared `Chat` is set by the one module that owns it.

A controller changes another's state only through a method that says what it means
(``runs.follow_work``, ``resend.forget``) or a message; the `Chat` every controller is given
holds what is shared, each part written in one place: the host link by the connection
controller, the reading by the reopening, the conversation by the chat itself, the widgets by
the tab that makes them (and what every tab shares, `Common`, the same way: the host link by
the connection controller). The check reads the source (``ast``): an assignment whose target is
a field of a controller held by another (``self.runs.busy = …``), or a field of the chat
(``chat.session = …``, ``self.chat.reading = …``) outside its owner, is reported with its place.
"""

from __future__ import annotations

import ast

from paths import TESTS

ROOT = TESTS.parent
UI = ROOT / "openwop_tui" / "ui"

#: The names the app and the controllers hold each controller under.
CONTROLLERS = frozenset(
    {
        "catch_up",
        "chats",
        "connection",
        "diagnostics",
        "feed",
        "files",
        "interrupts",
        "item_actions",
        "lab",
        "leaving",
        "playback",
        "recording",
        "reopening",
        "resend",
        "runs",
        "search",
        "sessions",
        "settings",
        "tabs",
        "timeline",
    }
)

#: Each field of `Chat` that is set after it is made, and the one module (under ui/) that may.
CHAT_OWNERS = {
    "client": "controllers/connection.py",
    "config": "controllers/connection.py",
    "session": "controllers/connection.py",
    "host_label": "controllers/connection.py",
    "demo": "controllers/connection.py",
    "redact": "controllers/connection.py",
    "reading": "controllers/reopening.py",
    "conversation": "controllers/chat.py",
    "host_secrets": "controllers/chat.py",
    "save_budget": "controllers/chat.py",
    "parts": "controllers/tab.py",
}

#: Each field of `Common` (what every tab's chat shares) that is set after it is made, and the one
#: module that may, besides the chat's setters that pass ``chat.client = …`` on to it (checked as
#: `CHAT_OWNERS` says).
COMMON_OWNERS = {
    "client": "controllers/connection.py",
    "config": "controllers/connection.py",
    "host_label": "controllers/connection.py",
    "demo": "controllers/connection.py",
    "redact": "controllers/connection.py",
    "host_secrets": "controllers/chat.py",
}
_SETTERS = "controllers/chat.py"


def _chat(node: ast.expr, name: str = "chat") -> bool:
    """Whether ``node`` is the chat: ``chat`` or ``self.chat`` (or another ``name``)."""
    if isinstance(node, ast.Name):
        return node.id == name
    return (
        isinstance(node, ast.Attribute)
        and node.attr == name
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def _controller(node: ast.expr) -> str | None:
    """The controller ``node`` names when it is one held by another (``self.runs``)."""
    if (
        isinstance(node, ast.Attribute)
        and node.attr in CONTROLLERS
        and isinstance(node.value, ast.Name)
        and node.value.id in ("self", "app")
    ):
        return node.attr
    return None


def trespasses(source: str, where: str) -> list[str]:
    """The assignments in ``source`` (the module ``where``, relative to ui/) that set another
    owner's state, as ``where:line target``."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        for target in targets:
            for each in target.elts if isinstance(target, ast.Tuple) else [target]:
                if not isinstance(each, ast.Attribute):
                    continue
                held = _controller(each.value)
                if held is not None:
                    found.append(f"{where}:{node.lineno} {held}.{each.attr}")
                elif _chat(each.value) and CHAT_OWNERS.get(each.attr) != where:
                    found.append(f"{where}:{node.lineno} chat.{each.attr}")
                elif _chat(each.value, "common") and where not in (
                    COMMON_OWNERS.get(each.attr),
                    _SETTERS,
                ):
                    found.append(f"{where}:{node.lineno} common.{each.attr}")
    return found


def test_no_module_sets_state_it_does_not_own() -> None:
    found = [
        trespass
        for path in sorted(UI.rglob("*.py"))
        for trespass in trespasses(
            path.read_text(encoding="utf-8"), path.relative_to(UI).as_posix()
        )
    ]
    assert found == [], "state set by a module that does not own it:\n" + "\n".join(found)


def test_the_check_finds_a_trespass() -> None:
    source = (
        "class CatchUp:\n"
        "    def start(self):\n"
        "        self.runs.busy = self.runs.following = True\n"
        "        chat = self.chat\n"
        "        chat.session = None\n"
        "        self.chat.reading = None\n"
        "        self.chat.demo += 1\n"
        "        self.common.client = None\n"
    )
    assert trespasses(source, "controllers/catch_up.py") == [
        "controllers/catch_up.py:3 runs.busy",
        "controllers/catch_up.py:3 runs.following",
        "controllers/catch_up.py:5 chat.session",
        "controllers/catch_up.py:6 chat.reading",
        "controllers/catch_up.py:7 chat.demo",
        "controllers/catch_up.py:8 common.client",
    ]
    # The owner may: the connection controller sets the host link.
    assert trespasses("def f(chat):\n    chat.session = None\n", "controllers/connection.py") == []
