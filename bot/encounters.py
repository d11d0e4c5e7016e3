"""The change path for encounters (ARCHITECTURE.md "one path for every change").

``edit_encounter(bot, where, actor_id, command)``::

    async with edit_encounter(bot, where, user_id, "gm damage") as edit:
        target = edit.combatant("Bandit 1")  # BotError for unknown/ambiguous names
        edit.apply(edit.system.gm_damage(edit.state, target.key, 5, None, edit.dice, edit.house))
        edit.summary = "GM: 5 damage to Bandit 1"
    reply(edit.result)  # only after the commit

``Store.change(channel_key(channel))`` (the channel's lock, one transaction) → the channel's open encounter
(setup|running), its combatant and grapple rows and the channel's effective config (system house rules;
threads inherit; the GM dice queue) → the caller runs rules operations and ``apply``s their outcomes → on a
clean exit: grapple rows replaced, the party instance and the remaining dice queue saved back (version-
checked), then one batch (``bot.lean.write_all``: one call on SQLite, with the commit) of a version-checked
``UPDATE`` of the encounter with the typed columns projected from ``system.tracker``/``system.turn``
(``bot.store.versioned_write``; ``StaleEncounter`` when someone else saved in between; nothing is saved),
the combatant rows that changed, and one ``EventLog`` row (events, dice, and an ``undo`` record back to the
encounter exactly as loaded) → commit. Any exception inside the block rolls everything back.

Reads (``bot.encounter_reads.load_encounter``) take no lock; what a member typed is checked by
``bot.typed_input``, and what a change left is a ``bot.encounter_results.EncounterResult``. ``start_encounter`` is the same path with ``opening=name``: the new
row is inserted in the transaction, then saved and logged like any change (its log row has no undo: undo
stops there); ``undo`` restores the snapshot of the oldest of the last N changes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlmodel.ext.asyncio.session import AsyncSession

from bot import encounter_rows, instances, lean, reminders, sheet_sync, undo_record
from bot.encounter_reads import OPEN, EncounterBot, EncounterView, channel_view, open_encounter
from bot.encounter_results import EncounterResult, infos
from bot.encounter_rows import CombatantRow, GrappleRow
from bot.errors import BadName as BadName  # the cogs and tests catch it from here
from bot.errors import (
    DuplicateCombatant,
    EncounterOpen,
    NoEncounter,
    NoSystem,
    NotRunning,
    StaleChannel,
    StaleEncounter,
    UndoRefused,
)
from bot.models import (
    ChannelConfig,
    Combatant,
    Encounter,
    EventLog,
    Grapple,
    PartyInstance,
    UTCDateTime,
)
from bot.parsed_states import ParsedStates, parsed_states
from bot.reminder_policy import first_due
from bot.store import (
    ChannelView,
    Where,
    channel_key,
    compare_and_set,
    insert_channel,
    own_save,
    versioned_update,
    versioned_write,
    view_of,
    write_turn,
)
from bot.typed_input import check_name, check_range
from rules.dice import QueuedDice
from rules.encounter import System, TrackerView, TurnStatus
from rules.errors import RulesError
from rules.events import Event, Outcome, dice_of
from rules.systems.registry import get_system

MAX_UNDO = 20
START_COMMAND = "encounter start"
UNDO_COMMAND = "gm undo"
EVENT_LOG = EventLog.__table__  # type: ignore[attr-defined]
# built once, every column named (no defaults filled in when it runs)
LOG_INSERT = insert(EVENT_LOG).values(
    {c.name: sa.bindparam(c.name) for c in EVENT_LOG.columns if c.name != "id"}
)


# --- snapshots (undo) -----------------------------------------------------------------------------------


def _row_dict(row: Any) -> dict[str, Any]:
    return _as_json(encounter_rows.values_of(row))


def _as_json(values: dict[str, Any]) -> dict[str, Any]:
    """A row's values as a snapshot holds them: datetimes as text. ``values`` itself where it has none (a
    combatant row never does, so a snapshot takes those as they are; a test keeps it so); its JSON values
    are shared, as loaded rows are replaced, never changed in place."""
    if not any(isinstance(value, datetime) for value in values.values()):
        return values
    return {
        name: value.isoformat() if isinstance(value, datetime) else value for name, value in values.items()
    }


def _row_values(model: type, raw: dict[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for column in model.__table__.columns:  # type: ignore[attr-defined]
        if column.name not in raw:
            continue
        value = raw[column.name]
        if value is not None and isinstance(column.type, UTCDateTime):
            value = datetime.fromisoformat(value)
        values[column.name] = value
    return values


def snapshot(
    encounter: Encounter, combatants: Sequence[CombatantRow], grapples: Sequence[GrappleRow]
) -> dict:
    """The encounter exactly as it is: its row (state JSON and reminder fields included), combatants, grapples."""
    return _snapshot_of(encounter, [encounter_rows.values_of(c) for c in combatants], grapples)


def _snapshot_of(
    encounter: Encounter, combatants: Sequence[dict[str, Any]], grapples: Sequence[GrappleRow]
) -> dict:
    """``snapshot`` from the combatants' values."""
    return {
        "encounter": _row_dict(encounter),
        "combatants": sorted(combatants, key=lambda c: c["id"] or 0),  # no datetimes: as they are
        "grapples": [_row_dict(g) for g in sorted(grapples, key=lambda g: g.id or 0)],
    }


async def set_tracker_message(
    bot: EncounterBot, channel_id: int, encounter_id: int, message_id: int | None, replacing: int | None
) -> bool:
    """Store the live tracker's message id (under the channel's lock, guarded on the id it replaces, so
    two changes that both re-post cannot both win). Whether it was stored; not logged, not undone.

    The channel's kept read is told of the write itself (``ReadCache.written``, before the statement and
    after the commit), so it is not counted as an outside write, which would distrust every channel's."""
    reads = parsed_states(bot.store).reads
    try:
        async with bot.store.change(channel_key(channel_id)) as session:
            reads.written(channel_id)
            with own_save(session):
                return await compare_and_set(
                    session,
                    Encounter,
                    encounter_id,
                    {"tracker_message_id": replacing},
                    {"tracker_message_id": message_id},
                )
    finally:
        reads.written(channel_id)


# --- the change path ------------------------------------------------------------------------------------


# What a change works with and lets go of once committed: its reply may wait long on Discord (a burst of
# changes in one channel queues hundreds of replies), and each held its own version of the fight meanwhile.
WORKING_SET = (
    "encounter",
    "combatants",
    "grapples",
    "config",
    "state",
    "dice",
    "before",
    "instance",
    "loaded_combatants",
    "saved_combatants",
    "saved_encounter",
    "_restore",
)


@dataclass(repr=False)  # the default repr reads the working set, gone after the block
class EncounterEdit(EncounterView):
    """What ``edit_encounter`` yields. Change the encounter only through ``apply`` and the helpers here.
    After the block only what the change left is kept (``result``, ``seq``, ``summary``, ``extra``): what
    it worked with (``WORKING_SET``) is let go: reading it then raises ``AttributeError`` (or gives the
    field's default, where it has one)."""

    session: AsyncSession
    bot: EncounterBot
    where: Where
    actor_id: int
    command: str
    encounter: Encounter  # as loaded; do not assign to it (use ``set``)
    combatants: list[CombatantRow]
    grapples: list[GrappleRow]
    config: ChannelConfig | None
    view: ChannelView
    system: System
    house: Any
    state: Any
    dice: QueuedDice
    loaded_version: int
    before: dict[str, Any] | None  # the undo snapshot; None for the change that opens the encounter
    events: list[Event] = field(default_factory=list)
    summary: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    result: EncounterResult | None = None
    seq: int = 0  # of the log row this change appends
    _updates: dict[str, Any] = field(default_factory=dict)
    _restore: dict[str, Any] | None = None
    _undone_ids: list[int] = field(default_factory=list)
    instance: PartyInstance | None = None  # the channel's instance as loaded (``bot.instances``)
    loaded_combatants: list[dict[str, Any]] = field(default_factory=list)  # what the save compares with
    rows_saved: bool = False  # the rows this change leaves are known without reading them again
    saved_combatants: list[dict[str, Any]] = field(default_factory=list)  # their values, as saved
    # the encounter row's values this change saved, where it wrote no other row the change's read joins
    # (the channel's settings, party instances): the read of the new version is then known
    saved_encounter: dict[str, Any] | None = None

    def __repr__(self) -> str:
        done = "committed" if self.result is not None else "open"
        return f"<EncounterEdit {self.command!r} in channel {self.where.channel_id}, {done}>"

    def let_go(self) -> None:
        """Drop the working set (``WORKING_SET``); the class defaults, where a field has one, show through."""
        for name in WORKING_SET:
            self.__dict__.pop(name, None)

    # -- rules ---------------------------------------------------------------------------------------
    def apply(self, outcome: Outcome[Any]) -> Outcome[Any]:
        """Take a rules outcome: its state replaces the current one, its events are collected."""
        self.state = outcome.state
        self.events.extend(outcome.events)
        return outcome

    @property
    def status(self) -> str:
        return str(self._updates.get("status", self.encounter.status))

    def turn_began_after(self, sent_at: datetime) -> bool:
        """Whether the current turn started after ``sent_at``: a command sent then was meant for an earlier one."""
        started = self.encounter.turn_started_at
        return started is not None and started > sent_at

    def require_running(self) -> None:
        if self.status != "running":
            raise NotRunning()

    def kept_states(self) -> ParsedStates | None:
        return parsed_states(self.bot.store)

    @property
    def encounter_id(self) -> int:
        return self.encounter.id or 0

    # -- combatants ----------------------------------------------------------------------------------
    def by_key(self, cid: str) -> CombatantRow | None:
        return next((c for c in self.combatants if str(c.id) == cid), None)

    def name_of(self, cid: str) -> str:
        row = self.by_key(cid)
        return row.name if row is not None else cid

    def check_free_name(self, name: str) -> None:
        key = name.casefold()
        if any(c.name.casefold() == key for c in self.combatants):
            raise DuplicateCombatant(name)

    async def add_combatant(
        self,
        sheet: Any,
        *,
        name: str,
        owner_id: int | None,
        character_id: int | None,
        is_pc: bool,
        side: str,
        distance: int,
    ) -> CombatantRow:
        """A new combatant row (its id is the rules id) and the system's ``add_combatant`` on the state."""
        self.check_free_name(name)
        entry = max((c.entry for c in self.combatants), default=0) + 1
        row = CombatantRow(
            id=0,
            encounter_id=self.encounter.id or 0,
            entry=entry,
            name=name,
            owner_id=owner_id,
            character_id=character_id,
            is_pc=is_pc,
            side=side[:64],
            distance=distance,
        )
        values = encounter_rows.values_of(row)
        values.pop("id")
        row.id = await encounter_rows.insert_combatant(self.session, values)
        self.loaded_combatants.append(encounter_rows.values_of(row))
        self.combatants.append(row)
        self.apply(
            self.system.add_combatant(
                self.state,
                str(row.id),
                sheet,
                side=side,
                distance=distance,
                is_pc=is_pc,
                house=self.house,
                dice=self.dice,
            )
        )
        keep = instances.keeper(self.system)
        if keep is not None and is_pc and character_id is not None:
            # A player character enters as the channel's instance left it (HP, Last Gasp, stored healing).
            stored = instances.stored(self.instance)
            self.apply(keep.instance_enter(self.state, str(row.id), stored, str(character_id)))
        return row

    async def remove_combatant(self, row: CombatantRow) -> None:
        self.apply(self.system.remove_combatant(self.state, str(row.id), self.house))
        self.combatants.remove(row)
        await encounter_rows.delete_combatant(self.session, row.id or 0)

    # -- the encounter row ---------------------------------------------------------------------------
    def set(self, **columns: Any) -> None:
        """Change encounter columns the rules do not own (status, ended_at, name)."""
        self._updates.update(columns)

    def restore(self, snap: dict[str, Any], undone_ids: Sequence[int]) -> None:
        """Make the save put back ``snap`` exactly (undo) instead of projecting the state."""
        self._restore = snap
        self._undone_ids = list(undone_ids)
        self.state = self.system.state_from_dict(snap["encounter"]["state"])

    # -- saving ----------------------------------------------------------------------------------------
    async def _next_seq(self) -> int:
        last = parsed_states(self.bot.store).last_seq(self.encounter.id or 0, self.loaded_version)
        if last is not None:
            return last + 1
        found = await self.session.exec(
            select(func.max(EventLog.seq)).where(EventLog.encounter_id == self.encounter.id)  # type: ignore[call-overload]
        )
        return int(found.scalar_one() or 0) + 1  # type: ignore[attr-defined]

    async def _versioned_update(self, values: dict[str, Any]) -> None:
        await versioned_update(
            self.session,
            Encounter,
            self.encounter.id,
            self.loaded_version,
            values,
            stale=StaleEncounter,
        )

    def _project(self, tracker: TrackerView, turn: TurnStatus) -> dict[str, Any]:
        values: dict[str, Any] = {
            "state": self.system.state_to_dict(self.state),
            "round": tracker.round,
            "minute": tracker.minute,
            "segment": tracker.segment,
            "turn_key": turn.key[:64],
            "turn_combatant_id": int(turn.actors[0]) if turn.actors and turn.actors[0].isdecimal() else None,
            "heal_pool_size": tracker.heal_pool.size if tracker.heal_pool else None,
            "heal_pool_used": tracker.heal_pool.used if tracker.heal_pool else None,
            "heal_pool_instance": tracker.heal_pool.instance if tracker.heal_pool else None,
        }
        if turn.key != self.encounter.turn_key:
            values["turn_started_at"] = self.bot.clock()
        if tracker.begun and self.encounter.status == "setup":
            values["status"] = "running"
        values.update(self._updates)
        views = {c.id: c for c in tracker.order}
        for row in self.combatants:
            v = views.get(str(row.id))
            if v is None:
                continue
            row.side = (v.side or row.side)[:64]
            row.initiative = v.initiative
            row.hp = v.hp
            row.hp_max = v.hp_max
            row.damage = v.damage
            row.location_damage = {loc.location: loc.damage for loc in v.locations}
            row.conditions = list(v.conditions)
            row.last_gasp_round = v.last_gasp_round
            row.stored_healing = v.stored_healing
        return values

    async def _schedule_reminders(self, values: dict[str, Any], turn: TurnStatus) -> None:
        """Turn reminders live on the row, changed in this same transaction (``bot.reminders`` contract):
        a new turn schedules its first reminder; the member acting in its own turn, or the fight stopping,
        cancels what is pending."""
        if values.get("status", self.encounter.status) != "running":
            reminders.cancel(values)
            return
        actor = self.by_key(turn.actors[0]) if turn.actors else None
        member_turn = actor is not None and actor.is_pc and actor.owner_id is not None
        if "turn_started_at" in values:
            policy = await reminders.load_policy(self.session, self.where.channel_id, self.where.parent_id)
            reminders.schedule_turn(
                values, policy, values["turn_started_at"], controlled_by_member=member_turn
            )
        elif member_turn and actor is not None and actor.owner_id == self.actor_id:
            reminders.cancel(values)

    def _undo_record(
        self, values: dict[str, Any], combatants: Sequence[dict[str, Any]], grapples_replaced: bool
    ) -> dict[str, Any]:
        """The reverse patch from the encounter as this change leaves it (``combatants``: their values) to
        the snapshot it was loaded as."""
        assert self.before is not None
        written = _as_json(values)
        after = {
            "encounter": {**self.before["encounter"], **written, "version": self.loaded_version + 1},
            "combatants": list(combatants),  # as in ``_snapshot_of``
            "grapples": None if grapples_replaced else self.before["grapples"],  # new rows: put the old back
        }
        return undo_record.record(self.before, after)

    async def _replace_grapples(self, tracker: TrackerView) -> bool:
        """Write the tracker's grapples; whether the rows were replaced."""

        def ident(a: str) -> int | None:
            return int(a) if a and a.isdecimal() else None

        wanted = [
            (ident(g.a), ident(g.b), g.counter, ident(g.pinned) if g.pinned else None)
            for g in tracker.grapples
        ]
        have = [(g.a_id, g.b_id, g.counter, g.pinned_id) for g in self.grapples]
        if wanted == have:
            return False
        eid = self.encounter.id or 0
        rows = [
            {"encounter_id": eid, "a_id": a, "b_id": b, "counter": counter, "pinned_id": pinned}
            for a, b, counter, pinned in wanted
            if a is not None and b is not None
        ]
        await encounter_rows.replace_grapples(self.session, eid, rows)
        return True

    async def _put_back(self, snap: dict[str, Any]) -> None:
        values = _row_values(Encounter, snap["encounter"])
        values.pop("id", None)
        values.pop("version", None)
        await self._keep_reminders_sent(values)
        values.pop("tracker_message_id", None)  # the message shown now stays the one edited
        await self._versioned_update(values)
        eid = self.encounter.id or 0
        await encounter_rows.replace_grapples(self.session, eid, [])
        await encounter_rows.replace_combatants(
            self.session, eid, [_row_values(Combatant, c) for c in snap["combatants"]]
        )
        if snap["grapples"]:
            await encounter_rows.replace_grapples(
                self.session, eid, [_row_values(Grapple, g) for g in snap["grapples"]]
            )
        restored = [encounter_rows.combatant(_row_values(Combatant, c)) for c in snap["combatants"]]
        self.combatants = sorted(restored, key=lambda c: c.entry)

    async def _keep_reminders_sent(self, values: dict[str, Any]) -> None:
        """Reminders sent are facts, not state: undo never writes a past due time back (the loop would send
        that reminder again). The same turn keeps the row's reminder columns as they are; a turn given back
        keeps the count it had and is due no earlier than ``after`` from now."""
        sent, due = values.pop("reminders_sent", 0), values.pop("reminder_due_at", None)
        if values.get("turn_key") == self.encounter.turn_key:
            return
        now = self.bot.clock()
        if due is not None and due <= now:
            policy = await reminders.load_policy(self.session, self.where.channel_id, self.where.parent_id)
            due = first_due(policy, now)
        values.update(reminders_sent=sent, reminder_due_at=due)

    async def _record_instance(self) -> bool:
        """The channel's instance follows the state just saved (an undo too), in the same transaction.
        Whether its row was written."""
        keep = instances.keeper(self.system)
        if keep is None:
            return False
        keys = {str(c.id): str(c.character_id) for c in self.combatants if c.is_pc and c.character_id}
        after = keep.instance_record(instances.stored(self.instance), self.state, keys)
        return await instances.save(
            self.session,
            self.instance,
            channel_id=instances.instance_channel(self.where, self.view),
            guild_id=self.where.guild_id,
            system=self.system.name,
            state=after,
            clock=self.bot.clock,
        )

    async def _save(self) -> None:
        await write_turn(self.session)  # before anything is flushed
        queue_before = list(self.config.dice_queue or []) if self.config is not None else []
        if self._restore is not None:
            await self._put_back(self._restore)
            await self.session.exec(
                update(EventLog)
                .where(EventLog.id.in_(self._undone_ids))  # type: ignore[union-attr]
                .values(undone=True)
                .execution_options(synchronize_session=False)
            )
            turn_key_after = self._restore["encounter"]["turn_key"]
            status = self._restore["encounter"]["status"]
            undo_data = None
            tracker, turn = self.tracker(), self.turn()  # of the state put back
            writes: list[lean.Write] = []
            saved: dict[str, Any] | None = None  # written field by field (``_put_back``)
        else:
            await sheet_sync.refresh_turn_sheets(self)  # RULES.md §4: a new turn takes the current sheet
            tracker, turn = self.tracker(), self.turn()
            values = saved = self._project(tracker, turn)
            await self._schedule_reminders(values, turn)
            grapples_replaced = await self._replace_grapples(tracker)
            self.rows_saved = not grapples_replaced
            turn_key_after = values["turn_key"]
            status = values.get("status", self.encounter.status)
            self.saved_combatants = [encounter_rows.values_of(c) for c in self.combatants]
            undo_data = (
                None
                if self.before is None
                else self._undo_record(values, self.saved_combatants, grapples_replaced)
            )
            # Written last, with the log row, in one batch (one call on SQLite); a stale encounter still
            # rolls everything back.
            writes = [
                versioned_write(
                    Encounter, self.encounter.id, self.loaded_version, values, stale=StaleEncounter
                ),
                *encounter_rows.combatant_writes(self.loaded_combatants, self.saved_combatants),
            ]
        other_rows_written = await self._record_instance()
        remaining = list(self.dice.remaining)
        if remaining != queue_before:
            other_rows_written = True
            if self.config is None:
                await insert_channel(
                    self.session,
                    ChannelConfig(
                        channel_id=self.where.channel_id,
                        guild_id=self.where.guild_id,
                        parent_id=self.where.parent_id,
                        dice_queue=remaining,
                    ),
                )
            else:
                await versioned_update(
                    self.session,
                    ChannelConfig,
                    self.config.channel_id,
                    self.config.version,
                    {"dice_queue": remaining},
                    stale=StaleChannel,
                )
        event_dicts = tuple(e.to_dict() for e in self.events)
        self.seq = await self._next_seq()
        log_row = {
            "encounter_id": self.encounter.id or 0,
            "seq": self.seq,
            "actor_id": self.actor_id,
            "command": self.command[:100],
            "summary": self.summary or self.command,
            "events": list(event_dicts),
            "dice": [d.to_dict() for d in dice_of(self.events)],
            "undo": undo_data,
            "undone": False,
            "created_at": self.bot.clock(),
        }
        if self.session.new or self.session.dirty or self.session.deleted:  # the instance row it made
            await self.session.flush()
        # the transaction's last statements: on SQLite they commit in the same call
        with own_save(self.session):
            await lean.write_all(self.session, [*writes, lean.Write(LOG_INSERT, log_row)], last=True)
        if not other_rows_written:
            self.saved_encounter = saved
        self.result = EncounterResult(
            encounter_id=self.encounter.id or 0,
            name=str(self._updates.get("name", self.encounter.name)),
            system=self.encounter.system,
            status=str(status),
            started_by=self.encounter.started_by,
            tracker=tracker,
            turn=turn,
            turn_changed=turn_key_after != self.encounter.turn_key,
            events=tuple(self.events),
            summary=self.summary or self.command,
            combatants=infos(self.combatants),
            extra=dict(self.extra),
            version=self.loaded_version + 1,
            tracker_message_id=self.encounter.tracker_message_id,
        )


async def _open_new(
    session: AsyncSession, bot: EncounterBot, where: Where, actor_id: int, name: str, view: ChannelView
) -> Encounter:
    """Insert a new encounter in setup (version 0; the change's save makes it 1)."""
    if not view.system:
        raise NoSystem()
    existing = await open_encounter(session, where.channel_id)
    if existing is not None:
        raise EncounterOpen(existing.name)
    system = get_system(view.system)
    state = system.new_state()
    encounter = Encounter(
        guild_id=where.guild_id,
        channel_id=where.channel_id,
        system=system.name,
        name=name,
        status="setup",
        started_by=actor_id,
        turn_key=system.turn(state).key[:64],
        state=system.state_to_dict(state),
        version=0,
        created_at=bot.clock(),
    )
    await write_turn(session)
    session.add(encounter)
    try:
        await session.flush()
    except IntegrityError as err:  # another process opened one here first (the open-encounter index)
        raise EncounterOpen(name) from err
    return encounter


@asynccontextmanager
async def edit_encounter(
    bot: EncounterBot, where: Where, actor_id: int, command: str, *, opening: str | None = None
) -> AsyncIterator[EncounterEdit]:
    """The one way to change an encounter (see the module doc). Raises ``NoEncounter`` when none is open.

    ``opening``: the change opens a new encounter of that name instead (``EncounterOpen`` when one is open
    here, ``NoSystem`` without a system); its log row carries no undo snapshot, so undo stops there.
    """
    states = parsed_states(bot.store)
    writes = bot.store.outside_writes
    async with bot.store.change(channel_key(where.channel_id)) as session:
        counted = bot.store.trusted_count()  # before the read (``bot.outside_writes``)
        if opening is None:
            read = await encounter_rows.read_for_change(
                session, states.reads, where.channel_id, where.parent_id, OPEN, counted
            )
            if read is None:
                raise NoEncounter()
            encounter, config, view = read.encounter, read.own, view_of(read.own, read.parent)
            combatants, grapples, loaded = await encounter_rows.rows_and_values_of(
                session, states.rows, encounter.id or 0, encounter.version
            )
            before: dict[str, Any] | None = _snapshot_of(encounter, loaded, grapples)
            system = get_system(encounter.system)
            instance = _instance_of(read.instances, where, view, system)
        else:
            config, view = await channel_view(session, where)
            encounter = await _open_new(session, bot, where, actor_id, opening, view)
            combatants, grapples, before, loaded = [], [], None, []
            system = get_system(encounter.system)
            instance = await _instance(session, where, view, system)
        house = system.house_from_dict(view.rules_for(encounter.system))
        state = states.get(system, encounter.id or 0, encounter.version, encounter.state)
        keep = instances.keeper(system)
        if opening is not None and keep is not None:  # a new fight in the same instance: its heal pool
            state = keep.instance_resume(state, instances.stored(instance))
        queue = list(config.dice_queue or []) if config is not None else []
        edit = EncounterEdit(
            session=session,
            bot=bot,
            where=where,
            actor_id=actor_id,
            command=command,
            encounter=encounter,
            combatants=combatants,
            grapples=grapples,
            config=config,
            view=view,
            system=system,
            house=house,
            state=state,
            dice=QueuedDice(queue, bot.dice_source()),
            loaded_version=encounter.version,
            before=before,
            instance=instance,
            loaded_combatants=loaded,
        )
        yield edit
        try:
            await edit._save()
        except StaleEncounter:  # someone this process does not know of saved it: ask the database next time
            states.reads.forget((where.channel_id, where.parent_id, OPEN))
            raise
    states.put(system, encounter.id or 0, edit.loaded_version + 1, edit.state)  # committed: the new version
    if edit.saved_encounter is not None:
        states.reads.advance(
            encounter.id or 0,
            edit.loaded_version,
            edit.saved_encounter,
            (where.channel_id, where.parent_id, OPEN),
            counted,
            writes,
        )
    states.wrote(encounter.id or 0, edit.loaded_version + 1, edit.seq)
    if edit.rows_saved:
        states.rows.put(
            encounter.id or 0,
            edit.loaded_version + 1,
            (
                tuple(sorted(edit.saved_combatants, key=lambda c: c["entry"])),
                tuple(encounter_rows.values_of(g) for g in edit.grapples),
            ),
        )

    await sheet_sync.keep_sheet_fields(bot.store, edit)  # after the commit: the characters' own path
    edit.let_go()


def _instance_of(
    found: dict[int, PartyInstance], where: Where, view: ChannelView, system: System
) -> PartyInstance | None:
    if instances.keeper(system) is None:
        return None
    row = found.get(instances.instance_channel(where, view))
    return row if row is not None and row.system == system.name else None


async def _instance(
    session: AsyncSession, where: Where, view: ChannelView, system: System
) -> PartyInstance | None:
    if instances.keeper(system) is None:
        return None
    return await instances.load(session, instances.instance_channel(where, view), system.name)


async def start_encounter(
    bot: EncounterBot, where: Where, actor_id: int, name: str, *, summary: Callable[[str], str] | None = None
) -> EncounterResult:
    """Open an encounter here in the channel's system, in setup. Its log row has no undo (undo stops there).
    ``summary`` words the log row from the encounter's name (the text layer's); without it the row says
    its command."""
    name = check_name(name, what="encounter")
    async with edit_encounter(bot, where, actor_id, START_COMMAND, opening=name) as edit:
        if summary is not None:
            edit.summary = summary(name)
    assert edit.result is not None
    return edit.result


async def undo(
    bot: EncounterBot,
    where: Where,
    actor_id: int,
    steps: int = 1,
    *,
    summary: Callable[[Sequence[str]], str] | None = None,
) -> EncounterResult:
    """Put the encounter back as it was before its last ``steps`` changes (not yet undone); log it.
    ``summary`` words the log row from the undone changes' summaries, newest first (the text layer's)."""
    check_range("steps", steps, 1, MAX_UNDO)
    async with edit_encounter(bot, where, actor_id, UNDO_COMMAND) as edit:
        rows = (
            (
                await edit.session.exec(
                    select(EventLog)
                    .where(
                        EventLog.encounter_id == edit.encounter.id,
                        EventLog.undone == False,  # noqa: E712
                        EventLog.command != UNDO_COMMAND,
                    )
                    .order_by(EventLog.seq.desc())  # type: ignore[attr-defined]
                    .limit(steps + 1)
                )
            )
            .scalars()  # type: ignore[attr-defined]
            .all()
        )
        undoable: list[EventLog] = []
        for row in rows:
            if row.undo is None:
                break
            undoable.append(row)
        if len(undoable) < steps:
            raise UndoRefused(len(undoable))
        chosen = undoable[:steps]
        assert edit.before is not None
        snap = edit.before  # the encounter as stored now, then as before each change, newest first
        for row in chosen:
            snap = undo_record.earlier(snap, row.undo or {})
        edit.restore(snap, [r.id or 0 for r in chosen])
        summaries = [r.summary or r.command for r in chosen]
        if summary is not None:
            edit.summary = summary(summaries)
        edit.extra["undone"] = summaries
    assert edit.result is not None
    return edit.result


async def skip_turn(
    bot: Any, encounter_id: int, turn_key: str | None, *, summary: Callable[[str], str] | None = None
) -> EncounterResult | None:
    """End the current turn of an encounter like ``/turn end`` would, for the reminder loop (``then = skip``).

    Quietly ``None`` when the encounter is gone or ended, or ``turn_key`` is no longer its turn. Goes through
    the change path (logged, undoable); the caller (``cogs.reminders``) announces the result.
    ``summary`` words the log row from the skipped combatant's name.
    """
    async with bot.store.sessions() as session:
        encounter = await session.get(Encounter, encounter_id)
        if encounter is None or encounter.status != "running" or encounter.turn_key != turn_key:
            return None
        own = await session.get(ChannelConfig, encounter.channel_id)
        here = Where(encounter.guild_id, encounter.channel_id, own.parent_id if own is not None else None)
    actor_id = getattr(getattr(bot, "user", None), "id", None) or 0
    try:
        async with edit_encounter(bot, here, actor_id, "reminder skip") as edit:
            if edit.encounter.id != encounter_id or edit.encounter.turn_key != turn_key:
                return None
            actors = edit.turn().actors
            if not actors:
                return None
            name = edit.name_of(actors[0])
            try:
                edit.apply(edit.system.end_turn(edit.state, actors[0], edit.dice, edit.house))
            except RulesError:  # the turn still owes something (a D6 Death Save): the GM's policy skips it
                edit.apply(edit.system.gm_next(edit.state, edit.dice, edit.house))
            if summary is not None:
                edit.summary = summary(name)
    except RulesError:
        return None
    return edit.result
