"""Random encounters: the timeline never resolves an action before it was declared, never skips a due
event, always terminates; random (legal or not) operations raise nothing but RulesError."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.dice import RandomDice
from rules.errors import RulesError
from rules.systems.kaernest import clock, defense, initiative, timeline
from rules.systems.kaernest import encounter as roster
from rules.systems.kaernest import sheet as sheets
from rules.systems.kaernest import state as states
from rules.systems.kaernest.house import HouseRules
from rules.systems.kaernest.state import KaernestState
from rules.systems.kaernest.tables import weapons

WEAPONS = [w.name for w in weapons()]
POSTURES = ["passive", "active", "aggressive", "none"]

fighters = st.builds(
    dict,
    grace=st.integers(0, 12),
    muscle=st.integers(0, 14),
    reflex=st.integers(0, 12),
    instinct=st.integers(0, 12),
    health=st.integers(1, 8),
    luck=st.integers(0, 5),
    npc=st.booleans(),
    weapon=st.sampled_from(WEAPONS),
    skill=st.integers(0, 8),
    parry=st.integers(0, 6),
    posture=st.sampled_from(POSTURES),
)
houses = st.builds(
    HouseRules,
    npc_initiative=st.sampled_from(["fixed", "roll"]),
    interrupt_speed_penalty=st.integers(0, 2),
    defensive_speed_bonus=st.integers(0, 2),
)


def build(specs):
    state = KaernestState()
    for i, spec in enumerate(specs):
        weapon = spec["weapon"]
        skill = next(w.skill for w in weapons() if w.name == weapon)
        sheet = sheets.from_dict(
            {
                "name": f"F{i}",
                **{k: spec[k] for k in ("grace", "muscle", "reflex", "instinct", "health", "luck", "npc")},
                "skills": {skill: spec["skill"], "Parry": spec["parry"]},
                "weapons": [weapon],
            }
        )
        state = roster.add_combatant(state, f"f{i}", sheet, posture=spec["posture"]).state
    return state


def check_advance(before, out):
    """No resolution before its declaration; the clock goes exactly to the next due tick; nothing due is
    left behind."""
    due = timeline.next_due(before)
    tick = before.tick
    for event in out.events:
        if event.kind == "ClockAdvanced":
            new = clock.tick_of(event.minute, event.segment)
            assert new > tick
            if tick == before.tick:
                assert new == due.tick  # the first jump is to the next due point, no further
            tick = new
        if event.kind in ("AttackResolved", "ActionResolved"):
            who = event.attacker if event.kind == "AttackResolved" else event.combatant
            pending = before.get(who).pending
            assert pending is not None and pending.declared_tick < tick
            assert clock.tick_of(event.minute, event.segment) == tick
    after = out.state
    assert after.tick == tick
    for c in after.combatants:
        if c.on_timeline:
            assert c.ready_tick >= after.tick
            if c.pending is not None:
                assert c.pending.lands_tick > after.tick  # every landing at or before now was resolved
                assert c.pending.declared_tick < c.pending.lands_tick


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    specs=st.lists(fighters, min_size=2, max_size=4),
    house=houses,
    seed=st.integers(0, 2**32),
    choices=st.lists(st.integers(0, 99), min_size=10, max_size=80),
)
def test_random_encounters(specs, house, seed, choices):
    dice = RandomDice(seed)
    state = build(specs)
    state = initiative.roll_initiative(
        state, dice, house, luck=[f"f{i}" for i in range(len(specs)) if i % 2]
    ).state
    ids = [c.id for c in state.combatants]
    steps = 0
    for choice in choices:
        steps += 1
        actor = ids[choice % len(ids)]
        current = timeline.next_due(state)
        if choice % 2 == 0 and current.kind == "declare" and current.tick == state.tick:
            actor = current.combatants[0]  # half the time, the one whose turn it is
        other = ids[(choice // 7) % len(ids)]
        try:
            if choice < 35:
                state = timeline.declare_attack(state, actor, other, dice, house, bonus=choice % 5 - 2).state
            elif choice < 45:
                state = timeline.declare_action(
                    state, actor, choice % 9 + 1, dice, house, defend=choice % 2 == 0
                ).state
            elif choice < 55:
                state = timeline.wait(state, actor, dice, house).state
            elif choice < 65:
                state = defense.set_posture(state, actor, POSTURES[choice % 4]).state
            elif choice < 70:
                state = roster.gm_damage(state, other, choice % 13, house).state
            elif choice < 73:
                state = roster.gm_heal(state, other, choice % 20).state
            elif choice < 76:
                state = initiative.roll_initiative(state, dice, house).state
            else:
                out = timeline.advance(state, dice, house)
                check_advance(state, out)
                state = out.state
        except RulesError:
            pass
        assert states.from_dict(state.to_dict()) == state
        # Whoever is on turn can always do something legal (waiting), so play never deadlocks.
        due = timeline.next_due(state)
        if due.kind == "declare" and due.tick == state.tick:
            timeline.wait(state, due.combatants[0], dice, house)
    assert steps == len(choices)


@settings(max_examples=40, derandomize=True, deadline=None)
@given(specs=st.lists(fighters, min_size=2, max_size=4), seed=st.integers(0, 2**32))
def test_a_fight_of_attacks_always_advances_and_ends(specs, seed):
    """Everyone attacks the next fighter whenever on turn; the clock only moves forward and the fight
    reaches 20 minutes or everyone down within a bounded number of steps."""
    dice = RandomDice(seed)
    house = HouseRules()
    state = initiative.roll_initiative(build(specs), dice, house).state
    ids = [c.id for c in state.combatants]
    last = state.tick
    for _ in range(2000):
        due = timeline.next_due(state)
        if due.kind == "idle" or state.minute > 20:
            break
        if due.kind == "declare" and due.tick == state.tick:
            actor = due.combatants[0]
            target = ids[(ids.index(actor) + 1) % len(ids)]
            state = timeline.declare_attack(state, actor, target, dice, house).state
        else:
            out = timeline.advance(state, dice, house)
            check_advance(state, out)
            state = out.state
        assert state.tick >= last
        last = state.tick
    else:
        raise AssertionError("the fight did not end")
