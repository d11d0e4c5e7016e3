"""One hand-made, realistic instance of every event class that has a renderer: the variant a table meets and
talks about (a D6 critical with its stage, a Wild Die explosion and a complication, a grapple reversal, a
Kaernest landing after an active defense, a Nyra contest with its location). The goldens in ``golden/events``
are these rendered the way players see them."""

from __future__ import annotations

from rules.dice import Die
from rules.events import Event, Note, SheetFieldKept
from rules.systems.d6 import events as d6
from rules.systems.d6.pool import DieCode, PoolRoll
from rules.systems.d6.state import PlannedAction
from rules.systems.kaernest import events as ka
from rules.systems.kaernest.roll import Modifier as KMod
from rules.systems.kaernest.state import Wound
from rules.systems.nyra import events as ny
from rules.systems.nyra.checks import CheckResult, Difficulty

# Combatant ids as the store keeps them; players only ever see the names.
VALE, ORN, EVA, IZUKI = "40117", "40118", "40119", "40120"
NAMES = {VALE: "Vale", ORN: "Orn", EVA: "Eva", IZUKI: "Izuki"}


# --- D6 ---------------------------------------------------------------------------------------------------


def d6die(value: int, label: str = "die") -> Die:
    return Die(6, value, "random", label)


def pool(
    *values: int,
    pips: int = 0,
    explosions: tuple[int, ...] = (),
    dropped: tuple[int, ...] = (),
    rule: str = "halved",
    wild_one: str = "complication",
    bonus: int = 0,
) -> PoolRoll:
    """A pool as ``roll_pool`` leaves it: the last value is the Wild Die's first roll."""
    normal = tuple(d6die(v) for v in values[:-1])
    wild = d6die(values[-1], "wild")
    boom = tuple(d6die(v, "wild explodes") for v in explosions)
    gone = tuple(d6die(v) for v in dropped)
    complication = values[-1] == 1 and wild_one == "complication"
    total = sum(values) + sum(explosions) + pips + bonus - sum(dropped)
    return PoolRoll(
        DieCode(len(values), pips),
        normal,
        wild,
        boom,
        bonus,
        gone,
        complication,
        rule,
        wild_one,
        total,  # type: ignore[arg-type]
    )


def d6_events() -> list[Event]:
    M = d6.Mod
    crit = pool(5, 6, 4, 6, explosions=(3,))
    miss = pool(2, 3, 1, wild_one="complication")
    init = pool(4, 6, explosions=(6, 2), pips=1)
    heal_check, healing = pool(4, 5, 3), pool(2, 3, 1, wild_one="none")
    natural, scaling = pool(5, 4), (d6die(3), d6die(2))
    death, death_effect = pool(6, 5, 4, 5), pool(3, wild_one="none")
    return [
        d6.Rolled(
            EVA,
            "Perception (spot the ambush)",
            DieCode(3, 1),
            13,
            (M("Perception", 3, "D"), M("dim light", -1)),
            pool(4, 5, 4, pips=1, bonus=-1),
            (),
        ),
        d6.InitiativeRolled(VALE, DieCode(3, 1), 19, (M("Perception", 3, "D"),), init, init.dice),
        d6.InitiativeTie((ORN, EVA), 12, "perception", (EVA, ORN), "Eva's Perception 4D beats Orn's 3D"),
        d6.InitiativeOrder(1, (VALE, EVA, ORN), (19, 12, 12)),
        d6.InitiativeRerolled(ORN, 12, 17, 2, pool(6, 5, 6), pool(6, 5, 6).dice),
        d6.ActionDeclared(VALE, PlannedAction("attack", target=ORN, weapon="longsword"), 1),
        d6.TurnLocked(VALE, ("attack", "defend", "move"), 0, 1, 3, 2),
        d6.FreeActionTaken(EVA, "shouts a warning to Vale"),
        d6.AttackRolled(
            VALE,
            ORN,
            "longsword",
            DieCode(4),
            24,
            12,
            "natural save",
            True,
            critical=True,
            crit_stage=1,
            crit_percent=200.0,
            crit_threshold=24,
            crit_parts=(M("Agility 4D", 1),),
            save_parts=(M("natural save", 12),),
            roll=crit,
            dice=crit.dice,
        ),
        d6.AttackRolled(
            ORN,
            VALE,
            "spear",
            DieCode(3),
            5,
            11,
            "parry",
            False,
            save_parts=(M("parry roll", 10), M("shield", 1)),
            roll=miss,
            dice=miss.dice,
        ),
        d6.DefenseTaken(
            EVA,
            "parry",
            False,
            15,
            2,
            DieCode(4),
            (M("Melee Parry", 1, "skill"),),
            pool(4, 3, 2, 6),
            pool(4, 3, 2, 6).dice,
        ),
        d6.DefenseOverwhelmed(EVA, ORN, "parry"),
        d6.ShieldHit(VALE, ORN, 11, 10, 11),
        d6.FreeAttackOwed(ORN, IZUKI, "left melee without disengaging"),
        d6.SaveScore(VALE, 12, "natural save", (M("Agility 3D+1", 10), M("dodge skill", 2))),
        d6.DamageRolled(
            VALE,
            ORN,
            "longsword",
            "cutting",
            DieCode(2),
            9,
            DieCode(2),
            5,
            4,
            "natural 9 beats AR 4: natural + scaling − AR, doubled (critical)",
            20,
            True,
            "double damage",
            natural,
            natural.dice + scaling,
        ),
        d6.DamageApplied(ORN, 20, 18, -2, "Vale's longsword"),
        d6.HealRolled(EVA, VALE, DieCode(3), 12, 3, (), heal_check, healing, heal_check.dice + healing.dice),
        d6.HealApplied(VALE, 7, 5, 9, 14, f"heal by {EVA}"),
        d6.HealPoolChanged(3, 4, 1, 3, 2, f"{ORN} is back up"),
        d6.LastGaspEntered(ORN, -2),
        d6.DeathSaveOwed(ORN, 2, 1),
        d6.DeathSave(
            ORN,
            "charisma",
            2,
            DieCode(4),
            20,
            "20–24",
            "+1D stored healing",
            3,
            3,
            (),
            death,
            death_effect,
            death.dice + death_effect.dice,
        ),
        d6.DeathSaveSkipped(ORN, 3, "GM"),
        d6.Stabilised(ORN, -2),
        d6.LastGaspLeft(ORN, 3, f"heal by {EVA} + 3 stored healing"),
        d6.Died(IZUKI, -16, -15),
        d6.OutOfFight(IZUKI, -6),
        d6.CarriedIn(VALE, 9, 14, None, None, False, False, 2),
        d6.GrappleRolled(
            "contest",
            VALE,
            ORN,
            9,
            16,
            "reversal",
            -1,
            -1,
            (M("Brawling", 1, "skill"),),
            (),
            pool(3, 2, 4),
            pool(5, 6, 5),
            pool(3, 2, 4).dice + pool(5, 6, 5).dice,
        ),
        d6.GrapplePinned(ORN, VALE, 6),
        d6.PinBroken(ORN, VALE, 7, 6, 1),
        d6.TakenDown(ORN, VALE, "slam", 11, 2, 13, 2, pool(5, 6), pool(5, 6).dice),
        d6.GrappleThrown(ORN, VALE, 1, "", 4, False, 14, 14, pool(3, 4, 2, 5), pool(3, 4, 2, 5).dice),
        d6.GrappleEnded(ORN, VALE, "thrown"),
        d6.GrapplePenaltyOwed(ORN, VALE, 1),
        d6.Moved(IZUKI, 8, False),
        d6.Disengaged(
            IZUKI,
            ORN,
            14,
            11,
            True,
            pool(4, 6, 4),
            pool(3, 5, 3),
            (),
            pool(4, 6, 4).dice + pool(3, 5, 3).dice,
        ),
        d6.StealthChecked(
            IZUKI,
            DieCode(4),
            17,
            ((ORN, 12, True), (EVA, 18, False)),
            (M("dim light", 1, "D"),),
            pool(5, 4, 3, 5),
            pool(5, 4, 3, 5).dice,
        ),
        d6.StealthCheckDue(IZUKI),
        d6.Revealed(IZUKI, "attacked"),
        d6.FieldSet(ORN, "hp", "14", "10"),
        d6.TurnEnded(VALE, 1),
        d6.TurnStarted(EVA, 1),
    ]


# --- Nyra -------------------------------------------------------------------------------------------------


def check(skill: str, value: int, roll: int, *, difficulty: str = "normal", bonus: int = 0) -> CheckResult:
    """A roll-under d10 as ``checks.resolve`` leaves it (1 a critical success, 10 a critical failure)."""
    effective = {"easy": 2 * value, "normal": value, "difficult": value // 2}[difficulty] + bonus
    success = roll <= effective and roll != 10
    return CheckResult(
        skill, value, Difficulty(difficulty), bonus, effective, 1, Die(10, roll), success, roll == 1, roll == 10,
        effective - roll,
    )  # fmt: skip


def nyra_events() -> list[Event]:
    return [
        ny.CombatantJoined(IZUKI, "Izuki", 3),
        ny.SequenceRolled(ORN, 7, (Die(10, 7, label="sequence"),)),
        ny.OrderSet(
            (
                ny.OrderEntry(VALE, "Vale", 10, 8, ()),
                ny.OrderEntry(ORN, "Orn", 7, 6, (4,)),
                ny.OrderEntry(EVA, "Eva", 7, 6, (9,)),
            ),
            (Die(10, 4, label="roll-off"), Die(10, 9, label="roll-off")),
        ),
        ny.PhaseStarted(2),
        ny.TurnStarted(VALE, "Vale", 2, 4, 6, 1),
        ny.StrikeDeclared(
            VALE, ORN, "Longsword", "S", "2d6+2", "aimed", "Head", "difficult", 3, 6, 3, 0, None, None
        ),
        ny.ContestRolled(
            VALE,
            ORN,
            1,
            check("Swords", 7, 2, difficulty="difficult"),
            "Defense",
            "house default_stance: higher",
            check("Defense", 5, 8),
            "attacker",
            (Die(10, 2), Die(10, 8)),
        ),
        ny.StrikeResolved(VALE, ORN, "hit", "the strike lands", False, None, 1),
        ny.LocationRolled(ORN, "humanoid", 2, "Chest", (Die(10, 2, label="location"),)),
        ny.DamageRolled(
            VALE,
            ORN,
            "Longsword",
            "S",
            "Head",
            "2d6+2",
            9,
            True,
            "double",
            9,
            (ny.Modifier("base flat damage", 2, "listed +2"), ny.Modifier("STR mod", 3, "STR 7")),
            23,
            (("Leather Cap", 2),),
            2,
            21,
            (Die(6, 4), Die(6, 5)),
        ),
        ny.LocationDamaged(ORN, "Head", "strike", 21, 0, 21, "unharmed", "critical", 3),
        ny.LocationHealed(VALE, "Left Arm", 4, 7, 3, "slight", "slight"),
        ny.WeaponFumbled(ORN, "Spear", True, 2, 12, 10, True),
        ny.VolleyEnded(EVA, ORN, 4),
        ny.DelaySpent(IZUKI, "a 2-square move", 2, 7, 5),
        ny.StanceSet(EVA, "dodge"),
        ny.TurnEnded(VALE, "Vale", "delay spent", 0),
        ny.CombatantDied(ORN, "Orn", "Head"),
        ny.FieldSet(EVA, "delay", "4", "6"),
        ny.CheckMade("Izuki", check("Climbing", 6, 2, difficulty="easy", bonus=1)),
        ny.SheetRefreshed(VALE, "Vale", ("skill + Dodge 5", "weapon − Claymore", "STR 7 → 8")),
    ]


# --- Kaernest ---------------------------------------------------------------------------------------------


def d12(*values: int, label: str = "") -> tuple[Die, ...]:
    return tuple(Die(12, v, "random", label) for v in values)


def kaernest_events() -> list[Event]:
    attack_mods = (KMod("Swords", 4), KMod("Grace", 6), KMod("simple action", 3), KMod("wounds", -1))
    parried = ka.ActiveDefense((KMod("Reflex", 6), KMod("Parry", 4)), 10, 14, -4, False)
    return [
        ka.CombatantAdded(IZUKI, "Izuki", "party", False),
        ka.CombatantRemoved(ORN, "Orn"),
        ka.InitiativeRolled(VALE, 10, False, (KMod("Instinct", 5), KMod("Luck", 3)), 18, 18, 1, 18, d12(10)),
        ka.InitiativeTied(11, (EVA, ORN), (5, 5), ((12,), (5,)), d12(5, 12)),
        ka.InitiativeSet(EVA, 14, 1, 14),
        ka.LuckPledged(VALE, 3, True),
        ka.LuckSpent(VALE, 3),
        ka.ClockAdvanced(1, 18, 1, 12),
        ka.ActionDeclared(
            VALE,
            "attack",
            6,
            (KMod("Sword, Short", 5), KMod("wounds", 1)),
            1,
            18,
            1,
            12,
            ORN,
            "Sword, Short",
            1,
            "pierce",
            "physical",
            "Head",
        ),
        ka.ActiveDefenseRolled(ORN, VALE, 1, 12, parried.modifiers, 10, 14, -4, False, d12(8, 6)),
        ka.AttackResolved(
            VALE,
            ORN,
            "Sword, Short",
            1,
            "pierce",
            "physical",
            "Head",
            1,
            12,
            "passive",
            6,
            modifiers=(*attack_mods, KMod("Orn's defense (passive)", -6)),
            target=6,
            total=4,
            margin=2,
            hit=True,
            critical=False,
            critical_failure=False,
            interrupted=False,
            active_defense=parried,
            dice=d12(3, 1),
        ),
        ka.DamageRolled(
            VALE,
            ORN,
            (KMod("Muscle 6/2", 3), KMod("Sword, Short pierce 1h", 5), KMod("vital d12", 7)),
            15,
            "Hardened Leather",
            5,
            False,
            True,
            10,
            d12(7, label="vital"),
        ),
        ka.DamageTaken(ORN, 10, 14, 9, "up", "staggered", Wound(12, 10, 1, "Head"), "attack"),
        ka.WoundEffectSet(ORN, 1, "Head", "dazed: no reactions until 2:10"),
        ka.AttackInterrupted(EVA, IZUKI, 1, 9, 7, (KMod("Axe, Great", 10), KMod("interrupted", -3)), 1, 2),
        ka.ActionCancelled(ORN, "attack", "the target has left the encounter"),
        ka.ActionResolved(IZUKI, "drink", "drinks a healing draught", 1, 8),
        ka.Waited(EVA, 1, 9, 1, 8),
        ka.SegmentSet(EVA, 1, 6, "attack"),
        ka.PostureChanged(IZUKI, "passive", "aggressive", "declared an attack"),
        ka.ConditionChanged(ORN, "prone", True),
        ka.DamageHealed(ORN, 4, 10, "staggered", "up"),
        ka.DamageSet(ORN, 10, 18, "up", "down"),
        ka.CombatantFieldSet(VALE, "Luck", "3", "1"),
        ka.CheckRolled(
            "Izuki",
            "Instinct",
            "Tracking",
            (KMod("Instinct", 5), KMod("Tracking", 3), KMod("rain", -2)),
            6,
            5,
            1,
            True,
            False,
            False,
            d12(2, 3),
        ),
        ka.SheetRefreshed(VALE, ("skill + Dodge 5", "weapon − Claymore", "Grace 6 → 7")),
    ]


# --- the rules' shared events -----------------------------------------------------------------------------


def shared_events() -> list[Event]:
    return [
        Note("Vale tests the rope bridge: it holds", (Die(6, 3, "random", "rope"),)),
        SheetFieldKept(EVA, "sequence", "8"),
    ]


CATALOG: dict[str, list[Event]] = {
    "shared": shared_events(),
    "d6": d6_events(),
    "nyra": nyra_events(),
    "kaernest": kaernest_events(),
}
