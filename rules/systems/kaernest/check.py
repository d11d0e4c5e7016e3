"""``/check`` (RULES.md §2 "Core roll"): 2d12 against attribute + skill + bonus, less wound penalties."""

from __future__ import annotations

from rules.dice import DiceSource
from rules.errors import InvalidInput, NotFound
from rules.systems.kaernest.events import CheckRolled
from rules.systems.kaernest.house import HouseRules
from rules.systems.kaernest.roll import Modifier, roll_2d12, sum_of
from rules.systems.kaernest.sheet import Sheet

# The range of the GM's `bonus` (the `/check` option states each system's).
MAX_BONUS = 30


def check(
    sheet: Sheet,
    stat: str,
    dice: DiceSource,
    house: HouseRules,
    *,
    skill: str | None = None,
    bonus: int = 0,
    wound_penalty: int = 0,
) -> CheckRolled:
    """Roll a check. ``stat`` is an attribute (any case) or, alone, a skill; ``wound_penalty`` is the
    combatant's current wound penalty when it is in an encounter."""
    if isinstance(bonus, bool) or not isinstance(bonus, int) or abs(bonus) > MAX_BONUS:
        raise InvalidInput(f"`bonus` must be a whole number from -{MAX_BONUS} to {MAX_BONUS}.")
    terms: list[Modifier] = []
    try:
        terms.append(Modifier(stat.strip().title(), sheet.attribute(stat)))
    except NotFound:
        if not sheet.has_skill(stat):
            raise InvalidInput(f"`{stat}` is neither an attribute nor a skill of {sheet.name}.") from None
        terms.append(Modifier(stat.strip(), sheet.skill(stat)))
    if skill:
        terms.append(Modifier(skill.strip(), sheet.skill(skill)))
    if bonus:
        terms.append(Modifier("bonus", bonus))
    if wound_penalty:
        terms.append(Modifier("wounds", -wound_penalty))
    rolled = roll_2d12(dice, sum_of(terms), f"check {stat}")
    return CheckRolled(
        sheet.name,
        stat,
        skill,
        tuple(terms),
        rolled.target,
        rolled.total,
        rolled.margin,
        rolled.success,
        rolled.critical,
        rolled.critical_failure,
        rolled.dice,
    )
