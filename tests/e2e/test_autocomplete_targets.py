"""Target autocomplete: enemies first, then allies (never yourself), the downed and dead last and marked;
attacking a downed combatant asks for ``confirm`` (Kaernest says striking the unconscious is legal), a dead
one is refused."""

from __future__ import annotations

from rules.dice import RandomDice
from tests.e2e.conftest import Harness
from tests.e2e.test_actions_helpers import d6_fight, d6_sheet, refused_unchanged
from tests.e2e.test_actions_kaernest import andretti, izuki, kaernest_fight
from tests.e2e.test_encounters import ok


async def test_targets_are_ordered_enemies_allies_then_the_fallen(fray: Harness) -> None:
    await d6_fight(
        fray,
        [("Orn", d6_sheet("Orn")), ("Eva", d6_sheet("Eva"))],
        [("B", "bandit:2")],
        init=[6, 5, 1, 1, 1, 3, 3],
    )
    await ok(fray, fray.gm, "gm damage", target="B 1", amount=40)
    choices = await fray.fd.autocomplete(fray.channel, fray.player, "attack", focused="target", value="")
    names = [c["name"] for c in choices]
    assert names[0] == "B 2 — enemy" and names[1] == "Eva — ally"
    assert names[-1].startswith("B 1 — enemy (") and names[-1].endswith(")")
    assert not any(n.startswith("Orn") for n in names)  # not yourself
    assert choices[0]["value"] == "B 2"
    await refused_unchanged(fray, fray.player, "attack", "B 1", target="B 1", lock=True)


async def test_kaernest_asks_to_confirm_and_says_striking_the_unconscious_is_legal(fray: Harness) -> None:
    await kaernest_fight(fray, izuki(), andretti(instinct=4), [12, 8])
    await ok(fray, fray.gm, "gm set", target="Andretti", field="damage", value="30")
    r = await refused_unchanged(fray, fray.player, "attack", "confirm:true", target="Andretti")
    assert "legal in Kaernest" in r.content
    fray.dice.current = RandomDice(1)  # the clock may run on to the landing
    r = await ok(fray, fray.player, "attack", target="Andretti", confirm=True)
    assert "declares an attack on **Andretti**" in r.content


async def labels(fray: Harness, member, command: str, focused: str, **options) -> dict[str, str]:
    choices = await fray.fd.autocomplete(fray.channel, member, command, focused=focused, value="", **options)
    return {c["value"]: c["name"] for c in choices}


async def test_damage_types_weapons_and_stances_explain_themselves(fray: Harness) -> None:
    from tests.e2e.test_actions_helpers import nyra_duel

    await nyra_duel(fray)
    types = await labels(fray, fray.player, "attack", "type", target="Duelist 2")
    assert list(types) == ["P", "S", "C"] and types["C"].startswith("C — Cleaving ") and "d" in types["C"]
    weapons = await labels(fray, fray.player, "attack", "weapon", target="Duelist 2")
    assert weapons["Short Sword"].startswith("Short Sword — P ") and "delay" in weapons["Short Sword"]
    stances = await labels(fray, fray.player, "defend", "stance")
    assert "ends the attacker's volley" in stances["defense"]
