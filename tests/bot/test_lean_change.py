"""The change path's statements: the next log row's number comes from the change before (no ``max(seq)``)
while this process made that version; another process's change makes it look the number up again."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import event, select

from bot.encounters import edit_encounter
from bot.models import EventLog
from bot.store import Store
from tests.bot.test_encounter_store import GM, HERE, FakeBot, setup_fight
from tests.bot.test_encounter_store import bot as bot  # the fixture


@contextmanager
def statements(fake: FakeBot) -> Iterator[list[str]]:
    engine = fake.store.sessions.kw["bind"].sync_engine
    seen: list[str] = []

    def record(conn, cursor, statement, parameters, context, executemany) -> None:
        seen.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


async def _condition(fake: FakeBot, remove: bool) -> None:
    async with edit_encounter(fake, HERE, GM, "gm condition") as edit:
        cid = str(edit.combatant("Ash").id)
        edit.apply(edit.system.gm_condition(edit.state, cid, "prone", remove, edit.house))


async def test_the_next_log_number_is_known_without_asking(bot: FakeBot) -> None:
    eid = await setup_fight(bot)
    await _condition(bot, False)  # a fresh process would look it up once
    with statements(bot) as seen:
        await _condition(bot, True)
    assert not [s for s in seen if "max(" in s.lower()], seen
    other = FakeBot(Store(bot.store.sessions, bot.clock), bot.clock)  # another process changes it
    await _condition(other, False)
    await _condition(bot, True)
    async with bot.store.sessions() as session:
        seqs = (await session.exec(select(EventLog.seq).where(EventLog.encounter_id == eid))).scalars().all()
    assert sorted(seqs) == list(range(1, len(seqs) + 1))
