"""The process keeps the newest version of each encounter in play, never an older one over it, and forgets
the least recently used encounter first."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.latest import LatestByEncounter
from bot.parsed_states import ParsedStates
from rules.systems.registry import all_systems


def test_only_the_version_asked_for_is_given() -> None:
    kept: LatestByEncounter[str] = LatestByEncounter(4)
    kept.put(1, 3, "v3")
    assert kept.get(1, 3) == "v3"
    assert kept.get(1, 2) is None and kept.get(1, 4) is None and kept.get(2, 3) is None
    kept.put(1, 4, "v4")  # a change saved the next version: the older one is gone
    assert kept.get(1, 4) == "v4" and kept.get(1, 3) is None
    assert len(kept) == 1


def test_a_read_that_raced_a_change_never_replaces_the_newer_version() -> None:
    kept: LatestByEncounter[str] = LatestByEncounter(4)
    kept.put(1, 5, "saved")
    kept.put(1, 4, "read before the save")
    assert kept.get(1, 5) == "saved"


def test_the_least_recently_used_encounter_is_forgotten_first() -> None:
    kept: LatestByEncounter[int] = LatestByEncounter(2)
    kept.put(1, 1, 10)
    kept.put(2, 1, 20)
    assert kept.get(1, 1) == 10  # 1 used again: 2 is now the oldest
    kept.put(3, 1, 30)
    assert kept.get(2, 1) is None and kept.get(1, 1) == 10 and kept.get(3, 1) == 30


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 9)), max_size=60))
def test_it_holds_at_most_size_encounters_and_gives_only_what_that_version_is(puts) -> None:
    """A version names one value, so whatever is given for (encounter, version) is what was put for it;
    while an encounter stays kept, its newest version put is the one given."""
    kept: LatestByEncounter[tuple[int, int]] = LatestByEncounter(3)
    for encounter, version in puts:
        kept.put(encounter, version, (encounter, version))
        assert len(kept) <= 3
        assert kept.get(encounter, version) in (None, (encounter, version))
    for encounter in range(6):
        found = [v for v in range(10) if kept.get(encounter, v) is not None]
        assert len(found) <= 1
        assert all(kept.get(encounter, v) == (encounter, v) for v in found)


def test_a_parsed_state_is_kept_per_system_and_version() -> None:
    system = all_systems()[0]
    raw = system.state_to_dict(system.new_state())
    states = ParsedStates(8)
    first = states.get(system, 1, 1, raw)
    assert states.get(system, 1, 1, raw) is first  # not parsed again
    assert states.get(system, 1, 2, raw) is not first  # another version is parsed
    states.wrote(1, 2, 7)
    assert states.last_seq(1, 2) == 7 and states.last_seq(1, 1) is None
