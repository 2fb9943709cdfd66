"""`quick_init`: the quick constructor makes the record the dataclass's own would, for the
records of every event and for any shape of fields, and refuses what it cannot make alike."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import InitVar, dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from openwop_tui.base.records import quick_init, quick_state
from openwop_tui.core.items import Updated
from openwop_tui.core.updates import EventArrived
from openwop_tui.protocol.events import RunEvent
from openwop_tui.protocol.frames import FrameResult
from openwop_tui.protocol.sse import SSEFrame
from openwop_tui.protocol.stream_items import Arrival
from openwop_tui.store.batch import Row
from openwop_tui.store.records import Entry


def _pair() -> tuple[type, type]:
    """The same record twice: with the dataclass's constructor, and with `quick_init`'s."""

    def make() -> type:
        @dataclass(frozen=True, slots=True)
        class Record:
            first: Any
            second: Any = 2
            third: list[Any] = field(default_factory=list)
            fourth: Any = field(default=None, compare=False, repr=False)

        return Record

    return make(), quick_init(make())


_VALUES = st.one_of(st.none(), st.integers(), st.text(max_size=5), st.lists(st.integers()))


@given(
    first=_VALUES,
    rest=st.lists(_VALUES, max_size=3),
    by_name=st.booleans(),
)
def test_a_quick_record_is_the_dataclasss_record(
    first: Any, rest: list[Any], by_name: bool
) -> None:
    plain, quick = _pair()
    values = [first, *rest]
    named = dict(zip(["first", "second", "third", "fourth"], values, strict=False))
    if by_name:
        made, expected = quick(**named), plain(**named)
    else:
        made, expected = quick(*values), plain(*values)
    assert dataclasses.astuple(made) == dataclasses.astuple(expected)
    assert repr(made) == repr(expected)
    assert made == quick(*dataclasses.astuple(made))


def test_each_record_gets_its_own_default_from_a_factory() -> None:
    _, quick = _pair()
    one, two = quick(1), quick(1)
    assert one.third == [] and one.third is not two.third
    given_list = [5]
    assert quick(1, 2, given_list).third is given_list


def test_a_quick_record_stays_frozen_and_hashed() -> None:
    _, quick = _pair()
    record = quick(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.first = 2
    assert hash(quick(1, 2, ())) == hash(quick(1, 2, ()))
    assert quick(1, fourth="a") == quick(1, fourth="b")  # (compare=False kept)


def test_a_wrong_call_is_refused_as_the_dataclass_refuses_it() -> None:
    plain, quick = _pair()
    for call in (lambda c: c(), lambda c: c(1, nonsense=2), lambda c: c(1, 2, 3, 4, 5)):
        with pytest.raises(TypeError) as theirs:
            call(plain)
        with pytest.raises(TypeError) as ours:
            call(quick)
        assert str(ours.value).split("() ", 1)[1] == str(theirs.value).split("() ", 1)[1]


def test_the_records_of_every_event_are_quick_and_make_what_they_made() -> None:
    for record in (Entry, Row, SSEFrame, FrameResult, RunEvent, Arrival, EventArrived, Updated):
        assert record.__init__.__qualname__ == f"{record.__qualname__}.__init__"
        assert "_set_" in " ".join(record.__init__.__code__.co_names)
    event = RunEvent("message.chunk", {"delta": "hi"}, 3)  # type: ignore[arg-type]
    assert (event.type, event.payload, event.sequence, event.run_id) == (
        "message.chunk",
        {"delta": "hi"},
        3,
        None,
    )
    assert Entry("frame").meta == {} and Entry("frame").meta is not Entry("frame").meta
    assert FrameResult().events == [] and pickle.loads(pickle.dumps(FrameResult())) == FrameResult()


def test_what_the_quick_constructor_cannot_make_alike_is_refused() -> None:
    @dataclass(slots=True)
    class Thawed:
        a: int

    @dataclass(frozen=True)
    class Unslotted:
        a: int

    @dataclass(frozen=True, slots=True)
    class Checked:
        a: int

        def __post_init__(self) -> None:
            pass

    @dataclass(frozen=True, slots=True)
    class InitOnly:
        a: int
        b: InitVar[int] = 0

    @dataclass(frozen=True, slots=True, kw_only=True)
    class KeywordOnly:
        a: int

    @dataclass(frozen=True, slots=True)
    class LeftOut:
        a: int
        b: int = field(default=0, init=False)

    for record in (Thawed, Unslotted, Checked, InitOnly, KeywordOnly, LeftOut):
        with pytest.raises(TypeError, match=record.__qualname__):
            quick_init(record)


def test_a_quick_state_unpickles_what_the_dataclass_pickled() -> None:
    _, quick = _pair()
    record = quick(1, "two", [3])
    state = record.__getstate__()
    made: Any = object.__new__(quick)
    quick_state(quick)
    made.__setstate__(state)
    assert made == record and dataclasses.astuple(made) == (1, "two", [3], None)
    event = RunEvent("message.chunk", {"delta": "hi"}, 3)  # type: ignore[arg-type]
    assert "set_slot" in vars(RunEvent)["__setstate__"].__code__.co_varnames
    assert pickle.loads(pickle.dumps(event)) == event
