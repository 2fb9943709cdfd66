"""``Retry-After`` is read in both its RFC 9110 forms, and anything else is no answer (issue 23
item 10: the backoff ignored a host's ``Retry-After: 1``; an HTTP-date was dropped)."""

from __future__ import annotations

import httpx
import pytest

from openwop_tui.protocol.errors import error_for_response
from openwop_tui.protocol.waits import parse_retry_after, span

DATE = "Sat, 05 Dec 2026 06:00:00 GMT"


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("1", 1.0),
        (" 120 ", 120.0),
        ("2.5", 2.5),
        ("1000000000", 1e9),
        # An HTTP-date, measured against the answer's own Date, in all three forms.
        ("Sat, 05 Dec 2026 06:00:08 GMT", 8.0),
        ("Saturday, 05-Dec-26 06:01:00 GMT", 60.0),
        ("Sat Dec  5 06:00:30 2026", 30.0),
        ("Sat, 05 Dec 2026 05:59:00 GMT", 0.0),  # in the past: now
        ("soon", None),
        ("-5", None),
        ("inf", None),
        ("nan", None),
        ("1e9", None),
        ("", None),
    ],
)
def test_retry_after_in_both_forms(value: str, seconds: float | None) -> None:
    assert parse_retry_after(value, DATE, now=lambda: 0.0) == seconds


def test_a_date_without_the_answers_date_is_measured_by_this_machines_clock() -> None:
    now = 1_796_450_400.0  # DATE as a POSIX timestamp
    assert parse_retry_after("Sat, 05 Dec 2026 06:00:08 GMT", None, now=lambda: now) == 8.0
    assert parse_retry_after("Sat, 05 Dec 2026 06:00:08 GMT", "garbage", lambda: now) == 8.0


def test_the_error_of_a_503_carries_an_http_date_retry_after() -> None:
    headers = {"Retry-After": "Sat, 05 Dec 2026 06:00:12 GMT", "Date": DATE}
    response = httpx.Response(503, headers=headers)
    body = b'{"error": "runner_unavailable"}'
    error = error_for_response(response, body, action="follow run r", api_key=None)
    assert error.retry_after == 12.0
    assert "retry after 12 s" in error.message


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (0.5, "0.5 s"),
        (4.0, "4 s"),
        (49, "49 s"),
        (92, "1 min 32 s"),
        (600, "10 min"),
        (7500, "2 h 5 min"),
        (3 * 86400, "3 days"),
        (1e9, "31 years"),
    ],
)
def test_waits_in_words(seconds: float, words: str) -> None:
    assert span(seconds) == words
