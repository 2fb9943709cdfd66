"""A small, bounded check of a value against the JSON Schema a host gave an interrupt.

Hosts describe what an answer must be with ``resumeSchema`` (or a conversation's
``outcomeSchema``, a question's ``schema``). `schema_problem` checks the parts a terminal form
can get wrong (type, enum/const, string length and pattern, number bounds, required and closed
object keys, array items), to a fixed depth, and says what is wrong in a sentence; `coerce`
turns typed text into the schema's type. It is not a full validator: a host has the last word
(a ``400`` names what it refused). Patterns are matched by `openwop_tui.protocol.patterns` (RE2,
linear time, bounded); `pattern_notes` names the patterns that cannot be checked here.

Pure: no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from openwop_tui.protocol.patterns import MAX_VALUE_CHARS, check_pattern, compile_problem


class AnswerError(ValueError):
    """An answer that does not fit the interrupt; the message says what would."""


def number(value: Any) -> float | None:
    """A finite number from host data (not a bool, not NaN or infinity), else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if number == number and abs(number) != float("inf") else None


def mapping(value: Any) -> Mapping[str, Any]:
    """``value`` when it is a mapping, else an empty one (host data may be any JSON)."""
    return value if isinstance(value, Mapping) else {}


def schema_property(schema: Mapping[str, Any] | None, name: str) -> Mapping[str, Any]:
    """The schema of property ``name`` of an object schema (empty when there is none)."""
    return mapping(mapping(mapping(schema).get("properties")).get(name))


def parse_json(text: str) -> Any:
    """Typed text as JSON when it parses, else the text itself."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "object": (Mapping,),
    "array": (list, tuple),
}


def _is_type(value: Any, name: str) -> bool:
    if name == "null":
        return value is None
    if name in ("number", "integer") and isinstance(value, bool):
        return False
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    kinds = _TYPES.get(name)
    return True if kinds is None else isinstance(value, kinds)


def coerce(text: str, schema: Mapping[str, Any] | None, name: str) -> Any:
    """Typed text as the schema's type: numbers, booleans, JSON for objects and arrays."""
    kind = mapping(schema).get("type")
    if kind == "integer":
        try:
            return int(text)
        except ValueError:
            raise AnswerError(f"question {name} takes a whole number (got {text!r})") from None
    if kind == "number":
        try:
            number = float(text)
        except ValueError:
            raise AnswerError(f"question {name} takes a number (got {text!r})") from None
        return int(number) if number.is_integer() and "." not in text else number
    if kind == "boolean":
        folded = text.casefold()
        if folded in ("yes", "y", "true", "1"):
            return True
        if folded in ("no", "n", "false", "0"):
            return False
        raise AnswerError(f"question {name} takes yes or no (got {text!r})")
    if kind in ("object", "array"):
        value = parse_json(text)
        if isinstance(value, str):
            raise AnswerError(f"question {name} takes JSON (an {kind})")
        return value
    return text


def schema_problem(schema: Mapping[str, Any] | None, value: Any, where: str) -> str | None:
    """The first way ``value`` breaks ``schema`` (a JSON Schema subset: ``type``, ``enum``,
    ``const``, ``required``, ``properties``, ``additionalProperties``, ``items``, lengths,
    bounds, ``pattern``), as a sentence naming ``where``; ``None`` when it fits. Keywords it
    does not know are ignored: the host checks again, and its 400 says what it disliked."""
    if not isinstance(schema, Mapping):
        return None
    return _problem(schema, value, where, 0)


def _problem(schema: Mapping[str, Any], value: Any, where: str, depth: int) -> str | None:
    """The first way ``value`` breaks ``schema``, as a sentence, or None when it fits.

    Args:
        schema: The (sub)schema to check against.
        value: The value at this place.
        where: How the place is named in the sentence (``the answer``, ``the answer.name``…).
        depth: How deep the walk is; past 20 nothing more is checked.
    """
    if depth > 20:
        return None
    kind = schema.get("type")
    kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else []
    if kinds and not any(_is_type(value, str(k)) for k in kinds):
        return f"{where} must be {' or '.join(str(k) for k in kinds)}"
    enum = schema.get("enum")
    if isinstance(enum, list) and value not in enum:
        return f"{where} must be one of: {', '.join(json.dumps(e, default=str) for e in enum)}"
    if "const" in schema and value != schema["const"]:
        return f"{where} must be {json.dumps(schema['const'], default=str)}"
    if isinstance(value, str):
        return _string_problem(schema, value, where)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _number_problem(schema, value, where)
    if isinstance(value, Mapping):
        return _object_problem(schema, value, where, depth)
    if isinstance(value, list | tuple):
        return _array_problem(schema, value, where, depth)
    return None


def _string_problem(schema: Mapping[str, Any], value: str, where: str) -> str | None:
    low, high = schema.get("minLength"), schema.get("maxLength")
    if isinstance(low, int) and len(value) < low:
        return f"{where} must be at least {low} characters"
    if isinstance(high, int) and len(value) > high:
        return f"{where} must be at most {high} characters"
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        checked = check_pattern(pattern, value)
        if checked.outcome == "mismatch":
            return f"{where} must match {_shown_pattern(pattern)}"
        if checked.outcome == "too-long":
            return (
                f"{where} is too long to check against its pattern here "
                f"({len(value):,} characters; at most {MAX_VALUE_CHARS:,})"
            )
        # "unchecked": a pattern RE2 cannot run; the host judges (see `pattern_notes`).
    return None


def _shown_pattern(pattern: str, limit: int = 200) -> str:
    return pattern if len(pattern) <= limit else pattern[: limit - 1] + "…"


def pattern_notes(schema: Mapping[str, Any] | None, where: str) -> list[str]:
    """A sentence for each ``pattern`` in ``schema`` (to a fixed depth) that cannot be checked
    here (`openwop_tui.protocol.patterns.compile_problem`): such an answer is sent unchecked
    against it and the host decides."""
    notes: list[str] = []
    _notes(mapping(schema), where, 0, notes, [_NODES_WALKED])
    return notes


#: Subschemas `pattern_notes` looks at, at most: each is visited once, so the walk is linear
#: in the schema's size, and a host's enormous schema costs no more than this many.
_NODES_WALKED = 2_000


def _notes(
    schema: Mapping[str, Any], where: str, depth: int, notes: list[str], budget: list[int]
) -> None:
    """Add a note for each pattern in the schema that cannot be checked here.

    Args:
        schema: The (sub)schema to walk.
        where: How this place is named in a note.
        depth: How deep the walk is; past 20 it stops.
        notes: The notes so far, added to in place; at 10 the walk stops.
        budget: One count of subschemas still to visit, shared by the whole walk and spent in place.
    """
    if depth > 20 or len(notes) >= 10 or budget[0] <= 0:
        return
    budget[0] -= 1
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        problem = compile_problem(pattern)
        if problem:
            notes.append(
                f"{where} is not checked against the host's pattern here ({problem}); "
                "the host checks it"
            )
    below = [(f"{where}.{name}", sub) for name, sub in mapping(schema.get("properties")).items()]
    below += [
        (where + "[]", schema.get("items")),
        (where + ".*", schema.get("additionalProperties")),
    ]
    for place, sub in below:
        # Only a subschema that is there is walked: descending into every absent ``items`` and
        # ``additionalProperties`` made the walk 2**depth calls (minutes on a busy machine).
        if sub and isinstance(sub, Mapping):
            _notes(sub, place, depth + 1, notes, budget)
            if budget[0] <= 0:
                return


def _number_problem(schema: Mapping[str, Any], value: float, where: str) -> str | None:
    low, high = number(schema.get("minimum")), number(schema.get("maximum"))
    above, below = number(schema.get("exclusiveMinimum")), number(schema.get("exclusiveMaximum"))
    if low is not None and value < low:
        return f"{where} must be at least {low:g}"
    if high is not None and value > high:
        return f"{where} must be at most {high:g}"
    if above is not None and value <= above:
        return f"{where} must be more than {above:g}"
    if below is not None and value >= below:
        return f"{where} must be less than {below:g}"
    return None


def _object_problem(
    schema: Mapping[str, Any], value: Mapping[str, Any], where: str, depth: int
) -> str | None:
    """The first way an object breaks its schema (a missing required key, a key not allowed, a bad
    value), or None.

    Args:
        schema: The object's schema.
        value: The object.
        where: How the object is named in the sentence.
        depth: How deep the walk is, passed on to the values' checks.
    """
    required = schema.get("required")
    for name in required if isinstance(required, list) else []:
        if isinstance(name, str) and name not in value:
            return f"{where} needs {name!r}"
    props = mapping(schema.get("properties"))
    extra = schema.get("additionalProperties")
    for name, item in value.items():
        sub = props.get(name)
        if isinstance(sub, Mapping):
            problem = _problem(sub, item, f"{where}.{name}", depth + 1)
        elif extra is False:
            problem = f"{where} may not have {name!r}"
        elif isinstance(extra, Mapping):
            problem = _problem(extra, item, f"{where}.{name}", depth + 1)
        else:
            problem = None
        if problem:
            return problem
    return None


def _array_problem(
    schema: Mapping[str, Any], value: Sequence[Any], where: str, depth: int
) -> str | None:
    """The first way an array breaks its schema (too few, too many, a bad item), or None.

    Args:
        schema: The array's schema.
        value: The array.
        where: How the array is named in the sentence; items are named ``where[index]``.
        depth: How deep the walk is, passed on to the items' checks.
    """
    low, high = schema.get("minItems"), schema.get("maxItems")
    if isinstance(low, int) and len(value) < low:
        return f"{where} needs at least {low} items"
    if isinstance(high, int) and len(value) > high:
        return f"{where} takes at most {high} items"
    items = schema.get("items")
    if isinstance(items, Mapping):
        for index, item in enumerate(value):
            problem = _problem(items, item, f"{where}[{index}]", depth + 1)
            if problem:
                return problem
    return None
