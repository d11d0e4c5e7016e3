"""Kaernest actions through the system-agnostic adapter (the actions of rules.encounter.System), scripted dice throughout."""

import pytest

from rules.dice import ScriptedDice
from rules.encounter import Action, System
from rules.errors import InvalidInput, NotAllowed, NotFound
from rules.systems.kaernest.adapter import SYSTEM
from rules.systems.kaernest.adapter_actions import CALLED_SHOT_LOCATIONS

from .helpers import HOUSE, fighter, kinds

K = SYSTEM


def izuki(**fields):
    """Instinct 5: a d12 of 12 makes initiative 17 (the seed's Izuki)."""
    fields.setdefault("weapons", ("Sword, Bastard", "Sword, Short", "Club, War"))
    fields.setdefault("instinct", 5)
    return fighter("Izuki", grace=6, skills={"Swords": 5}, **fields)


def andretti(**fields):
    """The seed's Andretti: Grace 7, Clubs/Maces 7, a war club."""
    fields.setdefault("weapons", ("Club, War",))
    return fighter("Andretti", grace=7, skills={"Clubs/Maces": 7, "Parry": 4}, **fields)


def begun(entries, script):
    """``entries``: (id, sheet) in entry order, all PCs (each draws its initiative d12 from ``script``)."""
    state = K.new_state()
    for cid, sheet in entries:
        state = K.add_combatant(state, cid, sheet, side=cid, distance=0, is_pc=True, house=HOUSE).state
    with ScriptedDice(script) as dice:
        return K.begin(state, dice, HOUSE, attackers=None, surprise=0).state


def duel():
    """Izuki 12 + 5 = 17, Andretti 8 + 4 = 12: Izuki declares first, at 17."""
    return begun([("izuki", izuki()), ("andretti", andretti(instinct=4))], [12, 8])


def act(state, script=(), **fields):
    with ScriptedDice(script) as dice:
        return K.act(state, Action(**fields), dice, HOUSE)


def row(state, cid):
    return next(c for c in K.tracker(state).order if c.id == cid)


def test_the_adapter_implements_the_actions_protocol():
    assert isinstance(SYSTEM, System)


def test_izuki_declares_at_17_and_the_attack_lands_at_8():
    state = duel()
    before = K.turn(state)
    assert (before.actors, before.label) == (("izuki",), "Minute 1, segment 17")
    out = act(state, kind="attack", actor="izuki", target="andretti")
    assert kinds(out.events) == ["ActionDeclared", "ClockAdvanced"]
    declared = out.events[0]
    assert (declared.weapon, declared.grip, declared.damage_type, declared.speed) == (
        "Sword, Bastard",
        1,
        "cut",
        9,
    )
    assert (declared.segment, declared.lands_minute, declared.lands_segment) == (17, 1, 8)
    state = out.state
    assert row(state, "izuki").pending == "attack on Andretti, lands 1:08"
    assert row(state, "izuki").next_segment == "1:08"
    turn = K.turn(state)
    assert (turn.actors, turn.label) == (("andretti",), "Minute 1, segment 12")
    assert turn.key != before.key
    assert K.tracker(state).current == ("andretti",)

    # Andretti waits a segment, then moves (GM speed 4 at 11 → 7): the clock runs to Izuki's landing at 8.
    with ScriptedDice([]) as dice:
        state = K.end_turn(state, "andretti", dice, HOUSE).state
    assert K.turn(state).label == "Minute 1, segment 11"
    # Target: Swords 5 + Grace 6 + 3 − Andretti's passive Reflex 5 = 9; 3 + 4 = 7 hits by 2.
    out = act(state, [3, 4], kind="move", actor="andretti", cost=4)
    assert kinds(out.events) == [
        "ActionDeclared",
        "ClockAdvanced",
        "AttackResolved",
        "DamageRolled",
        "DamageTaken",
    ]
    hit = out.events[2]
    assert (hit.attacker, hit.defender, hit.minute, hit.segment) == ("izuki", "andretti", 1, 8)
    assert (hit.target, hit.total, hit.hit) == (9, 7, True)
    assert [(d.label, d.value) for d in out.dice] == [("attack", 3), ("attack", 4)]
    assert out.events[3].total == 9  # Muscle 5/2 = 2 + cut 7, no armour
    state = out.state
    turn = K.turn(state)
    assert (turn.actors, turn.label) == (("izuki",), "Minute 1, segment 8")
    assert row(state, "izuki").pending is None
    assert row(state, "andretti").pending == "move, lands 1:07"
    assert row(state, "andretti").damage == 9


def test_a_speed_9_attack_declared_at_5_lands_at_26_of_minute_2():
    state = begun(
        [("x", izuki(instinct=3)), ("y", andretti(instinct=1))], [2, 2]
    )  # x: 2 + 3 = 5, y: 2 + 1 = 3
    assert K.turn(state).label == "Minute 1, segment 5"
    out = act(state, kind="attack", actor="x", target="y", weapon="sword, bastard", grip="1h")
    declared = out.events[0]
    assert (declared.speed, declared.lands_minute, declared.lands_segment) == (9, 2, 26)
    assert row(out.state, "x").pending == "attack on Andretti, lands 2:26"
    assert row(out.state, "x").next_segment == "2:26"
    assert K.turn(out.state).actors == ("y",) and K.turn(out.state).label == "Minute 1, segment 3"


def interrupt_setup():
    """Izuki 17, Mico 6 + 2 = 8, Andretti 2 + 1 = 3 with Reflex 6 and Parry 4 (active defense at 10)."""
    return begun(
        [
            ("izuki", izuki()),
            ("mico", fighter("Mico", instinct=2)),
            ("andretti", andretti(instinct=1, reflex=6)),
        ],
        [12, 6, 2],
    )


def test_an_active_defense_interrupts_and_the_next_defense_is_at_minus_1():
    state = interrupt_setup()
    # Off its segment, /defend active is a change of posture; the turn does not pass.
    key = K.turn(state).key
    out = act(state, kind="defend", actor="andretti", stance="active")
    assert kinds(out.events) == ["PostureChanged"] and out.state.get("andretti").posture == "active"
    assert K.turn(out.state).key == key and "active" in row(out.state, "andretti").conditions
    # Izuki's short sword (speed 5) lands at 12: Andretti's active 4 + 4 ≤ 10 first, and it interrupts, so
    # the attack's dice are not drawn (RULES.md §4).
    out = act(out.state, [4, 4], kind="attack", actor="izuki", target="andretti", weapon="Sword, Short")
    assert kinds(out.events) == [
        "ActionDeclared",
        "ClockAdvanced",
        "ActiveDefenseRolled",
        "AttackInterrupted",
        "ClockAdvanced",
    ]
    first, interrupted = out.events[2], out.events[3]
    assert first.segment == 12 and first.success
    assert (first.target, first.total) == (10, 8)
    assert [d.label for d in first.dice] == ["active defense", "active defense"]
    # Restarts at 11 with speed 5 + 1 = 6 → lands at 5; Mico owes its declaration at 8 in between.
    assert (interrupted.restart_segment, interrupted.speed, interrupted.lands_segment) == (11, 6, 5)
    state = out.state
    assert row(state, "izuki").pending == "attack on Andretti, lands 1:05"
    assert (K.turn(state).actors, K.turn(state).label) == (("mico",), "Minute 1, segment 8")

    # Mico moves (GM speed 10 → 2:28); at 5 the attack lands again. Active defense now 10 − 1 = 9:
    # 5 + 5 fails, so the passive 6 applies: target 5 + 6 + 3 − 6 = 8, and 3 + 3 hits.
    out = act(state, [5, 5, 3, 3], kind="move", actor="mico", cost=10, distance=12)
    assert kinds(out.events) == [
        "ActionDeclared",
        "ClockAdvanced",
        "ActiveDefenseRolled",
        "AttackResolved",
        "DamageRolled",
        "DamageTaken",
    ]
    assert (out.events[0].lands_minute, out.events[0].lands_segment) == (2, 28)
    second = out.events[3]
    assert (second.segment, second.interrupted, second.hit) == (5, False, True)
    assert [(m.label, m.value) for m in second.active_defense.modifiers] == [
        ("Reflex", 6),
        ("Parry", 4),
        ("earlier defenses", -1),
    ]
    assert (second.active_defense.target, second.active_defense.success) == (9, False)
    assert (second.defense, second.target) == (6, 8)
    assert [d.value for d in out.dice] == [5, 5, 3, 3]
    assert out.state.get("andretti").defenses_since_action == 2
    assert row(out.state, "mico").pending == "move 12, lands 2:28"
    assert (K.turn(out.state).actors, K.turn(out.state).label) == (("izuki",), "Minute 1, segment 5")


def test_a_called_shot_with_grip_type_and_bonus():
    state = duel()
    out = act(
        state,
        kind="attack",
        actor="izuki",
        target="andretti",
        weapon="Sword, Bastard",
        grip="2h",
        damage_type="pierce",
        aim="head",
        bonus=2,
    )
    declared = out.events[0]
    assert (declared.grip, declared.damage_type, declared.speed, declared.lands_segment) == (
        2,
        "pierce",
        7,
        10,
    )
    assert row(out.state, "izuki").pending == "attack on Andretti (head), lands 1:10"
    # Andretti moves (default speed 3 → 9); at 10: 5 + 6 + 3 + 2 − 3 (called shot) − 5 = 8; 12 + 12 misses.
    out = act(out.state, [12, 12], kind="move", actor="andretti")
    assert kinds(out.events) == ["ActionDeclared", "ClockAdvanced", "AttackResolved"]
    assert out.events[0].speed == 3
    shot = out.events[2]
    assert [(m.label, m.value) for m in shot.modifiers] == [
        ("Swords", 5),
        ("Grace", 6),
        ("simple action", 3),
        ("bonus", 2),
        ("called shot (head)", -3),
        ("Andretti's defense (passive)", -5),
    ]
    assert (shot.called_location, shot.target, shot.hit, shot.segment) == ("head", 8, False, 10)
    assert K.turn(out.state).actors == ("izuki",)


def test_defend_active_on_ones_segment_declares_a_defend_action():
    state = duel()
    out = act(state, kind="defend", actor="izuki", stance="active")
    assert kinds(out.events) == ["PostureChanged", "ActionDeclared", "ClockAdvanced"]
    declared = out.events[1]
    # The speed of the attack it holds back: the Sword, Bastard one-handed, 9 → lands at 8.
    assert (declared.action, declared.speed, declared.lands_segment) == ("defend", 9, 8)
    assert out.state.get("izuki").posture == "active"
    assert row(out.state, "izuki").pending == "defend, lands 1:08"
    assert K.turn(out.state).actors == ("andretti",)
    # A GM-set speed through ``cost``.
    out = act(state, kind="defend", actor="izuki", stance="defensive", cost=4)
    assert (out.events[1].speed, out.events[1].lands_segment) == (4, 13)


def test_the_held_defense_speeds_up_the_next_action():
    state = act(duel(), kind="defend", actor="izuki", stance="active", cost=2).state  # lands at 15
    assert K.turn(state).actors == ("izuki",) and state.segment == 15
    assert state.get("izuki").held_defensive
    out = act(state, kind="attack", actor="izuki", target="andretti")
    assert kinds(out.events) == ["PostureChanged", "ActionDeclared", "ClockAdvanced"]
    declared = out.events[1]
    assert (declared.speed, declared.lands_segment) == (8, 7)  # 9 − 1 for holding the defensive posture
    assert out.state.get("izuki").posture == "passive"


def test_passive_and_aggressive_on_ones_segment_only_change_the_posture():
    state = duel()
    key = K.turn(state).key
    out = act(state, kind="defend", actor="izuki", stance="aggressive")
    assert kinds(out.events) == ["PostureChanged"]
    assert out.state.get("izuki").posture == "aggressive"
    assert K.turn(out.state).key == key and K.turn(out.state).actors == ("izuki",)
    out = act(out.state, kind="defend", actor="izuki", stance="Passive")
    assert out.state.get("izuki").posture == "passive" and K.turn(out.state).key == key


def test_a_move_without_cost_takes_3_segments():
    out = act(duel(), kind="move", actor="izuki", distance=10)
    declared = out.events[0]
    assert (declared.action, declared.speed, declared.lands_segment, declared.description) == (
        "other",
        3,
        14,
        "move 10",
    )
    # Nobody declares before 14: the move lands within the same call and Izuki declares again there.
    assert kinds(out.events) == ["ActionDeclared", "ClockAdvanced", "ActionResolved"]
    assert out.events[2].description == "move 10" and row(out.state, "izuki").pending is None
    assert (K.turn(out.state).actors, K.turn(out.state).label) == (("izuki",), "Minute 1, segment 14")


def refused(state, error, match, script=(), **fields):
    before = K.state_to_dict(state)
    with ScriptedDice(script) as dice, pytest.raises(error, match=match):
        K.act(state, Action(**fields), dice, HOUSE)
    assert K.state_to_dict(state) == before


@pytest.mark.parametrize(
    ("fields", "error", "match"),
    [
        ({"kind": "attack", "actor": "andretti", "target": "izuki"}, NotAllowed, "Not Andretti's turn"),
        ({"kind": "move", "actor": "andretti"}, NotAllowed, "Andretti acts at minute 1, segment 12"),
        ({"kind": "defend", "actor": "andretti", "stance": "passive"}, NotAllowed, "already passive"),
        ({"kind": "attack", "actor": "izuki", "target": "izuki"}, InvalidInput, "cannot attack itself"),
        ({"kind": "attack", "actor": "izuki"}, InvalidInput, "Name the target"),
        ({"kind": "attack", "actor": "izuki", "target": "ghost"}, NotFound, "ghost"),
        ({"kind": "attack", "actor": "ghost", "target": "izuki"}, NotFound, "ghost"),
        (
            {"kind": "attack", "actor": "izuki", "target": "andretti", "weapon": "Axe, Great"},
            InvalidInput,
            r"does not carry the Axe, Great\. Carried: Sword, Bastard, Sword, Short, Club, War",
        ),
        (
            {
                "kind": "attack",
                "actor": "izuki",
                "target": "andretti",
                "weapon": "Sword, Short",
                "grip": "2h",
            },
            InvalidInput,
            "used 1h, not 2h",
        ),
        (
            {"kind": "attack", "actor": "izuki", "target": "andretti", "grip": "3h"},
            InvalidInput,
            "Use `1h` or `2h`",
        ),
        (
            {
                "kind": "attack",
                "actor": "izuki",
                "target": "andretti",
                "weapon": "Club, War",
                "damage_type": "cut",
            },
            InvalidInput,
            "does no cut damage .* It does: bludgeon, pierce",
        ),
        ({"kind": "move", "actor": "izuki", "cost": 0}, InvalidInput, "speed"),
        ({"kind": "move", "actor": "izuki", "distance": -2}, InvalidInput, "distance"),
        (
            {"kind": "defend", "actor": "izuki", "stance": "unaware"},
            InvalidInput,
            "not a stance you can take",
        ),
        ({"kind": "defend", "actor": "izuki", "stance": "sideways"}, InvalidInput, "not a posture"),
        ({"kind": "defend", "actor": "izuki"}, InvalidInput, "Choose a stance"),
        ({"kind": "dance", "actor": "izuki"}, InvalidInput, "not an action"),
    ],
)
def test_refused_actions_change_nothing(fields, error, match):
    refused(duel(), error, match, **fields)


@pytest.mark.parametrize(
    ("kind", "match"),
    [
        ("grapple", "no grappling"),
        ("heal", "`/gm heal`"),
        ("deathsave", "no death saves"),
        ("disengage", "no disengage"),
        ("stealth", "no stealth"),
        ("reroll", "rolled once per combat"),
        ("lockin", "no lock-in"),
    ],
)
def test_actions_kaernest_does_not_have_are_refused(kind, match):
    refused(duel(), NotAllowed, f"^Kaernest .*{match}", kind=kind, actor="izuki", target="andretti")


def test_actions_before_begin_are_refused():
    state = K.add_combatant(
        K.new_state(), "izuki", izuki(), side="p", distance=0, is_pc=True, house=HOUSE
    ).state
    refused(state, NotAllowed, "not begun", kind="defend", actor="izuki", stance="active")
    assert K.allowed_actions(state, "izuki") == ()


def test_no_active_defense_while_ones_own_attack_is_under_way():
    state = act(duel(), kind="attack", actor="izuki", target="andretti").state
    refused(state, NotAllowed, "Izuki is attacking", kind="defend", actor="izuki", stance="active")
    out = act(state, kind="defend", actor="izuki", stance="aggressive")  # the other stances are fine
    assert out.state.get("izuki").posture == "aggressive"


def test_an_unaware_combatant_takes_no_stance_before_its_segment():
    state = duel()
    state = K.gm_condition(state, "andretti", "unaware", False, HOUSE).state
    refused(state, NotAllowed, "unaware", kind="defend", actor="andretti", stance="active")
    assert K.allowed_actions(state, "andretti") == ()


def test_allowed_actions():
    state = duel()
    assert K.allowed_actions(state, "izuki") == ("attack", "defend", "move")
    assert K.allowed_actions(state, "andretti") == ("defend",)
    assert K.allowed_actions(state, "ghost") == ()
    knocked = K.gm_damage(state, "andretti", 21, None, ScriptedDice([]), HOUSE).state  # > 4 × Health 5
    assert K.allowed_actions(knocked, "andretti") == ()
    unarmed = begun([("izuki", izuki(weapons=())), ("andretti", andretti(instinct=4))], [12, 8])
    # RULES.md §4: bare hands need no weapon on the sheet (speed: house unarmed_speed, 4).
    assert K.allowed_actions(unarmed, "izuki") == ("attack", "defend", "move")
    out = act(unarmed, [12, 12], kind="attack", actor="izuki", target="andretti")  # lands at 15: a miss
    assert (out.events[0].weapon, out.events[0].speed) == ("Unarmed", 4)


def test_choices():
    state = duel()

    def choices(option, actor="izuki", **fields):
        return K.choices(state, actor, option, Action(kind="attack", actor=actor or "", **fields))

    assert choices("weapon") == ("Sword, Bastard", "Sword, Short", "Club, War")
    assert choices("weapon", actor="andretti") == ("Club, War",)
    assert choices("grip") == ("1h", "2h")  # the first carried weapon
    assert choices("grip", weapon="Sword, Short") == ("1h",)
    assert choices("grip", weapon="Axe, Great") == ("2h",)
    assert choices("type") == ("bludgeon", "cut", "pierce", "slash")
    assert choices("type", weapon="Club, War", grip="2h") == ("bludgeon", "pierce")
    assert choices("type", weapon="Dagger/Knife") == ("cut", "pierce", "slash")
    assert choices("stance") == ("passive", "active", "aggressive")
    assert choices("aim") == CALLED_SHOT_LOCATIONS and {"head", "chest", "arms", "legs"} <= set(
        choices("aim")
    )
    assert choices("into") == () and choices("target") == ()
    # Never raises: unknown actor, weapon or grip give no suggestions.
    assert choices("weapon", actor="ghost") == ()
    assert choices("weapon", actor=None) == ()
    assert choices("type", weapon="Banana") == ()
    assert choices("type", grip="7h") == ()
    assert choices("type", weapon="Sword, Short", grip="2h") == ()  # a grip the weapon lacks
    assert choices("grip", actor=None) == ("1h", "2h")
