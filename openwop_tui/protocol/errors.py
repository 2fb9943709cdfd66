"""`HostError`, and how a failed request to a host becomes one sentence a user can act on.

Every failure of a protocol call surfaces as a `HostError`. Its ``message`` names what went
wrong and, where there is one, what to do about it ("Set --api-key …", "Is the host running?"),
instead of repeating an httpx exception or a bare status line. Two translators make those
sentences:

* `error_for_exception` for failures with no HTTP response: refused connection, failed DNS
  lookup, TLS handshake, timeouts, unusable URLs. It digs through the exception's cause chain,
  since httpx wraps the socket error that says which one it was;
* `error_for_response` for non-2xx responses. It reads the three error-body shapes real hosts
  send (``{error, message, details?}``, ``{"error": "code"}`` alone, and the older
  ``{"error": {code, message}}``), quotes anything else as an excerpt, and keys the sentence on
  status and error code (401 vs 403, ``run_already_active``, ``idempotency_in_flight`` …).

Whatever a host sends back is untrusted: `excerpt` makes its controls visible (as
`openwop_tui.text.sanitize.clean` does), makes it one line and cuts its length before it goes into a
message (the host's error code and message, a body, a ``Location``), and every message is
scrubbed of the API key (a host may echo the ``Authorization`` header back in an error body).
That is why these functions take the key: so they can remove it, never to send it anywhere.

Nothing here knows the protocol's paths or versions; `openwop_tui.protocol.client` passes in the
host's address, timeout and key.
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Mapping
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from openwop_tui.protocol.hostdata import host_value, mask, secrets_of
from openwop_tui.protocol.waits import parse_retry_after, span
from openwop_tui.text.sanitize import HostText, clean
from openwop_tui.text.units import human_size

if TYPE_CHECKING:
    # Imported where a request is made, not here: the app's first frame does not wait for
    # httpx (and the ssl, email and cookie modules behind it; tests/ui/test_first_frame.py).
    import httpx

__all__ = [
    "BODY_EXCERPT",
    "HOST_MESSAGE_MAX",
    "KEY_ADVICE",
    "HostError",
    "KeyTrouble",
    "error_for_exception",
    "error_for_response",
    "excerpt",
    "host_error",
]

#: How much of a non-JSON body a message quotes.
BODY_EXCERPT = 120
#: How much of a host's error message a HostError repeats.
HOST_MESSAGE_MAX = 300
#: How much of a host's error code a HostError repeats.
HOST_CODE_MAX = 64

#: What `excerpt` shows for the two controls `clean` leaves alone, to keep a message on one line.
_ONE_LINE = {"\n": "\u240a", "\t": "\u2409"}
#: The start of a ``<U+XXXX>`` marker left dangling by a cut.
_HALF_MARKER = re.compile(r"<(?:U(?:\+[0-9A-F]{0,5})?)?$")

#: Phrases resolver errors use (glibc, macOS, Windows) when the socket error itself is not in
#: the cause chain.
_DNS_FAILURE_MARKERS = (
    "name or service not known",
    "nodename nor servname",
    "temporary failure in name resolution",
    "getaddrinfo failed",
    "no address associated",
    "name resolution",
)


#: What the command line says to do about a key the host refused or needs (a front end with a
#: settings screen words its own advice instead: `HostError.key_trouble`).
KEY_ADVICE = "Set --api-key or OPENWOP_API_KEY."

KeyTrouble = Literal["missing", "rejected", "scope"]
"""Why the host refused the request because of the API key: none was sent (401), the one sent
was refused (401), or it lacks the scope for the request (403)."""

#: The command line's advice for each `KeyTrouble`.
_KEY_ADVICE: dict[str, str] = {
    "missing": KEY_ADVICE,
    "rejected": KEY_ADVICE,
    "scope": "Set --api-key or OPENWOP_API_KEY to a key that has it.",
}


class HostError(Exception):
    """A request to the host failed; ``message`` says why in one user-facing sentence.

    ``status`` is the HTTP status (``None`` when no response arrived); ``code`` is the host's
    ``error`` code, or one of the client's own for failures without a response:
    ``connection_refused``, ``dns_failure``, ``timeout``, ``tls_error``, ``connection_error``,
    ``invalid_url``, ``bad_response`` (a 2xx whose body is not what the protocol promises),
    ``redirect``. ``retry_after`` is the host's ``Retry-After`` in seconds, when it sent one.

    ``key_trouble`` says when the API key is the problem (`KeyTrouble`); then ``problem`` is the
    sentence without the advice of how to give a key (``message`` adds the command line's,
    `KEY_ADVICE`), so a front end can word its own ("press F10 to enter a key").

    ``message`` is safe to print: host text in it went through `excerpt`. ``code`` and
    ``details`` are the host's own, decoded through `openwop_tui.protocol.hostdata.host_value`
    (cleaned, the API key masked), so they are safe to show too; ``code`` is not cut.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        retry_after: float | None = None,
        details: Any = None,
        key_trouble: KeyTrouble | None = None,
        advice: str = "",
    ) -> None:
        """Keep the failure's sentence, cleaned, and what the host said about it.

        Args:
            message: The one user-facing sentence saying why the request failed; cleaned here.
            status: The HTTP status, or None when no response arrived.
            code: The host's ``error`` code, or one of the client's own for failures without a
                response (``timeout``, ``connection_refused``…); None when neither applies.
            retry_after: The host's ``Retry-After``, in seconds; None when it sent none.
            details: The host's ``details``, already decoded through ``host_value``; None when
                absent.
            key_trouble: When the API key is why the request failed, how (`KeyTrouble`).
            advice: What to do about it on the command line, said after ``message`` (``""``:
                nothing more to say).
        """
        # A boundary: the sentence is built all over the client from host excerpts, URLs the user
        # configured and exception messages; it is cleaned once here, so it is `HostText`.
        self.problem: HostText = clean(message)
        """What went wrong, without the advice (a front end may give its own)."""
        self.message: HostText = clean(f"{message} {advice}" if advice else message)
        super().__init__(self.message)
        self.status = status
        self.code = code
        self.retry_after = retry_after
        self.details = details
        self.key_trouble = key_trouble

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"HostError(status={self.status!r}, code={self.code!r}, message={self.message!r})"


def excerpt(text: str, limit: int = HOST_MESSAGE_MAX, *, secrets: tuple[str, ...] = ()) -> str:
    """Make host-supplied text safe for a one-line message: controls made visible, length cut.

    ``secrets`` are masked *before* the cut: a cut through a key would leave a piece of it that
    a later scrub of the whole message cannot recognise.

    The visible forms are `openwop_tui.text.sanitize.clean`'s (ESC shows as ``␛``, C1 and bidi
    controls as ``<U+009B>``, ``<U+202E>``); on top of that the message stays on one line (a line
    feed shows as ``␊``, a tab as ``␉``) and any other character that is not printable (line and
    paragraph separators, zero-width and unassigned characters…) shows as ``<U+2028>``.
    """
    # `clean` shortens nothing but CRLF (to LF), so 2 * limit + 2 characters of the text always
    # give more than `limit`: when the text is longer than that, the result below is cut anyway.
    if secrets:
        # The window is wider than the cut by the longest secret, so a key that straddles the
        # cut is seen whole (or as a prefix at the window's end, which `mask` also catches).
        text = mask(text[: 2 * limit + 2 + max(map(len, secrets))], secrets)
    cleaned = clean(text[: 2 * limit + 2])
    out = "".join(
        _ONE_LINE.get(ch) or (ch if ch.isprintable() else f"<U+{ord(ch):04X}>") for ch in cleaned
    )
    if len(out) <= limit:
        return out
    # Cut, without leaving half of a `<U+…>` marker at the end.
    return _HALF_MARKER.sub("", out[: limit - 1]) + "…"


def host_error(
    message: str,
    api_key: str | None,
    *,
    status: int | None = None,
    code: str | None = None,
    retry_after: float | None = None,
    details: Any = None,
    key_trouble: KeyTrouble | None = None,
) -> HostError:
    """A `HostError` whose message is guaranteed free of ``api_key``.

    Args:
        message: The user-facing sentence, which may quote the key.
        api_key: The key to scrub from the message (and long fragments of it); None for no key.
        status: The HTTP status, or None when no response arrived.
        code: The host's error code or one of the client's own; None when there is none.
        retry_after: The host's ``Retry-After``, in seconds; None when it sent none.
        details: The host's decoded ``details``; None when absent.
        key_trouble: When the key is the problem, how; the message then ends with the command
            line's advice (`KEY_ADVICE`; kept apart: `HostError.problem`).
    """
    return HostError(
        _scrub(message, api_key),
        status=status,
        code=code,
        retry_after=retry_after,
        details=details,
        key_trouble=key_trouble,
        advice=_KEY_ADVICE[key_trouble] if key_trouble else "",
    )


def error_for_exception(
    exc: httpx.HTTPError,
    *,
    action: str,
    base_url: str,
    origin: str,
    timeout: float,
    api_key: str | None,
) -> HostError:
    """Translate a network-level failure into a `HostError` with a specific sentence.

    Args:
        exc: The httpx failure (timeout, refused connection, DNS, TLS…); its cause chain is read
            too.
        action: What was being done, completing "when asked to …".
        base_url: The host's configured URL; its host name is quoted when it does not resolve.
        origin: ``scheme://host[:port]``, how the host is named in the message.
        timeout: The per-request timeout that may have run out, in seconds.
        api_key: The API key, masked wherever the exception quotes it; None for no key.
    """
    import httpx  # here, not at the top: the first frame does not wait for it

    chain = _exception_chain(exc)
    secrets = secrets_of(api_key)
    said = excerpt(str(exc), 160, secrets=secrets)  # an exception may quote a URL or a header
    text = " ".join(str(e) for e in chain).lower()
    host = urlsplit(base_url).hostname or origin
    if isinstance(exc, httpx.TimeoutException):
        if isinstance(exc, httpx.ConnectTimeout):
            message = (
                f"Cannot reach {origin} — no answer within {timeout:g} s. "
                "Is the host running and reachable?"
            )
        else:
            message = (
                f"The host at {origin} did not answer within {timeout:g} s when asked to {action}."
            )
        return host_error(message, api_key, code="timeout")
    if isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return host_error(
            f"Cannot {action}: the URL is not usable ({excerpt(str(exc), secrets=secrets)}).",
            api_key,
            code="invalid_url",
        )
    if isinstance(exc, httpx.ConnectError):
        if any(isinstance(e, ConnectionRefusedError) for e in chain) or "refused" in text:
            return host_error(
                f"Cannot reach {origin} — connection refused. Is the host running?",
                api_key,
                code="connection_refused",
            )
        if any(isinstance(e, socket.gaierror) for e in chain) or any(
            marker in text for marker in _DNS_FAILURE_MARKERS
        ):
            return host_error(
                f"Cannot reach {origin} — the name {host!r} does not resolve "
                "(DNS lookup failed). Check the host URL.",
                api_key,
                code="dns_failure",
            )
        if "ssl" in text or "certificate" in text or "tls" in text:
            return host_error(
                f"Cannot reach {origin} — the TLS handshake failed ({said}).",
                api_key,
                code="tls_error",
            )
        return host_error(
            f"Cannot reach {origin} — {said or 'connection failed'}.",
            api_key,
            code="connection_error",
        )
    detail = said
    return host_error(
        f"The connection to {origin} failed while trying to {action} "
        f"({type(exc).__name__}{': ' + detail if detail else ''}).",
        api_key,
        code="connection_error",
    )


#: A key without the scope for a request (403): the advice (`KEY_ADVICE`) is added after it.
_SCOPE = (
    "The host refused to {action} with this API key ({label}): the key may lack the scope for "
    "it.{says}"
)

#: The sentence for an error response, by its status and error code (``None``: any): the first
#: rule that matches says it (`_sentence`). Filled from ``action`` (completes "when asked
#: to …"), ``label`` ("409 run_terminal"), ``says`` (the host's own message), ``what`` (the
#: workflow or run named) and ``wait`` (a Retry-After).
_SENTENCES: tuple[tuple[int | None, str | None, str], ...] = (
    # v2: a tenant-bound id of another tenant than the key's (identity.md §5).
    (
        403,
        "id_tenant_mismatch",
        "The host refused to {action}: the id{what} belongs to another tenant than this API key "
        "({label}).{says}",
    ),
    (403, None, _SCOPE),
    (404, "workflow_not_found", "The host has no workflow{what} ({label}).{says}"),
    (404, "run_not_found", "The host does not know run{what} ({label}).{says}"),
    (404, None, "Not found: the host could not {action} ({label}).{says}"),
    (
        409,
        "run_already_active",
        "A run of this workflow is already active on the host ({label}{wait}). Wait for it to "
        "finish or cancel it.{says}",
    ),
    (
        409,
        "idempotency_key_mismatch",
        "The host already received this request's Idempotency-Key with a different body "
        "({label}). Send it again as a new request.{says}",
    ),
    (
        409,
        "idempotency_in_flight",
        "The host is still processing an identical request ({label}{wait}); wait for it "
        "instead of sending again.{says}",
    ),
    (409, "interrupt_already_resolved", "That question was already answered ({label}).{says}"),
    (409, "run_terminal", "The run has already finished ({label}).{says}"),
    (409, None, "The host refused to {action} because of a conflict ({label}).{says}"),
    (410, None, "It is too late to {action} ({label}).{says}"),
    (
        422,
        "capability_required",
        "The workflow{what} needs a capability this host does not have ({label}).{says}",
    ),
    (429, None, "The host is rate limiting requests ({label}{wait}).{says}"),
    (
        None,
        "protocol_version_mismatch",
        "The host refused the protocol version this client sent when asked to {action} "
        "({label}).{says}",
    ),
    (406, None, "The host does not speak this protocol version ({label}).{says}"),
    (
        None,
        "protocol_version_unsupported",
        "The host does not speak this protocol version ({label}).{says}",
    ),
    (426, None, "The host requires a newer client ({label}).{says}"),
)

_UNAVAILABLE = (
    "The host is unavailable ({label}{wait}) when asked to {action}; try again shortly.{says}"
)


def _rule(status: int, code: str | None) -> str | None:
    """The template of the first rule of `_SENTENCES` for ``status`` and ``code``, if any."""
    for rule_status, rule_code, template in _SENTENCES:
        if rule_status in (None, status) and rule_code in (None, code):
            return template
    return None


def _sentence(status: int, code: str | None) -> str:
    """The template of the sentence for ``status`` and ``code``: its rule (`_SENTENCES`), else
    by the status's class."""
    template = _rule(status, code)
    if template is not None:
        return template
    if status in (502, 503, 504):
        return _UNAVAILABLE
    if status >= 500:
        return "The host failed while trying to {action} ({label}).{says}"
    if status >= 400:
        return "The host rejected the request to {action} ({label}).{says}"
    return "The host answered {label} when asked to {action}.{says}"


def error_for_response(
    response: httpx.Response,
    body: bytes,
    *,
    action: str,
    api_key: str | None,
    subject: str | None = None,
    request_limit: int | None = None,
) -> HostError:
    """Translate an HTTP error response into a `HostError` with a specific sentence.

    Accepts ``{error, message, details?}``, ``{"error": "code"}`` alone (real hosts), and
    ``{"error": {code, message}}``; anything else is quoted as a non-JSON body.

    Args:
        response: The error response; its status and ``Retry-After`` are read.
        body: The response body as received, decoded here.
        action: What was being done, completing "when asked to …".
        api_key: Scrubbed from the message; also tells a rejected key (401 with a key) from a
            missing one (None).
        subject: The workflow or run involved, named in the sentences that need it (an unknown run
            or workflow, another tenant's id); None when there is none.
        request_limit: The host's advertised ``limits.maxRequestBodyBytes``, for the sentence of a
            request refused for its size (413, or a 400 whose error says so); None when not
            advertised.
    """
    status = response.status_code
    code: str | None = None
    host_message: str | None = None
    details: Any = None
    body_note = ""
    secrets = secrets_of(api_key)
    text = body.decode("utf-8", errors="replace")
    try:
        # Cleaned and masked as it is decoded: code, message and details hold no raw host text.
        doc: Any = host_value(json.loads(text), secrets) if text.strip() else None
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
        doc = None
        body_note = (
            f" The response body is not JSON: {excerpt(text, BODY_EXCERPT, secrets=secrets)!r}."
        )
    if isinstance(doc, Mapping):
        error = doc.get("error")
        if isinstance(error, Mapping):  # {"error": {"code", "message"}} (older hosts)
            code = _text(error.get("code"))
            host_message = _text(error.get("message"))
        else:
            code = _text(error)
        host_message = _text(doc.get("message")) or host_message
        details = doc.get("details")
    elif doc is not None:
        shown = excerpt(text, BODY_EXCERPT, secrets=secrets)
        body_note = f" The error body is not an object: {shown!r}."

    says = f" Host says: {excerpt(host_message)}" if host_message else ""
    says = (says.rstrip(".") + ".") if says else ""
    says += body_note
    try:
        phrase = HTTPStatus(status).phrase.lower()
    except ValueError:
        phrase = "error"
    label = f"{status} {excerpt(code, HOST_CODE_MAX) if code else phrase}"
    retry_after = _retry_after(response)
    wait = f"; retry after {span(retry_after)}" if retry_after is not None else ""
    what = f" {excerpt(subject)!r}" if subject else ""
    trouble: KeyTrouble | None = None

    if _too_large(status, code, host_message):
        message = too_large(
            action,
            _request_size(response),
            _limit_in(details) or request_limit,
            f"{label}{says and ';'}{says.rstrip('.')}",
        )
    elif status == 401:
        needs = "rejected the API key" if api_key else "needs an API key"
        message = f"The host {needs} ({label})."
        trouble = "rejected" if api_key else "missing"
    elif 300 <= status < 400 and _rule(status, code) is None:
        location = response.headers.get("location", "")
        message = (
            f"The host redirected the request to {action} ({label}) to "
            f"{excerpt(location, 160, secrets=secrets)!r}; redirects are not followed. "
            "Use the final address as the host URL."
        )
        code = code or "redirect"
    else:
        words = {"action": action, "label": label, "says": says, "what": what, "wait": wait}
        message = _sentence(status, code).format_map(words)
        if status == 403 and _rule(403, code) is _SCOPE:
            trouble = "scope"
    return host_error(
        message,
        api_key,
        status=status,
        code=code,
        retry_after=retry_after,
        details=details,
        key_trouble=trouble,
    )


#: Error codes hosts use for a body over their limit (and words their messages say it with).
_SIZE_CODES = frozenset(
    {"payload_too_large", "request_too_large", "request_entity_too_large", "body_too_large"}
)
_SIZE_WORDS = ("too large", "too big", "exceeds", "maxrequestbodybytes", "body limit")


def _too_large(status: int, code: str | None, message: str | None) -> bool:
    if status == 413:
        return True
    if status != 400:
        return False
    said = f"{code or ''} {message or ''}".lower()
    return (code or "").lower() in _SIZE_CODES or any(word in said for word in _SIZE_WORDS)


def too_large(action: str, size: int | None, limit: int | None, label: str = "") -> str:
    """The one line for a request refused (or cut off) for its size: how big it was, the host's
    limit, what to do.

    Args:
        action: What the request was for, completing "the request to …".
        size: The request body's size in bytes; None when unknown.
        limit: The host's ``limits.maxRequestBodyBytes``; None when not advertised.
        label: A short note shown in parentheses after "for its size"; empty for none.
    """
    parts = []
    if size is not None:
        parts.append(f"it is {human_size(size)}")
    if limit is not None:
        parts.append(f"the host takes at most {human_size(limit)} (limits.maxRequestBodyBytes)")
    how = ", ".join(parts) if parts else "it is larger than the host takes"
    shown = f" ({label})" if label else ""
    return (
        f"The host refused the request to {action} for its size{shown}: {how}. Lower "
        "[chat] history_turns or history_bytes in the config file, or start a new session."
    )


def _request_size(response: httpx.Response) -> int | None:
    try:
        header = response.request.headers.get("content-length")
    except RuntimeError:  # a response built without its request (tests, mocks)
        return None
    return int(header) if header and header.isdigit() else None


def _limit_in(details: Any) -> int | None:
    """A byte limit the error's ``details`` name (``limit``, ``maxBytes``, …), if any."""
    if not isinstance(details, Mapping):
        return None
    for key in ("maxRequestBodyBytes", "maxBytes", "limit", "limitBytes", "max"):
        value = details.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def _scrub(text: str, api_key: str | None) -> str:
    # `mask` also catches a key's prefix left at the end of the text by a cut.
    return mask(text, secrets_of(api_key))


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _retry_after(response: httpx.Response) -> float | None:
    return parse_retry_after(response.headers.get("retry-after"), response.headers.get("date"))


def _exception_chain(error: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen
