"""``demo.openclaw``: a reply written the way an OpenClaw agent bridged into a host writes one.

Its text carries OpenClaw's rich-output directives (`openwop_tui.openclaw.reader`), streamed a
couple
of words per chunk so several of them arrive split: a reply tag, ``MEDIA:`` lines the client
refuses for each reason it has (plain ``http:``, a private address, an internal name, a local
path), a voice-note tag, two embeds, the retired ``[view …]`` and a fenced ``MEDIA:`` line that
must stay text. The completion repeats the text, so the client must not draw anything twice.
"""

from __future__ import annotations

from collections.abc import Generator

from openwop_tui.demo_host.steps import Emit, Step, WorkflowContext, text_node

#: The reply, directives and all (the client strips them and draws items instead).
REPLY = """\
[[reply_to_current]] This reply is written the way an **OpenClaw** agent writes one: its
directives become items below, and none of them is printed as text.

MEDIA: http://cdn.example.com/chart.png
MEDIA: https://192.168.1.20/camera.jpg
MEDIA: https://printer.local/scan.pdf
MEDIA: ~/Documents/notes.txt

Those four are refused, each with its reason: only public `https:` media are fetched, and a
path the host names is never read from your disk. The voice note below would play as one.
[[audio_as_voice]]
MEDIA: https://media.example.com/voice/summary.opus

The web canvas is described, not run: [embed ref="cv_status" title="Status board" height=320 /]
[embed url="https://canvas.example.com/board/7" title="Project board" /]

Old and active forms stay text: [view ref="cv_old"]

```text
MEDIA: https://cdn.example.com/in-a-code-block.png
```
"""


def demo_openclaw(ctx: WorkflowContext) -> Generator[Step, None, None]:
    """One agent node streaming `REPLY`, two words a chunk, then the run completes."""
    yield from text_node(ctx, "agent", REPLY, words=2)
    yield Emit("run.completed", {"outputs": {"nodes": 1}, "durationMs": ctx.elapsed_ms()})
