"""A short fight through the operations the adapter drives, as the Discord layer drives it."""

from rules.dice import QueuedDice, ScriptedDice
from rules.systems.d6 import checks, gm
from rules.systems.d6 import grapple as grapples
from rules.systems.d6 import turn as turns
from rules.systems.d6.events import AttackRolled, DeathSave, LastGaspEntered, TurnStarted
from rules.systems.d6.state import D6State, PlannedAction

from .helpers import HOUSE, only, sheet


def test_every_operation_the_bot_drives_exists_in_its_section():
    for module, name in (
        (gm, "add_combatant"),
        (gm, "add_creatures"),
        (gm, "begin"),
        (gm, "gm_damage"),
        (gm, "gm_heal"),
        (gm, "gm_condition"),
        (gm, "new_instance"),
        (turns, "declare_and_lock"),
        (grapples, "grapple_action"),
        (checks, "pool_roll"),
    ):
        assert callable(getattr(module, name))


def test_a_round_through_the_facade():
    s = gm.add_combatant(D6State(), "Eva", sheet("Eva", hp_max=12, perception="1D", coordination="2D")).state
    s = gm.add_creatures(s, "bandit", count=2, distance=2).state
    assert [c.id for c in s.combatants] == ["Eva", "bandit 1", "bandit 2"]
    assert s.get("bandit 1").sheet.armour_ar == 4 and not s.get("bandit 1").is_pc
    # Initiative: Eva 1D → 5; bandits 2D+1 +10 ambush: 2+3+1+10 = 16 each, tie → farther first (equal) →
    # Perception equal → roll-off 4 vs 2.
    with ScriptedDice([5, 2, 3, 2, 3, 4, 2]) as dice:
        out = gm.begin(s, dice, HOUSE, attackers="enemies", surprise=10)
    s = out.state
    assert s.order == ("bandit 1", "bandit 2", "Eva")
    assert only(out.events, TurnStarted).who == "bandit 1"
    # bandit 1 attacks Eva (Coordination 3D: 5+5+5 = 15 > 10), short sword 1D+2 (4) + 2D scaling (3, 3).
    with ScriptedDice([5, 5, 5, 4, 3, 3]) as dice:
        out = turns.declare_and_lock(s, "bandit 1", PlannedAction("attack", target="Eva"), dice, HOUSE)
    assert only(out.events, AttackRolled).hit
    assert only(out.events, LastGaspEntered).who == "Eva"
    s = turns.end_turn(out.state, "bandit 1", ScriptedDice([])).state
    s = turns.end_turn(s, "bandit 2", ScriptedDice([])).state
    assert s.current == "Eva"
    # GM-queued physical dice are used first and marked.
    # Death Save: Physique 3D + Perception 1D = 4D.
    dice = QueuedDice([4, 4, 6, 2], ScriptedDice([]))
    out = turns.declare_and_lock(s, "Eva", PlannedAction("death_save", stat="perception"), dice, HOUSE)
    ds = only(out.events, DeathSave)
    assert (ds.total, ds.effect) == (16, "no effect") and all(d.gm_entered for d in ds.dice)
    assert out.state.get("Eva").last_gasp.rounds == 1 and dice.remaining == ()
