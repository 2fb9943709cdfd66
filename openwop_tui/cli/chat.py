"""The app where the terminal cannot show it: a printed transcript, as ``run`` prints one.

`printed_app` stands in for the full-screen app when ``TERM=dumb`` or stdin or stdout is not a
terminal (`openwop_tui.__main__._no_app` says which, and that note goes to stderr first):

* ``--attach RUN_ID`` prints the run as ``attach`` does;
* ``--continue`` / ``--session ID`` prints the stored session (sending more needs the app);
* otherwise each line on stdin is a message to the chat workflow (``--workflow``), sent with the
  conversation so far, and its run printed (``echo hello | openwop-tui > chat.txt``); at a dumb
  terminal a ``you>`` prompt asks for each, Ctrl-D ends.

Exit codes as ``run``: 0 when the last run completed (or nothing was sent), 1 when it failed.
"""

from __future__ import annotations

import sys
from pathlib import Path

from openwop_tui.cli.follow import Follow, attach_run, follow_run
from openwop_tui.cli.output import Output
from openwop_tui.cli.sessions import print_session


def printed_app(
    output: Output,
    why: str,
    *,
    session_id: str | None = None,
    attach: str | None = None,
    record: Path | None = None,
    interactive: bool = False,
) -> int:
    """The app, printed (see the module); its exit code.

    Args:
        output: The command's configuration and console.
        why: Why the terminal cannot show the app, said on stderr first.
        session_id: A stored session to print instead (``--session``/``--continue``); None for none.
        attach: A run id to print as ``attach`` does; None for none. It wins over ``session_id``.
        record: A file to record the events to as well; None records none.
        interactive: True at a dumb terminal: a ``you>`` prompt asks for each message, Ctrl-D ends.
    """
    if attach is not None:
        print(f"openwop-tui: {why}; printing run {attach} instead of the app", file=sys.stderr)
        return attach_run(attach, output, record=record, interactive=interactive)
    if session_id is not None:
        print(f"openwop-tui: {why}; printing the stored session instead", file=sys.stderr)
        return print_session(session_id, output)
    what = "each line on stdin is a message" + ("; Ctrl-D ends" if interactive else "")
    print(f"openwop-tui: {why}; printing the chat instead of the app ({what})", file=sys.stderr)
    follow = Follow(output.config.workflow, chat=True, interactive=interactive)
    return follow_run(follow, output, record=record)
