"""`HostText`: what `clean` makes is safe, and stays safe when sliced or joined.

The type is only worth trusting if its closure holds at run time: the module docstring of
`openwop_tui.text.sanitize` says slicing or joining cleaned text keeps it safe, so sinks may take
pieces of `HostText` without cleaning them again. This checks that claim over hostile strings.
"""

from __future__ import annotations

from hostile_data import FORBIDDEN, HOSTILE
from hypothesis import given
from hypothesis import strategies as st

from openwop_tui.protocol.hostdata import host_text
from openwop_tui.text.sanitize import clean, clean_label, clean_own

_TEXT = st.one_of(st.sampled_from(HOSTILE), st.text())


@given(st.lists(_TEXT, max_size=5), st.integers(0, 60), st.integers(0, 60))
def test_joined_and_sliced_clean_text_has_no_control(parts: list[str], a: int, b: int) -> None:
    joined = "".join(clean(p) for p in parts)
    assert FORBIDDEN.search(joined) is None
    assert FORBIDDEN.search(joined[a:b]) is None


@given(_TEXT)
def test_every_maker_of_host_text_cleans(text: str) -> None:
    for maker in (clean, clean_own, clean_label, host_text):
        assert FORBIDDEN.search(maker(text)) is None


def test_a_raw_host_string_is_not_host_text() -> None:
    # The bypass the type exists to catch: the raw string keeps its escape.
    raw = HOSTILE[0]
    assert FORBIDDEN.search(raw) is not None
    assert FORBIDDEN.search(clean(raw)) is None
