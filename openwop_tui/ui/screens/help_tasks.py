"""The help panel's answers to tasks: "how do I attach to a run", "where are my sessions"…

A list of keys does not tell a new user how to do something, nor where the app keeps things. Each
answer here names the keys in effect (a key moved in ``[keys]`` shows where it went) and the real
paths of this machine (`Places`, read by the app from the same functions that open those files),
so the help never names a folder the app does not use.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from openwop_tui.config import default_config_path
from openwop_tui.logs import default_log_path
from openwop_tui.store.database import default_path


@dataclass(frozen=True, slots=True)
class Places:
    """Where this app keeps things, on this machine."""

    config: Path
    sessions: Path
    log: Path | None
    downloads: Path

    @classmethod
    def defaults(cls, downloads: Path) -> Places:
        """The platform's places (the app passes the ones it really opened)."""
        return cls(default_config_path(os.environ), default_path(), default_log_path(), downloads)


def _code(path: Path | None) -> str:
    return f"`{path}`" if path is not None else "*(not written: logging is off)*"


def task_answers(places: Places, shown: dict[str, str]) -> str:
    """The answers as Markdown; ``shown`` maps a `keymap.ACTIONS` name to its keys as shown."""

    def key(name: str) -> str:
        return f"**{shown[name]}**" if name in shown else "the palette (**Ctrl+P**)"

    return f"""\
## How do I…

**…start a new chat?** {key("new_chat")}: it opens in a tab of its own, and the chats already
open stay open (each with its own run and draft). {key("next_tab")} and {key("previous_tab")}
go from tab to tab, {key("close_tab")} closes one (its session stays in the sessions list).
**Rename this chat** in the palette ({key("palette")}) names it.

**…find my sessions?** {key("sessions")} lists them: Enter opens one, r renames, d deletes.
They are kept in {_code(places.sessions)}; `openwop-tui sessions` lists them from a shell.

**…answer a question?** A run that asks shows a form above the input, with the focus in it:
pick from the list or type, then Enter. Esc goes back to the input; {key("form")} goes back
to the form.

**…attach to a run?** In the palette, **Attach to a run**, then its id; or start with
`openwop-tui --attach RUN_ID`. The app follows it from its first event and chats with its
workflow afterwards. Stopping only stops following: the run is not cancelled.

**…pick the workflow?** In the palette, **Pick a workflow**. The status line names it.

**…export a chat?** {key("export")} writes it as Markdown with its files into
{_code(places.downloads)}; saved and copied items go there too.

**…change the settings?** {key("settings")} opens the settings: theme, code theme, images,
audio, the host, its API key and the workflow, applied at once and saved to
{_code(places.config)} (a key in the system keychain when there is one). Edit that file (TOML)
for the rest: `[keys]`, `[chat]`, limits…

**…see what went wrong?** Details of unexpected errors go to the log, {_code(places.log)}.
"""
