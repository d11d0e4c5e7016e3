"""The live tracker: one message per encounter, posted at `/encounter begin` and edited in place after every
change that alters what it shows (a change it does not show, such as a side, or a point of an NPC's damage
within the same health word, edits nothing). When it was deleted, or has scrolled far up (``SCROLLED``
messages below it), a new one is posted and the old one is left alone. Its id is stored on the encounter
(``bot.encounters.set_tracker_message``), so a restart keeps editing the same message.

A tracker that cannot be shown never fails the change that asked for it: the change is already committed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import Any

import discord
import orjson
from discord.ext import commands
from discord.http import handle_message_parameters

from bot.encounter_reads import EncounterRead, load_encounter
from bot.encounter_results import EncounterResult
from bot.encounters import set_tracker_message
from bot.message_events import NewMessage
from cogs.errors import NO_MENTIONS
from cogs.text import encounters as text
from rules.encounter import TrackerView, TurnStatus

log = logging.getLogger(__name__)

SCROLLED = 30  # messages below it, after which players would have to scroll to find it


class LiveTrackers(commands.Cog):
    """The live trackers of one bot. At most one refresh runs per encounter: a change that asks while one
    runs leaves it to that one, which then shows the state as it is after every change that asked (under
    load, one edit for many changes, as Discord's edit rate limit wants). How far each tracker has scrolled
    up is counted from the channel's new messages (the history is asked only when the count is unknown,
    e.g. after a restart)."""

    def __init__(self, every: float = 0.0) -> None:
        # seconds a tracker rests after an edit: what changes meanwhile is shown in one edit at the end
        # (Discord allows about five edits per five seconds in a channel; more would be throttled)
        self.every = every
        self._cooling: dict[int, asyncio.Task[None]] = {}  # encounter id → its rest after an edit
        self._running: set[int] = set()  # encounter ids with a refresh in progress
        self._again: set[int] = set()  # … and asked again meanwhile
        self._below: dict[int, tuple[int, int]] = {}  # channel id → (tracker message id, messages after it)
        # encounter id → (channel id, message id, what it shows once its turn has passed) of its latest turn
        # announcement, which the next one edits down (in memory: after a restart the next announcement
        # looks back through the channel for those posted before, ``look_back``)
        self._announced: dict[int, tuple[int, int, Any]] = {}
        self._looked_back: set[int] = set()  # encounter ids whose channel was searched since the start
        # encounter id → the reminders sent for its current turn (each with End turn), same form
        self._reminded: dict[int, list[tuple[int, int, Any]]] = {}
        self._latest: dict[int, Shot] = {}  # encounter id → the newest change's picture, not shown yet
        self._posted: dict[int, int] = {}  # encounter id → the tracker message this process posted last
        # encounter id → (tracker message id, a digest of the embed this process last sent it): a change that
        # leaves what the tracker shows as it is (an NPC's health word, a field it does not show) edits nothing
        self._shown: dict[int, tuple[int, int]] = {}

    def saw(self, message: NewMessage) -> None:
        """A new message (``Fray.message_observers``): one more below the tracker of its channel."""
        seen = self._below.get(message.channel_id)
        if seen is not None and message.id > seen[0]:
            self._below[message.channel_id] = (seen[0], seen[1] + 1)

    async def refresh(
        self, bot: Any, channel_id: int, guild_id: int, encounter_id: int, shot: Shot | None = None
    ) -> None:
        if shot is not None:
            latest = self._latest.get(encounter_id)
            if latest is None or latest.version < shot.version:
                self._latest[encounter_id] = shot
        if encounter_id in self._running or encounter_id in self._cooling:
            self._again.add(encounter_id)
            return
        self._running.add(encounter_id)
        sent = False
        try:
            while True:  # bounded: each pass takes every request made before it began
                self._again.discard(encounter_id)
                sent = await _refresh_once(bot, channel_id, guild_id, encounter_id, self)
                if (sent and self.every > 0) or encounter_id not in self._again:
                    break
        finally:
            self._running.discard(encounter_id)
        if sent and self.every > 0:  # a pass that sent nothing needs no rest: the next change shows at once
            self._rest(bot, channel_id, guild_id, encounter_id)
        else:
            self._again.discard(encounter_id)

    def _rest(self, bot: Any, channel_id: int, guild_id: int, encounter_id: int) -> None:
        """After an edit, wait ``every`` seconds in the background (the caller goes on to its announcement),
        then show what was asked meanwhile in one more edit."""

        async def rest() -> None:
            try:
                await asyncio.sleep(self.every)
            finally:
                self._cooling.pop(encounter_id, None)
            if encounter_id in self._again:
                await self.refresh(bot, channel_id, guild_id, encounter_id)

        task = asyncio.get_running_loop().create_task(rest())
        self._cooling[encounter_id] = task
        finish = getattr(bot, "finish_before_closing", None)
        if finish is not None:  # a stop waits for the tracker's last edit
            finish(task)

    async def cog_unload(self) -> None:
        for task in list(self._cooling.values()):
            task.cancel()

    async def below(self, channel: Any, message_id: int) -> int:
        seen = self._below.get(channel.id)
        if seen is None or seen[0] != message_id:
            self.shown(channel.id, message_id, await _below(channel, message_id))
            seen = self._below[channel.id]
        return seen[1]

    def shown(self, channel_id: int, message_id: int, below: int = 0) -> None:
        self._below[channel_id] = (message_id, below)

    def posted(self, encounter_id: int, message_id: int) -> None:
        self._posted[encounter_id] = message_id

    def take_latest(self, encounter_id: int) -> Shot | None:
        """The newest change's picture (then forgotten), with the tracker message this process knows best."""
        shot = self._latest.pop(encounter_id, None)
        known = self._posted.get(encounter_id)
        if shot is not None and known is not None:
            shot = dataclasses.replace(shot, tracker_message_id=known)
        return shot

    def unchanged(self, encounter_id: int, message_id: int, digest: int) -> bool:
        """Whether ``message_id`` shows the embed of ``digest`` (``_digest``) already, as this process last
        sent it."""
        return self._shown.get(encounter_id) == (message_id, digest)

    def showed(self, encounter_id: int, message_id: int, digest: int, *, ended: bool = False) -> None:
        """``message_id`` now shows the embed of ``digest`` (forgotten once the fight has ended: nothing
        edits it again)."""
        if ended:
            self._shown.pop(encounter_id, None)
        else:
            self._shown[encounter_id] = (message_id, digest)

    def look_back(self, encounter_id: int) -> bool:
        """Whether the encounter's older announcements are still to be looked for in its channel: true
        once per encounter when this process remembers none of them (it started after they were posted)."""
        if encounter_id in self._looked_back:
            return False
        self._looked_back.add(encounter_id)
        return encounter_id not in self._announced and encounter_id not in self._reminded

    def opened(self, encounter_id: int) -> None:
        """This process opened the encounter: nothing of it was announced before the process started, so
        its first announcement searches no channel history."""
        self._looked_back.add(encounter_id)

    def last_announced(self, encounter_id: int) -> list[tuple[int, int, Any]]:
        """The encounter's latest announcement and reminders, forgotten (its fight is over: none comes after
        them)."""
        latest = self._announced.pop(encounter_id, None)
        return ([latest] if latest is not None else []) + self._reminded.pop(encounter_id, [])

    def reminded(self, encounter_id: int, channel_id: int, message_id: int, retired: Any) -> None:
        """Remember a reminder sent for the encounter's current turn: the next announcement retires it."""
        self._reminded.setdefault(encounter_id, []).append((channel_id, message_id, retired))

    def announced(
        self, encounter_id: int, channel_id: int, message_id: int, retired: Any
    ) -> list[tuple[int, int, Any]]:
        """Remember the latest announcement of ``encounter_id`` (``retired``: what it shows once its turn has
        passed, as the message edit's keywords); return the messages whose turn it ends: the announcement it replaces and that turn's
        reminders. Of two posted at once, the later message stays latest."""
        before = self._announced.get(encounter_id)
        if before is not None and before[1] > message_id:
            return [(channel_id, message_id, retired)]
        self._announced[encounter_id] = (channel_id, message_id, retired)
        return ([before] if before is not None else []) + self._reminded.pop(encounter_id, [])


def _digest(embed: discord.Embed) -> int:
    """The embed as it is sent to Discord, in a few bytes (one is kept for each encounter whose tracker this
    process has shown)."""
    return hash(orjson.dumps(embed.to_dict(), option=orjson.OPT_SORT_KEYS))


async def _below(channel: Any, message_id: int) -> int:
    """How many messages were posted after ``message_id`` (counted up to ``SCROLLED``)."""
    count = 0
    async for _ in channel.history(after=discord.Object(message_id), limit=SCROLLED):
        count += 1
    return count


@dataclasses.dataclass(frozen=True, slots=True)
class Shot:
    """What a tracker shows, as a change left it (so showing it needs no read) or as read."""

    name: str
    tracker: TrackerView
    turn: TurnStatus
    status: str
    version: int
    tracker_message_id: int | None

    @classmethod
    def of_result(cls, result: EncounterResult) -> Shot:
        return cls(
            result.name, result.tracker, result.turn, result.status, result.version, result.tracker_message_id
        )

    @classmethod
    def of_read(cls, read: EncounterRead) -> Shot:
        enc = read.encounter
        return cls(enc.name, read.tracker(), read.turn(), enc.status, enc.version, enc.tracker_message_id)


def keeper_of(bot: Any) -> LiveTrackers | None:
    """The bot's ``LiveTrackers`` (``None`` for a bot without it, e.g. a stand-in in store tests)."""
    keeper = bot.get_cog(LiveTrackers.__cog_name__) if hasattr(bot, "get_cog") else None
    return keeper if isinstance(keeper, LiveTrackers) else None


async def refresh_tracker(
    bot: Any, channel_id: int, guild_id: int, encounter_id: int, result: EncounterResult | None = None
) -> None:
    """Edit the encounter's tracker in place, or post it (again) when there is none to edit. With the
    change's ``result`` it shows that without reading the encounter again."""
    shot = Shot.of_result(result) if result is not None else None
    keeper = keeper_of(bot)
    if keeper is not None:
        await keeper.refresh(bot, channel_id, guild_id, encounter_id, shot)
    else:
        await _refresh_once(bot, channel_id, guild_id, encounter_id, None, shot)


async def _refresh_once(
    bot: Any,
    channel_id: int,
    guild_id: int,
    encounter_id: int,
    keeper: LiveTrackers | None,
    shot: Shot | None = None,
) -> bool:
    """Show the encounter's latest picture; whether anything was sent to Discord (or tried)."""
    try:
        if keeper is not None:
            shot = keeper.take_latest(encounter_id)
        if shot is None:
            read = await load_encounter(bot, encounter_id=encounter_id)
            if read is None:
                return False
            shot = Shot.of_read(read)
        if shot.status == "setup" and shot.tracker_message_id is None:
            return False  # posted when the fight begins
        embed = text.tracker_embed(shot.name, shot.tracker, shot.turn, shot.status)
        digest = _digest(embed)
        channel = bot.get_channel(channel_id) or bot.get_partial_messageable(channel_id, guild_id=guild_id)
        old = shot.tracker_message_id
        ended = shot.status == "ended"
        if old is not None and (ended or await _scrolled(keeper, channel, old) < SCROLLED):
            if keeper is not None and keeper.unchanged(encounter_id, old, digest):
                return False
            try:
                await _show(bot, channel_id, old, embed)
                if keeper is not None:
                    keeper.showed(encounter_id, old, digest, ended=ended)
                return True
            except discord.NotFound:
                pass  # deleted: post a new one
        if ended:
            return True
        posted = await _post(bot, channel_id, embed)
        if not await set_tracker_message(bot, channel_id, encounter_id, posted, old):
            # another change posted one first: keep that one
            await bot.http.delete_message(channel_id, posted)
        elif keeper is not None:
            keeper.shown(channel_id, posted)
            keeper.posted(encounter_id, posted)
            keeper.showed(encounter_id, posted, digest)
    except Exception:
        log.warning("could not update the tracker of encounter %s", encounter_id, exc_info=True)
    return True


async def _post(bot: Any, channel_id: int, embed: discord.Embed) -> int:
    """Post a new tracker message showing ``embed``; its id. ``channel.send`` without the ``discord.Message``
    it builds of Discord's answer, which nothing here reads but the id."""
    with _message_of(bot, embed) as params:
        answer = await bot.http.send_message(channel_id, params=params)
    return int(answer["id"])


async def _show(bot: Any, channel_id: int, message_id: int, embed: discord.Embed) -> None:
    """The tracker message shows ``embed``: ``PartialMessage.edit`` without the ``discord.Message`` it builds
    of Discord's answer (every embed, field and button of it), which nothing here reads."""
    with _message_of(bot, embed) as params:
        await bot.http.edit_message(channel_id, message_id, params=params)


def _message_of(bot: Any, embed: discord.Embed) -> Any:
    """A tracker message's REST payload: the embed, pinging no one."""
    return handle_message_parameters(
        embed=embed, allowed_mentions=NO_MENTIONS, previous_allowed_mentions=bot.allowed_mentions
    )


async def _scrolled(keeper: LiveTrackers | None, channel: Any, message_id: int) -> int:
    return await (keeper.below(channel, message_id) if keeper is not None else _below(channel, message_id))
