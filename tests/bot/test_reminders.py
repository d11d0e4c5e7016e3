"""The reminder machinery over a real migrated SQLite database, with a fake clock and a recording sender."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import discord
import pytest
from sqlalchemy import event

import bot.encounters as encounters_module
from bot.db import create_engine, migrate, session_factory
from bot.models import Combatant, Encounter, GuildConfig, ReminderConfig
from bot.reminder_policy import ReminderPolicy
from bot.reminders import (
    DueStep,
    ReminderLoop,
    cancel,
    due_query,
    load_policy,
    policy_view,
    save_policy,
    schedule_turn,
)
from bot.settings import Settings
from bot.store import Store, Where
from cogs._turn_flow import turn_token, turn_view
from cogs.reminders import DiscordSender, message_for

H = timedelta(hours=1)
START = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
POLICY = ReminderPolicy(after=12 * H, repeat=6 * H, max_reminders=2, then="gm")


class Clock:
    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Recorder:
    steps: list[DueStep] = field(default_factory=list)
    delay: float = 0.0

    async def __call__(self, step: DueStep) -> None:
        if self.delay:
            await asyncio.sleep(self.delay)
        self.steps.append(step)

    def actions(self) -> list[tuple[int, str]]:
        return [(s.encounter_id, s.action) for s in self.steps]


@dataclass
class Db:
    settings: Settings
    engines: list[Any] = field(default_factory=list)

    def sessions(self):
        engine = create_engine(self.settings.database_url, database_path=self.settings.database_path)
        self.engines.append(engine)
        return session_factory(engine)


@pytest.fixture
async def db(bot_settings: Settings):
    d = Db(bot_settings)
    engine = create_engine(bot_settings.database_url, database_path=bot_settings.database_path)
    d.engines.append(engine)
    await migrate(engine)
    d.main = session_factory(engine)  # type: ignore[attr-defined]
    yield d
    for engine in d.engines:
        await engine.dispose()


_channels = iter(range(1000, 10**9))


async def add_encounter(
    sessions,
    *,
    guild_id: int = 1,
    channel_id: int | None = None,
    owner_id: int | None = 555,
    is_pc: bool = True,
    name: str = "Ayla",
    policy: ReminderPolicy = POLICY,
    started: datetime = START,
    npc_reminds_gm: bool = False,
    status: str = "running",
) -> int:
    channel_id = channel_id or next(_channels)
    async with sessions() as session, session.begin():
        if await session.get(ReminderConfig, channel_id) is None:  # the channel's /gm reminders settings
            session.add(
                ReminderConfig(
                    channel_id=channel_id,
                    guild_id=guild_id,
                    after_seconds=int(policy.after.total_seconds()),
                    repeat_seconds=int(policy.repeat.total_seconds()),
                    max_reminders=policy.max_reminders,
                    then_step=policy.then,
                )
            )
        enc = Encounter(
            guild_id=guild_id,
            channel_id=channel_id,
            system="d6",
            name="Ambush",
            status=status,
            started_by=777,
            turn_key="r1.t1",
            turn_started_at=started,
            created_at=started,
        )
        session.add(enc)
        await session.flush()
        fighter = Combatant(encounter_id=enc.id, entry=1, name=name, owner_id=owner_id, is_pc=is_pc)
        session.add(fighter)
        await session.flush()
        enc.turn_combatant_id = fighter.id
        schedule_turn(
            enc,
            policy,
            started,
            controlled_by_member=is_pc and owner_id is not None,
            npc_reminds_gm=npc_reminds_gm,
        )
        return enc.id


async def row(sessions, encounter_id: int) -> Encounter:
    async with sessions() as session:
        return await session.get(Encounter, encounter_id)


def make_loop(sessions, clock: Clock, sender: Recorder, **kw: Any) -> ReminderLoop:
    return ReminderLoop(Store(sessions, clock), sender, **kw)


# --- the sequence ------------------------------------------------------------------------------------------


async def test_nothing_before_after_then_reminders_then_the_gm_step_once(db: Db) -> None:
    clock, sender = Clock(), Recorder()
    loop = make_loop(db.main, clock, sender)
    eid = await add_encounter(db.main)
    assert (await row(db.main, eid)).reminder_due_at == START + 12 * H

    for at in (START, START + 11 * H, START + 12 * H - timedelta(seconds=1)):
        clock.now = at
        await loop.tick()
    assert sender.steps == []

    clock.now = START + 12 * H
    await loop.tick()
    await loop.tick()  # same moment again: nothing more
    assert sender.actions() == [(eid, "remind")]
    step = sender.steps[0]
    assert (step.member_id, step.number, step.max_reminders, step.waited) == (555, 1, 2, 12 * H)
    assert (await row(db.main, eid)).reminder_due_at == START + 18 * H

    clock.now = START + 17 * H
    await loop.tick()
    assert len(sender.steps) == 1
    clock.now = START + 18 * H
    await loop.tick()
    assert sender.actions() == [(eid, "remind")] * 2

    clock.now = START + 24 * H
    await loop.tick()
    assert sender.actions() == [(eid, "remind")] * 2 + [(eid, "gm")]
    assert sender.steps[-1].reminders_sent == 2
    after = await row(db.main, eid)
    assert (after.reminder_due_at, after.reminders_sent) == (None, 3)

    for days in (2, 5, 40):
        clock.now = START + days * 24 * H
        await loop.tick()
    assert len(sender.steps) == 3


async def test_then_nothing_stops_after_max(db: Db) -> None:
    clock, sender = Clock(), Recorder()
    loop = make_loop(db.main, clock, sender)
    eid = await add_encounter(db.main, policy=POLICY.with_changes(then="nothing", max_reminders=1))
    for hours in (12, 18, 24, 100):
        clock.now = START + hours * H
        await loop.tick()
    assert sender.actions() == [(eid, "remind")]
    assert (await row(db.main, eid)).reminder_due_at is None


async def test_cancel_stops_pending_reminders(db: Db) -> None:
    clock, sender = Clock(START + 100 * H), Recorder()
    eid = await add_encounter(db.main)
    async with db.main() as session, session.begin():
        enc = await session.get(Encounter, eid)
        assert cancel(enc) == {"reminder_due_at": None}
    await make_loop(db.main, clock, sender).tick()
    assert sender.steps == []


async def test_a_new_turn_resets_the_count(db: Db) -> None:
    clock, sender = Clock(START + 12 * H), Recorder()
    loop = make_loop(db.main, clock, sender)
    eid = await add_encounter(db.main)
    await loop.tick()
    async with db.main() as session, session.begin():
        enc = await session.get(Encounter, eid)
        enc.turn_key = "r1.t2"
        enc.turn_started_at = clock.now
        schedule_turn(enc, POLICY, clock.now, controlled_by_member=True)
    assert (await row(db.main, eid)).reminders_sent == 0
    clock.now += 12 * H
    await loop.tick()
    assert [s.number for s in sender.steps] == [1, 1]
    assert sender.steps[-1].turn_key == "r1.t2"


def test_schedule_turn_on_the_values_of_an_update() -> None:
    values: dict[str, Any] = {"turn_key": "r2"}
    out = schedule_turn(values, POLICY, START, controlled_by_member=True)
    assert out == {"reminder_due_at": START + 12 * H, "reminders_sent": 0}
    assert values == {"turn_key": "r2", **out}
    assert schedule_turn({}, POLICY, START, controlled_by_member=False)["reminder_due_at"] is None
    assert schedule_turn({}, POLICY, START, False, npc_reminds_gm=True)["reminder_due_at"] == START + 12 * H
    assert schedule_turn({}, POLICY.with_changes(enabled=False), START, True)["reminder_due_at"] is None
    assert cancel(values) == {"reminder_due_at": None} and values["reminder_due_at"] is None


async def test_npc_turns_get_no_reminders_unless_asked_and_then_the_gms_get_them(db: Db) -> None:
    clock, sender = Clock(START + 12 * H), Recorder()
    quiet = await add_encounter(db.main, owner_id=None, is_pc=False, name="Goblin")
    loud = await add_encounter(db.main, owner_id=None, is_pc=False, name="Orc", npc_reminds_gm=True)
    await make_loop(db.main, clock, sender).tick()
    assert sender.actions() == [(loud, "remind")]
    assert (await row(db.main, quiet)).reminder_due_at is None
    message = message_for(sender.steps[0])
    assert message is not None and "<@777>" in message.content  # no GM role: the encounter's starter
    assert message.allowed_mentions.users[0].id == 777 and message.allowed_mentions.roles is False


async def test_turning_reminders_off_stops_pending_ones_at_their_due_time(db: Db) -> None:
    clock, sender = Clock(START + 12 * H), Recorder()
    store = Store(db.main, clock)
    channel = 4242
    eid = await add_encounter(db.main, channel_id=channel)
    await save_policy(store, Where(1, channel), 9, {"enabled": False}, clock.now)
    await make_loop(db.main, clock, sender).tick()
    assert sender.steps == []
    assert (await row(db.main, eid)).reminder_due_at is None


async def test_ended_encounters_are_not_reminded(db: Db) -> None:
    clock, sender = Clock(START + 12 * H), Recorder()
    await add_encounter(db.main, status="ended")
    await make_loop(db.main, clock, sender).tick()
    assert sender.steps == []


# --- claims: shards, concurrent ticks, restarts ------------------------------------------------------------


def guild_on_shard(shard: int, n: int) -> int:
    return ((1000 + n * 2 + shard) << 22) | 12345


async def test_two_shard_processes_send_each_due_reminder_exactly_once(db: Db) -> None:
    clock = Clock(START + 12 * H)
    ids = {}
    for shard in (0, 1):
        for n in range(5):
            ids[await add_encounter(db.main, guild_id=guild_on_shard(shard, n))] = shard
    senders = [Recorder(delay=0.001), Recorder(delay=0.001)]
    loops = [make_loop(db.sessions(), clock, senders[s], shard_count=2, shard_ids=[s]) for s in (0, 1)]
    await asyncio.gather(*(loop.tick() for loop in loops))
    for shard in (0, 1):
        assert sorted(s.encounter_id for s in senders[shard].steps) == sorted(
            e for e, sh in ids.items() if sh == shard
        )
        assert all(loops[shard].owns(s.guild_id) for s in senders[shard].steps)
    await asyncio.gather(*(loop.tick() for loop in loops))
    assert sum(len(s.steps) for s in senders) == 10


async def test_two_instances_of_the_same_shard_still_send_once(db: Db) -> None:
    clock = Clock(START + 12 * H)
    eids = [await add_encounter(db.main) for _ in range(20)]
    senders = [Recorder(delay=0.001), Recorder(delay=0.001)]
    loops = [make_loop(db.sessions(), clock, senders[i]) for i in (0, 1)]
    reports = await asyncio.gather(*(loop.tick() for loop in loops))
    sent = sorted(s.encounter_id for sender in senders for s in sender.steps)
    assert sent == sorted(eids)
    assert sum(r.claimed for r in reports) == 20


async def test_the_claim_lets_exactly_one_of_two_readers_win(db: Db) -> None:
    clock = Clock(START + 12 * H)
    eid = await add_encounter(db.main)
    a, b = (make_loop(db.sessions(), clock, Recorder()) for _ in range(2))
    seen_a, seen_b = await a.due(clock.now), await b.due(clock.now)
    assert [r.id for r in seen_a] == [r.id for r in seen_b] == [eid]
    first = await a.claim(seen_a[0], clock.now)
    second = await b.claim(seen_b[0], clock.now)
    assert first is not None and first.action == "remind"
    assert second is None


async def test_a_member_acting_after_the_read_wins_over_the_claim(db: Db) -> None:
    clock = Clock(START + 12 * H)
    eid = await add_encounter(db.main)
    loop = make_loop(db.main, clock, Recorder())
    [seen] = await loop.due(clock.now)
    async with db.main() as session, session.begin():  # the turn passes meanwhile
        enc = await session.get(Encounter, eid)
        enc.turn_key = "r1.t2"
        schedule_turn(enc, POLICY, clock.now, controlled_by_member=True)
    assert await loop.claim(seen, clock.now) is None


async def test_a_restart_sends_one_reminder_per_overdue_turn(db: Db) -> None:
    eids = [await add_encounter(db.main, policy=POLICY.with_changes(max_reminders=5)) for _ in range(3)]
    late = START + 12 * H + 4 * 6 * H + 3 * H  # five nominal slots passed while the bot was down
    clock, sender = Clock(late), Recorder()
    fresh = make_loop(db.sessions(), clock, sender)  # a new process on the same database
    await fresh.tick()
    await fresh.tick()
    assert sorted(s.encounter_id for s in sender.steps) == sorted(eids)
    assert all(s.number == 1 for s in sender.steps)
    for eid in eids:
        assert (await row(db.main, eid)).reminder_due_at == late + 6 * H
    clock.now = late + 6 * H
    await fresh.tick()
    assert len(sender.steps) == 6


@pytest.mark.sqlite_only  # reads SQLite's EXPLAIN QUERY PLAN
async def test_the_due_query_uses_the_index(db: Db) -> None:
    engine = db.engines[0]

    def explain(conn, cursor, statement, parameters, context, executemany):
        return "EXPLAIN QUERY PLAN " + statement, parameters

    event.listen(engine.sync_engine, "before_cursor_execute", explain, retval=True)
    try:
        for shards in (None, (2, (0,)), (4, (1, 3))):
            async with db.main() as session:
                rows = (await session.exec(due_query(START, 100, shards))).all()
            plan = " ".join(str(r[-1]) for r in rows)
            assert "ix_encounter_reminder_due_at" in plan, plan
            assert "TEMP B-TREE" not in plan, plan
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", explain)


async def test_a_failing_sender_does_not_stop_the_tick(db: Db, caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock(START + 12 * H)
    calls: list[int] = []

    async def flaky(step: DueStep) -> None:
        calls.append(step.encounter_id)
        if len(calls) == 1:
            raise discord.HTTPException(type("R", (), {"status": 500, "reason": "x"})(), "boom")

    for _ in range(2):
        await add_encounter(db.main)
    with caplog.at_level(logging.ERROR):
        report = await make_loop(db.main, clock, flaky).tick()
    assert (report.sent, report.failed) == (1, 1)
    assert "not retried" in caplog.text


async def test_the_tasks_loop_runs_at_once_and_stops(db: Db) -> None:
    clock, sender = Clock(START + 12 * H), Recorder()
    eid = await add_encounter(db.main)
    loop = make_loop(db.main, clock, sender, interval=0.05)
    loop.start()
    for _ in range(100):
        if sender.steps:
            break
        await asyncio.sleep(0.01)
    assert loop.is_running()
    await loop.stop()
    assert not loop.is_running()
    assert sender.actions() == [(eid, "remind")]


# --- the per-channel policy ----------------------------------------------------------------------------------


async def test_policy_per_channel_with_thread_fallback(db: Db) -> None:
    store = Store(db.main, Clock())
    channel, thread = Where(1, 10), Where(1, 11, parent_id=10)
    assert (await policy_view(store, channel)).policy == ReminderPolicy()
    await save_policy(store, channel, 9, {"after": 2 * H, "then": "skip"}, START)
    view = await policy_view(store, thread)
    assert (view.policy.after, view.policy.then, view.sources["after"], view.thread) == (
        2 * H,
        "skip",
        "parent",
        True,
    )
    await save_policy(store, thread, 9, {"max_reminders": 0}, START)
    view = await policy_view(store, Where(1, 11))  # the thread remembers its parent
    assert (view.policy.after, view.policy.max_reminders) == (2 * H, 0)
    assert view.sources == {
        "after": "parent",
        "repeat": "default",
        "max_reminders": "here",
        "then": "parent",
        "enabled": "default",
    }
    assert (await policy_view(store, channel)).policy.max_reminders == 2
    async with db.main() as session:
        assert (await load_policy(session, 11)).after == 2 * H


# --- what is sent ----------------------------------------------------------------------------------------------

# At most 64 characters, like every combatant name (PostgreSQL enforces the column's length).
NASTY = "@everyone <@&123456789012345678> @here <@999999999999999999> *B*"


@dataclass
class FakeChannel:
    sent: list[dict[str, Any]] = field(default_factory=list)

    async def send(self, content: str, **kwargs: Any) -> SimpleNamespace:
        self.sent.append({"content": content, **kwargs})
        return SimpleNamespace(id=len(self.sent))  # a sent message, as Discord answers


class FakeBot:
    def __init__(self) -> None:
        self.channel = FakeChannel()

    def get_channel(self, channel_id: int) -> None:
        return None

    def get_partial_messageable(self, channel_id: int, *, guild_id: int | None = None) -> FakeChannel:
        return self.channel


def custom_ids(view: discord.ui.View) -> list[str]:
    return [item.custom_id for item in view.children]  # type: ignore[attr-defined]


async def test_a_nasty_name_pings_nobody_but_the_member(db: Db) -> None:
    clock = Clock(START + 12 * H)
    sender, bot = Recorder(), FakeBot()
    eid = await add_encounter(db.main, name=NASTY)
    await make_loop(db.main, clock, sender).tick()
    [step] = sender.steps
    await DiscordSender(bot)(step)  # type: ignore[arg-type]
    [sent] = bot.channel.sent
    mentions: discord.AllowedMentions = sent["allowed_mentions"]
    assert mentions.everyone is False and mentions.roles is False and mentions.replied_user is False
    assert [u.id for u in mentions.users] == [555]
    content = sent["content"]
    assert "<@555>" in content and "12 hours" in content and "Reminder 1 of 2" in content
    assert "@everyone" not in content.replace("@\u200beveryone", "")
    assert "<@&123456789012345678>" not in content and "<@999999999999999999>" not in content
    assert custom_ids(sent["view"]) == [f"fray:end-turn:{eid}:r1.t1", f"fray:status:{eid}"]


async def test_the_gm_step_pings_the_gm_role_only(db: Db) -> None:
    clock, sender = Clock(START + 12 * H), Recorder()
    eid = await add_encounter(db.main, name=NASTY, policy=POLICY.with_changes(max_reminders=0))
    async with db.main() as session, session.begin():
        session.add(GuildConfig(guild_id=1, gm_role_id=4321))
    await make_loop(db.main, clock, sender).tick()
    [step] = sender.steps
    assert (step.encounter_id, step.action) == (eid, "gm")
    message = message_for(step)
    assert message is not None
    assert message.allowed_mentions.roles[0].id == 4321 and len(message.allowed_mentions.roles) == 1
    assert message.allowed_mentions.users is False and message.allowed_mentions.everyone is False
    assert message.content.startswith("📣 <@&4321>") and "<@555>" in message.content


def test_reminders_carry_the_encounters_turn_buttons() -> None:
    view = turn_view(7, "r1.t1")
    assert custom_ids(view) == ["fray:end-turn:7:r1.t1", "fray:status:7"]
    long_key = "x" * 80
    assert custom_ids(turn_view(7, long_key))[0].startswith("fray:end-turn:7:~")
    assert turn_token("a:b") == "a_3a_b"


def _skip_step() -> DueStep:
    return DueStep(
        action="skip",
        encounter_id=5,
        guild_id=1,
        channel_id=2,
        encounter_name="Ambush",
        turn_key="r1.t1",
        combatant_id=3,
        combatant_name="Ayla",
        member_id=555,
        gm_role_id=None,
        started_by=777,
        number=3,
        max_reminders=2,
        reminders_sent=2,
        waited=24 * H,
        next_due=None,
    )


async def test_a_refused_skip_posts_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    async def skip_turn(bot: Any, encounter_id: int, turn_key: str, *, summary: Any = None) -> None:
        return None  # the turn moved on meanwhile

    monkeypatch.setattr(encounters_module, "skip_turn", skip_turn)
    bot = FakeBot()
    await DiscordSender(bot)(_skip_step())  # type: ignore[arg-type]
    assert bot.channel.sent == []


async def test_skip_calls_the_encounters_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, ...]] = []

    async def skip_turn(bot: Any, encounter_id: int, turn_key: str, *, summary: Any = None) -> object:
        calls.append((bot, encounter_id, turn_key))
        return SimpleNamespace(turn_changed=False, status="running")  # no next turn to announce

    monkeypatch.setattr(encounters_module, "skip_turn", skip_turn)
    bot = FakeBot()
    await DiscordSender(bot)(_skip_step())  # type: ignore[arg-type]
    assert calls == [(bot, 5, "r1.t1")]
    assert "skipped" in bot.channel.sent[0]["content"]
    assert bot.channel.sent[0]["allowed_mentions"].users is False


async def test_the_skip_step_is_claimed_once(db: Db) -> None:
    clock, sender = Clock(START + 12 * H), Recorder()
    eid = await add_encounter(db.main, policy=POLICY.with_changes(max_reminders=0, then="skip"))
    loop = make_loop(db.main, clock, sender)
    await loop.tick()
    clock.now += 100 * H
    await loop.tick()
    assert sender.actions() == [(eid, "skip")]
