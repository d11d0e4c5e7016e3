"""Nyra's action commands through ``SYSTEM`` only (the actions of ``rules.encounter.System``), as the Discord layer calls
them, with exact scripted dice (a missing or a leftover die fails the test)."""

import pytest

from rules.dice import ScriptedDice
from rules.encounter import ACTION_KINDS, Action, System
from rules.errors import InvalidInput, NotAllowed, NotFound
from rules.systems.nyra.adapter import SYSTEM

HOUSE = SYSTEM.default_house()


def seed_sheet(name: str, skills: dict, sequence: int, weapons=("Short Sword",)):
    raw = {
        "name": name,
        "stats": {"STR": 7, "AGI": 6, "CON": 6},
        "skills": skills,
        "sequence": sequence,
        "weapons": list(weapons),
    }
    return SYSTEM.sheet_from_dict(raw)


def call(method, *args, script=(), house=HOUSE, **kw):
    with ScriptedDice(script) as dice:
        return method(*args, dice, house, **kw)


def act(state, script=(), house=HOUSE, **fields):
    return call(SYSTEM.act, state, Action(**fields), script=script, house=house)


def duel(house=HOUSE, d2_weapons=("Short Sword",), d2_skills=None):
    """The seed's duel: Duelist 2 (Defense 5, Sequence 4) entered first, stance defense; Duelist 1 (Swords 7,
    Dodge 5, Sequence 5) acts first with a Short Sword."""
    state = SYSTEM.new_state()
    entries = (
        ("d2", seed_sheet("Duelist 2", d2_skills or {"Swords": 7, "Defense": 5}, 4, d2_weapons)),
        ("d1", seed_sheet("Duelist 1", {"Swords": 7, "Dodge": 5}, 5)),
    )
    for cid, sheet in entries:
        state = SYSTEM.add_combatant(state, cid, sheet, side=cid, distance=0, is_pc=True, house=house).state
    state = call(SYSTEM.begin, state, script=(), house=house, attackers=None, surprise=0).state
    return act(state, house=house, kind="defend", actor="d2", stance="defense").state


def kinds(out):
    return [e.kind for e in out.events]


def first(out, kind):
    return next(e for e in out.events if e.kind == kind)


def location(state, cid, where):
    row = next(c for c in SYSTEM.tracker(state).order if c.id == cid)
    return next(loc for loc in row.locations if loc.location == where)


# Seed dice: attacker d10 3, defender d10 4, location d6 3 (Left Arm), damage 3d6: 3, 4, 2.
WILD_CLEAVE = [(10, 3), (10, 4), (6, 3), (6, 3), (6, 4), (6, 2)]


def after_wild_cleave():
    return act(duel(), WILD_CLEAVE, kind="attack", actor="d1", target="d2", damage_type="C").state


# --- protocol -------------------------------------------------------------------------------------------
def test_the_nyra_system_implements_the_actions_protocol():
    assert isinstance(SYSTEM, System)


def test_defend_out_of_turn_sets_the_standing_stance():
    state = duel()
    assert SYSTEM.state_to_dict(state)["combatants"][0]["stance"] == "defense"
    assert "stance defense" in next(c for c in SYSTEM.tracker(state).order if c.id == "d2").conditions
    out = act(state, kind="defend", actor="d2", stance="auto")
    assert kinds(out) == ["StanceSet"] and out.state.get("d2").stance is None
    assert out.state.current_id == "d1"  # the turn did not move


def test_defend_before_the_fight_begins_and_without_a_stance():
    state = SYSTEM.add_combatant(
        SYSTEM.new_state(),
        "d1",
        seed_sheet("Duelist 1", {"Dodge": 5}, 5),
        side="a",
        distance=0,
        is_pc=True,
        house=HOUSE,
    ).state
    assert act(state, kind="defend", actor="d1", stance="Dodge").state.get("d1").stance == "dodge"
    with pytest.raises(InvalidInput, match="dodge, defense or auto"):
        act(state, kind="defend", actor="d1")
    with pytest.raises(InvalidInput, match="not a stance"):
        act(state, kind="defend", actor="d1", stance="parry")


# --- the seed duel, end to end ----------------------------------------------------------------------------
def test_seed_wild_cleaving_strike_hits_the_left_arm_for_12_and_the_turn_goes_on():
    state = duel()
    key = SYSTEM.turn(state).key
    out = act(state, WILD_CLEAVE, kind="attack", actor="d1", target="d2", damage_type="C")
    contest = first(out, "ContestRolled")
    assert (contest.attack.margin, contest.reaction_skill, contest.reaction.margin) == (4, "Defense", 1)
    assert first(out, "StrikeResolved").result == "hit"
    assert first(out, "LocationRolled").location == "Left Arm"
    damage = first(out, "DamageRolled")
    assert (damage.rolled_total, damage.dealt) == (9, 12)  # 3 + 4 + 2 + STR mod 3
    view = location(out.state, "d2", "Left Arm")
    assert (view.damage, view.state) == (12, "slight")
    # Delay 6 − 3 = 3: a second strike is affordable, the turn stays with Duelist 1.
    assert out.state.get("d1").delay_pool == 3
    assert "TurnEnded" not in kinds(out)
    assert SYSTEM.turn(out.state).key == key and SYSTEM.turn(out.state).actors == ("d1",)
    assert SYSTEM.allowed_actions(out.state, "d1") == ("attack", "move", "defend")
    assert "Duelist 1: delay 3 of 6" in SYSTEM.tracker(out.state).notes


def test_seed_aimed_slash_at_the_head_is_defended_and_the_defense_passes_the_turn():
    state = after_wild_cleave()
    key = SYSTEM.turn(state).key
    out = act(state, [2, 2], kind="attack", actor="d1", target="Duelist 2", damage_type="slash", aim="head")
    declared = first(out, "StrikeDeclared")
    assert (declared.mode, declared.aimed_at, declared.damage_type) == ("aimed", "Head", "S")
    contest = first(out, "ContestRolled")
    assert (contest.attack.effective, contest.attack.margin, contest.reaction.margin) == (3, 1, 3)
    assert first(out, "StrikeResolved").result == "defended"
    assert "DamageRolled" not in kinds(out)
    assert first(out, "TurnEnded").reason == "defense ended the volley"
    started = first(out, "TurnStarted")
    assert (started.combatant, started.delay_pool, started.bleeding) == ("d2", 6, 0)
    status = SYSTEM.turn(out.state)
    assert status.key != key and status.actors == ("d2",)
    assert (
        location(out.state, "d2", "Left Arm").damage == 12 and location(out.state, "d2", "Head").damage == 0
    )
    assert SYSTEM.allowed_actions(out.state, "d1") == ("defend",)
    assert SYSTEM.allowed_actions(out.state, "d2") == ("attack", "move", "defend")


def test_seed_variant_aimed_roll_4_misses_and_the_spent_delay_ends_the_turn():
    state = after_wild_cleave()
    key = SYSTEM.turn(state).key
    out = act(state, [4], kind="attack", actor="d1", target="d2", damage_type="S", aim="Head")
    assert first(out, "StrikeResolved").result == "miss"
    assert first(out, "ContestRolled").reaction is None  # no defender die after a miss
    assert "VolleyEnded" not in kinds(out)
    assert first(out, "TurnEnded").reason == "delay spent"
    assert SYSTEM.turn(out.state).key != key and SYSTEM.turn(out.state).actors == ("d2",)


def test_seed_variant_a_first_strike_defense_block_ends_the_volley_at_once():
    out = act(duel(), [5, 2], kind="attack", actor="d1", target="d2", damage_type="C")
    assert first(out, "StrikeResolved").result == "defended"
    assert first(out, "VolleyEnded").delay_lost == 3
    ended = first(out, "TurnEnded")
    assert (ended.combatant, ended.reason) == ("d1", "defense ended the volley")
    assert SYSTEM.turn(out.state).actors == ("d2",)


def test_after_the_volley_ends_the_next_turn_starts_with_its_bleeding():
    state = call(SYSTEM.gm_set, duel(), "d2", "left arm damage", "14")  # past slight 13: serious
    state = state.state
    out = act(state, [5, 2], kind="attack", actor="d1", target="d2", damage_type="C")
    assert kinds(out)[-3:] == ["TurnEnded", "TurnStarted", "LocationDamaged"]
    assert first(out, "TurnStarted").bleeding == 1
    bled = first(out, "LocationDamaged")
    assert (bled.location, bled.source) == ("Left Arm", "bleeding")
    assert location(out.state, "d2", "Left Arm").damage == 15


def test_without_auto_end_the_volley_end_keeps_the_turn_and_refuses_further_strikes():
    house = HOUSE.__class__(auto_end_turn="never")
    state = act(
        duel(house), [5, 2], house=house, kind="attack", actor="d1", target="d2", damage_type="C"
    ).state
    assert SYSTEM.turn(state).actors == ("d1",) and "volley ended by a Defense" in SYSTEM.tracker(state).notes
    with pytest.raises(NotAllowed, match="Defense ended"):
        act(state, house=house, kind="attack", actor="d1", target="d2", damage_type="C")


def test_bonus_adds_to_the_effective_skill():
    # Swords 7 + 2 = 9: a 9 still hits (margin 0) against a Defense roll of 10 (a failure).
    out = act(duel(), [9, 10, 1, 1, 1, 1], kind="attack", actor="d1", target="d2", damage_type="C", bonus=2)
    contest = first(out, "ContestRolled")
    assert (contest.attack.effective, contest.attack.success) == (9, True)
    assert first(out, "StrikeResolved").result == "hit"
    assert location(out.state, "d2", "Head").damage == 6  # 1+1+1 + STR mod 3


def test_grip_is_noted_as_meaningless_in_nyra():
    out = act(duel(), [5, 2], kind="attack", actor="d1", target="d2", damage_type="C", grip="2h")
    assert kinds(out)[0] == "Note" and "grip" in out.events[0].text


def test_a_weapon_with_one_damage_type_needs_no_type():
    club = {"name": "Cudgel", "skill": "Clubs", "modifier": "STR", "delay": 2, "damage": {"B": "1d6"}}
    state = duel(d2_weapons=[club], d2_skills={"Clubs": 7, "Defense": 5})
    state = call(SYSTEM.end_turn, state, "d1").state  # Duelist 2's turn
    # Clubs 7: 3 is 4 under; Duelist 1 dodges (its higher reaction) with 4, 1 under: a hit on the Chest.
    out = act(state, [3, 4, (6, 2), (6, 5)], kind="attack", actor="d2", target="d1", weapon="cudgel")
    assert first(out, "ContestRolled").reaction_skill == "Dodge"
    declared = first(out, "StrikeDeclared")
    assert (declared.weapon, declared.damage_type) == ("Cudgel", "B")
    assert location(out.state, "d1", "Chest").damage == 8  # 5 + STR mod 3


def test_the_weapon_defaults_to_the_first_carried():
    out = act(duel(), [5, 2], kind="attack", actor="d1", target="d2", damage_type="C (Cleaving)")
    assert first(out, "StrikeDeclared").weapon == "Short Sword"


# --- move ---------------------------------------------------------------------------------------------------
def test_a_move_without_cost_is_free_and_recorded():
    state = duel()
    out = act(state, kind="move", actor="d1", distance=5)
    spent = first(out, "DelaySpent")
    assert (spent.action, spent.cost, spent.delay_before, spent.delay_after) == ("move 5", 0, 6, 6)
    assert SYSTEM.turn(out.state).key == SYSTEM.turn(state).key


def test_a_move_spends_its_cost_and_spending_the_rest_ends_the_turn():
    state = after_wild_cleave()
    out = act(state, kind="move", actor="d1", cost=3)
    assert first(out, "DelaySpent").delay_after == 0
    assert first(out, "TurnEnded").reason == "delay spent"
    assert SYSTEM.turn(out.state).actors == ("d2",)


def test_a_move_cost_above_the_pool_is_refused():
    state = after_wild_cleave()
    before = SYSTEM.state_to_dict(state)
    with pytest.raises(NotAllowed, match="3 delay left"):
        act(state, kind="move", actor="d1", cost=4)
    with pytest.raises(InvalidInput, match="negative"):
        act(state, kind="move", actor="d1", cost=-1)
    assert SYSTEM.state_to_dict(state) == before


# --- refusals change nothing ---------------------------------------------------------------------------------
REFUSALS = [
    (NotAllowed, "not Duelist 2's turn", dict(kind="attack", actor="d2", target="d1", damage_type="C")),
    (NotAllowed, "not Duelist 2's turn", dict(kind="move", actor="d2", cost=1)),
    (NotAllowed, "cannot attack itself", dict(kind="attack", actor="d1", target="d1", damage_type="C")),
    (InvalidInput, "Name the combatant", dict(kind="attack", actor="d1", damage_type="C")),
    (NotFound, "No combatant `Nobody`", dict(kind="attack", actor="d1", target="Nobody", damage_type="C")),
    (
        NotFound,
        "carries no `Claymore`. Weapons: Short Sword",
        dict(kind="attack", actor="d1", target="d2", weapon="Claymore", damage_type="C"),
    ),
    (
        NotAllowed,
        r"no Blunt damage \(N/A\). Choose one of: P \(Piercing\), S \(Slashing\), C \(Cleaving\)",
        dict(kind="attack", actor="d1", target="d2", damage_type="B"),
    ),
    (
        InvalidInput,
        r"Choose a damage type for the Short Sword: P \(Piercing\), S \(Slashing\), C \(Cleaving\)",
        dict(kind="attack", actor="d1", target="d2"),
    ),
    (InvalidInput, "not a damage type", dict(kind="attack", actor="d1", target="d2", damage_type="fire")),
    (
        NotFound,
        "Duelist 2 has no location `Tail`. Aim at one of: Head, Chest, Left Arm, Right Arm, Left Leg, Right Leg",
        dict(kind="attack", actor="d1", target="d2", damage_type="S", aim="Tail"),
    ),
    (
        InvalidInput,
        "between -20 and",
        dict(kind="attack", actor="d1", target="d2", damage_type="C", bonus=21),
    ),
    (
        NotAllowed,
        "There is no grappling in Nyra;",
        dict(kind="grapple", actor="d1", target="d2", grapple="start"),
    ),
    (NotAllowed, "There is no heal pool in Nyra;", dict(kind="heal", actor="d1", target="d2")),
    (NotAllowed, "There are no death saves in Nyra;", dict(kind="deathsave", actor="d1", stat="charisma")),
    (NotAllowed, "There is no disengage roll in Nyra;", dict(kind="disengage", actor="d1", target="d2")),
    (NotAllowed, "There is no stealth action in Nyra;", dict(kind="stealth", actor="d1", light="dim")),
    (NotAllowed, "There is no initiative re-roll in Nyra;", dict(kind="reroll", actor="d1")),
    (NotAllowed, "There is no lock-in in Nyra;", dict(kind="lockin", actor="d1", lock=True)),
    (InvalidInput, "Unknown action `dance`", dict(kind="dance", actor="d1")),
]


@pytest.mark.parametrize(("error", "message", "fields"), REFUSALS)
def test_refusals_change_nothing(error, message, fields):
    state = duel()
    before = SYSTEM.state_to_dict(state)
    with pytest.raises(error, match=message):
        act(state, **fields)  # no die may be drawn either: the script is empty
    assert SYSTEM.state_to_dict(state) == before


def test_every_action_kind_nyra_lacks_is_refused_with_its_own_sentence():
    state = duel()
    reasons = set()
    for kind in ACTION_KINDS:
        if kind in {"attack", "defend", "move"}:
            continue
        with pytest.raises(NotAllowed) as caught:
            act(state, kind=kind, actor="d1")
        reason = caught.value.reason
        assert reason.startswith("There ") and "Nyra" in reason and reason.count(".") == 1
        reasons.add(reason)
    assert len(reasons) == 7


def test_acting_before_the_fight_begins_is_refused():
    state = SYSTEM.add_combatant(
        SYSTEM.new_state(),
        "d1",
        seed_sheet("Duelist 1", {}, 5),
        side="a",
        distance=0,
        is_pc=True,
        house=HOUSE,
    ).state
    for kind in ("attack", "move"):
        with pytest.raises(NotAllowed, match="not begun"):
            act(state, kind=kind, actor="d1", target="d1")
    assert SYSTEM.allowed_actions(state, "d1") == ("defend",)


def test_a_dead_target_is_refused():
    state = call(SYSTEM.gm_damage, duel(), "d2", 100, "Head").state
    with pytest.raises(NotAllowed, match="already dead"):
        act(state, kind="attack", actor="d1", target="d2", damage_type="C")


# --- choices and allowed actions --------------------------------------------------------------------------------
def test_choices_for_weapon_type_aim_and_stance():
    state = duel(d2_weapons=("Nodachi", "Short Sword"))
    blank = Action(kind="attack", actor="d2")
    assert SYSTEM.choices(state, "d2", "weapon", blank) == ("Nodachi", "Short Sword")
    assert SYSTEM.choices(state, "d2", "type", blank) == ("P", "S")  # the first weapon, Nodachi
    sword = Action(kind="attack", actor="d2", weapon="short sword")
    assert SYSTEM.choices(state, None, "type", sword) == ("P", "S", "C")
    aimed = Action(kind="attack", actor="d2", target="Duelist 1")
    assert SYSTEM.choices(state, "d2", "aim", aimed) == (
        "Head",
        "Chest",
        "Left Arm",
        "Right Arm",
        "Left Leg",
        "Right Leg",
    )
    assert SYSTEM.choices(state, "d2", "stance", Action(kind="defend", actor="d2")) == (
        "dodge",
        "defense",
        "auto",
    )


def test_choices_never_raise():
    state = duel()
    assert SYSTEM.choices(state, "d1", "aim", Action(kind="attack", actor="d1")) == ()  # no target yet
    assert SYSTEM.choices(state, "d1", "aim", Action(kind="attack", actor="d1", target="ghost")) == ()
    assert SYSTEM.choices(state, "ghost", "weapon", Action(kind="attack", actor="ghost")) == ()
    assert SYSTEM.choices(state, None, "weapon", Action(kind="attack", actor="")) == ()
    assert SYSTEM.choices(state, "d1", "type", Action(kind="attack", actor="d1", weapon="Claymore")) == ()
    assert SYSTEM.choices(state, "d1", "into", Action(kind="grapple", actor="d1")) == ()
    assert SYSTEM.choices(SYSTEM.new_state(), "d1", "weapon", Action(kind="attack", actor="d1")) == ()


def test_allowed_actions_follow_the_turn():
    state = duel()
    assert SYSTEM.allowed_actions(state, "d1") == ("attack", "move", "defend")
    assert SYSTEM.allowed_actions(state, "d2") == ("defend",)
    assert SYSTEM.allowed_actions(state, "ghost") == ()
