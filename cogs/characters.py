"""``/character …``: sheets owned by members, per server (COMMANDS.md "Characters").

Who may do what: members act on their own characters; a GM (``cogs._checks.is_gm``) may act on anyone's.
The ``character`` option takes a name (case-insensitive) or the exact ``#<id>`` autocomplete sends; left out,
it means the member's only character of the channel's system (see ``bot.characters`` for the full rule).
A GM who names a character they do not own gets the server's only character of that name.

Replies: changes (create, set, weapon, armour, delete) are public so the table sees them; ``list``,
``import`` and ``export`` answer privately; ``show`` is public unless ``private``. Refusals are ephemeral
(the tree's handler answers every ``RulesError``). Delete asks with persistent Confirm/Keep buttons
(``fray:char-del:<character_id>:<owner_id>:<created>`` and ``fray:char-keep:…``) that work after a restart;
``<created>`` (the creation time in microseconds) keeps an old button from touching a newer sheet that reused
the id.
"""

from __future__ import annotations

import asyncio
import io
import logging
import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import sheet_files
from bot.characters import (
    CharacterBook,
    CharacterError,
    CharacterRecord,
    check_name,
    field_pairs,
    is_value,
    name_key,
    set_fields,
)
from bot.errors import BotError, FieldsRefused, NoSystem
from cogs import _autocomplete_characters as ac
from cogs._checks import is_gm, where
from cogs.deadline import AnswersInTime
from cogs.errors import NO_MENTIONS, report_error
from cogs.text import characters as text
from rules.errors import RulesError
from rules.systems.registry import get_system, system_names

if TYPE_CHECKING:
    from bot.app import Fray

log = logging.getLogger(__name__)

LIST_LIMIT = 100


def _stamp(record_created: Any) -> int:
    try:
        return round(record_created.timestamp() * 1_000_000)
    except Exception:
        return 0


class _DeleteButton(AnswersInTime):
    """Shared logic of the delete prompt's two buttons; ids carry the character, its owner and its stamp."""

    prefix = ""

    def __init__(self, character_id: int, owner_id: int, stamp: int) -> None:
        confirm = self.prefix == "fray:char-del"
        super().__init__(  # type: ignore[call-arg]  # DynamicItem, next in the MRO
            discord.ui.Button(
                label=text.CONFIRM_LABEL if confirm else text.CANCEL_LABEL,
                style=discord.ButtonStyle.danger if confirm else discord.ButtonStyle.secondary,
                custom_id=f"{self.prefix}:{character_id}:{owner_id}:{stamp}",
            )
        )
        self.character_id = character_id
        self.owner_id = owner_id
        self.stamp = stamp

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Button, match: re.Match[str], /
    ) -> Any:
        return cls(int(match["id"]), int(match["owner"]), int(match["stamp"] or 0))

    async def _allowed(self, interaction: discord.Interaction[Fray]) -> bool:
        if interaction.user.id == self.owner_id or await is_gm(interaction):
            return True
        await interaction.response.send_message(
            text.delete_refused(), ephemeral=True, allowed_mentions=NO_MENTIONS
        )
        return False

    async def _current(self, interaction: discord.Interaction[Fray]) -> CharacterRecord | None:
        record = await ac.book_of(interaction).get(self.character_id)
        if (
            record is None
            or record.owner_id != self.owner_id
            or record.guild_id != interaction.guild_id
            or (self.stamp and _stamp(record.created_at) != self.stamp)
        ):
            return None
        return record


class ConfirmDeleteButton(
    _DeleteButton,
    discord.ui.DynamicItem[discord.ui.Button],
    template=r"fray:char-del:(?P<id>[0-9]{1,19}):(?P<owner>[0-9]{1,19})(?::(?P<stamp>[0-9]{1,20}))?",
):
    prefix = "fray:char-del"

    async def callback(self, interaction: discord.Interaction[Fray]) -> None:  # type: ignore[override]
        try:
            if not await self._allowed(interaction):
                return
            record = await self._current(interaction)
            gone = None
            if record is not None:
                gone = await ac.book_of(interaction).delete(record.id, owner_id=self.owner_id)
            content = text.deleted(interaction.user.id, gone.name) if gone else text.delete_already_gone()
            await interaction.response.edit_message(content=content, view=None, allowed_mentions=NO_MENTIONS)
        except Exception as err:  # buttons are not covered by the tree's handler
            await report_error(interaction, err)


class CancelDeleteButton(
    _DeleteButton,
    discord.ui.DynamicItem[discord.ui.Button],
    template=r"fray:char-keep:(?P<id>[0-9]{1,19}):(?P<owner>[0-9]{1,19})(?::(?P<stamp>[0-9]{1,20}))?",
):
    prefix = "fray:char-keep"

    async def callback(self, interaction: discord.Interaction[Fray]) -> None:  # type: ignore[override]
        try:
            if not await self._allowed(interaction):
                return
            record = await self._current(interaction)
            content = (
                text.delete_cancelled(interaction.user.id, record.name)
                if record
                else text.delete_already_gone()
            )
            await interaction.response.edit_message(content=content, view=None, allowed_mentions=NO_MENTIONS)
        except Exception as err:
            await report_error(interaction, err)


def delete_view(record: CharacterRecord) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    stamp = _stamp(record.created_at)
    view.add_item(ConfirmDeleteButton(record.id, record.owner_id, stamp))
    view.add_item(CancelDeleteButton(record.id, record.owner_id, stamp))
    return view


# Built when the extension loads, so every system registered by then is offered.
SYSTEM_CHOICES = [app_commands.Choice(name=name, value=name) for name in system_names()]


def key_fields(system: str) -> list[str]:
    """The system's first sheet fields (its stats), which a new sheet asks for."""
    return [f for f in get_system(system).sheet_fields() if name_key(f) != "name"][:7]


def form_pairs(text: str) -> list[tuple[str, str]]:
    """``Swords 7 Dodge 5`` typed in the form's free box, as pairs (nothing when empty)."""
    tokens = text.split()
    first = next((i for i, t in enumerate(tokens) if is_value(t)), None)
    if not tokens or not first:
        return []
    return field_pairs(" ".join(tokens[:first]), " ".join(tokens[first:]))


class SheetForm(discord.ui.Modal):
    """`/character create form:true`: the system's first four key fields and a box for the rest."""

    def __init__(self, cog: Any, name: str, system: str) -> None:
        super().__init__(title=f"New sheet: {name}"[:45], custom_id="fray:sheet-form")
        self.cog, self.name, self.system = cog, name, system
        self.fields = key_fields(system)[:4]
        # each box under a Label (discord.py 2.6: a text input's own label is deprecated); the field name
        # is kept beside its box, so reading the answers never goes back to the label
        self.boxes: list[tuple[str, discord.ui.TextInput[Any]]] = []
        for f in self.fields:
            box: discord.ui.TextInput[Any] = discord.ui.TextInput(
                custom_id=f"field:{f}"[:100], required=False, max_length=20
            )
            self.boxes.append((f, box))
            self.add_item(discord.ui.Label(text=f[:45], component=box))
        self.more: discord.ui.TextInput[Any] = discord.ui.TextInput(
            custom_id="more",
            style=discord.TextStyle.paragraph,
            required=False,
            max_length=400,
            placeholder="Swords 7 Dodge 5",
        )
        self.add_item(discord.ui.Label(text="More fields (name value …)", component=self.more))

    async def on_submit(self, interaction: discord.Interaction[Fray]) -> None:  # type: ignore[override]
        try:
            pairs = [(f, str(box.value).strip()) for f, box in self.boxes if str(box.value).strip()]
            pairs += form_pairs(str(self.more.value or ""))
            await self.cog.create_filled(interaction, self.name, self.system, pairs)
        except Exception as err:
            await report_error(interaction, err)


@app_commands.guild_only()
class Characters(commands.GroupCog, group_name="character", group_description="Your character sheets"):
    """``/character create|set|weapon|armour|show|list|import|export|delete``."""

    def __init__(self, bot: Fray) -> None:
        self.bot = bot
        self.book = CharacterBook(bot.store)
        super().__init__()

    # --- helpers ----------------------------------------------------------------------------------------

    async def _target(self, interaction: discord.Interaction[Fray], character: str | None) -> CharacterRecord:
        here = where(interaction)
        gm = bool(character) and await is_gm(interaction)
        system = None
        if not character:
            system = (await self.bot.store.channel_view(here)).system
        record = await self.book.resolve(here.guild_id, interaction.user.id, character, gm=gm, system=system)
        return record

    async def _say(self, interaction: discord.Interaction[Fray], content: str, **kwargs: Any) -> None:
        await interaction.response.send_message(content, allowed_mentions=NO_MENTIONS, **kwargs)

    # --- create -----------------------------------------------------------------------------------------

    @app_commands.command(name="create", description="Create a character sheet in this channel's system")
    @app_commands.describe(
        name="The character's name (1 to 64 characters; unique among your characters here)",
        system="The rule system (default: this channel's)",
        form="Fill the system's key fields in a short form now",
    )
    @app_commands.choices(system=SYSTEM_CHOICES)
    async def create(
        self,
        interaction: discord.Interaction[Fray],
        name: app_commands.Range[str, 0, 100],
        system: str | None = None,
        form: bool = False,
    ) -> None:
        here = where(interaction)
        name = check_name(name)
        chosen = system or (await self.bot.store.channel_view(here)).system
        if chosen is None:
            raise NoSystem(text.no_system_here())
        if form:
            await interaction.response.send_modal(SheetForm(self, name, chosen))
            return
        record = await self.book.create(here.guild_id, interaction.user.id, name, chosen)
        await self._say(
            interaction, text.created(interaction.user.id, record.name, record.system, key_fields(chosen))
        )

    async def create_filled(
        self, interaction: discord.Interaction[Fray], name: str, system: str, pairs: list[tuple[str, str]]
    ) -> None:
        """The form's sheet: every field checked on a fresh sheet first, so nothing is created when one fails."""
        rules = get_system(system)
        try:
            set_fields(rules, rules.new_sheet(name), pairs)
        except FieldsRefused as err:
            raise CharacterError(text.change_refused(name, text.fields_refused(err.problems))) from err
        except RulesError as err:
            raise CharacterError(text.change_refused(name, err.reason)) from err
        record = await self.book.create(where(interaction).guild_id, interaction.user.id, name, system)
        if pairs:
            await self.book.change(record, lambda r, sheet: set_fields(r, sheet, pairs))
        left = [f for f in key_fields(system) if f not in {p for p, _ in pairs}]
        await self._say(interaction, text.created(interaction.user.id, record.name, system, left))

    # --- set --------------------------------------------------------------------------------------------

    @app_commands.command(name="set", description="Set a field of a sheet: a stat, hp, a skill …")
    @app_commands.describe(
        field="A stat, hp/hp_max, a system field, or any other name as a skill",
        value="The new value (numbers for Nyra/Kaernest, die codes like 3D+1 for D6)",
        character="Which character (default: your only one in this channel's system)",
    )
    @app_commands.autocomplete(field=ac.field_choices, character=ac.character_choices)
    async def set_field(
        self,
        interaction: discord.Interaction[Fray],
        field: app_commands.Range[str, 1, 100],
        value: app_commands.Range[str, 0, 200],
        character: app_commands.Range[str, 0, 100] | None = None,
    ) -> None:
        record = await self._target(interaction, character)
        field = field.strip()
        if name_key(field) == "name":
            change = await self.book.rename(record, value)
            await self._say(interaction, text.renamed(change.before.name, change.after.name))
            return
        pairs = field_pairs(field, value)
        try:
            change = await self.book.change(record, lambda rules, sheet: set_fields(rules, sheet, pairs))
        except FieldsRefused as err:
            raise CharacterError(text.change_refused(record.name, text.fields_refused(err.problems))) from err
        except BotError:
            raise  # the shell's refusals (a deleted character, a stored sheet gone invalid) say so themselves
        except RulesError as err:
            raise CharacterError(text.change_refused(record.name, err.reason)) from err
        if len(pairs) == 1:
            await self._say(interaction, text.field_set(change.after.name, field, value.strip()))
        else:
            await self._say(interaction, text.fields_set(change.after.name, pairs))

    # --- weapon / armour --------------------------------------------------------------------------------

    @app_commands.command(name="weapon", description="Add (or remove) a weapon on a sheet")
    @app_commands.describe(
        name="A weapon from the system's table, or one the sheet defines",
        character="Which character (default: your only one in this channel's system)",
        remove="Remove the weapon instead of adding it",
    )
    @app_commands.autocomplete(name=ac.weapon_choices, character=ac.character_choices)
    async def weapon(
        self,
        interaction: discord.Interaction[Fray],
        name: app_commands.Range[str, 1, 100],
        character: app_commands.Range[str, 0, 100] | None = None,
        remove: bool = False,
    ) -> None:
        record = await self._target(interaction, character)
        name = name.strip()
        try:
            change = await self.book.change(
                record, lambda rules, sheet: rules.set_weapon(sheet, name, remove=remove)
            )
        except BotError:
            raise
        except RulesError as err:
            raise CharacterError(text.change_refused(record.name, err.reason)) from err
        rules = change.after.rules
        weapons = rules.sheet_weapons(change.after.load())
        await self._say(interaction, text.weapon_changed(change.after.name, name, weapons, remove=remove))

    @app_commands.command(name="armour", description="Wear (or take off) armour from the system's table")
    @app_commands.describe(
        name="Armour from the system's table",
        location="Where it is worn (Nyra: a body location)",
        character="Which character (default: your only one in this channel's system)",
        remove="Take the armour off instead",
    )
    @app_commands.autocomplete(name=ac.armour_choices, character=ac.character_choices)
    async def armour(
        self,
        interaction: discord.Interaction[Fray],
        name: app_commands.Range[str, 1, 100],
        location: app_commands.Range[str, 0, 60] | None = None,
        character: app_commands.Range[str, 0, 100] | None = None,
        remove: bool = False,
    ) -> None:
        record = await self._target(interaction, character)
        name = name.strip()
        place = location.strip() if location and location.strip() else None
        try:
            change = await self.book.change(
                record, lambda rules, sheet: rules.set_armour(sheet, name, location=place, remove=remove)
            )
        except BotError:
            raise
        except RulesError as err:
            raise CharacterError(text.change_refused(record.name, err.reason)) from err
        await self._say(interaction, text.armour_changed(change.after.name, name, place, remove=remove))

    # --- show / list ------------------------------------------------------------------------------------

    @app_commands.command(name="show", description="Show a character sheet")
    @app_commands.describe(
        character="Which character (default: your only one in this channel's system)",
        private="Only you see it",
    )
    @app_commands.autocomplete(character=ac.character_choices)
    async def show(
        self,
        interaction: discord.Interaction[Fray],
        character: app_commands.Range[str, 0, 100] | None = None,
        private: bool = False,
    ) -> None:
        record = await self._target(interaction, character)
        rules = record.rules
        embed = text.sheet_embed(rules.sheet_view(record.load()), record.system, record.owner_id)
        await interaction.response.send_message(embed=embed, ephemeral=private, allowed_mentions=NO_MENTIONS)

    @app_commands.command(name="list", description="Your characters in this server (a GM sees everyone's)")
    async def list_characters(self, interaction: discord.Interaction[Fray]) -> None:
        here = where(interaction)
        gm = await is_gm(interaction)
        owner = None if gm else interaction.user.id
        refs = await self.book.refs(here.guild_id, owner_id=owner, limit=LIST_LIMIT)
        total = await self.book.count(here.guild_id, owner_id=owner) if len(refs) >= LIST_LIMIT else len(refs)
        if gm:
            refs.sort(key=lambda r: (r.owner_id != interaction.user.id, r.owner_id, name_key(r.name)))
        rows = [(r.name, r.system, r.owner_id) for r in refs]
        await self._say(interaction, text.character_list(rows, gm=gm, total=total), ephemeral=True)

    # --- import / export --------------------------------------------------------------------------------

    @app_commands.command(
        name="import", description="Create or update your sheet from a JSON, YAML or TOML file"
    )
    @app_commands.describe(file="A .json, .yaml or .toml sheet (like the one /character export makes)")
    async def import_sheet(self, interaction: discord.Interaction[Fray], file: discord.Attachment) -> None:
        here = where(interaction)
        sheet_files.file_format(file.filename)
        sheet_files.check_size(file.size)
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            data = await file.read()
        except (discord.HTTPException, discord.NotFound) as err:
            raise sheet_files.SheetFileError(text.file_download_failed()) from err
        try:
            imported = await asyncio.to_thread(sheet_files.read_sheet, file.filename, data)
        except sheet_files.ImportRefused as err:
            await self._refuse_import(interaction, err)
            return
        record, before = await self.book.save_import(
            here.guild_id, interaction.user.id, imported.system, imported.sheet
        )
        await interaction.followup.send(
            text.imported(
                record.name,
                record.system,
                created=before is None,
                system_changed_from=before.system if before else None,
            ),
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
        )

    async def _refuse_import(
        self, interaction: discord.Interaction[Fray], err: sheet_files.ImportRefused
    ) -> None:
        if text.import_fits(err.filename, err.problems):
            await interaction.followup.send(
                text.import_refused(err.filename, err.problems, attached=False),
                ephemeral=True,
                allowed_mentions=NO_MENTIONS,
            )
            return
        listing = text.problems_text(err.filename, err.problems).encode("utf-8")
        await interaction.followup.send(
            text.import_refused(err.filename, err.problems, attached=True),
            file=discord.File(io.BytesIO(listing), filename="problems.txt"),
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
        )

    @app_commands.command(name="export", description="Your sheet as a file that /character import reads back")
    @app_commands.describe(character="Which character")
    @app_commands.autocomplete(character=ac.character_choices)
    async def export(
        self, interaction: discord.Interaction[Fray], character: app_commands.Range[str, 1, 100]
    ) -> None:
        record = await self._target(interaction, character)
        data = sheet_files.export_bytes(record.system, record.load())
        await interaction.response.send_message(
            text.exported(record.name, record.system),
            file=discord.File(io.BytesIO(data), filename=sheet_files.export_filename(record.name)),
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
        )

    # --- delete -----------------------------------------------------------------------------------------

    @app_commands.command(name="delete", description="Delete a character (asks to confirm)")
    @app_commands.describe(character="Which character")
    @app_commands.autocomplete(character=ac.character_choices)
    async def delete(
        self, interaction: discord.Interaction[Fray], character: app_commands.Range[str, 1, 100]
    ) -> None:
        record = await self._target(interaction, character)
        await interaction.response.send_message(
            text.delete_prompt(interaction.user.id, record.name, record.owner_id),
            view=delete_view(record),
            allowed_mentions=NO_MENTIONS,
        )


DYNAMIC_ITEMS = (ConfirmDeleteButton, CancelDeleteButton)


async def setup(bot: Fray) -> None:
    await bot.add_cog(Characters(bot))
