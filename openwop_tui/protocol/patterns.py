"""A host's JSON-schema ``pattern``, matched in linear time: RE2, never a backtracking engine.

A ``pattern`` in a ``resumeSchema`` is host data, and a backtracking engine (Python's `re`)
takes exponential time on patterns such as ``^(a|aa)+$``: 34 a's and a ``b`` took seconds and
every two more characters doubled it, which froze the app (Ctrl+Q included). RE2 (google-re2,
Google's own binding) matches in time linear in the value and bounds the memory a pattern may
take, so no pattern and no answer can stall a check. `check_pattern` is the one place patterns
are matched, for the answer form and for ``run --answer`` alike.

JSON Schema patterns are ECMA-262 regular expressions, searched anywhere in the value
(unanchored). `to_re2` rewrites the ECMA spellings RE2 does not read (``\\uHHHH``, ``\\u{…}``,
``\\cX``, ``[^]``, ``[]``) and leaves the rest; what RE2 cannot run at all (backreferences,
look-ahead and look-behind: they need backtracking) is *unchecked*: the answer is sent and the
host, which owns the pattern, has the last word. There is no fall back to `re`. ECMA's meanings
are kept where RE2's differ: ``\\s`` takes the Unicode spaces too (RE2's is ASCII) and ``.``
stops at ``\\r``, U+2028 and U+2029 as well as ``\\n``. (``\\S`` inside a class stays RE2's.)

Bounds: a pattern longer than `MAX_PATTERN_CHARS` is unchecked (the host's doing, not the
user's); a value longer than `MAX_VALUE_CHARS` is refused before matching (the user's input: it
can be shortened). RE2 compiles within `MAX_PROGRAM_BYTES`, so a pattern whose program would be
larger (``(a{1000}){1000}``) is unchecked too.

Pure: no I/O. google-re2 ships wheels for Linux, macOS and Windows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import re2

__all__ = [
    "MAX_PATTERN_CHARS",
    "MAX_VALUE_CHARS",
    "PatternCheck",
    "check_pattern",
    "compile_problem",
    "to_re2",
]

#: The longest pattern checked here; longer ones are left to the host.
MAX_PATTERN_CHARS = 4_096
#: The longest value matched against a pattern (an answer typed or given with ``--answer``).
MAX_VALUE_CHARS = 100_000
#: RE2's memory budget for one compiled pattern (its default is 8 MiB; a form needs far less).
MAX_PROGRAM_BYTES = 2 << 20


@dataclass(frozen=True, slots=True)
class PatternCheck:
    """What became of one check: ``match``, ``mismatch``, ``too-long`` (the value is over
    `MAX_VALUE_CHARS`: nothing was matched) or ``unchecked`` (the pattern cannot run here;
    ``reason`` says why, in words for the user)."""

    outcome: Literal["match", "mismatch", "too-long", "unchecked"]
    reason: str = ""


def _hex_run(text: str, start: int, count: int) -> str | None:
    chunk = text[start : start + count]
    if len(chunk) == count and all(c in "0123456789abcdefABCDEF" for c in chunk):
        return chunk
    return None


def _unicode_escape(pattern: str, index: int) -> tuple[str, int] | None:
    """``\\uHHHH`` (a surrogate pair as one code point) or ``\\u{H…}`` starting at ``index``
    (the backslash), as RE2's ``\\x{…}``, and the index after it; ``None`` when it is neither."""
    if pattern.startswith("{", index + 2):
        end = pattern.find("}", index + 3)
        digits = pattern[index + 3 : end] if end != -1 else ""
        if digits and len(digits) <= 6 and _hex_run(digits, 0, len(digits)):
            return f"\\x{{{digits}}}", end + 1
        return None
    four = _hex_run(pattern, index + 2, 4)
    if four is None:
        return None
    code = int(four, 16)
    after = index + 6
    if 0xD800 <= code <= 0xDBFF and pattern.startswith("\\u", after):
        low = _hex_run(pattern, after + 2, 4)
        if low is not None and 0xDC00 <= int(low, 16) <= 0xDFFF:
            code = 0x10000 + ((code - 0xD800) << 10) + (int(low, 16) - 0xDC00)
            after += 6
    return f"\\x{{{code:X}}}", after


#: ECMA-262's WhiteSpace and LineTerminator code points (what its ``\\s`` matches).
_ECMA_SPACE = (
    r"\t\n\x{0B}\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}"
    r"\x{3000}\x{FEFF}"
)
#: What ECMA's ``.`` does not match (without the ``s`` flag).
_ECMA_DOT = r"[^\n\r\x{2028}\x{2029}]"


def to_re2(pattern: str) -> str:
    """An ECMA-262 pattern in RE2's syntax, as far as the two differ in spelling only."""
    out: list[str] = []
    index, in_class = 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            nxt = pattern[index + 1]
            if nxt == "u":
                escaped = _unicode_escape(pattern, index)
                if escaped is not None:
                    out.append(escaped[0])
                    index = escaped[1]
                    continue
            if nxt == "c" and index + 2 < len(pattern) and pattern[index + 2].isascii():
                letter = pattern[index + 2]
                if letter.isalpha():
                    out.append(f"\\x{{{ord(letter) % 32:02X}}}")
                    index += 3
                    continue
            if nxt == "s":
                out.append(_ECMA_SPACE if in_class else f"[{_ECMA_SPACE}]")
                index += 2
                continue
            if nxt == "S" and not in_class:
                out.append(f"[^{_ECMA_SPACE}]")
                index += 2
                continue
            out.append(pattern[index : index + 2])
            index += 2
            continue
        if not in_class and char == "[":
            if pattern.startswith("[^]", index):
                out.append(r"[\s\S]")  # ECMA: any character at all
                index += 3
                continue
            if pattern.startswith("[]", index):
                out.append(r"[^\s\S]")  # ECMA: no character
                index += 2
                continue
            in_class = True
            out.append(char)
            # A `]` or `^]` right after `[` is a literal in RE2 but would end an ECMA class;
            # the two cases above took the only ones ECMA reads that way.
            index += 1
            continue
        if in_class and char == "]":
            in_class = False
        if char == "." and not in_class:
            out.append(_ECMA_DOT)
            index += 1
            continue
        out.append(char)
        index += 1
    return "".join(out)


def _options() -> Any:
    options = re2.Options()
    options.log_errors = False  # RE2 would write parse errors to stderr, under the app's screen
    options.max_mem = MAX_PROGRAM_BYTES
    options.never_capture = True  # only "does it match" is asked
    return options


def _why(error: BaseException) -> str:
    detail = error.args[0] if error.args else error
    text = detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)
    return " ".join(text.split())[:120]


def _compile(pattern: str) -> tuple[Any, str]:
    """The compiled pattern, or ``None`` and why it cannot run here."""
    if len(pattern) > MAX_PATTERN_CHARS:
        return None, f"the pattern is longer than {MAX_PATTERN_CHARS:,} characters"
    try:
        return re2.compile(to_re2(pattern), _options()), ""
    except re2.error as error:
        detail = _why(error)
        if "(?=" in pattern or "(?!" in pattern or "(?<=" in pattern or "(?<!" in pattern:
            return None, f"the pattern uses look-around, which needs backtracking ({detail})"
        if "escape" in detail and any(f"\\{d}" in pattern for d in "123456789k"):
            return None, f"the pattern uses a backreference, which needs backtracking ({detail})"
        return None, f"the pattern is beyond what the linear-time matcher reads ({detail})"


def compile_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be checked here, or ``None`` when it can."""
    return _compile(pattern)[1] or None


def check_pattern(pattern: str, value: str) -> PatternCheck:
    """Whether ``value`` matches ``pattern`` anywhere (JSON Schema's unanchored search), in
    time linear in ``len(value)``; see the module docstring for the bounds."""
    if len(value) > MAX_VALUE_CHARS:
        return PatternCheck("too-long", f"at most {MAX_VALUE_CHARS:,} characters")
    compiled, reason = _compile(pattern)
    if compiled is None:
        return PatternCheck("unchecked", reason)
    return PatternCheck("match" if compiled.search(value) is not None else "mismatch")
