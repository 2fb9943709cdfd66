"""``demo.text``: a plain chat whose "model" reads text only (no ``vision-input``, no
``audio-input`` in its ``modelCapabilities``), so a client can see what a host says when it is
sent what it cannot read.

Given attachments it names each one it could not read (type, name, size, how it came) without
touching their bytes, then answers the words: an echo, and a pointer to ``demo.chat``.
"""

from __future__ import annotations

from collections.abc import Generator

from openwop_tui.demo_host.attachments import label, read_parts
from openwop_tui.demo_host.chat import last_user_message, quote
from openwop_tui.demo_host.steps import Emit, Step, WorkflowContext, text_node


def compose(text: str, unread: list[str]) -> str:
    """The markdown reply: what could not be read, then the words echoed.

    Args:
        text: The words of the user's message.
        unread: Each attachment's `label`.
    """
    parts = ["## Text only\n\n"]
    if unread:
        lines = "\n".join(f"- {name}" for name in unread)
        parts.append(
            "I read text only, so I could not read what you attached:\n\n"
            f"{lines}\n\nSend {'it' if len(unread) == 1 else 'them'} to **Demo chat** "
            "(`demo.chat`), which reads pictures, "
            "documents and sound.\n\n"
        )
    if text.strip():
        parts.append(f"You said:\n\n{quote(text)}\n")
    else:
        parts.append("Your message had no words for me to read.\n")
    return "".join(parts)


def demo_text(ctx: WorkflowContext) -> Generator[Step, None, None]:
    """The ``demo.text`` workflow."""
    unread = [label(part) for part in read_parts(ctx, contents=False)]
    reply = compose(last_user_message(ctx.inputs), unread)
    yield from text_node(ctx, "reply", reply)
    outputs = {"completion": reply, "unread": len(unread)}
    yield Emit("run.completed", {"outputs": outputs, "durationMs": ctx.elapsed_ms()})
