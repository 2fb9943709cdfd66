"""``bench.rich``: a rich markdown answer of about 2,200 tokens, streamed as a model streams it.

The benchmarks' earlier answer (``bench.answer``, issue 13's comparison with the peers) is
plain paragraphs of ``word word.``: it exercises neither the markdown parser's block rules nor
code highlighting, where a real answer's first draw spends most (a Pygments lexer's rules are
compiled the first time it is used). This one is what a model answering a technical question
sends: headings, emphasis, inline code and links, bulleted and numbered lists, a table, a quote
and fenced code in six languages, in chunks of one or two words (a model's tokens), at once.
It ends ``answer over``, as ``bench.answer`` does, so the same harness waits for it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["TEXT", "chunks"]

_SECTION = """\
## {n}. Retrying the {topic} step

When the **{topic}** step fails with a *transient* error, the workflow should retry it with
backoff rather than fail the run. The host already records each attempt as `node.failed`, so
a client can show the attempts as they happen; see [the retry policy]({link}) for the fields.

1. Read the step's `retryPolicy` (attempts, base delay, the errors it retries).
2. Wait `base * 2 ** attempt` milliseconds, with **jitter** of up to a quarter of it.
3. Give up after the last attempt and let the run fail with the *last* error.

```python
import random
import time


def backoff(attempt: int, base: float = 0.25, cap: float = 8.0) -> float:
    \"\"\"Seconds to wait before attempt {n} of the {topic} step.\"\"\"
    delay = min(cap, base * 2**attempt)
    return delay + random.uniform(0, delay / 4)


for attempt in range(5):
    try:
        run_step("{topic}")
        break
    except TransientError as error:
        print(f"attempt {{attempt}} failed: {{error}}")
        time.sleep(backoff(attempt))
```

The policy as the host stores it:

```json
{{"stepId": "{topic}", "retryPolicy": {{"attempts": 5, "baseMs": 250, "capMs": 8000,
  "retryOn": ["timeout", "rate_limited", "unavailable"]}}, "version": {n}}}
```

| attempt | wait (ms) | jitter (ms) | total so far |
|---:|---:|---:|---:|
| 1 | 250 | 0-62 | 0.3 s |
| 2 | 500 | 0-125 | 0.9 s |
| 3 | 1,000 | 0-250 | 2.1 s |
| 4 | 2,000 | 0-500 | 4.6 s |

> A retry that is not idempotent is a second side effect: make the {topic} step idempotent
> (a request id the far side remembers) before you let the host retry it.

- **Do** log each attempt with its `runId` and `nodeId`.
- **Do not** retry validation errors: they fail the same way every time.
- *Consider* a circuit breaker when {topic} fails for every run at once.

```bash
openwop runs list --workflow {topic} --status failed --since 1h | \\
  jq -r '.runs[] | [.runId, .error.code] | @tsv'
```

```typescript
export async function withRetry<T>(step: () => Promise<T>, attempts = 5): Promise<T> {{
  for (let attempt = 0; ; attempt++) {{
    try {{
      return await step();
    }} catch (error) {{
      if (attempt + 1 >= attempts || !isTransient(error)) throw error;
      await sleep(Math.min(8000, 250 * 2 ** attempt));
    }}
  }}
}}
```

```yaml
steps:
  - id: {topic}
    retryPolicy: {{attempts: 5, baseMs: 250, capMs: 8000}}
    timeoutMs: 30000
```

```sql
SELECT run_id, node_id, COUNT(*) AS attempts
FROM events WHERE kind = 'node.failed' AND node_id = '{topic}'
GROUP BY run_id, node_id HAVING COUNT(*) > 1 ORDER BY attempts DESC;
```

"""

_TOPICS = ("fetch", "summarise", "publish")


def _text() -> str:
    intro = (
        "# Making a flaky workflow step reliable\n\n"
        "Short answer: **retry with exponential backoff and jitter**, make the step "
        "idempotent, and watch the attempts in the run's events. In detail:\n\n"
    )
    body = "".join(
        _SECTION.format(n=n, topic=topic, link=f"https://openwop.dev/spec/retry#{topic}")
        for n, topic in enumerate(_TOPICS, start=1)
    )
    return intro + body + "That is all three steps covered.\n\nanswer over"


#: The whole answer: 8 KB, about 2,200 of a model's tokens (1,300 words and symbols).
TEXT = _text()


def chunks(text: str = TEXT) -> Iterator[str]:
    """``text`` in pieces of two words with the space after each (a model's tokens), joined
    back to ``text`` exactly."""
    words = re.findall(r"\S+\s*|\s+", text)
    for n in range(0, len(words), 2):
        yield "".join(words[n : n + 2])
