"""Parsed encounter states, kept by (encounter id, version) so a change or a read does not parse the same JSON
again; only each encounter's newest version is kept (``bot.latest``). Safe because every save is
version-checked: a version of an encounter names exactly one state (the rules' states are immutable values).
One small cache per store, i.e. per database.

It also keeps the sequence number of the log row that made each version: every change of an encounter
bumps its version and appends exactly one log row in the same transaction, so while the encounter is still
at that version, its next log row is that number + 1 (no ``max(seq)`` query). Another process's change
bumps the version too, and then the number is looked up again."""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any

from bot.encounter_rows import ReadCache, RowCache
from bot.latest import LatestByEncounter
from rules.encounter import System, TrackerView

SIZE = 512  # encounters in play whose newest state is kept
# Reads kept: each holds its state's JSON as parsed (about 100 KB for a long D6 fight until a change here
# replaces it with what it saved, which shares the sheets), so fewer than the states; a read not kept is
# only read whole again.
READS_KEPT = 64


class ParsedStates:
    """The newest parsed state, rows and last log number of each encounter in play (``bot.latest``)."""

    def __init__(self, size: int = SIZE) -> None:
        self._states: LatestByEncounter[tuple[str, Any]] = LatestByEncounter(size)  # (system, state)
        self._seqs: LatestByEncounter[int] = LatestByEncounter(size)
        self.rows = RowCache(size)  # the combatant and grapple rows of the same versions
        self.reads = ReadCache(min(size, READS_KEPT))  # the change's read (``read_for_change``)
        self._views: LatestByEncounter[tuple[Any, TrackerView]] = LatestByEncounter(size)  # (state, view)

    def get(self, system: System, encounter_id: int, version: int, raw: Mapping[str, Any]) -> Any:
        kept = self._states.get(encounter_id, version)
        if kept is not None and kept[0] == system.name:
            return kept[1]
        state = system.state_from_dict(raw)
        self.put(system, encounter_id, version, state)
        return state

    def put(self, system: System, encounter_id: int, version: int, state: Any) -> None:
        self._states.put(encounter_id, version, (system.name, state))

    def tracker(self, system: System, encounter_id: int, state: Any) -> TrackerView:
        """The rules' tracker view of ``state``, made once per state object (the rules' states are immutable
        values): a change's save makes the view of the state it leaves, and the next change's checks, the
        status and the live tracker look at that same state."""
        kept = self._views.get(encounter_id, 0)
        if kept is not None and kept[0] is state:
            return kept[1]
        view = system.tracker(state)
        self._views.put(encounter_id, 0, (state, view))  # the state is held, so no other takes its place
        return view

    def last_seq(self, encounter_id: int, version: int) -> int | None:
        """The log row that made this version of the encounter, when this process wrote it."""
        return self._seqs.get(encounter_id, version)

    def wrote(self, encounter_id: int, version: int, seq: int) -> None:
        self._seqs.put(encounter_id, version, seq)


_by_store: weakref.WeakKeyDictionary[Any, ParsedStates] = weakref.WeakKeyDictionary()


def parsed_states(store: Any) -> ParsedStates:
    """The cache of ``store`` (one per database; created on first use)."""
    found = _by_store.get(store)
    if found is None:
        found = _by_store[store] = ParsedStates()
    return found
