"""What a change of an encounter left behind, for its reply (sent after the commit) and the announcements."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.encounter_rows import CombatantRow
from rules.encounter import TrackerView, TurnStatus
from rules.events import Event


@dataclass(frozen=True, slots=True)
class CombatantInfo:
    id: int
    name: str
    owner_id: int | None
    is_pc: bool
    character_id: int | None

    @property
    def key(self) -> str:
        return str(self.id)


@dataclass(frozen=True)
class EncounterResult:
    """What a change left behind (for the reply, sent after the commit)."""

    encounter_id: int
    name: str
    system: str
    status: str
    started_by: int
    tracker: TrackerView
    turn: TurnStatus
    turn_changed: bool
    events: tuple[Event, ...]  # as the rules returned them (the log row stores their to_dict())
    summary: str
    combatants: tuple[CombatantInfo, ...]
    extra: dict[str, Any] = field(default_factory=dict)
    version: int = 0  # of the encounter as this change left it
    tracker_message_id: int | None = None  # the live tracker as the change found it

    @property
    def names(self) -> dict[str, str]:
        return {c.key: c.name for c in self.combatants}

    def info(self, cid: str) -> CombatantInfo | None:
        return next((c for c in self.combatants if c.key == cid), None)


def infos(rows: Sequence[CombatantRow]) -> tuple[CombatantInfo, ...]:
    return tuple(
        CombatantInfo(r.id or 0, r.name, r.owner_id, r.is_pc, r.character_id)
        for r in sorted(rows, key=lambda r: r.entry)
    )
