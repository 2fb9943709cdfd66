"""Masking a secret (the API key) in text: the whole key, and a long fragment of it at a
string's edge, replaced by `MASK`.

A host that cuts an echoed header or body, or streams it in pieces, leaves a fragment of the key:
long means at least `fragment_floor` characters (`MIN_FRAGMENT`, and half the key), so a word of
the client's own text that happens to start the key ("openwop-tui" of the demo key
``openwop-tui-demo-key``) is never masked. After ``Bearer `` any prefix of `MIN_PREFIX` or more
is masked (the word says a credential follows). Pieces joined later (a reply's chunks) are masked
across the join by `openwop_tui.text.split_keys`.

The lowest floor's (`openwop_tui.text`): the host data boundary
(`openwop_tui.protocol.hostdata`), the redactor of the client's own text
(`openwop_tui.text.redact`) and the split-key maskers all mask with it. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["MASK", "MIN_FRAGMENT", "MIN_PREFIX", "fragment_floor", "mask", "secrets_of"]

#: What a secret is replaced by.
MASK = "[api key]"
#: The shortest secret masked at all: a shorter "secret" cannot be told from ordinary text.
MIN_PREFIX = 4
#: The shortest fragment of a secret masked on its own (see `fragment_floor`). Dev keys are
#: word-like (``openwop-inmem-dev-key``, ``openwop-tui-demo-key``): a dozen characters is
#: longer than the words they are made of, so the client's own "openwop-tui" stays readable.
MIN_FRAGMENT = 12
#: Characters a cut may leave after a key prefix ("Bearer sk-abc…", "sk-abc...").
_CUT_TAIL = " \t\n.…\"')]}>,;"


def secrets_of(*values: str | None) -> tuple[str, ...]:
    """The secrets worth masking among ``values``: set, and at least `MIN_PREFIX` long.

    A shorter "secret" cannot be told from ordinary text (masking ``"ab"`` would mangle every
    word holding it); it is not masked.
    """
    return tuple(v for v in values if v and len(v) >= MIN_PREFIX)


def fragment_floor(secret: str) -> int:
    """The shortest fragment of ``secret`` masked on its own: `MIN_FRAGMENT` characters and at
    least half the key. A shorter piece leaves more of the key unknown than it shows; masking
    it would mangle ordinary words that share the key's first letters."""
    return max(MIN_FRAGMENT, (len(secret) + 1) // 2)


#: Short strings masked already, by (text, secrets): an event stream repeats the same few (its
#: type, run and node ids, a reply's words), and every string of every event is masked twice
#: (read, stored). Emptied when full, so a long session's new ids are remembered in their turn.
_MASKED: dict[tuple[str, tuple[str, ...]], str] = {}
_MASKED_MAX = 2048
#: The longest string `_MASKED` remembers.
_MASKED_LENGTH = 64


def mask(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret, and a long fragment of one at its edges, replaced by `MASK`."""
    if len(text) > _MASKED_LENGTH:
        return _mask(text, secrets)
    key = (text, secrets if isinstance(secrets, tuple) else tuple(secrets))
    masked = _MASKED.get(key)
    if masked is None:
        masked = _mask(text, key[1])
        if len(_MASKED) >= _MASKED_MAX:
            _MASKED.clear()
        _MASKED[key] = masked
    return masked


def _mask(text: str, secrets: Iterable[str]) -> str:
    for secret in secrets:
        if len(secret) < MIN_PREFIX:
            continue
        # Every masked form but a leading suffix starts with these characters: one substring
        # test in C spares almost every string the rest.
        if secret[:MIN_PREFIX] in text:
            if secret in text:
                text = text.replace(secret, MASK)
            text = _mask_tail(text, secret)
        if len(text) >= fragment_floor(secret):  # shorter: no fragment long enough to mask
            text = _mask_head(text, secret)
    return text


def _mask_tail(text: str, secret: str) -> str:
    """Mask a prefix of ``secret`` that a cut left at the end of ``text`` (before trailing cut
    marks): one of `fragment_floor` characters or more, or of `MIN_PREFIX` after ``Bearer``."""
    floor = fragment_floor(secret)
    end = len(text.rstrip(_CUT_TAIL))
    # Only the last len(secret) - 1 characters can hold a proper prefix: search just there.
    start = max(0, end - len(secret) + 1)
    head = secret[:MIN_PREFIX]
    index = text.find(head, start, end)
    while index != -1:
        long_enough = end - index >= floor or _after_bearer(text, index)
        if long_enough and secret.startswith(text[index:end]):
            return text[:index] + MASK + text[end:]
        index = text.find(head, index + 1, end)
    return text


def _mask_head(text: str, secret: str) -> str:
    """Mask a long suffix of ``secret`` that starts ``text`` (the second half of a cut), or the
    whole of ``text`` when it is a long piece of the key's middle."""
    floor = fragment_floor(secret)
    begin = 0
    while begin < len(text) and text[begin] in _CUT_TAIL:
        begin += 1
    if text[begin : begin + floor] not in secret or len(text) - begin < floor:
        return text
    if len(text) < len(secret) and text in secret:
        return MASK
    for size in range(min(len(secret) - 1, len(text) - begin), floor - 1, -1):
        if text.startswith(secret[-size:], begin):
            return text[:begin] + MASK + text[begin + size :]
    return text


def _after_bearer(text: str, index: int) -> bool:
    return text[max(0, index - 7) : index].lower() == "bearer "
