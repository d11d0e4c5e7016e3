"""The sentences players found broken read plainly now: the Wild Die's explosion, a wound that leaves the
condition as it was, a D6 critical with its stage and threshold, heal and healing dice apart, an active
defense's dice apart from the attack's, a grapple reversal, a house rule named once per message, names (not
ids) in a reason."""

from __future__ import annotations

import cogs.text.events  # noqa: F401  (registers every renderer)
from cogs.text.encounters import undone
from cogs.text.events import event_lines
from cogs.text.messages import story
from rules.dice import Die
from rules.encounter import TrackerView
from rules.systems.d6 import events as d6
from rules.systems.d6.pool import DieCode, PoolRoll
from rules.systems.kaernest import events as kaernest
from rules.systems.kaernest.roll import Modifier
from rules.systems.kaernest.state import Wound

NAMES = {"1": "Orn", "2": "Vale"}


def d(value: int, label: str = "") -> Die:
    return Die(6, value, "random", label)


def pool(*values: int, explosions: tuple[int, ...] = (), rule: str = "halved") -> PoolRoll:
    normal = tuple(d(v, "die") for v in values[:-1])
    wild = d(values[-1], "wild")
    boom = tuple(d(v, "wild explodes") for v in explosions)
    total = sum(values) + sum(explosions)
    return PoolRoll(DieCode(len(values)), normal, wild, boom, 0, (), False, rule, "complication", total)  # type: ignore[arg-type]


def line(event) -> str:
    (only,) = event_lines(event, NAMES)
    return only


def test_the_wild_die_explosion_says_what_it_rolled_and_never_shows_empty_parentheses() -> None:
    roll = pool(3, 6, explosions=(4,), rule="")
    text = line(d6.InitiativeRolled("1", roll.code, roll.total, (), roll, roll.dice))
    assert "the Wild Die exploded (6 + 4)" in text and "()" not in text and "**Orn**" in text


def test_a_kaernest_wound_without_a_change_of_condition_says_still() -> None:
    text = line(kaernest.DamageTaken("2", 9, 9, 5, "up", "up", Wound(1, 9, 1)))
    assert "**a wound** (−1 on every roll)" in text and "still up" in text and "up → up" not in text


def test_a_d6_critical_names_its_stage_and_threshold() -> None:
    roll = pool(6, 6, 5)
    event = d6.AttackRolled(
        "1", "2", "longsword", roll.code, 17, 10, "natural save", True,
        critical=True, crit_stage=2, crit_percent=150.0, crit_threshold=15,
        crit_parts=(d6.Mod("Agility 4D", 1),), roll=roll, dice=roll.dice,
    )  # fmt: skip
    text = line(event)
    assert text.startswith("⚔️ **Orn** **hits** **Vale**")
    assert "stage 2 (+1 Agility 4D): 150% of the save, so 15 or more is critical" in text
    assert "🎲 to-hit [6 6 5ᵂ]" in text


def test_heal_roll_and_healing_dice_are_apart() -> None:
    check, healing = pool(4, 5), pool(2, 3, 1)
    event = d6.HealRolled("1", "2", check.code, 9, 3, (), check, healing, check.dice + healing.dice)
    assert "🎲 heal roll [4 5ᵂ] · healing [2 3 1ᵂ]" in line(event)


def test_an_active_defense_has_its_own_line_and_dice() -> None:
    # RULES.md §4: the active defense is rolled first, with its own dice, before the attack's.
    mods = (Modifier("Reflex", 6), Modifier("Parry", 4))
    stopped = kaernest.ActiveDefenseRolled("2", "1", 1, 12, mods, 10, 8, 2, True, (Die(12, 4), Die(12, 4)))
    text = line(stopped)
    assert "active defense **stops** **Orn**'s attack: rolled 8, needed ≤ 10" in text, text
    assert "🎲 active defense [4 4]" in text
    failed = kaernest.ActiveDefenseRolled("2", "1", 1, 12, mods, 10, 12, -2, False, (Die(12, 6), Die(12, 6)))
    ad = kaernest.ActiveDefense(mods, 10, 12, -2, False)
    attack = kaernest.AttackResolved(
        "1", "2", "Club, War", 1, "crush", "physical", None, 1, 12, "passive", 6,
        modifiers=(Modifier("Clubs", 7),), target=8, total=6, margin=2, hit=True, critical=False,
        critical_failure=False, interrupted=False, active_defense=ad, dice=(Die(12, 3), Die(12, 3)),
    )  # fmt: skip
    assert "**fails**, so the passive defense stands" in line(failed)
    text = line(attack)
    assert "the active defense failed, so the passive defense stood" in text and "🎲 to-hit [3 3]" in text
    assert "active defense [" not in text  # its dice are on its own line


def test_a_grapple_reversal_reads_as_the_other_side_gaining() -> None:
    event = d6.GrappleRolled("contest", "1", "2", 6, 14, "reversal", -1, -1)
    text = line(event)
    assert "**Vale** **reverses it and gains 1**" in text and "toward **Vale**" in text


def test_a_house_rule_is_named_once_per_message() -> None:
    from rules.systems.nyra.checks import CheckResult, Difficulty
    from rules.systems.nyra.events import ContestRolled

    def check(name: str, roll: int) -> CheckResult:
        return CheckResult(
            name, 7, Difficulty("normal"), 0, 7, 1, Die(10, roll), True, False, False, 7 - roll
        )

    rounds = [
        ContestRolled("1", "2", i, check("Swords", 3), "Defense", "house default_stance: higher", check("Defense", 4), "tie")
        for i in (1, 2)
    ]  # fmt: skip
    lines = story(rounds, NAMES)
    assert sum("house rule" in x for x in lines) == 1


def test_a_reason_with_an_id_shows_the_name() -> None:
    text = line(d6.GrappleEnded("1", "2", "2 entered Last Gasp"))
    assert "Vale entered Last Gasp" in text and "2 entered" not in text


def test_an_undo_says_a_plan_it_leaves_is_not_locked_in_and_keeps_its_penalty() -> None:
    notes = ("plan (−1D each): attack Vale, parry", "plan (locked, −1D each): attack Vale, parry")
    text = undone(["Orn attacks"], TrackerView(system="d6", begun=True, round=1, notes=notes))
    assert "• plan so far (not locked in, −1D each): attack Vale, parry" in text, text
    assert "• plan (locked, −1D each): attack Vale, parry" in text, text
    alone = undone(
        ["Orn attacks"], TrackerView(system="d6", begun=True, round=1, notes=("plan: attack Vale",))
    )
    assert "• plan so far (not locked in): attack Vale" in alone, alone
