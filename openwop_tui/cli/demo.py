"""``openwop-tui demo-host``: the embedded demo host alone, in the foreground.

The demo host (`openwop_tui.demo_host`) is imported only when the command runs. A fault flag
or limit out of range, or a busy or forbidden port, is one line saying what to do, exit 2.
"""

from __future__ import annotations

import argparse
import sys

from openwop_tui.cli.exits import EXIT_OK, EXIT_USAGE


def demo_host_command(args: argparse.Namespace) -> int:
    """``demo-host``: a busy or forbidden port is one line saying what to do, exit 2."""
    import errno

    from openwop_tui.demo_host import serve_forever

    try:
        serve_forever(
            port=args.port,
            keepalive=args.keepalive,
            drop_every=args.drop_every,
            garbage_every=args.garbage_every,
            stall_ms=args.stall_ms,
            status=args.status,
            status_times=args.status_times,
            protocol=args.protocol,
            max_body_bytes=args.max_body_bytes,
        )
    except ValueError as error:  # a fault flag or limit out of range
        print(f"openwop-tui: {error}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as error:
        where = f"port {args.port} on 127.0.0.1"
        if error.errno == errno.EADDRINUSE:
            line = (
                f"{where} is already taken (another program, or a demo host already running, "
                f"listens there): stop it, or pick another port with --port N (--port 0 picks "
                "a free one)"
            )
        elif error.errno == errno.EACCES:
            line = (
                f"{where} needs privileges this user does not have: pick a port above 1023 "
                "with --port N (--port 0 picks a free one)"
            )
        else:
            line = f"cannot listen on {where}: {error.strerror or error}"
        print(f"openwop-tui: {line}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK
