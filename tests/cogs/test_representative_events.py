"""One representative message per event class per system, held in golden files a reviewer reads as a player
would (``golden/events/<system>.txt``, regenerated with ``FRAY_GOLDEN=1``): the catalog covers every event
class that has a renderer, and no line is a ``key value; key value`` dump or shows an internal id."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import cogs.text.events  # noqa: F401  (registers every renderer)
from cogs.text.events import registry
from cogs.text.messages import story
from rules.events import Event
from tests.cogs.representative_events import CATALOG, NAMES
from tests.cogs.test_text_events import EVENT_CLASSES, _id
from tests.e2e.test_table_talk import DUMP, ID_LEAK

GOLDEN = Path(__file__).parent / "golden" / "events"


def _system_of(cls: type[Event]) -> str:
    """``rules.systems.<name>.…`` → its name; ``rules.events`` → ``shared``."""
    parts = cls.__module__.split(".")
    return parts[2] if parts[:2] == ["rules", "systems"] else "shared"


def _represented() -> set[type[Event]]:
    return {type(event) for events in CATALOG.values() for event in events}


RENDERED = [cls for cls in EVENT_CLASSES if registry.renderer_for(cls) is not None]


@pytest.mark.parametrize("cls", RENDERED, ids=_id)
def test_every_rendered_event_class_has_a_representative(cls: type[Event]) -> None:
    assert cls in _represented(), (
        f"{_id(cls)} has a renderer but no representative: add a realistic instance of {cls.__name__} to "
        f"tests/cogs/representative_events.py (CATALOG[{_system_of(cls)!r}]) and regenerate the goldens "
        "with FRAY_GOLDEN=1"
    )


def test_each_representative_sits_under_its_own_system() -> None:
    for system, events in CATALOG.items():
        for event in events:
            assert _system_of(type(event)) == system, f"{_id(type(event))} is listed under {system}"


def rendered(system: str) -> str:
    """A heading per event class, then its message (one per variant) as the table reads it."""
    by_class: dict[type[Event], list[str]] = {}
    for event in CATALOG[system]:
        by_class.setdefault(type(event), []).extend(story([event], NAMES))
    return "\n\n".join(f"## {cls.__name__}\n" + "\n".join(lines) for cls, lines in by_class.items()) + "\n"


@pytest.mark.parametrize("system", sorted(CATALOG))
def test_the_representatives_read_as_sentences(system: str) -> None:
    text = rendered(system)
    for line in text.splitlines():
        assert not DUMP.search(line), line
        assert not ID_LEAK.search(line), line
        assert not any(re.search(rf"\b{cid}\b", line) for cid in NAMES), f"an internal id shows: {line}"
        assert "()" not in line and "( " not in line, f"empty parentheses: {line}"
    golden = GOLDEN / f"{system}.txt"
    if os.environ.get("FRAY_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text)
    assert golden.read_text() == text, f"regenerate with FRAY_GOLDEN=1 and review {golden}"
