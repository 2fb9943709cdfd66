"""Which names the protocol owns and which a vendor may coin: envelope kinds, event types, displays.

The rules, from the spec:

* ``ai-envelope.md`` §"Universal kinds", §"Media reference payloads", §"A2UI surfaces" and
  §"Vendor-namespaced kinds": the protocol defines four universal kinds and the core content
  families ``media.*`` (image, audio, file) and ``ui.*`` (``ui.a2ui-surface``), which grow only
  by RFC; every other kind MUST be vendor-namespaced (``vendor.<org>.<kind>`` in v1), except
  the legacy ``prd.create``, ``theme.create`` and ``tasks.create`` a pre-v1.1 host MAY still use.
* ``host-extensions.md`` §"Canonical prefixes": ``openwop.*`` and ``core.*`` are the protocol's;
  ``x-`` is the vendor escape hatch.
* ``spec/v2/core/events.md`` §Types and §"AI envelopes": a v2 vendor event type or envelope kind
  is ``<org>.<name>`` whose org is registered in ``spec/v2/declaration.json`` (an unregistered
  org fails validation); ``openwop.`` is reserved; ``core.``, ``community.``, ``vendor.``,
  ``private.`` and ``local.`` are pack namespaces, not event namespaces.

Each ``*_verdict`` function answers ``None`` for a name that is fine, else the rule code and a
sentence (`openwop_tui.inspect.findings` holds the codes). Pure.
"""

from __future__ import annotations

import re

from openwop_tui.inspect.schemas import short
from openwop_tui.protocol.envelopes import MEDIA_KINDS

#: The four kinds every engine MUST recognise.
UNIVERSAL_KINDS = frozenset({"clarification.request", "schema.request", "schema.response", "error"})
#: Every kind the spec defines: the universal four and the core content families' members.
DEFINED_KINDS = UNIVERSAL_KINDS | MEDIA_KINDS | {"ui.a2ui-surface"}
#: First segments the protocol owns: a name under one of them that the spec does not define
#: is not a vendor's to coin (``media.video`` is no kind at all, whoever sends it).
PROTOCOL_FAMILIES = frozenset(
    {"media", "ui", "clarification", "schema", "error", "openwop", "core"}
)
#: Un-namespaced kinds a pre-v1.1 host MAY still send (ai-envelope.md, backward compatibility).
LEGACY_KINDS = frozenset({"prd.create", "theme.create", "tasks.create"})

#: The v2 org registry, ``spec/v2/declaration.json`` ``extensions`` (as of 2026-09-11): the
#: only first segments a v2 vendor name may have. The file is append-only upstream.
V2_ORGS = frozenset({"example", "openwop-app", "myndhyve"})
#: ``reservedOrgs`` of the same file: never registered.
V2_RESERVED_ORGS = frozenset({"openwop", "vendor", "effect-seams", "events"})
#: Pack namespaces (events.md §Types): never the first segment of a v2 event type.
PACK_NAMESPACES = frozenset({"core", "community", "vendor", "private", "local"})

#: A v1 vendor namespace (host-extensions.md): ``vendor.<org>.<kind>``, ``private.<host>.<kind>``,
#: ``community.<…>``, ``local.<…>``.
_V1_VENDOR = re.compile(r"(?:(?:vendor|private)\.[^.]+\.|(?:community|local)\.)[^.].*", re.S)
#: The vendor escape hatch (host-extensions.md, ``x-host-<vendor>-exec``; pack manifests'
#: ``^(x-|vendor\.)``).
_X_PREFIX = "x-"

_REGISTRY = "spec/v2/declaration.json"
#: A vendor-shaped event type (`spec/v2/core/events.md`: ``<org>.<name>``, not ``openwop.``).
_VENDOR_TYPE = re.compile(r"[a-z][a-z0-9-]*(\.[a-zA-Z][a-zA-Z0-9_-]*){1,3}")


def family(name: str) -> str:
    """A dotted name's first segment (``media`` of ``media.video``)."""
    return name.partition(".")[0]


def kind_verdict(kind: str, major: int | None) -> tuple[str, str] | None:
    """What an envelope ``type`` earns in a stream of protocol ``major`` (``None``: unknown,
    so either major's form passes): ``None``, or a rule code and a sentence."""
    if kind in DEFINED_KINDS or kind.startswith(_X_PREFIX):
        return None
    shown = short(kind)
    head = family(kind)
    if head in PROTOCOL_FAMILIES:
        defined = ", ".join(sorted(k for k in DEFINED_KINDS if family(k) == head)) or "none"
        return (
            "OW206",
            f"kind {shown} is not one the protocol defines: {head}.* is the protocol's own "
            f"family (defined: {defined}), grown only by RFC; a vendor's kind is "
            "vendor.<org>.<kind>",
        )
    if kind in LEGACY_KINDS:
        return (
            "OW208",
            f"kind {shown} is a legacy un-namespaced kind (pre-v1.1 hosts); conformant "
            "hosts SHOULD send it vendor-namespaced",
        )
    if _V1_VENDOR.fullmatch(kind):
        if major == 2:
            return (
                "OW209",
                f"kind {shown} is namespaced the v1 way in a v2 stream: a v2 kind is "
                f"<org>.<kind> with an org registered in {_REGISTRY}",
            )
        return None
    if head in V2_ORGS and "." in kind and major != 1:
        return None
    return (
        "OW207",
        f"kind {shown} has no vendor namespace: a kind the protocol does not define is "
        f"vendor.<org>.<kind> (v1), <org>.<kind> with an org registered in {_REGISTRY} "
        "(v2), or x-…",
    )


def event_type_verdict(name: str, major: int, namespaces: frozenset[str]) -> tuple[str, str]:
    """What an event ``type`` in neither catalogue earns in a stream of protocol ``major``;
    ``namespaces``: the first segments of the catalogues' own types (``run``, ``node`` …)."""
    shown = short(name)
    head = family(name)
    if head == "openwop":
        return (
            "OW109",
            f"type {shown} is under openwop., the protocol's reserved prefix: a host MUST NOT "
            "coin types there",
        )
    if head in namespaces or not _VENDOR_TYPE.fullmatch(name):
        return (
            "OW102",
            f"type {shown} is in neither the v1 nor the v2 event catalogue "
            "(consumers MUST skip unknown types; a typo?)",
        )
    if major == 2:
        if head in PACK_NAMESPACES or head in V2_RESERVED_ORGS:
            return (
                "OW109",
                f"type {shown}: {head}. is a pack namespace or a reserved org, never an "
                "event namespace in v2",
            )
        if head not in V2_ORGS or "." not in name:
            return (
                "OW109",
                f"type {shown}: a v2 vendor type's first segment MUST be an org registered "
                f"in {_REGISTRY} ({', '.join(sorted(V2_ORGS))}); {short(head)} is not",
            )
    return (
        "OW103",
        f"type {shown} is a vendor event: consumers that do not know it skip it",
    )


def display_verdict(display: str) -> tuple[str, str] | None:
    """A ``display`` value under a family the protocol owns (``media.video``) that is not one
    of its six: neither a display value nor a vendor's (``None`` for any other value)."""
    head = family(display)
    if "." in display and head in PROTOCOL_FAMILIES:
        return (
            "OW306",
            f"display {short(display)} is under {head}., a namespace the protocol owns, "
            "and is not one of RFC 0055's six (markdown, code, card, image, audio, file)",
        )
    return None
