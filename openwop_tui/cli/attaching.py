"""``run --attach PATH`` (repeatable; ``-`` reads standard input, typed by ``--attach-type``):
the files a message carries, read and checked before the host is contacted.

Each file goes through the same checks as the app's (`openwop_tui.core.attachments`): a
missing file, a folder, a type not accepted, one over the ceiling or bytes that are not what
the name says is refused with its sentence, before anything is sent. How each then travels
(inline, or uploaded first) is the host's to decide (`openwop_tui.core.sending`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import BinaryIO

from openwop_tui.core.attachments import (
    ACCEPTED,
    CEILING_BYTES,
    Attachment,
    AttachmentError,
    attachment_of,
    read_attachment,
)

__all__ = ["read_attachments"]


def read_attachments(
    paths: Sequence[str], attach_type: str | None, stdin: BinaryIO | None = None
) -> tuple[Attachment, ...]:
    """The attachments ``paths`` name, in order (``-``: standard input, of ``attach_type``).
    Raises `AttachmentError` for the first that cannot be attached."""
    found: list[Attachment] = []
    if paths.count("-") > 1:
        raise AttachmentError("--attach - reads standard input, which can be attached once")
    for path in paths:
        if path != "-":
            found.append(read_attachment(path))
            continue
        if attach_type is None:
            raise AttachmentError(
                "--attach - reads standard input, whose type cannot be told from a name: "
                "give it with --attach-type (for example --attach-type image/png)"
            )
        if attach_type not in ACCEPTED:
            raise AttachmentError(
                f"--attach-type {attach_type} is not a type a host takes: one of "
                f"{', '.join(ACCEPTED)}"
            )
        source = stdin if stdin is not None else sys.stdin.buffer
        data = source.read(CEILING_BYTES + 1)
        name = "stdin" + ACCEPTED[attach_type][0]
        found.append(attachment_of(data, name, attach_type))
    return tuple(found)
