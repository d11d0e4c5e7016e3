"""The one-statement read of a channel's settings finds the same rows the ORM does, in every shape: a
channel alone, a thread whose parent is given, one whose row names its parent, a thread with no row of its
own, and nothing stored."""

from __future__ import annotations

import pytest

from bot.models import ChannelConfig
from bot.plain_rows import channel_rows

CHANNEL, THREAD, LONE_THREAD, OTHER = 10, 11, 12, 13


@pytest.fixture
async def sessions(sessions):
    """The shared migrated database (``tests/bot/conftest.py``), with the channels above."""
    async with sessions() as session, session.begin():
        session.add(ChannelConfig(channel_id=CHANNEL, guild_id=1, system="d6", house_rules={"d6": {"a": 1}}))
        session.add(ChannelConfig(channel_id=THREAD, guild_id=1, parent_id=CHANNEL, dice_queue=[4, 2]))
        session.add(ChannelConfig(channel_id=OTHER, guild_id=1, system="nyra"))
    return sessions


def _ids(found: tuple) -> tuple:
    return tuple(None if row is None else row.channel_id for row in found)


@pytest.mark.parametrize(
    ("channel", "parent", "expected"),
    [
        (CHANNEL, None, (CHANNEL, None)),
        (THREAD, None, (THREAD, CHANNEL)),  # the parent its row names
        (THREAD, CHANNEL, (THREAD, CHANNEL)),
        (LONE_THREAD, CHANNEL, (None, CHANNEL)),  # no row of its own yet
        (LONE_THREAD, None, (None, None)),
        (99, 98, (None, None)),
    ],
)
async def test_the_channel_and_its_parent_are_read_in_one_statement(sessions, channel, parent, expected):
    async with sessions() as session:
        found = await channel_rows(session, channel, parent)
    assert _ids(found) == expected


async def test_the_rows_carry_every_column_as_stored(sessions) -> None:
    async with sessions() as session:
        own, parent = await channel_rows(session, THREAD, None)
        stored_own = await session.get(ChannelConfig, THREAD)
        stored_parent = await session.get(ChannelConfig, CHANNEL)
    for plain, stored in ((own, stored_own), (parent, stored_parent)):
        for column in ChannelConfig.__table__.columns:  # type: ignore[attr-defined]
            assert getattr(plain, column.name) == getattr(stored, column.name), column.name
    assert own.dice_queue == [4, 2] and parent.house_rules == {"d6": {"a": 1}}


# Reminder settings: 20 is a channel, 21 a thread of it whose reminder row names no parent (its settings
# row does), 22 a thread with no reminder row (its settings row names 20), 23 a thread whose reminder row
# names 20 and that has no settings row.
@pytest.fixture
async def reminder_sessions(sessions):
    from bot.models import ReminderConfig

    async with sessions() as session, session.begin():
        session.add(ChannelConfig(channel_id=21, guild_id=1, parent_id=20))
        session.add(ChannelConfig(channel_id=22, guild_id=1, parent_id=20))
        session.add(ReminderConfig(channel_id=20, guild_id=1, after_seconds=3600))
        session.add(ReminderConfig(channel_id=21, guild_id=1, after_seconds=60))
        session.add(ReminderConfig(channel_id=23, guild_id=1, parent_id=20, max_reminders=1))
    return sessions


@pytest.mark.parametrize(
    ("channel", "parent", "expected"),
    [
        (20, None, (20, None)),
        (21, None, (21, 20)),  # the settings row names the parent
        (22, None, (None, 20)),
        (23, None, (23, 20)),  # the reminder row names it
        (21, 20, (21, 20)),
        (24, 20, (None, 20)),
        (24, None, (None, None)),
    ],
)
async def test_reminder_settings_and_their_parents_are_read_in_one_statement(
    reminder_sessions, channel, parent, expected
):
    from bot.plain_rows import reminder_rows

    async with reminder_sessions() as session:
        found = await reminder_rows(session, channel, parent)
    assert _ids(found) == expected
