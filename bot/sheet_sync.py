"""Where character sheets and encounters meet (RULES.md §4 "Common" and "Nyra").

- ``refresh_turn_sheets``: inside an encounter change, when the turn has passed, each combatant whose turn
  it now is fights with its character's current sheet (``System.refresh_sheet``: equipment, stats and skills
  come over; what the fight changed stays, and an event says what changed). Combatants without a
  character (NPCs from templates) keep their copy.
- ``keep_sheet_fields``: after the encounter change has committed, values the fight settled for good
  (``SheetFieldKept``: a Nyra Sequence rolled once) are written to the player characters through the
  characters' own change path (their owner's lock, a version-checked save). A character changed or deleted meanwhile
  keeps its sheet; the value stays in the fight, and a missing Sequence is rolled again next fight.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from bot.characters import CharacterBook
from bot.errors import BotError
from bot.models import Character
from rules.errors import RulesError
from rules.events import SheetFieldKept

if TYPE_CHECKING:
    from bot.encounters import EncounterEdit

log = logging.getLogger(__name__)


async def refresh_turn_sheets(edit: EncounterEdit) -> None:
    """The new turn's combatants take their characters' current sheets (nothing when the turn did not pass)."""
    if edit.status != "running":
        return
    turn = edit.turn()
    if turn.key[:64] == edit.encounter.turn_key:
        return
    for cid in turn.actors:
        row = edit.by_key(cid)
        if row is None or row.character_id is None:
            continue
        character = await edit.session.get(Character, row.character_id)
        if character is None or character.system != edit.encounter.system:
            continue
        try:
            sheet = edit.system.sheet_from_dict(character.sheet)
        except RulesError:  # a stored sheet that no longer validates: fight on with the copy
            log.warning("character %s has a sheet that does not validate; not refreshed", character.id)
            continue
        edit.apply(edit.system.refresh_sheet(edit.state, cid, sheet, edit.house))


async def keep_sheet_fields(store: Any, edit: EncounterEdit) -> None:
    """Write each ``SheetFieldKept`` of the committed change to its combatant's character."""
    book = CharacterBook(store)
    for event in edit.events:
        if not isinstance(event, SheetFieldKept):
            continue
        row = edit.by_key(event.combatant)
        # Only a player's own character: NPC copies of a GM's sheet would overwrite each other.
        if row is None or row.character_id is None or not row.is_pc:
            continue
        record = await book.get(row.character_id)
        if record is None or record.system != edit.encounter.system:
            continue
        try:
            await book.change(
                record.ref, lambda rules, sheet, e=event: rules.set_sheet_field(sheet, e.field, e.value)
            )
        except (BotError, RulesError):
            log.info("kept %s of combatant %s not written to its character", event.field, event.combatant)
