"""What a process knows of the newest version of each encounter: its parsed state, its rows, the number of
its last log row. Only the newest version is kept (every save is version-checked, so a change always starts
from the newest; an older version is only ever read by a read that raced a change, and it parses again), so
the memory held grows with the encounters in play, not with their changes."""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

T = TypeVar("T")


class LatestByEncounter(Generic[T]):
    """``(encounter id, version) → value``, holding one version per encounter (the newest put) for at most
    ``size`` encounters, the least recently used forgotten first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._kept: OrderedDict[int, tuple[int, T]] = OrderedDict()

    def get(self, encounter_id: int, version: int) -> T | None:
        kept = self._kept.get(encounter_id)
        if kept is None or kept[0] != version:
            return None
        self._kept.move_to_end(encounter_id)
        return kept[1]

    def put(self, encounter_id: int, version: int, value: T) -> None:
        kept = self._kept.get(encounter_id)
        if kept is not None and kept[0] > version:
            return  # a read that raced a change never replaces what the change saved
        self._kept[encounter_id] = (version, value)
        self._kept.move_to_end(encounter_id)
        while len(self._kept) > self.size:
            self._kept.popitem(last=False)

    def __len__(self) -> int:
        return len(self._kept)
