"""The turn flow several cogs share: the public reply to a change, the turn announcement that follows it
(posted, then retired once its turn has passed, also after a restart), ending a turn (``/turn end`` and the
**End turn** button), and the persistent **End turn** / **Status** buttons
(``fray:end-turn:<encounter>:<turn token>``, ``fray:status:<encounter>``).

A plain module, not an extension: ``cogs.encounters``, ``cogs.turns``, ``cogs.actions``, ``cogs.gm_encounter``
and ``cogs.reminders`` all import it, and discord.py executes an extension's module afresh when it loads it.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import discord

from bot.encounter_reads import load_encounter
from bot.encounter_results import EncounterResult
from bot.encounter_rows import CombatantRow
from bot.encounters import EncounterEdit, NoEncounter, edit_encounter
from bot.errors import BotError
from cogs._checks import is_gm, where
from cogs._turn_buttons import extra_buttons
from cogs.deadline import AnswersInTime
from cogs.errors import NO_MENTIONS, report_error
from cogs.text import encounters as text
from cogs.text import log as log_text
from cogs.text.errors import describe
from cogs.text.messages import happened_to, tell
from cogs.tracker import keeper_of, refresh_tracker
from rules.encounter import TrackerView, TurnStatus
from rules.errors import RulesError
from rules.systems.registry import get_system

if TYPE_CHECKING:
    from bot.app import Fray

log = logging.getLogger(__name__)

KEY_CHARS = re.compile(r"[A-Za-z0-9.-]")
MAX_TOKEN = 60

# --- turn keys in custom ids ----------------------------------------------------------------------------


def turn_token(key: str) -> str:
    """``key`` made safe for a custom id (``[A-Za-z0-9._~-]``, ≤ 60 characters); long keys are hashed."""
    escaped = "".join(ch if KEY_CHARS.fullmatch(ch) else f"_{ord(ch):x}_" for ch in key or "-")
    if len(escaped) <= MAX_TOKEN:
        return escaped
    return "~" + hashlib.sha256(key.encode()).hexdigest()[:32]


# --- replies --------------------------------------------------------------------------------------------


def mentions_for(owner_id: int | None) -> discord.AllowedMentions:
    if owner_id is None:
        return NO_MENTIONS
    return discord.AllowedMentions(
        everyone=False, roles=False, replied_user=False, users=[discord.Object(owner_id)]
    )


def change_messages(
    title: str, result: EncounterResult, extra: Sequence[str] = (), *, arrivals_told: bool = False
) -> list[str]:
    return tell(title, result.events, result.names, extra, arrivals_told=arrivals_told)


async def reply_change(
    interaction: discord.Interaction[Any],
    title: str,
    result: EncounterResult,
    *,
    extra: Sequence[str] = (),
    arrivals_told: bool = False,
) -> None:
    """The public reply to a change (after the commit, split between lines when long), then the turn
    announcement when the turn passed. ``arrivals_told``: the title says who joined."""
    for content in change_messages(title, result, extra, arrivals_told=arrivals_told):
        if interaction.response.is_done():
            await interaction.followup.send(content, allowed_mentions=NO_MENTIONS)
        else:
            await interaction.response.send_message(content, allowed_mentions=NO_MENTIONS)
    await announce_turn(interaction, result)


def end_turn_id_prefix(encounter_id: int) -> str:
    """How an End turn button's id begins for ``encounter_id`` (its turn token follows)."""
    return f"fray:end-turn:{encounter_id}:"


def turn_view(encounter_id: int, turn_key: str | None, *, end_turn: bool = True) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    if end_turn and turn_key is not None:
        view.add_item(EndTurnButton(encounter_id, turn_token(turn_key)))
    view.add_item(StatusButton(encounter_id))
    return view


@dataclass(frozen=True, slots=True)
class Announcement:
    """A new turn's public message, and what it reads once its turn has passed (no "Now: …" hint)."""

    content: str
    view: discord.ui.View
    mentions: discord.AllowedMentions

    @property
    def passed(self) -> str:
        return text.passed_announcement(self.content)


def turn_message(result: EncounterResult) -> Announcement | None:
    """The announcement of the turn ``result`` started (``None`` when the turn did not pass)."""
    if not result.turn_changed or result.status != "running":
        return None
    turn = result.turn
    if not turn.actors:
        if not result.tracker.begun:
            return None
        content = text.nobody_owes(turn.label)
        return Announcement(content, turn_view(result.encounter_id, None, end_turn=False), NO_MENTIONS)
    actor = turn.actors[0]
    info = result.info(actor)
    name = info.name if info is not None else result.names.get(actor, "someone")
    owner = info.owner_id if info is not None and info.is_pc else None
    row = next((c for c in result.tracker.order if c.id == actor), None)
    traits = get_system(result.system).traits
    last_gasp = traits.death_saves and row is not None and row.last_gasp_round is not None
    happened = happened_to(actor, result.events, result.names)
    content = text.turn_announcement(
        turn, name, owner, happened, text.turn_choices(traits, last_gasp=last_gasp)
    )
    # the key as the encounter row stores it (≤ 64), so buttons and reminders compare the same text
    view = turn_view(result.encounter_id, turn.key[:64])
    for item in extra_buttons(result, turn.key[:64]):
        view.add_item(item)
    return Announcement(content, view, mentions_for(owner))


async def announce_turn(interaction: discord.Interaction[Any], result: EncounterResult) -> None:
    """After a change: the live tracker brought up to date, then, when a turn started, a public message
    mentioning the controlling member only, with the buttons."""
    if interaction.channel_id is not None and interaction.guild_id is not None:
        await refresh_tracker(
            interaction.client, interaction.channel_id, interaction.guild_id, result.encounter_id, result
        )
    message = turn_message(result)
    if message is not None:
        try:
            sent = await interaction.followup.send(
                message.content, view=message.view, allowed_mentions=message.mentions, wait=True
            )
        except discord.NotFound:  # the interaction could not be answered: the announcement and ping still go
            await announce_in_channel(
                interaction.client, interaction.channel_id or 0, interaction.guild_id or 0, result
            )
            return
        await _retire_previous(interaction.client, result, message, interaction.channel_id or 0, sent)


async def announce_in_channel(bot: Any, channel_id: int, guild_id: int, result: EncounterResult) -> None:
    """The same announcement without an interaction (the reminder loop's skip)."""
    if result.turn_changed:
        await refresh_tracker(bot, channel_id, guild_id, result.encounter_id, result)
    message = turn_message(result)
    if message is not None:
        channel = bot.get_channel(channel_id) or bot.get_partial_messageable(channel_id, guild_id=guild_id)
        sent = await channel.send(message.content, view=message.view, allowed_mentions=message.mentions)
        await _retire_previous(bot, result, message, channel_id, sent)


def retired_view(result: EncounterResult) -> discord.ui.View:
    """An announcement's buttons once its turn has passed: all but End turn (Status, and the turn's own
    extras such as a Death Save, which refuse a click on a passed turn themselves)."""
    view = turn_view(result.encounter_id, None, end_turn=False)
    for item in extra_buttons(result, result.turn.key[:64]):
        view.add_item(item)
    return view


async def _retire(bot: Any, old: Sequence[tuple[int, int, dict[str, Any]]]) -> None:
    """Edit each old message to what it shows once its turn has passed (``edit``'s keywords): one edit
    each, best effort — the change is committed and announced whatever happens here."""
    for old_channel, message_id, passed in old:
        try:
            channel = bot.get_channel(old_channel) or bot.get_partial_messageable(old_channel)
            await channel.get_partial_message(message_id).edit(**passed, allowed_mentions=NO_MENTIONS)
        except Exception:
            log.warning("could not take the End turn button off an old announcement", exc_info=True)


async def _retire_previous(
    bot: Any, result: EncounterResult, message: Announcement, channel_id: int, sent: Any
) -> None:
    """The encounter's previous announcement loses its End turn button and its hint (its turn has passed)."""
    keeper = keeper_of(bot)
    if keeper is not None and sent is not None:
        looking_back = keeper.look_back(result.encounter_id)
        passed = {"content": message.passed, "view": retired_view(result)}
        old = keeper.announced(result.encounter_id, channel_id, sent.id, passed)
        if looking_back:
            old += await _from_before_start(bot, channel_id, result.encounter_id, sent.id, old)
        await _retire(bot, old)


async def retire_last_announcement(bot: Any, encounter_id: int, channel_id: int) -> None:
    """The fight is over: its last announcement loses its End turn button too."""
    keeper = keeper_of(bot)
    if keeper is not None:
        looking_back = keeper.look_back(encounter_id)
        old = keeper.last_announced(encounter_id)
        if looking_back:
            old += await _from_before_start(bot, channel_id, encounter_id, None, old)
        await _retire(bot, old)


LOOK_BACK = 50  # messages searched for End turn buttons posted before this process started


async def _from_before_start(
    bot: Any, channel_id: int, encounter_id: int, newest: int | None, known: Sequence[tuple[int, int, Any]]
) -> list[tuple[int, int, dict[str, Any]]]:
    """Fray's messages with this encounter's End turn button among the channel's last ``LOOK_BACK``: posted
    before this process started (a restart), so not remembered. Best effort, once per encounter."""
    prefix = end_turn_id_prefix(encounter_id)
    skip = {message_id for _, message_id, _ in known}
    found: list[tuple[int, int, dict[str, Any]]] = []
    try:
        channel = bot.get_channel(channel_id) or bot.get_partial_messageable(channel_id)
        before = discord.Object(newest) if newest is not None else None
        async for old in channel.history(limit=LOOK_BACK, before=before):
            if old.author.id != bot.user.id or old.id in skip:
                continue
            ids = [
                getattr(c, "custom_id", None) or ""
                for row in old.components
                for c in getattr(row, "children", ())
            ]
            if not any(i.startswith(prefix) for i in ids):
                continue
            passed: dict[str, Any] = {"view": turn_view(encounter_id, None, end_turn=False)}
            if old.content.startswith("🔔"):
                passed["content"] = text.passed_announcement(old.content)
            found.append((channel_id, old.id, passed))
    except discord.HTTPException:
        log.warning("could not look for old End turn buttons in channel %s", channel_id, exc_info=True)
    return found


def reminder_sent(bot: Any, encounter_id: int, channel_id: int, message_id: int) -> None:
    """A reminder with End turn went out for the current turn: the next announcement retires it."""
    keeper = keeper_of(bot)
    if keeper is not None:
        passed = {"view": turn_view(encounter_id, None, end_turn=False)}
        keeper.reminded(encounter_id, channel_id, message_id, passed)


# --- acting for a combatant -----------------------------------------------------------------------------


def pick_actor(edit: EncounterEdit, user_id: int, as_name: str | None, gm: bool) -> CombatantRow:
    """The combatant ``user_id`` acts for now: ``as`` (GM only), else its own combatant whose turn it is."""
    if as_name:
        if not gm:
            raise BotError(text.as_needs_gm())
        return edit.combatant(as_name)
    own = [c for c in edit.combatants if c.owner_id == user_id]
    if not own:
        raise BotError(text.not_your_combatant())
    actors = edit.turn().actors
    mine = [c for c in own if str(c.id) in actors]
    if mine:
        return mine[0]
    raise BotError(text.not_your_turn(edit.name_of(actors[0]) if actors else None))


async def end_turn(
    interaction: discord.Interaction[Any],
    as_name: str | None = None,
    *,
    button: tuple[int, str] | None = None,
    sent_at: datetime | None = None,
) -> None:
    """``/turn end`` and the End turn button: the actor ends its own turn (a GM may end anyone's).

    ``sent_at`` (when the command was sent): a turn that began after it is not ended — several members
    sending ``/turn end`` at once would otherwise end the turns that their own commands started."""
    bot = interaction.client
    here = where(interaction)
    gm = await is_gm(interaction) if (as_name or button) else False
    try:
        async with edit_encounter(bot, here, interaction.user.id, "turn end") as edit:
            if button is not None:
                encounter_id, token = button
                if edit.encounter.id != encounter_id or token != turn_token(edit.encounter.turn_key or ""):
                    raise BotError(text.stale_button())
                edit.require_running()
                actors = edit.turn().actors
                if not actors:
                    raise BotError(text.stale_button())
                actor = edit.by_key(actors[0])
                assert actor is not None
                if not gm and not (actor.is_pc and actor.owner_id == interaction.user.id):
                    raise BotError(text.not_your_button(actor.name))
            else:
                edit.require_running()
                if sent_at is not None and edit.turn_began_after(sent_at):
                    actors = edit.turn().actors
                    raise BotError(text.turn_began_after_sent(edit.name_of(actors[0]) if actors else "this"))
                actor = pick_actor(edit, interaction.user.id, as_name, gm)
            name = actor.name
            by_gm = gm and actor.owner_id != interaction.user.id
            try:
                edit.apply(edit.system.end_turn(edit.state, str(actor.id), edit.dice, edit.house))
            except RulesError:
                if not (by_gm and str(actor.id) in edit.turn().actors):
                    raise
                # A GM ending the turn moves past what it still owes (a D6 Death Save, skipped).
                edit.apply(edit.system.gm_next(edit.state, edit.dice, edit.house))
            edit.summary = log_text.turn_ended_summary(name, by_gm=actor.owner_id != interaction.user.id)
    except NoEncounter:
        if button is None:
            raise
        raise BotError(text.stale_button()) from None
    except RulesError as err:
        # A turn that still owes something (a D6 Death Save) is refused with the way to pay it.
        prompt = await _owed_prompt(bot, here)
        if prompt is None:
            raise
        await interaction.response.send_message(
            describe(err)[:1800], view=prompt, ephemeral=True, allowed_mentions=NO_MENTIONS
        )
        return
    assert edit.result is not None
    await reply_change(interaction, text.turn_ended(name), edit.result)


@dataclass(frozen=True)
class _Running:
    """The running turn as an announcement's buttons read it (``cogs._turn_buttons``)."""

    encounter_id: int
    system: str
    status: str
    tracker: TrackerView
    turn: TurnStatus


async def _owed_prompt(bot: Any, here: Any) -> discord.ui.View | None:
    """The running turn's extra buttons (the Death Save), for a refusal that one of them answers."""
    read = await load_encounter(bot, here)
    if read is None or read.encounter.status != "running":
        return None
    running = _Running(read.encounter.id or 0, read.encounter.system, "running", read.tracker(), read.turn())
    items = extra_buttons(running, (read.encounter.turn_key or "")[:64])
    if not items:
        return None
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view


# --- buttons --------------------------------------------------------------------------------------------


class EndTurnButton(
    AnswersInTime,
    discord.ui.DynamicItem[discord.ui.Button],
    template=r"fray:end-turn:(?P<eid>[0-9]{1,19}):(?P<key>[A-Za-z0-9._~-]{1,64})",
):
    """Ends the announced turn, if it is still running and the clicker controls that combatant (or is a GM)."""

    def __init__(self, encounter_id: int, token: str) -> None:
        super().__init__(
            discord.ui.Button(
                label="End turn",
                style=discord.ButtonStyle.primary,
                emoji="⏭️",
                custom_id=end_turn_id_prefix(encounter_id) + token,
            )
        )
        self.encounter_id = encounter_id
        self.token = token

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Button, match: re.Match[str], /
    ) -> EndTurnButton:
        return cls(int(match["eid"]), match["key"])

    async def callback(self, interaction: discord.Interaction[Fray]) -> None:  # type: ignore[override]
        try:
            await end_turn(interaction, button=(self.encounter_id, self.token))
        except Exception as err:  # buttons are not covered by the tree's handler
            await report_error(interaction, err)


class StatusButton(
    AnswersInTime, discord.ui.DynamicItem[discord.ui.Button], template=r"fray:status:(?P<eid>[0-9]{1,19})"
):
    """Shows the tracker of that encounter, privately."""

    def __init__(self, encounter_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Status",
                style=discord.ButtonStyle.secondary,
                emoji="📋",
                custom_id=f"fray:status:{encounter_id}",
            )
        )
        self.encounter_id = encounter_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Button, match: re.Match[str], /
    ) -> StatusButton:
        return cls(int(match["eid"]))

    async def callback(self, interaction: discord.Interaction[Fray]) -> None:  # type: ignore[override]
        try:
            read = await load_encounter(interaction.client, encounter_id=self.encounter_id)
            if read is None or read.encounter.guild_id != interaction.guild_id:
                raise BotError(text.encounter_gone())
            embed = text.tracker_embed(
                read.encounter.name, read.tracker(), read.turn(), read.encounter.status
            )
            await interaction.response.send_message(embed=embed, ephemeral=True, allowed_mentions=NO_MENTIONS)
        except Exception as err:
            await report_error(interaction, err)


DYNAMIC_ITEMS = (EndTurnButton, StatusButton)
