import dataclasses

import pytest

from rules.dice import ScriptedDice
from rules.errors import NotAllowed
from rules.systems.d6.events import HealApplied, HealPoolChanged, HealRolled, Stabilised
from rules.systems.d6.gm import add_combatant, gm_damage, new_instance
from rules.systems.d6.heal_pool import pool_capacity
from rules.systems.d6.healing import heal, heal_dice
from rules.systems.d6.state import D6State, HealPool, LastGasp

from .helpers import HOUSE, fighter, only, sheet, state_of


@pytest.mark.parametrize(
    ("total", "dice"),
    [
        (0, 0),
        (9, 0),
        (10, 1),
        (14, 1),
        (15, 2),
        (19, 2),
        (20, 3),
        (24, 3),
        (25, 4),
        (29, 4),
        (30, 5),
        (55, 5),
    ],
)
def test_every_band_of_the_healing_table_at_both_edges(total, dice):
    assert heal_dice(total) == dice


def party() -> D6State:
    s = D6State()
    for cid, kw in (
        ("Eva", {"healing_level": 1}),
        ("Markarth", {"restoration_level": 1}),
        ("Orn", {}),
        ("Tassadar", {"intellect": "3D"}),
    ):
        s = add_combatant(s, cid, sheet(cid, hp_max=20, **kw)).state
    return s


def test_seed_tassadar_rolls_16_and_porp_heals_2d():
    s = party().update("Orn", hp=5)
    with ScriptedDice([5, 6, 5, 3, 4]) as dice:  # Intellect 3D: 5 + 6 + wild 5 = 16 → 2D: 3 + 4
        out = heal(s, "Tassadar", "Orn", dice, HOUSE)
    rolled = only(out.events, HealRolled)
    assert (rolled.total, rolled.heal_dice) == (16, 2)
    applied = only(out.events, HealApplied)
    assert (applied.amount, applied.hp_after) == (7, 12)


def test_seed_markarth_heal_pool_example():
    s = party()
    assert s.heal_pool == HealPool(capacity=2, uses=0)  # 1 + round(2/3) = 2
    with ScriptedDice([3, 3, 3]) as dice:  # healing Orn: 9 → nothing, but the heal is used
        s = heal(s, "Tassadar", "Orn", dice, HOUSE).state
    assert (s.heal_pool.uses, s.heal_pool.remaining) == (1, 1)
    out = gm_damage(s, "Markarth", 23, HOUSE)  # mauled by a thrall: −3 HP
    assert out.state.get("Markarth").hp == -3 and out.state.get("Markarth").in_last_gasp
    change = only(out.events, HealPoolChanged)
    assert (change.before, change.after, change.levels, change.remaining) == (2, 1, 1, 0)
    with pytest.raises(NotAllowed, match="no heals left"):
        heal(out.state, "Eva", "Markarth", ScriptedDice([]), HOUSE)
    refilled = new_instance(out.state).state
    assert refilled.heal_pool == HealPool(capacity=1, uses=0)


def test_heal_on_last_gasp_adds_stored_healing_and_stabilises_or_lifts():
    s = party().update("Orn", hp=-9, last_gasp=LastGasp(rounds=2, stored_healing=3), prone=True)
    with ScriptedDice([4, 4, 3, 2]) as dice:  # 11 → 1D: 2; +3 stored = 5 → −4: stabilised
        out = heal(s, "Tassadar", "Orn", dice, HOUSE)
    orn = out.state.get("Orn")
    assert orn.hp == -4 and orn.last_gasp == LastGasp(rounds=2, stored_healing=0, stabilised=True)
    assert only(out.events, Stabilised).hp == -4
    s2 = s.update("Orn", hp=-2)
    with ScriptedDice([4, 4, 3, 2]) as dice:
        out2 = heal(s2, "Tassadar", "Orn", dice, HOUSE)
    assert out2.state.get("Orn").hp == 3 and not out2.state.get("Orn").in_last_gasp


def test_hp_never_above_max_and_a_failed_roll_still_uses_the_heal():
    s = party().update("Orn", hp=19)
    with ScriptedDice([5, 5, 4, 6, 1]) as dice:  # 14 → 1D: 6 (explodes 1) → 6; only 1 fits
        out = heal(s, "Tassadar", "Orn", dice, HOUSE)
    applied = only(out.events, HealApplied)
    assert (applied.amount, applied.applied, out.state.get("Orn").hp) == (6, 1, 20)
    with ScriptedDice([1, 1, 2]) as dice:
        failed = heal(s, "Tassadar", "Orn", dice, HOUSE)
    assert failed.state.heal_pool.uses == 1 and not any(isinstance(e, HealApplied) for e in failed.events)


def test_pool_capacity_rounds_half_up_and_counts_items():
    s = state_of(*(fighter(f"p{i}", healing_level=1) for i in range(5)))
    assert pool_capacity(s) == 1 + 2  # 5/3 = 1.67 → 2
    s = dataclasses.replace(s, heal_pool=HealPool(items=2))
    assert pool_capacity(s) == 5
    npcs = state_of(fighter("n", is_pc=False, healing_level=3))
    assert pool_capacity(npcs) == 1
