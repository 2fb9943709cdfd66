"""``bench.code``: an answer that is mostly one long code block, streamed as a model streams it.

"Write me the module" answers are a few lines of prose around hundreds of lines of code in one
fenced block. While such a block streams it is the reply's open block, drawn again at every
redraw: what `openwop_tui.draw.code_pieces` keeps to its last lines. The code is Python as a
model writes it (classes, docstrings over several lines, f-strings, comments), `LINES` lines in
chunks of one or two words (a model's tokens, `openwop_tui.demo_host.rich_answer.chunks`); the
answer ends ``answer over``, as ``bench.rich`` does, so the same harness waits for it.
"""

from __future__ import annotations

from openwop_tui.demo_host.rich_answer import chunks

__all__ = ["LINES", "TEXT", "chunks"]

#: Lines of code in the block.
LINES = 600

_UNIT = '''\
class Step{n}:
    """Step {n} of the pipeline: reads its input, retries transient errors, and
    records every attempt so a client can show them as they happen."""

    attempts = {n} % 5 + 1

    def __init__(self, name: str = "step-{n}", *, delay: float = 0.25) -> None:
        self.name = name
        self.delay = delay
        self.seen: list[str] = []

    def run(self, items: list[str]) -> str:
        # Each item is kept once, in the order it came.
        for item in items:
            if item not in self.seen:
                self.seen.append(item)
        return f"{{self.name}}: {{len(self.seen)}} items, last {{self.seen[-1:]!r}}"

'''


def _code(lines: int) -> str:
    units: list[str] = []
    n = 0
    while sum(unit.count("\n") for unit in units) < lines:
        units.append(_UNIT.format(n=n))
        n += 1
    return "".join(units)


#: The answer: a sentence, the code block, a sentence after it, then ``answer over``.
TEXT = (
    "Here is the module, with one class a step:\n\n```python\n"
    + _code(LINES)
    + "```\n\nEach step keeps what it saw. answer over"
)
