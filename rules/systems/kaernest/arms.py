"""What an attack is made with: a weapon the sheet carries (from the table or its own custom row), or bare
hands (RULES.md §4: "Unarmed attacks use Muscle/2 with no weapon cap and a GM-set speed (house default 4)";
the seed: "Base damage for an attack is half the attacker's Muscle attribute").

Decided where RULES.md is silent: an unarmed blow is bludgeoning, one-handed, rolled with the skill
``Unarmed`` (0 when the sheet lacks it), and needs nothing on the sheet; anyone may strike with it, and it
is what an attack without a ``weapon`` uses when the attacker carries none.
"""

from __future__ import annotations

from rules.errors import InvalidInput
from rules.systems.kaernest import tables
from rules.systems.kaernest.house import HouseRules
from rules.systems.kaernest.sheet import Sheet

UNARMED = "Unarmed"
UNARMED_SKILL = "Unarmed"
_UNARMED_WORDS = frozenset({"unarmed", "fists", "fist", "hands", "bare hands", "punch", "kick", "brawl"})


def is_unarmed(name: str | None) -> bool:
    return " ".join((name or "").split()).lower() in _UNARMED_WORDS


def unarmed(speed: int) -> tables.Weapon:
    return tables.Weapon(
        name=UNARMED,
        grips=(1,),
        speeds=((1, speed),),
        damages=(("bludgeon", ((1, 0),)),),
        skill=UNARMED_SKILL,
        note="bare hands: Muscle/2, no weapon cap",
        muscle_cap=False,
    )


def carried(sheet: Sheet) -> tuple[str, ...]:
    """What the sheet can attack with, in its order, bare hands last."""
    return (*sheet.weapons, UNARMED)


def weapon_of(sheet: Sheet, name: str | None, house: HouseRules) -> tables.Weapon:
    """The weapon an attack named ``name`` uses: the first carried when none is named (bare hands when the
    sheet carries none); a weapon the sheet does not carry is refused naming what it carries."""
    if not (name or "").strip():
        return sheet.weapon(sheet.weapons[0]) if sheet.weapons else unarmed(house.unarmed_speed)
    if is_unarmed(name):
        return unarmed(house.unarmed_speed)
    chosen = sheet.weapon(name or "")
    if chosen.name.lower() not in {w.lower() for w in sheet.weapons}:
        raise InvalidInput(
            f"{sheet.name} does not carry the {chosen.name}. Carried: {', '.join(carried(sheet))}."
        )
    return chosen
