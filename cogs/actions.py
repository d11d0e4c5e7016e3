"""The action commands (`/attack`, `/defend`, `/grapple`, `/heal`, `/deathsave`, `/move`, `/disengage`,
`/stealth`, `/initiative reroll`, `/lockin`), `/check`, and the persistent **Death Save** button.

Every action goes through the one change path (``bot.encounters.edit_encounter``): the actor is resolved
(``as`` for a GM; else the member's own combatant for which the system allows that action now, else its
combatant whose turn it is, so the system's own refusal is shown), names become combatant ids, an ``Action``
is built and ``system.act`` applied; the reply is sent after the commit.

- A system that resolves at once (Nyra) or declares and runs its own clock (Kaernest) answers publicly with
  the resolution, then the turn announcement when the turn passed (``cogs._turn_flow.announce_turn``).
- Where the system declares, then locks (``traits.declares_then_locks``: D6), declarations before lock-in
  are answered **ephemerally** with the plan so far (still saved and logged, so `/gm undo` covers them);
  `/lockin`, ``lock:True``, `/deathsave` and `/initiative reroll` resolve publicly. `/move leave:True`
  leaves melee without disengaging where there is melee engagement (``traits.melee_engagement``: every
  engaged enemy's free attack at lock-in); elsewhere it changes nothing (a ``Note``).
- Where combatants make death saves (``traits.death_saves``), a turn passing to one in Last Gasp carries the
  **Death Save** button (``fray:death-save:<encounter>:<turn token>``), added through ``cogs._turn_buttons``.

`/check` rolls ``system.check`` for the member's character (a GM: anyone's) under the channel's lock,
consuming the channel's GM-queued dice and saving the rest back (``Store.edit_channel``, like `/roll`). It
changes no encounter state, so it is not in the encounter log (and not undone by `/gm undo`).
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.characters import CharacterBook
from bot.encounter_reads import load_encounter
from bot.encounter_results import EncounterResult
from bot.encounter_rows import CombatantRow
from bot.encounters import EncounterEdit, NoEncounter, edit_encounter
from bot.errors import BotError, NoSystem
from bot.typed_input import check_range
from cogs import _autocomplete_actions as ac
from cogs import _turn_buttons
from cogs._checks import is_gm, where
from cogs._turn_flow import announce_turn, turn_token
from cogs.deadline import AnswersInTime
from cogs.errors import NO_MENTIONS, report_error
from cogs.text import actions as text
from cogs.text import encounters as enc_text
from cogs.text import log as log_text
from rules.dice import QueuedDice
from rules.encounter import Action
from rules.errors import RulesError
from rules.events import Note, Outcome
from rules.systems.registry import get_system

if TYPE_CHECKING:
    from bot.app import Fray

log = logging.getLogger(__name__)

MAX_BONUS = 100
MAX_STOREYS = 100
MAX_DISTANCE = 10_000
MAX_COST = 1_000
MAX_SPEED = 30 * 60  # Kaernest: a GM-set speed of up to an hour (RULES.md §4: longer than a minute too)
INTO_FIXED = ("wall", "object")
DECLARING = ("attack", "defend", "grapple", "heal", "move", "disengage", "stealth", "check", "free")
# Commands after which the turn may have passed without this module's reply (the Last Gasp follow-up).


# --- choosing the actor ---------------------------------------------------------------------------------


def choose_actor(
    edit: EncounterEdit, user_id: int, as_name: str | None, gm: bool, kind: str, probe: Action
) -> CombatantRow:
    """The combatant acting: ``as`` (GM only); else the member's own one allowed ``kind`` now; else its
    combatant holding the turn (the system then says why not); else the system's refusal for its first one
    (e.g. "there is no grappling in Nyra"), or "not your turn"."""
    if as_name:
        if not gm:
            raise BotError(enc_text.as_needs_gm())
        return edit.combatant(as_name)
    own = [c for c in edit.combatants if c.owner_id == user_id]
    if not own:
        raise BotError(enc_text.not_your_combatant())
    system = edit.system
    for c in own:
        if kind in system.allowed_actions(edit.state, str(c.id)):
            return c
    actors = edit.turn().actors
    on_turn = [c for c in own if str(c.id) in actors]
    if on_turn:
        return on_turn[0]
    # Not this member's turn: the system's own reason if it has one (an action it lacks), else "not your turn".
    try:
        system.act(edit.state, replace(probe, actor=str(own[0].id)), _NoDice(), edit.house)
    except RulesError as err:
        if not isinstance(err, _DiceNeeded):
            raise
    except Exception:  # a probe must never turn a plain "not your turn" into an incident
        log.debug("probing %s for a refusal failed", kind, exc_info=True)
    raise BotError(enc_text.not_your_turn(edit.name_of(actors[0]) if actors else None))


class _DiceNeeded(RulesError):
    """A probe (``choose_actor``) got past the system's checks to the dice: it would have acted."""


class _NoDice:
    def roll(self, sides: int, label: str = "") -> Any:
        raise _DiceNeeded("probe")


# --- the action flow ------------------------------------------------------------------------------------


def _target_id(edit: EncounterEdit, typed: str | None) -> tuple[str | None, str | None]:
    if typed is None or not typed.strip():
        return None, None
    row = edit.combatant(typed)
    return str(row.id), row.name


def _check_fallen(edit: EncounterEdit, target_id: str, confirm: bool) -> None:
    """A dead target is refused; a downed one needs ``confirm`` (with what the system says about it)."""
    row = next((r for r in edit.tracker().order if r.id == target_id), None)
    state = enc_text.standing(row) if row is not None else ""
    if state == "dead" or (state and not confirm):
        raise BotError(enc_text.attack_the_fallen(row.name, state, edit.system.traits.downed_note))


def _into_id(edit: EncounterEdit, typed: str | None) -> str | None:
    if typed is None or not typed.strip():
        return None
    if typed.strip().lower() in INTO_FIXED:
        return typed.strip().lower()
    return str(edit.combatant(typed).id)


def is_declaration(system: str, kind: str, lock: bool) -> bool:
    """A declaration into a plan that resolves at `/lockin`: answered privately with the plan so far."""
    return get_system(system).traits.declares_then_locks and kind in DECLARING and not lock


async def run_action(
    interaction: discord.Interaction[Any],
    kind: str,
    as_name: str | None = None,
    *,
    target: str | None = None,
    weapon: str | None = None,
    damage_type: str | None = None,
    aim: str | None = None,
    grip: str | None = None,
    bonus: int = 0,
    stance: str | None = None,
    grapple: str | None = None,
    storeys: int = 0,
    into: str | None = None,
    stat: str | None = None,
    distance: int | None = None,
    cost: int | None = None,
    light: str | None = None,
    leave: bool = False,
    lock: bool = False,
    flank: bool = False,
    note: str | None = None,
    difficulty: str | None = None,
    confirm: bool = False,
    button: tuple[int, str] | None = None,
    enchantment: int = 0,
    circumstance: int = 0,
    element: str | None = None,
    speed: int | None = None,
) -> None:
    """One action through the change path, then the reply (see the module docstring)."""
    check_range("bonus", bonus, -MAX_BONUS, MAX_BONUS)
    check_range("enchantment", enchantment, 0, MAX_BONUS)
    check_range("circumstance", circumstance, -MAX_BONUS, MAX_BONUS)
    if speed is not None:
        check_range("speed", speed, 1, MAX_SPEED)
    check_range("storeys", storeys, 0, MAX_STOREYS)
    if distance is not None:
        check_range("distance", distance, 0, MAX_DISTANCE)
    if cost is not None:
        check_range("cost", cost, 0, MAX_COST)
    bot = interaction.client
    here = where(interaction)
    user_id = interaction.user.id
    given = {
        "bonus": bonus != 0,
        "cost": cost is not None,
        "circumstance": circumstance != 0,
        "speed": speed is not None,
    }
    gm = await is_gm(interaction) if (as_name or button or any(given.values())) else False
    command = "initiative reroll" if kind == "reroll" else kind
    try:
        async with edit_encounter(bot, here, user_id, command) as edit:
            if button is None and kind != "defend":
                edit.require_running()
            # RULES.md §4: a bonus or circumstance modifier (and what the system keeps for its GM) is given
            # by a GM, never taken by the player.
            gated = [o for o, present in given.items() if present and o in edit.system.traits.gm_options]
            if gated and not gm:
                raise BotError(text.gm_options_only(gated, edit.system.title))
            target_id, target_name = _target_id(edit, target)
            action = Action(
                kind=kind,
                actor="",
                target=target_id,
                weapon=weapon,
                damage_type=damage_type,
                aim=aim,
                grip=grip,
                bonus=bonus,
                stance=stance,
                grapple=grapple,
                storeys=storeys,
                into=_into_id(edit, into),
                stat=stat,
                distance=distance,
                cost=cost,
                light=light,
                leave=leave,
                lock=lock,
                flank=flank,
                note=note,
                difficulty=difficulty,
                enchantment=enchantment,
                circumstance=circumstance,
                element=element,
                speed=speed,
            )
            if button is not None:
                actor = _button_actor(edit, button, user_id, gm)
            else:
                actor = choose_actor(edit, user_id, as_name, gm, kind, action)
            action = replace(action, actor=str(actor.id))
            if kind == "attack" and target_id is not None:
                _check_fallen(edit, target_id, confirm)
            outcome = edit.system.act(edit.state, action, edit.dice, edit.house)
            if leave and not edit.system.traits.melee_engagement:  # no melee to leave (RULES.md §3)
                outcome = Outcome(outcome.state, (Note(text.leave_ignored()), *outcome.events))
            edit.apply(outcome)
            acting_for_other = actor.owner_id != user_id
            detail = ", ".join(
                str(v)
                for v in (
                    weapon,
                    damage_type,
                    aim and f"aim {aim}",
                    flank and "flank",
                    stance,
                    grapple,
                    stat,
                    light,
                    note,
                )
                if v
            )
            edit.summary = text.summary(kind, actor.name, target_name, detail, by_gm=acting_for_other)
            system_name = edit.encounter.system
            actor_name = actor.name
    except NoEncounter:
        if button is None:
            raise
        raise BotError(enc_text.stale_button()) from None
    result = edit.result
    assert result is not None
    lines = text.resolution_lines(result.events, result.names)
    if is_declaration(system_name, kind, lock):
        messages = text.split_messages(text.declared_title(actor_name), lines)
        for i, content in enumerate(messages):
            if i == 0:
                await interaction.response.send_message(content, ephemeral=True, allowed_mentions=NO_MENTIONS)
            else:
                await interaction.followup.send(content, ephemeral=True, allowed_mentions=NO_MENTIONS)
        return
    title = text.action_title(kind, actor_name, target_name, gm=acting_for_other)
    for i, content in enumerate(text.split_messages(title, lines)):
        if i == 0 and not interaction.response.is_done():
            await interaction.response.send_message(content, allowed_mentions=NO_MENTIONS)
        else:
            await interaction.followup.send(content, allowed_mentions=NO_MENTIONS)
    await announce_turn(interaction, result)


def _button_actor(edit: EncounterEdit, button: tuple[int, str], user_id: int, gm: bool) -> CombatantRow:
    encounter_id, token = button
    if edit.encounter.id != encounter_id or token != turn_token(edit.encounter.turn_key or ""):
        raise BotError(enc_text.stale_button())
    edit.require_running()
    actors = edit.turn().actors
    if not actors:
        raise BotError(enc_text.stale_button())
    actor = edit.by_key(actors[0])
    if actor is None:
        raise BotError(enc_text.stale_button())
    if not gm and not (actor.is_pc and actor.owner_id == user_id):
        raise BotError(text.not_yours(actor.name))
    return actor


# --- Last Gasp ------------------------------------------------------------------------------------------


def death_save_button(result: EncounterResult, key: str) -> discord.ui.Item[Any] | None:
    """A turn announcement's Death Save button, when the turn belongs to a combatant in Last Gasp
    (registered in ``cogs._turn_buttons``, so `/turn end`, `/gm next`, the End turn button,
    actions and a reminder's skip all carry it)."""
    if (
        not get_system(result.system).traits.death_saves
        or result.status != "running"
        or not result.turn.actors
    ):
        return None
    row = next((c for c in result.tracker.order if c.id == result.turn.actors[0]), None)
    if row is None or row.last_gasp_round is None:
        return None
    return DeathSaveButton(result.encounter_id, turn_token(key))


class DeathSaveButton(
    AnswersInTime,
    discord.ui.DynamicItem[discord.ui.Button],
    template=r"fray:death-save:(?P<eid>[0-9]{1,19}):(?P<key>[A-Za-z0-9._~-]{1,64})",
):
    """Makes the Death Save of the announced Last Gasp turn (what `/deathsave` does), if it is still that turn
    and the clicker controls the combatant (or is a GM)."""

    def __init__(self, encounter_id: int, token: str) -> None:
        super().__init__(
            discord.ui.Button(
                label="Death Save",
                style=discord.ButtonStyle.danger,
                emoji="💀",
                custom_id=f"fray:death-save:{encounter_id}:{token}",
            )
        )
        self.encounter_id = encounter_id
        self.token = token

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Button, match: re.Match[str], /
    ) -> DeathSaveButton:
        return cls(int(match["eid"]), match["key"])

    async def callback(self, interaction: discord.Interaction[Fray]) -> None:  # type: ignore[override]
        try:
            await run_action(interaction, "deathsave", button=(self.encounter_id, self.token))
        except Exception as err:  # buttons are not covered by the tree's handler
            await report_error(interaction, err)


DYNAMIC_ITEMS = (DeathSaveButton,)


# --- /initiative luck -----------------------------------------------------------------------------------


async def run_luck(interaction: discord.Interaction[Any], off: bool, as_name: str | None) -> None:
    """RULES.md §4: Luck pledged (or taken back) before the combatant's initiative is rolled."""
    bot = interaction.client
    gm = await is_gm(interaction) if as_name else False
    async with edit_encounter(bot, where(interaction), interaction.user.id, "initiative luck") as edit:
        if as_name:
            if not gm:
                raise BotError(enc_text.as_needs_gm())
            row = edit.combatant(as_name)
        else:
            own = [c for c in edit.combatants if c.owner_id == interaction.user.id and c.is_pc]
            if not own:
                raise BotError(enc_text.not_your_combatant())
            row = own[0]
        edit.apply(edit.system.spend_luck(edit.state, str(row.id), edit.house, pledge=not off))
        edit.summary = log_text.luck_summary(row.name, off=off)
        name = row.name
    assert edit.result is not None
    lines = text.resolution_lines(edit.result.events, edit.result.names)
    for i, content in enumerate(text.split_messages(text.luck_title(name, off), lines)):
        if i == 0:
            await interaction.response.send_message(content, allowed_mentions=NO_MENTIONS)
        else:
            await interaction.followup.send(content, allowed_mentions=NO_MENTIONS)


# --- /check ---------------------------------------------------------------------------------------------


async def run_check(
    interaction: discord.Interaction[Any],
    stat: str,
    difficulty: str | None,
    bonus: int,
    character: str | None,
    note: str | None = None,
) -> None:
    check_range("bonus", bonus, -MAX_BONUS, MAX_BONUS)
    bot = interaction.client
    here = where(interaction)
    view = await bot.store.channel_view(here)
    gm = await is_gm(interaction) if (character or bonus) else False
    book = CharacterBook(bot.store)
    record = await book.resolve(here.guild_id, interaction.user.id, character, gm=gm, system=view.system)
    if not record.system and not view.system:
        raise NoSystem(text.check_no_system())
    system = get_system(record.system or view.system)
    if bonus and "bonus" in system.traits.gm_options and not gm:
        raise BotError(text.gm_options_only(["bonus"], system.title, check=True))
    on_turn = await _on_turn_here(interaction, record.id, system.name)
    if on_turn is not None:  # a check on the character's own turn is one more action of its plan
        as_name = on_turn if record.owner_id != interaction.user.id else None
        await run_action(
            interaction, "check", as_name, stat=stat, difficulty=difficulty, bonus=bonus, note=note
        )
        return
    sheet = system.sheet_from_dict(record.sheet)
    # In this channel's encounter the character checks as its combatant (RULES.md §4: wounds apply).
    read = await load_encounter(bot, here)
    row = None
    if read is not None and read.encounter.system == system.name:
        row = next((c for c in read.combatants if c.character_id == record.id), None)
    async with bot.store.edit_channel(here) as edit:
        house = system.house_from_dict(edit.view.rules_for(system.name))
        queue = list(edit.config.dice_queue or [])
        dice = QueuedDice(queue, bot.dice_source())
        if row is None:
            outcome = system.check(sheet, stat, difficulty, bonus, dice, house)
        else:
            assert read is not None
            outcome = system.check(
                sheet, stat, difficulty, bonus, dice, house, state=read.state, cid=str(row.id)
            )
        if list(dice.remaining) != queue:
            edit.config.dice_queue = list(dice.remaining)
    lines = text.resolution_lines(outcome.events, {})
    messages = text.split_messages(text.check_title(record.name, stat), lines)
    for i, content in enumerate(messages):
        if i == 0:
            await interaction.response.send_message(content, allowed_mentions=NO_MENTIONS)
        else:
            await interaction.followup.send(content, allowed_mentions=NO_MENTIONS)


async def _on_turn_here(interaction: discord.Interaction[Any], character_id: int, system: str) -> str | None:
    """The name of the character's combatant when it holds the running turn here, in a system whose turns
    are planned (a check then joins the plan); else None."""
    if not is_declaration(system, "check", False):
        return None
    read = await load_encounter(interaction.client, where(interaction))
    if read is None or read.encounter.status != "running" or read.encounter.system != system:
        return None
    actors = read.turn().actors
    mine = [c for c in read.combatants if c.is_pc and c.character_id == character_id and str(c.id) in actors]
    return mine[0].name if mine else None


# --- the cog --------------------------------------------------------------------------------------------

AS_HELP = "GM: the combatant who acts"
LOCK_HELP = "D6: declare and lock in at once (a one-action turn)"
LIGHTS = [app_commands.Choice(name=v, value=v) for v in ("dim", "normal", "daylight")]
STATS = [app_commands.Choice(name=v, value=v) for v in ("charisma", "perception")]
ELEMENTS = [app_commands.Choice(name=v, value=v) for v in ("physical", "energy", "arcane")]
# What each system accepts (Nyra ±20, Kaernest ±30, D6 ±100), and whose it is (RULES.md §4).
BONUS_HELP = "GM: a circumstance bonus (Nyra ±20, Kaernest ±30, D6 ±100)"


class Actions(commands.Cog):
    """Combat actions for all three systems, and `/check`."""

    initiative = app_commands.Group(
        name="initiative", description="Initiative in the running encounter", guild_only=True
    )

    def __init__(self, bot: Fray) -> None:
        self.bot = bot

    @app_commands.command(name="attack", description="Attack a combatant (D6: declares until /lockin)")
    @app_commands.guild_only()
    @app_commands.rename(type_="type", as_="as")
    @app_commands.describe(
        target="Who you attack",
        weapon="The weapon (default: your first)",
        type_="Nyra/Kaernest: the damage type",
        aim="Nyra: the location aimed at; Kaernest/D6: a called shot",
        grip="Kaernest: 1h or 2h",
        bonus=BONUS_HELP,
        as_=AS_HELP,
        lock=LOCK_HELP,
        flank="D6: flanking / a backstab (+2 critical stage, overwhelms a parry); the GM may undo it",
        enchantment="Kaernest: the weapon's one enchantment bonus to damage",
        circumstance="Kaernest, GM: a circumstance modifier to damage",
        element="Kaernest: physical (default), energy or arcane",
        speed="Kaernest, GM: a speed of the GM's instead of the weapon's (any length)",
        confirm="Attack a combatant who is down anyway",
    )
    @app_commands.autocomplete(
        target=ac.ac_target,
        weapon=ac.ac_weapon,
        type_=ac.ac_type,
        aim=ac.ac_aim,
        grip=ac.ac_grip,
        as_=ac.ac_combatant_any,
    )
    @app_commands.choices(element=ELEMENTS)
    async def attack(
        self,
        interaction: discord.Interaction[Fray],
        target: str,
        weapon: str | None = None,
        type_: str | None = None,
        aim: str | None = None,
        grip: str | None = None,
        bonus: int = 0,
        as_: str | None = None,
        lock: bool = False,
        flank: bool = False,
        enchantment: app_commands.Range[int, 0, 100] = 0,
        circumstance: int = 0,
        element: str | None = None,
        speed: app_commands.Range[int, 1, MAX_SPEED] | None = None,
        confirm: bool = False,
    ) -> None:
        await run_action(
            interaction,
            "attack",
            as_,
            target=target,
            weapon=weapon,
            damage_type=type_,
            aim=aim,
            grip=grip,
            bonus=bonus,
            lock=lock,
            flank=flank,
            enchantment=enchantment,
            circumstance=circumstance,
            element=element,
            speed=speed,
            confirm=confirm,
        )

    @app_commands.command(name="defend", description="Take a defensive stance")
    @app_commands.guild_only()
    @app_commands.rename(as_="as")
    @app_commands.describe(stance="The stance", as_=AS_HELP, lock=LOCK_HELP)
    @app_commands.autocomplete(stance=ac.ac_stance, as_=ac.ac_combatant_any)
    async def defend(
        self, interaction: discord.Interaction[Fray], stance: str, as_: str | None = None, lock: bool = False
    ) -> None:
        await run_action(interaction, "defend", as_, stance=stance, lock=lock)

    @app_commands.command(
        name="grapple", description="D6 grappling: start, contest, throw, pin, takedown, release"
    )
    @app_commands.guild_only()
    @app_commands.rename(as_="as")
    @app_commands.describe(
        action="start, contest, throw, pin, takedown or release",
        target="Who you grapple",
        storeys="A throw off a height: storeys, 0-100",
        into="A throw into: wall, object or a combatant",
        bonus="Take-down: the GM's environment modifier",
        as_=AS_HELP,
        lock=LOCK_HELP,
    )
    @app_commands.autocomplete(
        action=ac.ac_grapple_action, target=ac.ac_combatant_any, into=ac.ac_into, as_=ac.ac_combatant_any
    )
    async def grapple(
        self,
        interaction: discord.Interaction[Fray],
        action: str,
        target: str | None = None,
        storeys: int = 0,
        into: str | None = None,
        bonus: int = 0,
        as_: str | None = None,
        lock: bool = False,
    ) -> None:
        await run_action(
            interaction,
            "grapple",
            as_,
            grapple=action,
            target=target,
            storeys=storeys,
            into=into,
            bonus=bonus,
            lock=lock,
        )

    @app_commands.command(name="heal", description="D6: heal with one of the party's heals")
    @app_commands.guild_only()
    @app_commands.rename(as_="as")
    @app_commands.describe(target="Who you heal", as_=AS_HELP, lock=LOCK_HELP)
    @app_commands.autocomplete(target=ac.ac_combatant_any, as_=ac.ac_combatant_any)
    async def heal(
        self, interaction: discord.Interaction[Fray], target: str, as_: str | None = None, lock: bool = False
    ) -> None:
        await run_action(interaction, "heal", as_, target=target, lock=lock)

    @app_commands.command(name="deathsave", description="D6 Last Gasp: the Death Save")
    @app_commands.guild_only()
    @app_commands.rename(with_="with", as_="as")
    @app_commands.describe(with_="Physique with charisma or perception (default: the higher)", as_=AS_HELP)
    @app_commands.choices(with_=STATS)
    @app_commands.autocomplete(as_=ac.ac_combatant_any)
    async def deathsave(
        self, interaction: discord.Interaction[Fray], with_: str | None = None, as_: str | None = None
    ) -> None:
        await run_action(interaction, "deathsave", as_, stat=with_)

    @app_commands.command(name="move", description="Move (Nyra: spends `cost` delay, set by the GM)")
    @app_commands.guild_only()
    @app_commands.rename(as_="as")
    @app_commands.describe(
        distance="How far, 0-10000",
        cost="GM: Nyra the delay it costs (default: the house move_cost); Kaernest its speed",
        leave="D6: leave melee without disengaging; every engaged enemy gets a free attack",
        light="D6, moving while hidden: the light for the new stealth check (default normal)",
        as_=AS_HELP,
        lock=LOCK_HELP,
    )
    @app_commands.choices(light=LIGHTS)
    @app_commands.autocomplete(as_=ac.ac_combatant_any)
    async def move(
        self,
        interaction: discord.Interaction[Fray],
        distance: int | None = None,
        cost: int | None = None,
        leave: bool = False,
        light: str | None = None,
        as_: str | None = None,
        lock: bool = False,
    ) -> None:
        await run_action(
            interaction, "move", as_, distance=distance, cost=cost, leave=leave, light=light, lock=lock
        )

    @app_commands.command(name="free", description="D6: declare a named free action (a shout) into the turn")
    @app_commands.guild_only()
    @app_commands.rename(as_="as")
    @app_commands.describe(note="What the free action is, e.g. shout a warning", as_=AS_HELP, lock=LOCK_HELP)
    @app_commands.autocomplete(as_=ac.ac_combatant_any)
    async def free(
        self, interaction: discord.Interaction[Fray], note: str, as_: str | None = None, lock: bool = False
    ) -> None:
        await run_action(interaction, "free", as_, note=note, lock=lock)

    @app_commands.command(name="disengage", description="D6: leave melee with an enemy (Agility vs Agility)")
    @app_commands.guild_only()
    @app_commands.rename(as_="as")
    @app_commands.describe(enemy="The enemy you leave", as_=AS_HELP, lock=LOCK_HELP)
    @app_commands.autocomplete(enemy=ac.ac_combatant_any, as_=ac.ac_combatant_any)
    async def disengage(
        self, interaction: discord.Interaction[Fray], enemy: str, as_: str | None = None, lock: bool = False
    ) -> None:
        await run_action(interaction, "disengage", as_, target=enemy, lock=lock)

    @app_commands.command(name="stealth", description="D6: a stealth check against every opponent")
    @app_commands.guild_only()
    @app_commands.rename(as_="as")
    @app_commands.describe(light="dim, normal or daylight (default normal)", as_=AS_HELP, lock=LOCK_HELP)
    @app_commands.choices(light=LIGHTS)
    @app_commands.autocomplete(as_=ac.ac_combatant_any)
    async def stealth(
        self,
        interaction: discord.Interaction[Fray],
        light: str | None = None,
        as_: str | None = None,
        lock: bool = False,
    ) -> None:
        await run_action(interaction, "stealth", as_, light=light, lock=lock)

    @initiative.command(name="reroll", description="D6: reroll your initiative (uses the whole turn)")
    @app_commands.rename(as_="as")
    @app_commands.describe(as_=AS_HELP)
    @app_commands.autocomplete(as_=ac.ac_combatant_any)
    async def reroll(self, interaction: discord.Interaction[Fray], as_: str | None = None) -> None:
        await run_action(interaction, "reroll", as_)

    @initiative.command(name="luck", description="Kaernest: add your Luck to your initiative roll to come")
    @app_commands.rename(as_="as")
    @app_commands.describe(off="Take the wish back", as_=AS_HELP)
    @app_commands.autocomplete(as_=ac.ac_combatant_any)
    async def luck(
        self, interaction: discord.Interaction[Fray], off: bool = False, as_: str | None = None
    ) -> None:
        await run_luck(interaction, off, as_)

    @app_commands.command(name="lockin", description="D6: resolve the actions declared this turn")
    @app_commands.guild_only()
    @app_commands.rename(as_="as")
    @app_commands.describe(as_=AS_HELP)
    @app_commands.autocomplete(as_=ac.ac_combatant_any)
    async def lockin(self, interaction: discord.Interaction[Fray], as_: str | None = None) -> None:
        await run_action(interaction, "lockin", as_)

    @app_commands.command(name="check", description="A system check for your character")
    @app_commands.guild_only()
    @app_commands.describe(
        stat="The stat or skill",
        difficulty="Nyra: easy…critical; D6: a number to beat; Kaernest: a modifier",
        bonus=BONUS_HELP,
        character="Your character (a GM: anyone's; default: your only one in this system)",
        note="D6, on your turn: what the check is for (it joins the turn's plan), e.g. charm the wolf",
    )
    @app_commands.autocomplete(stat=ac.ac_stat, character=ac.ac_check_character)
    async def check(
        self,
        interaction: discord.Interaction[Fray],
        stat: str,
        difficulty: str | None = None,
        bonus: int = 0,
        character: str | None = None,
        note: str | None = None,
    ) -> None:
        await run_check(interaction, stat, difficulty, bonus, character, note)


async def setup(bot: Fray) -> None:
    _turn_buttons.register(death_save_button)
    await bot.add_cog(Actions(bot))


async def teardown(bot: Fray) -> None:
    _turn_buttons.unregister(death_save_button)
