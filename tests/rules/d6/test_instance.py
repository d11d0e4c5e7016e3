"""Instances across encounters (RULES.md §4): the heal pool and each PC's HP and Last Gasp state carry over;
`/gm instance` refills the pool and leaves HP as it is. The seed's Markarth example across two rooms."""

import pytest

from rules.errors import NotAllowed
from rules.systems.d6.events import CarriedIn
from rules.systems.d6.instance import Carried, Instance, enter, next_instance, record, resume
from rules.systems.d6.state import HealPool, LastGasp

from .helpers import only
from .test_table import SYSTEM, act, call, npc, pc

KEYS = {"Eva": "char-1", "Markarth": "char-2", "Orn": "char-3"}


def party():
    return (
        pc("Eva", intellect="3D", healing_level=1),
        pc("Markarth", restoration_level=1, hp_max=12),
        pc("Orn", hp_max=10),
    )


def room(instance, *entries, init, keys=KEYS):
    """A new encounter in ``instance``: the pool resumed, each PC entering as the instance left it."""
    state = resume(SYSTEM.new_state(), instance)
    for cid, s, side, is_pc in entries:
        state = SYSTEM.add_combatant(state, cid, s, side=side, distance=0, is_pc=is_pc, house=None).state
        if cid in keys:
            state = enter(state, cid, instance.carried(keys[cid])).state
    return call(SYSTEM.begin, state, script=init, attackers=None, surprise=0).state


def test_seed_markarth_across_two_rooms_of_one_instance():
    # Room 1: (1 healing + 1 restoration) / 3 rounds up to one extra heal: 2 in all.
    state = room(Instance(), *party(), npc("Thrall"), init=[5, 1, 2, 3])
    assert SYSTEM.tracker(state).heal_pool.size == 2
    state = call(SYSTEM.gm_damage, state, "Orn", 6, None).state  # Orn 10 → 4
    # The party heals Orn before the next room: Intellect 3D 4 + 4 + 4 = 12 → 1D: 3.
    state = act(state, "heal", "Eva", [4, 4, 4, 3], target="Orn", lock=True).state
    assert state.get("Orn").hp == 7 and state.heal_pool.uses == 1
    left = record(Instance(), state, KEYS)
    assert left.carried("char-3") == Carried(7, name="Orn") and left.heal_pool.uses == 1
    # Room 2, same instance: Orn enters at 7, one heal is left, thinking there is another to use.
    state = room(left, *party(), npc("Thrall"), init=[5, 1, 2, 3])
    assert state.get("Orn").hp == 7
    pool = SYSTEM.tracker(state).heal_pool
    assert (pool.size, pool.used, pool.instance) == (2, 1, 1)
    # Markarth is mauled to −3: his restoration no longer counts, 1/3 rounds to 0, no heal is left.
    state = call(SYSTEM.gm_damage, state, "Markarth", 15, None).state
    assert state.get("Markarth").hp == -3 and state.heal_pool.capacity == 1
    with pytest.raises(NotAllowed, match="no heals left this instance"):
        act(state, "heal", "Eva", target="Markarth")
    carried = record(left, state, KEYS).carried("char-2")
    assert carried == Carried(-3, LastGasp(), name="Markarth")


def test_last_gasp_state_and_stored_healing_carry_over_but_not_an_owed_save():
    state = room(Instance(), pc("Orn", hp_max=10), npc("Thug"), init=[2, 5])
    state = call(SYSTEM.gm_damage, state, "Orn", 12, None).state
    state = call(SYSTEM.end_turn, state, "Thug").state  # Orn's first Last Gasp turn: save owed
    state = state.update("Orn", last_gasp=LastGasp(1, 4, False, True))
    left = record(Instance(), state, {"Orn": "orn"})
    assert left.carried("orn") == Carried(-2, LastGasp(rounds=1, stored_healing=4), name="Orn")
    again = room(left, pc("Orn", hp_max=10), npc("Thug"), init=[2, 5], keys={"Orn": "orn"})
    orn = again.get("Orn")
    assert (orn.hp, orn.prone, orn.last_gasp) == (-2, True, LastGasp(1, 4))
    # Its next turn is its second Last Gasp turn: −1D.
    turn = call(SYSTEM.end_turn, again, "Thug").state
    assert turn.get("Orn").last_gasp.rounds == 2


def test_entering_reports_what_was_carried_and_caps_hp_at_the_sheet_max():
    state = SYSTEM.add_combatant(
        SYSTEM.new_state(), "Orn", pc("Orn", hp_max=10)[1], side="party", distance=0, is_pc=True, house=None
    ).state
    out = enter(state, "Orn", Carried(14))
    assert out.state.get("Orn").hp == 10
    shown = only(out.events, CarriedIn)
    assert (shown.hp, shown.hp_max, shown.last_gasp_round, shown.dead) == (10, 10, None, False)
    assert enter(state, "Orn", None).state == state
    dead = enter(state, "Orn", Carried(-11, None, True)).state.get("Orn")
    assert dead.status == "dead"


def test_a_new_instance_refills_the_pool_and_keeps_hp():
    instance = Instance(3, HealPool(capacity=2, uses=2, items=1), (("orn", Carried(4)),))
    after = next_instance(instance)
    assert (after.number, after.heal_pool, after.party) == (4, HealPool(2, 0, 1), instance.party)


def test_an_instance_round_trips_through_its_stored_form():
    instance = Instance(
        2, HealPool(3, 1, 1), (("a", Carried(-2, LastGasp(2, 5, True))), ("b", Carried(-30, None, True)))
    )
    assert Instance.from_dict(instance.to_dict()) == instance
    assert Instance.from_dict({}) == Instance()


def test_the_adapter_keeps_the_instance_in_its_stored_form_and_shows_it():
    state = room(Instance(), *party(), npc("Thrall"), init=[5, 1, 2, 3])
    state = call(SYSTEM.gm_damage, state, "Markarth", 15, None).state
    stored = SYSTEM.instance_record(None, state, KEYS)
    assert SYSTEM.instance_lines(stored) == (
        "instance 1: heal pool 1 of 1 left (0 used)",
        "Eva: 20 HP",
        "Markarth: −3 HP, in Last Gasp (0 turns so far), stored healing 0",
        "Orn: 10 HP",
    )
    after, said = SYSTEM.instance_next(stored)
    assert said[0].startswith("instance 2: heal pool") and Instance.from_dict(after).party == (
        Instance.from_dict(stored).party
    )
    fresh = SYSTEM.instance_resume(SYSTEM.new_state(), after)
    assert (fresh.instance, fresh.heal_pool.uses) == (2, 0)
    joined = SYSTEM.add_combatant(
        fresh, "M", party()[1][1], side="party", distance=0, is_pc=True, house=None
    ).state
    entered = SYSTEM.instance_enter(joined, "M", after, "char-2").state
    assert entered.get("M").hp == -3 and entered.get("M").in_last_gasp
