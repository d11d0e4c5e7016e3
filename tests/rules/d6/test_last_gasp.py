import pytest

from rules.dice import ScriptedDice
from rules.errors import NotAllowed
from rules.systems.d6.events import DeathSave, Died, LastGaspEntered, LastGaspLeft, OutOfFight
from rules.systems.d6.gm import gm_damage, gm_heal
from rules.systems.d6.house import HouseRules
from rules.systems.d6.last_gasp import death_save, death_save_band
from rules.systems.d6.save import save_against
from rules.systems.d6.state import LastGasp

from .helpers import HOUSE, fighter, only, state_of


@pytest.mark.parametrize(
    ("total", "effect", "dice"),
    [
        (0, "lose", 3), (4, "lose", 3), (5, "lose", 2), (9, "lose", 2), (10, "lose", 1), (14, "lose", 1),
        (15, "nothing", 0), (19, "nothing", 0), (20, "store", 1), (24, "store", 1), (25, "store", 2),
        (29, "store", 2), (30, "store", 3), (34, "store", 3), (35, "rally", 2), (39, "rally", 2), (80, "rally", 2),
    ],
)  # fmt: skip
def test_every_band_of_the_death_save_table_at_both_edges(total, effect, dice):
    band = death_save_band(total)
    assert (band.effect, band.dice) == (effect, dice)


def downed(hp=-3, **kw):
    s = state_of(fighter("pc", hp_max=10, **kw), fighter("npc", is_pc=False, hp_max=10))
    return s.update("pc", hp=hp, last_gasp=LastGasp(), prone=True)


def test_entering_last_gasp_pc_and_out_for_npc_unless_the_house_rule():
    s = state_of(fighter("pc", hp_max=10), fighter("npc", is_pc=False, hp_max=10))
    out = gm_damage(s, "pc", 10, HOUSE)
    assert only(out.events, LastGaspEntered).hp == 0
    pc = out.state.get("pc")
    assert pc.prone and pc.last_gasp == LastGasp() and save_against(out.state, "pc").value == 10
    npc = gm_damage(s, "npc", 12, HOUSE)
    assert only(npc.events, OutOfFight).who == "npc" and npc.state.get("npc").status == "out"
    house = HouseRules(npc_last_gasp=True)
    assert gm_damage(s, "npc", 12, house).state.get("npc").in_last_gasp


def test_dead_when_hp_falls_below_minus_max():
    s = state_of(fighter("pc", hp_max=10))
    assert gm_damage(s, "pc", 20, HOUSE).state.get("pc").status != "dead"  # −10 is not below −10
    out = gm_damage(s, "pc", 21, HOUSE)
    assert only(out.events, Died).limit == -10 and out.state.get("pc").status == "dead"


def test_lose_hp_band_and_the_bleed_out_penalty_grows():
    s = downed(physique="1D", charisma="1D")
    with ScriptedDice([2, 2, 1, 3, 2]) as dice:  # 2D: 4 → lose 3D: 1 + 3 + 2
        out = death_save(s, "pc", "charisma", dice, HOUSE)
    ds = only(out.events, DeathSave)
    assert (ds.total, ds.band, ds.effect_total, ds.turn) == (4, "0–4", 6, 1)
    assert out.state.get("pc").hp == -9 and out.state.get("pc").last_gasp.rounds == 1
    s2 = downed(physique="3D", perception="2D").update("pc", last_gasp=LastGasp(rounds=2))
    with ScriptedDice([5, 5, 5]) as dice:  # turn 3: 5D − 2D = 3D: 15 → no effect
        out2 = death_save(s2, "pc", "perception", dice, HOUSE)
    ds2 = only(out2.events, DeathSave)
    assert ds2.code.dice == 3 and ds2.turn == 3 and ds2.effect == "no effect"
    assert [(m.label, m.value) for m in ds2.mods] == [("bleeding out (Last Gasp turn 3)", -2)]


def test_stored_healing_accumulates():
    s = downed(physique="4D", charisma="1D").update("pc", last_gasp=LastGasp(stored_healing=2))
    with ScriptedDice([5, 5, 5, 5, 2, 3]) as dice:  # 5D: 22 → +1D stored: 3
        out = death_save(s, "pc", "charisma", dice, HOUSE)
    assert only(out.events, DeathSave).band == "20–24"
    assert out.state.get("pc").last_gasp.stored_healing == 5 and out.state.get("pc").hp == -3


def test_rally_sets_hp_to_0_then_adds_2d_and_fights_again():
    s = downed(hp=-5, physique="4D", charisma="3D")
    with ScriptedDice([5, 5, 5, 5, 5, 5, 5, 2, 3]) as dice:  # 35 → rally: 0 + 2 + 3
        out = death_save(s, "pc", "charisma", dice, HOUSE)
    pc = out.state.get("pc")
    assert pc.hp == 5 and pc.last_gasp is None and not pc.prone
    assert only(out.events, LastGaspLeft).reason.startswith("rally")
    heals = [e.applied for e in out.events if e.kind == "HealApplied"]
    assert heals == [5, 5]


def test_death_save_can_kill_and_is_refused_when_stabilised_or_not_down():
    s = downed(hp=-8, physique="1D", charisma="1D")
    with ScriptedDice([1, 1, 3, 3, 3]) as dice:
        out = death_save(s, "pc", "charisma", dice, HOUSE)
    assert out.state.get("pc").status == "dead"
    with pytest.raises(NotAllowed, match="stabilised"):
        death_save(
            s.update("pc", last_gasp=LastGasp(stabilised=True)), "pc", "charisma", ScriptedDice([]), HOUSE
        )
    with pytest.raises(NotAllowed, match="not in Last Gasp"):
        death_save(state_of(fighter("pc")), "pc", "charisma", ScriptedDice([]), HOUSE)


def test_gm_heal_to_positive_leaves_last_gasp():
    out = gm_heal(downed(hp=-3), "pc", 5)
    assert out.state.get("pc").hp == 2 and not out.state.get("pc").in_last_gasp
