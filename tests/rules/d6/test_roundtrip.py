import json

from rules.dice import ScriptedDice
from rules.systems.d6.pool import DieCode
from rules.systems.d6.state import D6State, Defense, Grapple, HealPool, LastGasp, Plan, PlannedAction

from .helpers import fighter, state_of
from .test_sheet import full_sheet


def busy_state() -> D6State:
    s = state_of(
        fighter("a", weapons=(), skills={"dodge": ("agility", "1D+1")}),
        fighter("b", "foes", 3, is_pc=False),
        fighter("c"),
        attackers="foes",
        round=3,
        order=("b", "a", "c"),
        turn=1,
        heal_pool=HealPool(capacity=3, uses=2, items=1),
        plan=Plan(
            "a", (PlannedAction("attack", target="b", called=True), PlannedAction("free", free=True)), False
        ),
    )
    s = s.update(
        "a",
        defense=Defense("parry", True, 7, 3, ("b",)),
        hidden_from=("b",),
        staggered=1,
        initiative=12,
        next_initiative=4,
        stagger_turns=2,
        overwhelmed=True,
    )
    s = s.update("c", hp=-4, last_gasp=LastGasp(2, 5, True), prone=True)
    s = s.update("b", engaged_with=("a",), status="out")
    return s.put_grapple(Grapple("a", "b", -2, False, 3, -5, -2))


def test_state_round_trips_exactly_through_json():
    s = busy_state()
    raw = json.loads(json.dumps(s.to_dict()))
    assert raw == s.to_dict()  # plain JSON as built (lists, text keys)
    assert D6State.from_dict(raw) == s
    assert D6State.from_dict(raw).to_dict() == s.to_dict()
    assert D6State.from_dict(D6State().to_dict()) == D6State()


def test_sheet_round_trips_through_json():
    s = full_sheet()
    assert type(s).from_dict(json.loads(json.dumps(s.to_dict()))) == s


def test_events_serialise_with_their_dice():
    from rules.systems.d6.attack import attack
    from rules.systems.d6.house import HouseRules

    s = state_of(fighter("a", coordination="1D"), fighter("t"))
    with ScriptedDice([4]) as dice:
        out = attack(s, "a", "t", dice, HouseRules())
    raw = json.loads(json.dumps([e.to_dict() for e in out.events]))
    assert raw[0]["kind"] == "AttackRolled" and raw[0]["dice"][0]["value"] == 4
    assert raw[0]["roll"]["explode_rule"] == "halved" and raw[0]["code"] == {"dice": 1, "pips": 0}
    assert DieCode(1) == out.events[0].code
