"""The exit codes every command shares, and the ``--help`` epilog that lists them.

Only constants here: the parser (``--help``) and ``openwop_tui.__main__`` import this module
before anything else is loaded, so it stays light (tests/cli/test_startup.py).
"""

from __future__ import annotations

EXIT_OK, EXIT_RUN_FAILED, EXIT_USAGE = 0, 1, 2
#: The host answered and refused the request (a 4xx other than 401/403): see
#: `openwop_tui.cli.host.exit_for`.
EXIT_REFUSED = 3
#: An unexpected error: one line names the log file holding the details.
EXIT_INTERNAL = 70
#: The exit status after Ctrl-C: 128 + SIGINT, as a shell reports a command it interrupted.
EXIT_INTERRUPTED = 130

#: The exit codes, as ``--help`` (the main parser's and each command's) and the README list them.
EXIT_CODES_HELP = """exit codes:
  0    the run completed (run, attach), or the command did its work
  1    the run failed or was cancelled
  2    a usage error (input with no SSE events, a busy demo-host port, a host with
       no run list), or the host could not be reached, did not accept the API key
       (401/403), failed (5xx) or sent an answer that is not usable
  3    the host refused the request (any other 4xx: an unknown workflow or run,
       inputs it rejects, a conflict); the host's reason is printed
  70   an unexpected error: one line names the log file holding the details
  130  interrupted by Ctrl-C or kill -INT (run and the app: the run was cancelled
       on the host first; attach: detached, the run goes on)

Details of any error go to a log file (platform state folder, e.g.
~/.local/state/openwop-tui/log/openwop-tui.log), with the API key and URL
credentials masked."""
