"""Leaving melee without disengaging through the fake Discord: `/move distance:3 leave:True lock:True` while
engaged with two bandits resolves both free attacks at lock-in (initiative order, exact dice), the resolution
shows each, `/encounter status` shows the HP, and the engagement is gone. Without `leave` the move is refused
naming both ways out; Nyra ignores `leave` with a note."""

from __future__ import annotations

from tests.e2e.conftest import Harness
from tests.e2e.test_actions_helpers import (
    d6_fight,
    d6_sheet,
    nyra_duel,
    refused_unchanged,
    resolution,
    whose_turn,
)
from tests.e2e.test_encounters import current, ok


async def engaged_with_two_bandits(fray: Harness) -> None:
    """Eva (Perception 2D: 5 + 5 = 10), B 2 (2D+1: 3 + 3 + 1 = 7), B 1 (2 + 2 + 1 = 5). Round 1: Eva waits,
    each bandit attacks her and misses (which engages them in melee); round 2 is Eva's."""
    eva = d6_sheet("Eva", perception="2D")
    await d6_fight(fray, [("Eva", eva)], [("B", "bandit:2")], init=[5, 5, 2, 2, 3, 3])
    fray.script()
    await ok(fray, fray.player, "turn end")
    assert await whose_turn(fray) == "B 2"
    with fray.script(2, 2, 2):  # 6, not above save 10
        await ok(fray, fray.gm, "attack", target="Eva", lock=True, **{"as": "B 2"})
    await ok(fray, fray.gm, "turn end", **{"as": "B 2"})
    with fray.script(2, 2, 3):  # 7: a miss
        await ok(fray, fray.gm, "attack", target="Eva", lock=True, **{"as": "B 1"})
    fray.script()
    await ok(fray, fray.gm, "turn end", **{"as": "B 1"})
    assert await whose_turn(fray) == "Eva"
    assert await engagement(fray) == {"Eva": {"B 1", "B 2"}, "B 1": {"Eva"}, "B 2": {"Eva"}}


async def engagement(fray: Harness) -> dict[str, set[str]]:
    read, _ = await current(fray)
    names = read.names
    return {
        names[c.id]: {names[e] for e in c.engaged_with} for c in read.state.combatants if c.engaged_with
    } | {names[c.id]: set() for c in read.state.combatants if not c.engaged_with}


async def test_leaving_melee_takes_a_free_attack_from_each_bandit(fray: Harness) -> None:
    await engaged_with_two_bandits(fray)
    before = (await ok(fray, fray.player, "encounter status", public=True)).embeds[0]["description"]
    assert "engaged with B 1, B 2" in before or "engaged with B 2, B 1" in before
    # B 2 first (initiative 7): 4 + 4 + 5 = 13 > 10, a hit; 1D+2: 3 + 2 = 5, scaling 2D: 4 + 2 → 11.
    # B 1: 2 + 3 + 4 = 9, a miss.
    with fray.script(4, 4, 5, 3, 4, 2, 2, 3, 4):
        r = await ok(fray, fray.player, "move", distance=3, leave=True, lock=True)
    text = resolution(r)
    assert text.count("free attack") == 2, text
    lines = text.splitlines()
    free = [i for i, line in enumerate(lines) if "free attack" in line]
    assert "**B 2**" in lines[free[0]] and "**B 1**" in lines[free[1]]
    assert "rolled 13 (3D) against save 10" in lines[free[0] + 1] and "**hits**" in lines[free[0] + 1]
    assert "rolled 9 (3D) against save 10" in lines[free[1] + 1] and "**misses**" in lines[free[1] + 1]
    assert "HP 20 → **9**" in text
    assert text.index("moves 3") < text.index("free attack")
    status = await ok(fray, fray.player, "encounter status", public=True)
    assert "**Eva** · HP 9/20" in status.embeds[0]["description"]
    assert "engaged with" not in status.embeds[0]["description"]
    assert await engagement(fray) == {"Eva": set(), "B 1": set(), "B 2": set()}
    assert await whose_turn(fray) == "Eva"  # locked, not ended


async def test_moving_while_engaged_without_leave_is_refused_naming_both_ways_out(fray: Harness) -> None:
    await engaged_with_two_bandits(fray)
    r = await refused_unchanged(fray, fray.player, "move", "engaged in melee with B 2, B 1", distance=3)
    assert "`/disengage`" in r.content and "`/move leave:True`" in r.content
    await refused_unchanged(fray, fray.player, "move", "`/move leave:True`", distance=3, lock=True)


async def test_nyra_ignores_leave_with_a_note(fray: Harness) -> None:
    await nyra_duel(fray)
    fray.script()
    # RULES.md §4: only a GM passes a Nyra move `cost`.
    r = await ok(fray, fray.gm, "move", cost=3, distance=2, leave=True, **{"as": "Duelist 1"})
    assert "`leave` is for D6" in resolution(r)
