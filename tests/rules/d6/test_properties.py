"""Property tests over random legal (and illegal) operation sequences: invariants and error discipline."""

from __future__ import annotations

import dataclasses
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dice import RandomDice
from rules.errors import RulesError
from rules.events import Outcome
from rules.systems.d6 import attack as attacks
from rules.systems.d6 import gm
from rules.systems.d6 import grapple as grapples
from rules.systems.d6 import turn as turns
from rules.systems.d6.events import DamageApplied, HealApplied
from rules.systems.d6.house import HouseRules
from rules.systems.d6.initiative import roll_initiative
from rules.systems.d6.state import D6State, PlannedAction

from .helpers import fighter, sheet, state_of

IDS = ("p1", "p2", "p3", "n1", "n2")


def encounter(seed: int) -> D6State:
    rng = RandomDice(seed)
    s = D6State()
    for i, cid in enumerate(IDS):
        pc = cid.startswith("p")
        code = lambda: f"{rng.roll(4).value}D"  # noqa: E731
        sh = sheet(
            cid,
            physique=code(),
            agility=code(),
            coordination=code(),
            perception=code(),
            intellect=code(),
            charisma=code(),
            hp_max=6 + rng.roll(10).value,
            healing_level=rng.roll(2).value - 1,
            restoration_level=rng.roll(2).value - 1,
            shield_av=rng.roll(4).value - 1,
            armour_ar=rng.roll(6).value - 1,
            weapons=fighter("x").sheet.weapons,
        )
        s = gm.add_combatant(s, cid, sh, side="party" if pc else "foes", distance=i, is_pc=pc).state
    return s


ACTIONS = [
    lambda t, n: PlannedAction("attack", target=t, called=n % 2 == 0),
    lambda t, n: PlannedAction("defend", stance=("block", "parry", "dodge")[n % 3], total=n % 4 == 0),
    lambda t, n: PlannedAction(
        "grapple",
        move=("start", "contest", "throw", "pin", "takedown", "release")[n % 6],
        target=t,
        storeys=n % 4,
    ),
    lambda t, n: PlannedAction("heal", target=t),
    lambda t, n: PlannedAction("move", distance=n % 8, leave_melee=n % 2 == 1),
    lambda t, n: PlannedAction("disengage", target=t),
    lambda t, n: PlannedAction("stealth", light=("normal", "dim", "daylight")[n % 3]),
    lambda t, n: PlannedAction("free", note="shout"),
    lambda t, n: PlannedAction("check", stat="charisma"),
    lambda t, n: PlannedAction("death_save", stat=("charisma", "perception")[n % 2]),
    lambda t, n: PlannedAction("reroll_initiative"),
]

ops = st.lists(
    st.tuples(st.integers(0, 9), st.integers(0, len(IDS) - 1), st.integers(0, 40)), min_size=5, max_size=30
)


def step(s: D6State, op: int, target: str, n: int, dice, house) -> Outcome[D6State]:
    who = s.current or IDS[0]
    if op <= 2:
        return turns.declare(s, who, ACTIONS[n % len(ACTIONS)](target, n))
    if op == 3:
        return turns.lock_in(s, who, dice, house)
    if op == 4:
        return turns.end_turn(s, who, dice)
    if op == 5:
        return gm.gm_damage(s, target, n % 15, house)
    if op == 6:
        return gm.gm_heal(s, target, n % 10)
    if op == 7:
        return attacks.attack(
            s, IDS[n % len(IDS)], target, dice, house, called=n % 3 == 0, backstab=n % 5 == 0
        )
    if op == 8:
        return grapples.grapple_action(
            s,
            ("start", "contest", "throw", "pin", "takedown", "release")[n % 6],
            IDS[n % len(IDS)],
            target,
            dice,
            house,
            storeys=n % 3,
        )
    return gm.new_instance(s)


@settings(derandomize=True, max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 10_000), ops=ops, npc_gasp=st.booleans(), explode=st.sampled_from(["halved", "full"])
)
def test_random_operation_sequences_keep_every_invariant(seed, ops, npc_gasp, explode):
    house = HouseRules(
        npc_last_gasp=npc_gasp, explode=explode, wild_one="drop" if seed % 2 else "complication"
    )
    dice = RandomDice(seed)
    s = gm.begin(encounter(seed), dice, house, attackers="foes", surprise=seed % 11).state
    for op, t, n in ops:
        before = s
        snapshot = before.to_dict()
        try:
            out = step(s, op, IDS[t], n, dice, house)
        except RulesError:
            assert before.to_dict() == snapshot
            continue
        s = out.state
        assert before.to_dict() == snapshot  # the input was never changed
        for g in s.grapples:
            assert -3 <= g.counter <= 3
            assert not g.pinned or abs(g.counter) == 3 or g.pin_damage >= 0
        assert s.heal_pool.remaining >= 0 and s.heal_pool.uses >= 0
        for c in s.combatants:
            moved = sum(-e.amount for e in out.events if isinstance(e, DamageApplied) and e.target == c.id)
            moved += sum(e.applied for e in out.events if isinstance(e, HealApplied) and e.target == c.id)
            assert c.hp - before.get(c.id).hp == moved
            assert c.hp <= c.sheet.hp_max
        assert D6State.from_dict(s.to_dict()) == s
        json.dumps([e.to_dict() for e in out.events])  # every event is loggable
        if s.order:
            assert set(s.order) <= {c.id for c in s.combatants}


@settings(derandomize=True, max_examples=60, deadline=None)
@given(
    people=st.lists(
        st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 4), st.integers(1, 3)),
        min_size=1,
        max_size=8,
    ),
    seed=st.integers(0, 1000),
    attackers=st.sampled_from(["", "a", "b"]),
)
def test_initiative_order_is_a_permutation_of_the_combatants(people, seed, attackers):
    s = state_of(
        *(fighter(f"c{i}", side, dist, perception=f"{p}D") for i, (side, dist, p) in enumerate(people))
    )
    out = roll_initiative(s, RandomDice(seed), HouseRules(), attackers=attackers, surprise=3)
    assert sorted(out.state.order) == sorted(c.id for c in s.combatants)
    totals = [out.state.get(cid).initiative for cid in out.state.order]
    assert totals == sorted(totals, reverse=True)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), hp=st.integers(-30, 20), amounts=st.lists(st.integers(0, 12), max_size=8))
def test_heal_pool_never_negative_under_downs_and_ups(seed, hp, amounts):
    s = encounter(seed)
    s = dataclasses.replace(s, heal_pool=dataclasses.replace(s.heal_pool, uses=5))
    house = HouseRules()
    for i, amount in enumerate(amounts):
        target = IDS[i % 3]
        if s.get(target).status == "dead":
            continue
        s = (gm.gm_damage if i % 2 == 0 else lambda st_, t, a, h: gm.gm_heal(st_, t, a))(
            s, target, amount, house
        ).state
        assert s.heal_pool.remaining >= 0
