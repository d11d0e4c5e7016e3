"""GM tools that change the running encounter (`/gm next|damage|heal|wound|set|condition|undo|instance`).

A mixin the ``/gm`` group cog composes (see ``cogs.gm``; its ``interaction_check`` makes them GM-only); every
change goes through the encounter change path (``bot.encounters``) and the ``System`` methods, and the reply
is sent after the commit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot import encounters, instances
from bot.encounters import edit_encounter
from bot.typed_input import check_range
from cogs._autocomplete_encounters import ac_combatant, ac_condition, ac_field, ac_location, ac_wound
from cogs._checks import where
from cogs._turn_flow import announce_turn, reply_change
from cogs.text import encounters as text
from cogs.text import log as log_text

if TYPE_CHECKING:
    from bot.app import Fray

MAX_AMOUNT = 1000
MAX_VALUE_LENGTH = 100


class EncounterGMCommands:
    """``/gm`` subcommands for the encounter; ``cogs.gm.GM`` inherits them (its checks apply)."""

    @app_commands.command(name="next", description="Move to the next turn, whoever holds it")
    async def enc_next(self, interaction: discord.Interaction[Fray]) -> None:
        async with edit_encounter(
            interaction.client, where(interaction), interaction.user.id, "gm next"
        ) as edit:
            edit.require_running()
            before = edit.turn()
            holder = edit.name_of(before.actors[0]) if before.actors else None
            edit.apply(edit.system.gm_next(edit.state, edit.dice, edit.house))
            edit.summary = log_text.gm_next_summary(holder)
        assert edit.result is not None
        await reply_change(interaction, text.gm_moved_on(holder), edit.result)

    @app_commands.command(name="damage", description="Apply damage directly to a combatant")
    @app_commands.describe(
        target="Who takes it", amount="How much, 1-1000", location="Where (systems with locations)"
    )
    @app_commands.autocomplete(target=ac_combatant, location=ac_location)
    async def enc_damage(
        self, interaction: discord.Interaction[Fray], target: str, amount: int, location: str | None = None
    ) -> None:
        check_range("amount", amount, 1, MAX_AMOUNT)
        async with edit_encounter(
            interaction.client, where(interaction), interaction.user.id, "gm damage"
        ) as edit:
            row = edit.combatant(target)
            edit.apply(
                edit.system.gm_damage(
                    edit.state, str(row.id), amount, location or None, edit.dice, edit.house
                )
            )
            edit.summary = log_text.gm_damage_summary(row.name, amount, location)
            name = row.name
        assert edit.result is not None
        await reply_change(interaction, text.gm_dealt(name, amount), edit.result)

    @app_commands.command(name="heal", description="Restore a combatant's health (never above the maximum)")
    @app_commands.describe(
        target="Who is healed",
        amount="How much, 1-1000",
        location="Nyra: the location healed (default: the worst wound)",
    )
    @app_commands.autocomplete(target=ac_combatant, location=ac_location)
    async def enc_heal(
        self, interaction: discord.Interaction[Fray], target: str, amount: int, location: str | None = None
    ) -> None:
        check_range("amount", amount, 1, MAX_AMOUNT)
        async with edit_encounter(
            interaction.client, where(interaction), interaction.user.id, "gm heal"
        ) as edit:
            row = edit.combatant(target)
            edit.apply(
                edit.system.gm_heal(
                    edit.state, str(row.id), amount, edit.dice, edit.house, location=location or None
                )
            )
            edit.summary = log_text.gm_heal_summary(row.name, amount, location)
            name = row.name
        assert edit.result is not None
        await reply_change(interaction, text.gm_healed(name, amount), edit.result)

    @app_commands.command(
        name="wound", description="Kaernest: write what a wound does (a called shot's effect)"
    )
    @app_commands.describe(
        target="Whose wound", wound="Which wound (1 = the first)", effect="What it does, up to 500 characters"
    )
    @app_commands.autocomplete(target=ac_combatant, wound=ac_wound)
    async def enc_wound(
        self, interaction: discord.Interaction[Fray], target: str, wound: int, effect: str
    ) -> None:
        async with edit_encounter(
            interaction.client, where(interaction), interaction.user.id, "gm wound"
        ) as edit:
            row = edit.combatant(target)
            edit.apply(edit.system.set_wound_effect(edit.state, str(row.id), wound, effect, edit.house))
            edit.summary = log_text.gm_wound_summary(row.name, wound, effect)
            name = row.name
        assert edit.result is not None
        await reply_change(interaction, text.gm_wrote_wound(name, wound), edit.result)

    @app_commands.command(name="set", description="Set a combatant field (initiative, HP, side, segment …)")
    @app_commands.describe(target="Whose field", field="Which field", value="The new value")
    @app_commands.autocomplete(target=ac_combatant, field=ac_field)
    async def enc_set(
        self, interaction: discord.Interaction[Fray], target: str, field: str, value: str
    ) -> None:
        if len(value) > MAX_VALUE_LENGTH:
            raise encounters.BadName(text.bad_name(f"a value has at most {MAX_VALUE_LENGTH} characters"))
        async with edit_encounter(
            interaction.client, where(interaction), interaction.user.id, "gm set"
        ) as edit:
            row = edit.combatant(target)
            edit.apply(edit.system.gm_set(edit.state, str(row.id), field, value, edit.house, dice=edit.dice))
            if field.strip().lower() == "distance" and value.strip().isdecimal():
                row.distance = int(value.strip())  # the row keeps the D6 tie-break distance too
            edit.summary = log_text.gm_set_summary(row.name, field, value)
            name = row.name
        assert edit.result is not None
        await reply_change(interaction, text.gm_set_field(name, field), edit.result)

    @app_commands.command(name="condition", description="Add (or remove) a condition on a combatant")
    @app_commands.describe(target="Who", condition="The condition", remove="Remove it instead of adding it")
    @app_commands.autocomplete(target=ac_combatant, condition=ac_condition)
    async def enc_condition(
        self, interaction: discord.Interaction[Fray], target: str, condition: str, remove: bool = False
    ) -> None:
        async with edit_encounter(
            interaction.client, where(interaction), interaction.user.id, "gm condition"
        ) as edit:
            row = edit.combatant(target)
            edit.apply(edit.system.gm_condition(edit.state, str(row.id), condition, remove, edit.house))
            edit.summary = log_text.gm_condition_summary(row.name, condition, remove=remove)
            name = row.name
        assert edit.result is not None
        await reply_change(interaction, text.gm_condition(name, condition, remove=remove), edit.result)

    @app_commands.command(name="undo", description="Revert the last change(s) to this encounter, exactly")
    @app_commands.describe(steps="How many changes, 1-20 (default 1)")
    async def enc_undo(self, interaction: discord.Interaction[Fray], steps: int = 1) -> None:
        result = await encounters.undo(
            interaction.client, where(interaction), interaction.user.id, steps, summary=log_text.undo_summary
        )
        await interaction.response.send_message(
            text.undone(result.extra.get("undone", []), result.tracker, result.turn, result.names),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        await announce_turn(interaction, result)

    @app_commands.command(name="instance", description="D6: a new instance; the heal pool is refilled")
    async def enc_instance(self, interaction: discord.Interaction[Fray]) -> None:
        try:
            async with edit_encounter(
                interaction.client, where(interaction), interaction.user.id, "gm instance"
            ) as edit:
                edit.apply(edit.system.new_instance(edit.state, edit.house))
                edit.summary = log_text.new_instance_summary()
        except encounters.NoEncounter:  # between fights: the channel's instance itself
            lines = await instances.next_instance(interaction.client, where(interaction))
            await interaction.response.send_message(
                text.new_instance(lines), allowed_mentions=discord.AllowedMentions.none()
            )
            return
        assert edit.result is not None
        await reply_change(interaction, text.new_instance_begins(), edit.result)
