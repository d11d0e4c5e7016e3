"""Every event class of every registered system has a renderer, every renderer survives any instance of its
class, and a renderer that fails fails the suite (strict) or is logged and replaced by a plain sentence."""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cogs.text.events  # noqa: F401  (registers every renderer)
from cogs.text.events import registry
from rules.events import Event, Note
from rules.systems.d6.pool import DieCode
from rules.systems.registry import all_systems

# A die code never has fewer than 0 dice (DieCode refuses it); pips stay below a die.
st.register_type_strategy(DieCode, st.builds(DieCode, dice=st.integers(0, 40), pips=st.integers(0, 2)))


def _subclasses(cls: type[Event]) -> set[type[Event]]:
    found: set[type[Event]] = set()
    for sub in cls.__subclasses__():
        found |= {sub, *_subclasses(sub)}
    return found


def system_event_classes() -> list[type[Event]]:
    """Every event class of the registered systems' packages, and the shared ones in ``rules.events``."""
    packages = {"rules.events"}
    for system in all_systems():
        module = sys.modules[type(system).__module__]
        packages.add(
            module.__name__.rsplit(".", 1)[0] if not hasattr(module, "__path__") else module.__name__
        )
    classes = [
        cls
        for cls in _subclasses(Event)
        if any(cls.__module__ == p or cls.__module__.startswith(p + ".") for p in packages)
    ]
    return sorted(classes, key=lambda c: (c.__module__, c.__qualname__))


EVENT_CLASSES = system_event_classes()


def _id(cls: type[Event]) -> str:
    return f"{cls.__module__.removeprefix('rules.systems.')}.{cls.__qualname__}"


def test_the_enumeration_sees_every_system_and_the_shared_note() -> None:
    assert Note in EVENT_CLASSES
    for system in all_systems():
        assert any(c.__module__.startswith(f"rules.systems.{system.name}.") for c in EVENT_CLASSES), (
            system.name
        )


@pytest.mark.parametrize("cls", EVENT_CLASSES, ids=_id)
def test_every_event_class_has_a_renderer(cls: type[Event]) -> None:
    assert registry.renderer_for(cls) is not None, (
        f"no renderer for {_id(cls)}: add one with @renders({cls.__name__})"
    )


@pytest.mark.parametrize("cls", EVENT_CLASSES, ids=_id)
def test_every_renderer_renders_any_instance_of_its_class(cls: type[Event]) -> None:
    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.builds(cls), st.dictionaries(st.text(min_size=1, max_size=3), st.text(max_size=80), max_size=4))
    def renders(event: Event, names: dict[str, str]) -> None:
        lines = registry.event_lines(event, names)  # strict in the suite: a raising renderer fails here
        assert all(isinstance(line, str) and line and "\n" not in line for line in lines)

    renders()


def test_names_never_ids_when_the_name_is_known() -> None:
    from rules.systems.d6.events import Moved

    [line] = registry.event_lines(Moved(who="17", distance=3, free=False), {"17": "Vale"})
    assert "**Vale**" in line and "17" not in line


@dataclass(frozen=True)
class Exploding(Event):
    what: str


@dataclass(frozen=True)
class Unrendered(Event):
    what: str


@pytest.fixture
def exploding_renderer():
    @registry.renders(Exploding)
    def explode(e: Exploding, names: registry.Names) -> str:
        raise KeyError(e.what)

    yield explode
    registry.unregister(Exploding)


def test_a_renderer_that_raises_fails_in_strict_mode(exploding_renderer: object) -> None:
    assert registry.is_strict()  # the suite's conftest turns it on
    with pytest.raises(registry.RenderError, match="Exploding"):
        registry.event_lines(Exploding("boom"), {})
    with pytest.raises(registry.RenderError, match="no renderer"):
        registry.event_lines(Unrendered("x"), {})


def test_in_production_a_failing_renderer_is_logged_and_a_plain_sentence_shown(
    exploding_renderer: object, caplog: pytest.LogCaptureFixture
) -> None:
    before = registry.set_strict(False)
    try:
        with caplog.at_level(logging.ERROR, logger=registry.__name__):
            lines = registry.lines_of([Exploding("boom"), Unrendered("x"), Note("still shown")], {})
    finally:
        registry.set_strict(before)
    assert lines[0] == "📎 Exploding (the details are in `/encounter log`)."
    assert lines[1] == "📎 Unrendered (the details are in `/encounter log`)."
    assert lines[2] == "📎 still shown"
    assert not any("what" in line for line in lines)  # never a "key value; key value" dump
    failed = next(r for r in caplog.records if "Exploding" in r.getMessage())
    assert failed.levelno == logging.ERROR and failed.exc_info and failed.exc_info[0] is KeyError
    assert any(r.levelno == logging.ERROR and "Unrendered" in r.getMessage() for r in caplog.records)


def test_a_class_cannot_get_two_renderers(exploding_renderer: object) -> None:
    with pytest.raises(ValueError, match="already has a renderer"):

        @registry.renders(Exploding)
        def again(e: Exploding, names: registry.Names) -> str:
            return "again"


def test_a_long_note_is_cut_where_it_shows_and_keeps_its_markdown_but_never_a_mention() -> None:
    text = "**Eva**'s plan so far: " + "; ".join(f"{i}. attack @everyone with a sword" for i in range(1, 20))
    (line,) = registry.lines_of([Note(text)], {})
    assert line.startswith("📎 **Eva**'s plan so far: 1. attack @\u200beveryone"), line
    assert line.endswith("…") and len(line) == len("📎 ") + 300 + line.count("\u200b"), line
    (short,) = registry.lines_of([Note("Eva   waits.\n")], {})
    assert short == "📎 Eva waits."
