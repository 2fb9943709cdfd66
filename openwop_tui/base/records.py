"""A quicker constructor, and a quicker unpickling, for frozen records made in their
thousands: each sets the record's fields through its slots' own setters.

A frozen dataclass sets each field in ``__init__`` with ``object.__setattr__`` looked up at
every field (the class's own ``__setattr__`` refuses), about twice the cost of the slot's own
setter, and three times a plain assignment. A fast host's event makes eight such records on its
way from the socket to the store and the fold, a few dozen fields in all: measured in process
over a 100,000-event flood, a tenth of the ingest's CPU went to those constructors alone.

`quick_init` gives a frozen, slotted dataclass an ``__init__`` that calls each slot's setter
(bound once, when the class is made) instead: the same parameters, defaults and default
factories, the same errors for a missing or unknown argument; the record stays frozen, equal
and hashed as the dataclass made it. Only for the records on that path: every other record
keeps the dataclass's constructor (making one more function costs at import).

`quick_state` does the same for ``__setstate__``: a reopened session unpickles its kept folds
(`openwop_tui.core.reopen`), whose notices hold their events, 18,000 at 3,000 turns, and the
dataclass's own looked every field up again for each object (``dataclasses.fields``) and set it
through ``object.__setattr__``: a third of the reading.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any, TypeVar, cast

__all__ = ["quick_init", "quick_state"]

T = TypeVar("T")


def quick_init(cls: type[T]) -> type[T]:
    """Replace frozen, slotted dataclass ``cls``'s ``__init__`` with one that sets each slot
    through its own setter. Applied above ``@dataclass(frozen=True, slots=True)``.

    Raises:
        TypeError: ``cls`` is not such a dataclass, or uses what this constructor does not
            (``__post_init__``, init-only, keyword-only or left-out fields).
    """
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__qualname__} is not a frozen dataclass with slots")
    if hasattr(cls, "__post_init__") or not _plain_init(cls):
        raise TypeError(
            f"{cls.__qualname__} has a __post_init__, or an __init__ other than its fields"
        )
    space: dict[str, Any] = {"_MISSING": dataclasses.MISSING}
    params_text: list[str] = []
    body: list[str] = []
    for f, setter in zip(_fields(cls), _setters(cls), strict=True):
        space[f"_set_{f.name}"] = setter
        value = f.name
        if f.default is not dataclasses.MISSING:
            space[f"_default_{f.name}"] = f.default
            params_text.append(f"{f.name}=_default_{f.name}")
        elif f.default_factory is not dataclasses.MISSING:
            # As the dataclass does: a sentinel default, the factory called for each record.
            space[f"_factory_{f.name}"] = f.default_factory
            params_text.append(f"{f.name}=_MISSING")
            value = f"_factory_{f.name}() if {f.name} is _MISSING else {f.name}"
        else:
            params_text.append(f.name)
        body.append(f"    _set_{f.name}(self, {value})")
    source = f"def __init__(self, {', '.join(params_text)}):\n" + "\n".join(body or ["    pass"])
    exec(source, space)
    init = space["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    type.__setattr__(cls, "__init__", init)
    return cls


def quick_state(cls: type[T]) -> type[T]:
    """Give frozen, slotted dataclass ``cls`` a ``__setstate__`` that sets its fields through
    their slots. The state is the one the dataclass's own ``__getstate__`` writes, unchanged:
    the field values, in field order."""
    setters = _setters(cls)

    def __setstate__(self: Any, state: list[Any]) -> None:
        for set_slot, value in zip(setters, state, strict=True):
            set_slot(self, value)

    type.__setattr__(cls, "__setstate__", __setstate__)
    return cls


def _fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    return dataclasses.fields(cast(Any, cls))


def _setters(cls: type) -> tuple[Callable[[Any, Any], None], ...]:
    """Each field's slot setter, in field order: what ``object.__setattr__`` would find for
    it, found once."""
    return tuple(getattr(cls, f.name).__set__ for f in _fields(cls))


def _plain_init(cls: type) -> bool:
    """Whether the dataclass's ``__init__`` takes ``cls``'s fields, each by place or name, and
    nothing else (no init-only or keyword-only field, none left out). Read from its code, not
    its `inspect.signature` (this runs at import, for every record that uses it)."""
    code = cls.__dict__["__init__"].__code__
    names = tuple(f.name for f in _fields(cls))
    return (
        code.co_kwonlyargcount == 0
        and not code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
        and code.co_varnames[1 : code.co_argcount] == names
    )
