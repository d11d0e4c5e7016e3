"""Turn reminders: scheduling on the encounter row, the per-channel policy, and the one loop that sends them.

Integration contract (for the encounters change path, ``bot.encounters``)
=========================================================================

Reminders live on the encounter row: ``reminder_due_at`` (indexed; ``NULL`` = nothing pending) and
``reminders_sent`` (steps already taken for the current turn). Nothing is held in memory, so a restart loses
none and sends none twice.

1. **Whenever the turn passes** (the projected ``turn_key`` differs from the loaded one; also when the
   encounter begins running, and after an undo that changes the turn), in the SAME transaction, call::

       policy = await load_policy(session, where.channel_id, where.parent_id)
       schedule_turn(values, policy, now, controlled_by_member=..., npc_reminds_gm=False)

   - ``values`` is what the change path writes: the ``dict`` of columns given to the versioned ``UPDATE``
     (``EncounterEdit._project``'s ``values``; ``edit.set(**schedule_turn({}, ...))`` works too) or an
     ``Encounter`` row (attributes are set). ``schedule_turn`` only mutates it and returns the columns it set
     (``reminder_due_at``, ``reminders_sent`` = 0); it never commits or touches the session.
   - ``now`` must be the same instant written to ``turn_started_at`` (``bot.clock()``).
   - ``controlled_by_member``: the combatant whose turn it is (``turn.actors[0]``) is a PC with an
     ``owner_id`` — the member the turn announcement mentions. Otherwise (NPC) no reminder is scheduled unless
     ``npc_reminds_gm`` is true (then the reminders go to the GMs).
   - When the encounter ends or stops running, ``cancel(values)`` (or just set ``reminder_due_at=None``).
     The loop only reads ``status = 'running'`` rows anyway.

2. **When the member acts in their turn without passing it**, ``cancel(values)`` (due = ``None``): acting
   cancels the pending reminders for that turn. Ending the turn is case 1.

3. **Skip** (policy ``then = skip``): the sender calls ``bot.encounters.skip_turn(bot, encounter_id,
   turn_key)``, which ends the turn exactly like ``/turn end`` for the combatant whose turn it is, refuses
   quietly (``None``) when ``turn_key`` is no longer the current one, and goes through the change path (so
   case 1 schedules the next turn). The sender (``cogs.reminders``) then posts the skip and announces the next
   turn.

The loop never bumps ``Encounter.version``: a reminder does not make a member's concurrent command stale.

The loop
========
``ReminderLoop`` (one per process; started by ``cogs.gm_reminders`` when the ``/gm`` cog loads) runs every
``interval`` seconds, and once right after the bot is ready. Each tick: one indexed query for due rows of the
guilds this process's shards own → for each, a conditional ``UPDATE`` that claims the step → the injected
sender posts it (in production ``cogs.reminders.DiscordSender``: Discord-facing code lives with the cogs).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable, MutableMapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from discord.ext import tasks
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.errors import StaleReminderSettings
from bot.models import Combatant, Encounter, GuildConfig, ReminderConfig
from bot.plain_rows import reminder_rows
from bot.reminder_policy import (
    DEFAULT_POLICY,
    MAX_DURATION,
    MAX_REMINDERS,
    THEN_CHOICES,
    Action,
    ReminderPolicy,
    decide,
    first_due,
    next_after_send,
)
from bot.store import Store, Where, channel_key, claim_row, versioned_update, write_turn

if TYPE_CHECKING:
    from bot.app import Fray

log = logging.getLogger(__name__)

DEFAULT_BATCH = 200  # due rows per query
MAX_BATCHES = 10  # queries per tick at most (the rest waits for the next tick)
SHARD_SHIFT = 22  # a guild's shard: (guild_id >> 22) % shard_count (Discord's formula)

Row = Encounter | MutableMapping[str, Any]
Sender = Callable[["DueStep"], Awaitable[None]]
ParentOf = Callable[[int], "int | None"]


# --- scheduling (the encounters change path calls these) ------------------------------------------------


def _put(target: Row, values: dict[str, Any]) -> dict[str, Any]:
    if isinstance(target, MutableMapping):
        target.update(values)
    else:
        for name, value in values.items():
            setattr(target, name, value)
    return values


def schedule_turn(
    encounter_row: Row,
    policy: ReminderPolicy,
    now: datetime,
    controlled_by_member: bool,
    npc_reminds_gm: bool = False,
) -> dict[str, Any]:
    """A new turn started at ``now``: set its first reminder (or none) and reset the count. No I/O.

    ``reminder_due_at`` = ``now + policy.after``, or ``None`` when reminders are off here, or for a turn no
    member controls (an NPC's) unless ``npc_reminds_gm``. ``reminders_sent`` = 0. Returns the columns set.
    """
    due = first_due(policy, now) if (controlled_by_member or npc_reminds_gm) else None
    return _put(encounter_row, {"reminder_due_at": due, "reminders_sent": 0})


def cancel(encounter_row: Row) -> dict[str, Any]:
    """The member acted (or the encounter stopped): no more reminders for this turn. No I/O."""
    return _put(encounter_row, {"reminder_due_at": None})


# --- the per-channel policy -----------------------------------------------------------------------------


POLICY_FIELDS: tuple[str, ...] = ("after", "repeat", "max_reminders", "then", "enabled")
_COLUMNS = {
    "after": "after_seconds",
    "repeat": "repeat_seconds",
    "max_reminders": "max_reminders",
    "then": "then_step",
    "enabled": "enabled",
}


def _field_value(row: ReminderConfig | None, name: str) -> Any:
    """A row's own value for one policy field, or ``None`` when it does not set it (or it is unusable)."""
    if row is None:
        return None
    raw = getattr(row, _COLUMNS[name])
    if raw is None:
        return None
    if name in ("after", "repeat"):
        value = timedelta(seconds=int(raw))
        return value if timedelta(0) < value <= MAX_DURATION else None
    if name == "max_reminders":
        return int(raw) if 0 <= int(raw) <= MAX_REMINDERS else None
    if name == "then":
        return raw if raw in THEN_CHOICES else None
    return bool(raw)


def merge_policy(
    own: ReminderConfig | None, parent: ReminderConfig | None
) -> tuple[ReminderPolicy, dict[str, str]]:
    """The effective policy, field by field: the channel's own value, else its parent's, else the default.

    Also says where each field came from (``here``, ``parent``, ``default``) for ``/gm reminders``.
    """
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for name in POLICY_FIELDS:
        for source, row in (("here", own), ("parent", parent)):
            value = _field_value(row, name)
            if value is not None:
                values[name] = value
                sources[name] = source
                break
        else:
            sources[name] = "default"
    return DEFAULT_POLICY.with_changes(**values), sources


async def load_policy(session: AsyncSession, channel_id: int, parent_id: int | None = None) -> ReminderPolicy:
    """The effective policy of a channel or thread, read in the caller's session (no commit, no lock).

    A thread's parent comes from ``parent_id``, else from its own reminder row, else from its channel config.
    """
    own, parent = await reminder_rows(session, channel_id, parent_id)
    return merge_policy(own, parent)[0]


@dataclass(frozen=True, slots=True)
class PolicyView:
    policy: ReminderPolicy
    sources: dict[str, str]
    thread: bool


async def policy_view(store: Store, where: Where) -> PolicyView:
    async with store.sessions() as session:
        own, parent = await reminder_rows(session, where.channel_id, where.parent_id)
        policy, sources = merge_policy(own, parent)
        return PolicyView(policy, sources, where.parent_id is not None)


async def save_policy(
    store: Store, where: Where, actor_id: int, changes: dict[str, Any], now: datetime
) -> PolicyView:
    """Set some fields of this channel's own policy (the channel's lock, one transaction). ``changes`` keys are
    ``POLICY_FIELDS`` with validated values (timedelta, int, str, bool)."""
    unknown = set(changes) - set(POLICY_FIELDS)
    if unknown:
        raise ValueError(f"unknown reminder settings: {sorted(unknown)}")
    values: dict[str, Any] = {"updated_by": actor_id, "updated_at": now}
    for name, value in changes.items():
        values[_COLUMNS[name]] = int(value.total_seconds()) if isinstance(value, timedelta) else value
    async with store.change(channel_key(where.channel_id)) as session:
        row = await session.get(ReminderConfig, where.channel_id)
        if row is None:
            await write_turn(session)
            session.add(
                ReminderConfig(
                    channel_id=where.channel_id, guild_id=where.guild_id, parent_id=where.parent_id, **values
                )
            )
            await session.flush()
        else:
            if where.parent_id and row.parent_id != where.parent_id:
                values["parent_id"] = where.parent_id
            await versioned_update(
                session, ReminderConfig, where.channel_id, row.version, values, stale=StaleReminderSettings
            )
        own, parent = await reminder_rows(session, where.channel_id, where.parent_id)
        policy, sources = merge_policy(own, parent)
    return PolicyView(policy, sources, where.parent_id is not None)


# --- the due query --------------------------------------------------------------------------------------


def owned_shards(shard_count: int | None, shard_ids: Iterable[int]) -> tuple[int, tuple[int, ...]] | None:
    """``(count, ids)`` when this process owns only some shards; ``None`` when it owns every guild."""
    ids = tuple(sorted(set(shard_ids)))
    if not shard_count or shard_count <= 1 or not ids:
        return None
    return shard_count, ids


def shard_of(guild_id: int, shard_count: int) -> int:
    return (guild_id >> SHARD_SHIFT) % shard_count


def due_query(now: datetime, limit: int, shards: tuple[int, tuple[int, ...]] | None) -> sa.Select[Any]:
    """THE due query (one indexed range scan on ``ix_encounter_reminder_due_at``, in due order)."""
    enc = Encounter.__table__.c  # type: ignore[attr-defined]
    query = sa.select(
        enc.id,
        enc.guild_id,
        enc.channel_id,
        enc.name,
        enc.started_by,
        enc.turn_key,
        enc.turn_combatant_id,
        enc.turn_started_at,
        enc.reminder_due_at,
        enc.reminders_sent,
    ).where(enc.status == "running", enc.reminder_due_at.is_not(None), enc.reminder_due_at <= now)
    if shards is not None:
        count, ids = shards
        # The shift count as a plain integer literal: PostgreSQL has ``bigint >> integer``, not ``>> bigint``.
        shard = enc.guild_id.op(">>")(sa.literal_column(str(SHARD_SHIFT), sa.Integer)) % count
        query = query.where(shard == ids[0] if len(ids) == 1 else shard.in_(ids))
    return query.order_by(enc.reminder_due_at, enc.id).limit(limit)


# --- one step, claimed ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DueStep:
    """One claimed step, with everything the sender needs (no further database reads)."""

    action: Action  # remind | gm | skip
    encounter_id: int
    guild_id: int
    channel_id: int
    encounter_name: str
    turn_key: str | None
    combatant_id: int | None
    combatant_name: str
    member_id: int | None  # the controlling member; None for an NPC (its reminders go to the GMs)
    gm_role_id: int | None
    started_by: int
    number: int  # this step's number for the turn (1-based)
    max_reminders: int
    reminders_sent: int  # member reminders sent before this step
    waited: timedelta
    next_due: datetime | None


@dataclass
class TickReport:
    seen: int = 0
    claimed: int = 0
    lost: int = 0  # claimed by someone else first (another process, or the member acted)
    sent: int = 0
    failed: int = 0
    steps: list[DueStep] = field(default_factory=list)


class ReminderLoop:
    """The reminder loop of one process. ``tick()`` is one pass (tests call it directly); ``start()`` runs it
    every ``interval`` seconds with ``discord.ext.tasks`` (first pass at once, after ``wait_ready``)."""

    def __init__(
        self,
        store: Store,
        sender: Sender,
        *,
        interval: float = 30.0,
        batch: int = DEFAULT_BATCH,
        shard_count: int | None = None,
        shard_ids: Iterable[int] = (),
        parent_of: ParentOf | None = None,
        wait_ready: Callable[[], Awaitable[Any]] | None = None,
    ) -> None:
        self.store = store
        self.sessions = store.sessions
        self.clock = store.clock
        self.sender = sender
        self.interval = interval
        self.batch = batch
        self.shards = owned_shards(shard_count, shard_ids)
        self.parent_of = parent_of or (lambda _channel_id: None)
        self._wait_ready = wait_ready
        self._loop: tasks.Loop[Any] | None = None
        self.ticks = 0

    @classmethod
    def for_bot(cls, bot: Fray, sender: Sender) -> ReminderLoop:
        """The loop of ``bot`` with its settings; ``sender`` posts each claimed step (``cogs.reminders``)."""
        settings = bot.settings
        return cls(
            bot.store,
            sender,
            interval=float(settings.reminder_interval),
            shard_count=settings.shard_count,
            shard_ids=settings.shard_ids,
            parent_of=lambda channel_id: getattr(bot.get_channel(channel_id), "parent_id", None),
            wait_ready=bot.wait_until_ready,
        )

    def owns(self, guild_id: int) -> bool:
        return self.shards is None or shard_of(guild_id, self.shards[0]) in self.shards[1]

    # -- running ---------------------------------------------------------------------------------------

    def start(self) -> None:
        if self._loop is not None and self._loop.is_running():
            return
        loop: tasks.Loop[Any] = tasks.loop(seconds=self.interval)(self._iteration)
        if self._wait_ready is not None:
            loop.before_loop(self._before)
        self._loop = loop
        loop.start()

    async def _before(self) -> None:
        assert self._wait_ready is not None
        await self._wait_ready()

    async def stop(self) -> None:
        loop, self._loop = self._loop, None
        if loop is None:
            return
        task = loop.get_task()
        loop.cancel()
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def is_running(self) -> bool:
        return self._loop is not None and self._loop.is_running()

    async def _iteration(self) -> None:
        try:
            await self.tick()
        except Exception:  # a bad tick must not stop the loop (tasks.Loop would end on an exception)
            log.exception("the reminder tick failed; trying again in %s s", self.interval)

    # -- one pass --------------------------------------------------------------------------------------

    async def due(self, now: datetime, limit: int | None = None) -> Sequence[sa.Row[Any]]:
        async with self.sessions() as session:
            result = await session.exec(due_query(now, limit or self.batch, self.shards))
            return result.all()

    async def tick(self, now: datetime | None = None) -> TickReport:
        """Claim and send every step due at ``now`` (default: the clock) for the guilds this process owns."""
        now = now or self.clock()
        report = TickReport()
        self.ticks += 1
        policies: dict[int, ReminderPolicy] = {}
        for _ in range(MAX_BATCHES):
            rows = await self.due(now)
            report.seen += len(rows)
            for row in rows:
                step = await self.claim(row, now, policies)
                if step is None:
                    report.lost += 1
                    continue
                report.claimed += 1
                if step.action == "nothing":
                    continue
                report.steps.append(step)
                try:
                    await self.sender(step)
                    report.sent += 1
                except Exception:
                    report.failed += 1
                    log.exception(
                        "could not send the %s step of encounter %s (channel %s); it is not retried",
                        step.action,
                        step.encounter_id,
                        step.channel_id,
                    )
            if len(rows) < self.batch:
                break
        return report

    async def claim(
        self, row: sa.Row[Any], now: datetime, policies: dict[int, ReminderPolicy] | None = None
    ) -> DueStep | None:
        """Claim one due step with a conditional UPDATE; ``None`` when someone else got there first.

        Mark-before-send: the row is moved on (``reminder_due_at`` → the next due time, ``reminders_sent`` +
        1) and committed BEFORE anything is sent (the store's change path, with ``claim_row``, a
        compare-and-set, instead of a version: a claim must not make a member's concurrent command stale). The
        UPDATE only matches if the row still has the due time and turn key this tick read, so of several
        processes (or two ticks, or a member who just acted and rescheduled/cancelled) exactly one wins; the
        losers see rowcount 0 and skip. On PostgreSQL the row is locked first with ``FOR UPDATE SKIP LOCKED``
        (``claim_row``): a row another process holds is skipped. A crash between the commit and the send loses
        at most that one reminder; the other order (send, then mark) could send it twice after a crash or a
        race, and a duplicate ping is worse than a missed one in a play-by-chat game.
        """
        policies = policies if policies is not None else {}
        # No advisory lock: the claim locks its row itself (``claim_row``) and never waits for another process.
        async with self.store.change(channel_key(row.channel_id), across_processes=False) as session:
            policy = policies.get(row.channel_id)
            if policy is None:
                policy = await load_policy(session, row.channel_id, self.parent_of(row.channel_id))
                policies[row.channel_id] = policy
            sent = int(row.reminders_sent or 0)
            action = decide(policy, sent)
            next_due = (
                next_after_send(policy, row.turn_started_at, sent + 1, now) if action != "nothing" else None
            )
            claimed = await claim_row(
                session,
                Encounter,
                row.id,
                {
                    "status": "running",
                    "reminder_due_at": row.reminder_due_at,
                    "reminders_sent": sent,
                    "turn_key": row.turn_key,
                },
                {"reminder_due_at": next_due, "reminders_sent": sent + 1},
            )
            if not claimed:
                return None
            combatant = (
                await session.get(Combatant, row.turn_combatant_id)
                if row.turn_combatant_id is not None
                else None
            )
            guild = await session.get(GuildConfig, row.guild_id)
        member_id = None
        if combatant is not None and combatant.is_pc and combatant.owner_id is not None:
            member_id = combatant.owner_id
        started = row.turn_started_at or row.reminder_due_at
        return DueStep(
            action=action,
            encounter_id=row.id,
            guild_id=row.guild_id,
            channel_id=row.channel_id,
            encounter_name=row.name,
            turn_key=row.turn_key,
            combatant_id=row.turn_combatant_id,
            combatant_name=combatant.name if combatant is not None else "?",
            member_id=member_id,
            gm_role_id=guild.gm_role_id if guild is not None else None,
            started_by=row.started_by,
            number=sent + 1,
            max_reminders=policy.max_reminders,
            reminders_sent=min(sent, policy.max_reminders),
            waited=max(timedelta(0), now - started),
            next_due=next_due,
        )
