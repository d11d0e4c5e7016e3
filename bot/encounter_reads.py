"""Reading encounters, without the lock: for status, autocomplete, help and permission checks (changes go
through ``bot.encounters``). What both need from the bot is ``EncounterBot``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import func, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot import encounter_rows
from bot.encounter_results import CombatantInfo, infos
from bot.encounter_rows import CombatantRow, GrappleRow
from bot.models import ChannelConfig, Character, Encounter, EventLog
from bot.parsed_states import ParsedStates, parsed_states
from bot.plain_rows import channel_rows
from bot.store import ChannelView, Store, Where, view_of
from bot.typed_input import resolve
from rules.dice import DiceSource
from rules.encounter import System, TrackerView, TurnStatus
from rules.systems.registry import get_system

OPEN = ("setup", "running")  # an encounter in one of these is the channel's open one


class EncounterBot(Protocol):
    """What the reads and the change path need from the bot (a ``Fray``, or a stand-in in store tests)."""

    store: Store
    clock: Callable[[], datetime]

    def dice_source(self) -> DiceSource: ...


async def channel_view(session: AsyncSession, where: Where) -> tuple[ChannelConfig | None, ChannelView]:
    own, parent = await channel_rows(session, where.channel_id, where.parent_id)
    return own, view_of(own, parent)


async def open_encounter(session: AsyncSession, channel_id: int) -> Encounter | None:
    found = await session.exec(
        select(Encounter).where(Encounter.channel_id == channel_id, Encounter.status.in_(OPEN))  # type: ignore[attr-defined]
    )
    return found.scalars().first()  # type: ignore[attr-defined]


class EncounterView:
    """What a read and a change alike answer from an encounter's state and combatant rows."""

    system: System
    state: Any
    combatants: list[CombatantRow]

    def tracker(self) -> TrackerView:
        states = self.kept_states()
        if states is None:
            return self.system.tracker(self.state)
        return states.tracker(self.system, self.encounter_id, self.state)

    def kept_states(self) -> ParsedStates | None:
        """The process's cache for this encounter's database, where the view knows it."""
        return None

    @property
    def encounter_id(self) -> int:
        raise NotImplementedError

    def turn(self) -> TurnStatus:
        return self.system.turn(self.state)

    def combatant(self, typed: str) -> CombatantRow:
        return resolve(self.combatants, typed)


@dataclass
class EncounterRead(EncounterView):
    """An encounter as stored, for status, autocomplete and permission checks. Not for changing it."""

    encounter: Encounter
    combatants: list[CombatantRow]
    grapples: list[GrappleRow]
    house_raw: dict[str, Any]
    _state: Any = None
    states: ParsedStates | None = None

    @property
    def system(self) -> System:
        return get_system(self.encounter.system)

    def kept_states(self) -> ParsedStates | None:
        return self.states

    @property
    def encounter_id(self) -> int:
        return self.encounter.id or 0

    @property
    def state(self) -> Any:
        if self._state is None:
            enc = self.encounter
            states = self.states or ParsedStates(1)
            self._state = states.get(self.system, enc.id or 0, enc.version, enc.state)
        return self._state

    @property
    def names(self) -> dict[str, str]:
        return {str(c.id): c.name for c in self.combatants}

    def infos(self) -> tuple[CombatantInfo, ...]:
        return infos(self.combatants)


async def _latest_encounter(session: AsyncSession, channel_id: int) -> Encounter | None:
    found = await session.exec(
        select(Encounter)
        .where(Encounter.channel_id == channel_id)
        .order_by(Encounter.id.desc())  # type: ignore[union-attr]
        .limit(1)
    )
    return found.scalars().first()  # type: ignore[attr-defined]


async def load_encounter(
    bot: EncounterBot, where: Where | None = None, *, encounter_id: int | None = None, latest: bool = False
) -> EncounterRead | None:
    """The open encounter of ``where`` (``latest``: else the last ended one there; ``encounter_id``: that one,
    ended or not), read without the lock."""
    async with bot.store.reading() as session:
        view: ChannelView | None = None
        if encounter_id is not None:
            encounter = await encounter_rows.encounter_by_id(session, encounter_id)
        else:
            assert where is not None
            read = await encounter_rows.read_for_change(
                session,
                parsed_states(bot.store).reads,
                where.channel_id,
                where.parent_id,
                OPEN,
                bot.store.trusted_count(),
            )
            encounter = read.encounter if read is not None else None
            if read is not None:
                view = view_of(read.own, read.parent)
            elif latest:
                encounter = await _latest_encounter(session, where.channel_id)
        if encounter is None:
            return None
        combatants, grapples = await encounter_rows.rows_of(
            session, parsed_states(bot.store).rows, encounter.id or 0, encounter.version
        )
        if view is None and where is not None:
            _, view = await channel_view(session, where)
        house_raw = dict(view.rules_for(encounter.system)) if view is not None else {}
        return EncounterRead(encounter, combatants, grapples, house_raw, states=parsed_states(bot.store))


async def running_encounter_starter(bot: EncounterBot, channel_id: int) -> int | None:
    """Who started the running encounter of a channel (one indexed lookup; for the GM rule)."""
    async with bot.store.sessions() as session:
        found = await session.exec(
            select(Encounter.started_by).where(
                Encounter.channel_id == channel_id,  # type: ignore[arg-type]
                Encounter.status == "running",  # type: ignore[arg-type]
            )
        )
        return found.scalars().first()  # type: ignore[attr-defined]


async def log_rows(bot: EncounterBot, encounter_id: int, count: int) -> tuple[list[dict[str, Any]], int]:
    """The last ``count`` log rows (newest first) as plain dicts, and how many rows there are in all."""
    async with bot.store.sessions() as session:
        rows = (
            (
                await session.exec(
                    select(EventLog)
                    .where(EventLog.encounter_id == encounter_id)
                    .order_by(EventLog.seq.desc())  # type: ignore[attr-defined]
                    .limit(count)
                )
            )
            .scalars()  # type: ignore[attr-defined]
            .all()
        )
        total = (
            await session.exec(select(func.count()).where(EventLog.encounter_id == encounter_id))  # type: ignore[call-overload]
        ).scalar_one()  # type: ignore[attr-defined]
        plain = [
            {
                "seq": r.seq,
                "actor_id": r.actor_id,
                "command": r.command,
                "summary": r.summary,
                "events": r.events,
                "dice": r.dice,
                "undone": r.undone,
            }
            for r in rows
        ]
        return plain, int(total)


async def characters_of(bot: EncounterBot, guild_id: int, owner_id: int) -> list[Character]:
    async with bot.store.sessions() as session:
        rows = (
            (
                await session.exec(
                    select(Character)
                    .where(Character.guild_id == guild_id, Character.owner_id == owner_id)
                    .order_by(Character.name_key)  # type: ignore[arg-type]
                )
            )
            .scalars()  # type: ignore[attr-defined]
            .all()
        )
        return list(rows)
