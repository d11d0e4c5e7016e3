"""``/encounter start|join|add|remove|begin|status|log|end`` and the "started the running encounter" GM
source; it registers the announcements' persistent **End turn** / **Status** buttons (``DYNAMIC_ITEMS``).

Every change goes through ``bot.encounters.edit_encounter``; replies are sent after it commits, through the
turn flow the cogs share (``cogs._turn_flow``: the reply, the turn announcement, ending a turn).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import instances
from bot.encounter_reads import characters_of, load_encounter, log_rows, running_encounter_starter
from bot.encounters import EncounterEdit, NoEncounter, edit_encounter, start_encounter
from bot.errors import BotError, NoInstances
from bot.models import Character
from bot.typed_input import check_name, check_range
from cogs._autocomplete_encounters import ac_character, ac_combatant, ac_side, ac_template
from cogs._checks import gm_only, is_gm, where
from cogs._turn_flow import (
    DYNAMIC_ITEMS,
    reply_change,
    retire_last_announcement,
    turn_view,
)
from cogs.errors import NO_MENTIONS
from cogs.text import encounters as text
from cogs.text import log as log_text
from cogs.tracker import keeper_of, refresh_tracker
from rules.errors import NotFound

if TYPE_CHECKING:
    from bot.app import Fray

log = logging.getLogger(__name__)

MAX_DISTANCE = 1000
MAX_SURPRISE = 100
MAX_COUNT = 20
MAX_LOG = 25


# --- helpers for join/add -------------------------------------------------------------------------------


def _pick_character(rows: Sequence[Character], typed: str | None, system: str) -> Character:
    if typed:
        key = " ".join(typed.split()).casefold()
        exact = [r for r in rows if r.name_key == key or r.name.casefold() == key]
        partial = exact or [r for r in rows if key in r.name.casefold()]
        if not partial:
            raise NotFound(text.no_character(typed))
        in_system = [r for r in partial if r.system == system]
        if not in_system:
            raise BotError(text.character_other_system(partial[0].name, partial[0].system, system))
        if len(in_system) > 1:
            raise BotError(text.which_character([r.name for r in in_system]))
        return in_system[0]
    in_system = [r for r in rows if r.system == system]
    if not in_system:
        raise NotFound(text.no_character(None))
    if len(in_system) > 1:
        raise BotError(text.which_character([r.name for r in in_system]))
    return in_system[0]


def _template(edit: EncounterEdit, typed: str) -> str | None:
    names = edit.system.creature_names()
    key = " ".join(typed.split()).casefold()
    exact = [n for n in names if n.casefold() == key]
    if exact:
        return exact[0]
    partial = [n for n in names if key in n.casefold()]
    return partial[0] if len(partial) == 1 else None


def _side(side: str | None, default: str) -> str:
    if side is None or not side.strip():
        return default
    return check_name(side, what="side")


# --- the cog --------------------------------------------------------------------------------------------


@app_commands.guild_only()
class Encounters(
    commands.GroupCog, group_name="encounter", group_description="Encounters: turn order and tracker"
):
    def __init__(self, bot: Fray) -> None:
        self.bot = bot
        super().__init__()

    async def cog_load(self) -> None:
        self.bot.gm_sources.append(self.started_running_encounter)

    async def cog_unload(self) -> None:
        if self.started_running_encounter in self.bot.gm_sources:
            self.bot.gm_sources.remove(self.started_running_encounter)

    async def started_running_encounter(self, interaction: discord.Interaction[Any]) -> bool:
        """A GM source: whoever started the running encounter of this channel is its GM."""
        if interaction.channel_id is None:
            return False
        try:
            starter = await running_encounter_starter(self.bot, interaction.channel_id)
        except Exception:
            log.warning("could not read who runs the encounter here", exc_info=True)
            return False
        return starter is not None and starter == interaction.user.id

    @app_commands.command(name="start", description="GM: open an encounter here in the channel's system")
    @app_commands.describe(name="What to call the fight (default: Encounter)")
    @gm_only()
    async def start(self, interaction: discord.Interaction[Fray], name: str | None = None) -> None:
        result = await start_encounter(
            self.bot,
            where(interaction),
            interaction.user.id,
            name or "Encounter",
            summary=log_text.opened_summary,
        )
        keeper = keeper_of(self.bot)
        if keeper is not None:
            keeper.opened(result.encounter_id)
        await interaction.response.send_message(
            text.started(result.name, result.system, interaction.user.id), allowed_mentions=NO_MENTIONS
        )

    @app_commands.command(name="join", description="Add your character to this encounter")
    @app_commands.describe(
        character="Your character (default: your only one in this system)",
        side="Your side (default: party)",
        distance="How far from the centre of the fight (D6 tie-break), 0-1000",
        luck="Kaernest: add your Luck to your initiative roll (it is then used up for this fight)",
    )
    @app_commands.autocomplete(character=ac_character, side=ac_side)
    async def join(
        self,
        interaction: discord.Interaction[Fray],
        character: str | None = None,
        side: str | None = None,
        distance: int = 0,
        luck: bool = False,
    ) -> None:
        here = where(interaction)
        check_range("distance", distance, 0, MAX_DISTANCE)
        side_name = _side(side, "party")
        rows = await characters_of(self.bot, here.guild_id, interaction.user.id)
        async with edit_encounter(self.bot, here, interaction.user.id, "encounter join") as edit:
            chosen = _pick_character(rows, character, edit.encounter.system)
            if any(c.character_id == chosen.id and c.is_pc for c in edit.combatants):
                raise BotError(text.already_joined(chosen.name))
            name = check_name(chosen.name)
            sheet = edit.system.sheet_from_dict(chosen.sheet)
            row = await edit.add_combatant(
                sheet,
                name=name,
                owner_id=interaction.user.id,
                character_id=chosen.id,
                is_pc=True,
                side=side_name,
                distance=distance,
            )
            if luck:  # RULES.md §4: Luck is spent on initiative when joining (refused where there is none)
                edit.apply(edit.system.spend_luck(edit.state, str(row.id), edit.house))
            edit.summary = log_text.joined_summary(name, side_name, luck=luck)
        assert edit.result is not None
        await reply_change(interaction, text.joined([name], side_name), edit.result, arrivals_told=True)

    @app_commands.command(name="add", description="GM: add NPCs from a creature template or a saved sheet")
    @app_commands.describe(
        name="The NPC's name (copies are numbered: Bandit 1, Bandit 2 …)",
        template="A creature template of this system (default: your saved sheet called `name`)",
        count="How many copies, 1-20",
        side="Their side (default: foes)",
        distance="How far from the centre of the fight (D6 tie-break), 0-1000",
    )
    @app_commands.autocomplete(template=ac_template, side=ac_side)
    @gm_only()
    async def add(
        self,
        interaction: discord.Interaction[Fray],
        name: str,
        template: str | None = None,
        count: int = 1,
        side: str | None = None,
        distance: int = 0,
    ) -> None:
        here = where(interaction)
        base = check_name(name)
        check_range("count", count, 1, MAX_COUNT)
        check_range("distance", distance, 0, MAX_DISTANCE)
        side_name = _side(side, "foes")
        names = [base] if count == 1 else [check_name(f"{base} {i}") for i in range(1, count + 1)]
        saved = [] if template else await characters_of(self.bot, here.guild_id, interaction.user.id)
        async with edit_encounter(self.bot, here, interaction.user.id, "encounter add") as edit:
            system = edit.system
            for n in names:
                edit.check_free_name(n)
            character_id = None
            if template:
                found = _template(edit, template)
                if found is None:
                    raise NotFound(text.unknown_template(template, system.creature_names()))
                sheets = [system.creature_sheet(found, n) for n in names]
            else:
                key = base.casefold()
                mine = [r for r in saved if r.name_key == key and r.system == edit.encounter.system]
                if not mine:
                    raise NotFound(text.no_template_or_sheet(base, system.creature_names()))
                character_id = mine[0].id
                sheet = system.sheet_from_dict(mine[0].sheet)
                sheets = [
                    sheet if n == system.sheet_name(sheet) else system.rename_sheet(sheet, n) for n in names
                ]
            for n, sheet in zip(names, sheets, strict=True):
                await edit.add_combatant(
                    sheet,
                    name=n,
                    owner_id=None,
                    character_id=character_id,
                    is_pc=False,
                    side=side_name,
                    distance=distance,
                )
            edit.summary = log_text.added_summary(names, side_name)
        assert edit.result is not None
        await reply_change(interaction, text.joined(names, side_name), edit.result, arrivals_told=True)

    @app_commands.command(name="remove", description="GM: take a combatant out of the encounter")
    @app_commands.describe(combatant="Who leaves")
    @app_commands.autocomplete(combatant=ac_combatant)
    @gm_only()
    async def remove(self, interaction: discord.Interaction[Fray], combatant: str) -> None:
        async with edit_encounter(
            self.bot, where(interaction), interaction.user.id, "encounter remove"
        ) as edit:
            row = edit.combatant(combatant)
            name = row.name
            await edit.remove_combatant(row)
            edit.summary = log_text.removed_summary(name)
        assert edit.result is not None
        await reply_change(interaction, text.removed(name), edit.result)

    @app_commands.command(name="begin", description="GM: roll initiative and announce the first turn")
    @app_commands.describe(
        attackers="The side that started the fight (D6: the other side wins ties)",
        surprise="A flat initiative bonus for the attackers, -100 to 100",
    )
    @app_commands.autocomplete(attackers=ac_side)
    @gm_only()
    async def begin(
        self, interaction: discord.Interaction[Fray], attackers: str | None = None, surprise: int = 0
    ) -> None:
        check_range("surprise", surprise, -MAX_SURPRISE, MAX_SURPRISE)
        async with edit_encounter(
            self.bot, where(interaction), interaction.user.id, "encounter begin"
        ) as edit:
            if edit.status != "setup":
                raise BotError(text.already_running())
            edit.apply(
                edit.system.begin(edit.state, edit.dice, edit.house, attackers=attackers, surprise=surprise)
            )
            edit.summary = log_text.began_summary(attackers, surprise)
        assert edit.result is not None
        await reply_change(interaction, text.fight_begins(), edit.result)

    @app_commands.command(name="status", description="The tracker: order, whose turn, health, conditions")
    @app_commands.describe(
        numbers="GM: show NPC HP as numbers instead of state words",
        public="Post it for everyone (default: only you see it; the live tracker is in the channel)",
    )
    async def status(
        self, interaction: discord.Interaction[Fray], numbers: bool = False, public: bool = False
    ) -> None:
        if numbers and not await is_gm(interaction):
            raise BotError(text.numbers_need_gm())
        read = await load_encounter(self.bot, where(interaction))
        if read is None:
            try:  # between fights: the channel's instance, where its system keeps one
                lines = await instances.describe_here(self.bot, where(interaction))
            except NoInstances:
                raise NoEncounter(text.no_encounter()) from None
            await interaction.response.send_message(
                text.instance_status(lines), ephemeral=True, allowed_mentions=NO_MENTIONS
            )
            return
        embed = text.tracker_embed(
            read.encounter.name, read.tracker(), read.turn(), read.encounter.status, npc_numbers=numbers
        )
        view = turn_view(read.encounter.id or 0, None, end_turn=False)
        await interaction.response.send_message(
            embed=embed, view=view, ephemeral=not public, allowed_mentions=NO_MENTIONS
        )

    @app_commands.command(
        name="log", description="The last events of this encounter (or the last one here), with dice"
    )
    @app_commands.describe(count="How many entries, 1-25 (default 10)", page="Which page of them (default 1)")
    async def log(self, interaction: discord.Interaction[Fray], count: int = 10, page: int = 1) -> None:
        check_range("count", count, 1, MAX_LOG)
        check_range("page", page, 1, 100)
        read = await load_encounter(
            self.bot, where(interaction), latest=True
        )  # an ended fight stays readable
        if read is None:
            raise NoEncounter(text.no_encounter())
        rows, total = await log_rows(self.bot, read.encounter.id or 0, count)
        embeds = log_text.log_embeds(read.encounter.name, rows, read.names, total, page)
        await interaction.response.send_message(embeds=embeds, ephemeral=True, allowed_mentions=NO_MENTIONS)

    @app_commands.command(name="end", description="GM: end the encounter and post a summary")
    @gm_only()
    async def end(self, interaction: discord.Interaction[Fray]) -> None:
        async with edit_encounter(self.bot, where(interaction), interaction.user.id, "encounter end") as edit:
            edit.set(status="ended", ended_at=self.bot.clock())
            edit.summary = log_text.ended_summary()
            name = edit.encounter.name
        assert edit.result is not None
        _, total = await log_rows(self.bot, edit.result.encounter_id, 1)
        await interaction.response.send_message(
            text.ended(name, edit.result.tracker, total), allowed_mentions=NO_MENTIONS
        )
        await retire_last_announcement(self.bot, edit.result.encounter_id, where(interaction).channel_id)
        await refresh_tracker(
            self.bot,
            where(interaction).channel_id,
            where(interaction).guild_id,
            edit.result.encounter_id,
            edit.result,
        )


__all__ = ["DYNAMIC_ITEMS", "Encounters"]  # DYNAMIC_ITEMS: the buttons this extension registers


async def setup(bot: Fray) -> None:
    await bot.add_cog(Encounters(bot))
