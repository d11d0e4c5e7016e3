"""Events as the log stores them: ``plain`` gives the JSON-ready copy of any rules value."""

from __future__ import annotations

import dataclasses
import enum
import json
from dataclasses import dataclass
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from rules.dice import Die
from rules.events import Event, Note, plain
from rules.systems.d6.events import ActionDeclared
from rules.systems.d6.state import PlannedAction


class Stance(enum.Enum):
    GUARD = "guard"


class Count(enum.IntEnum):
    TWO = 2


@dataclass(frozen=True)
class Step:
    name: str
    stance: Stance
    extra: Any = None


@dataclass(frozen=True)
class Moved(Event):
    who: str
    steps: tuple[Step, ...]
    marks: frozenset[str]
    dice: tuple[Die, ...] = ()


def as_json_would_store(value: Any) -> Any:
    """What a JSON-ready copy must be, written out the long way."""
    if isinstance(value, Die | Event):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: as_json_would_store(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): as_json_would_store(v) for k, v in value.items()}
    if isinstance(value, frozenset | set):
        return sorted((as_json_would_store(v) for v in value), key=repr)
    if isinstance(value, list | tuple):
        return [as_json_would_store(v) for v in value]
    return value


LEAVES = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=5)
    | st.just(Stance.GUARD)
    | st.just(Count.TWO)
    | st.builds(Die, st.integers(2, 12), st.integers(1, 12))
)
VALUES = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.frozensets(st.text(max_size=3), max_size=3)
        | st.dictionaries(st.integers(0, 3) | st.text(max_size=3), inner, max_size=3)
        | st.builds(Step, st.text(max_size=3), st.just(Stance.GUARD), inner)
        | st.builds(Note, st.text(max_size=5))
    ),
    max_leaves=10,
)


@given(VALUES)
def test_any_rules_value_is_copied_as_json_would_store_it(value: Any) -> None:
    copied = plain(value)
    assert copied == as_json_would_store(value)
    json.dumps(copied)  # JSON-ready


def test_an_event_keeps_its_kind_its_fields_and_its_dice() -> None:
    event = Moved("Wolf 1", (Step("in", Stance.GUARD, (1, Count.TWO)),), frozenset({"b", "a"}), (Die(6, 4),))
    assert event.to_dict() == {
        "kind": "Moved",
        "who": "Wolf 1",
        "steps": [{"name": "in", "stance": "guard", "extra": [1, 2]}],
        "marks": ["a", "b"],
        "dice": [{"sides": 6, "value": 4, "origin": "random", "label": ""}],
    }
    assert type(event.to_dict()["steps"][0]["extra"][1]) is int


def test_a_declared_action_is_stored_in_its_event_as_in_the_plan_never_with_its_cache() -> None:
    action = PlannedAction(kind="attack", target="b")
    action.stored()  # the plan's save made its stored form first, as a change does
    assert ActionDeclared("a", action, 1).to_dict()["action"] == action.to_dict()
