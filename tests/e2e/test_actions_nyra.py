"""Nyra actions through the fake Discord: the seed's duel (a wild cleave for 12 to the Left Arm, the aimed
slash defended, which ends the volley and passes the turn), `/defend` out of turn, `/move`, and refusals."""

from __future__ import annotations

from tests.e2e.conftest import Harness
from tests.e2e.test_actions_helpers import (
    GM_MARK,
    combatant_row,
    nyra_duel,
    refused_unchanged,
    resolution,
)
from tests.e2e.test_encounters import announcement, current, ok


async def test_the_seed_duel(fray: Harness) -> None:
    await nyra_duel(fray)
    read, turn = await current(fray)
    d1 = read.combatant("Duelist 1")
    assert turn.actors == (str(d1.id),)
    # Duelist 2 (the GM's own PC) stands in Defense out of turn.
    r = await ok(fray, fray.gm, "defend", stance="defense")
    assert "defense" in r.content.lower() and not r.followups
    # The wild cleave: d10 3 (4 under Swords 7) vs Defense d10 4 (1 under) → hit; d6 3 = Left Arm; 3d6 3 4 2 +3.
    with fray.script(3, 4, 3, 3, 4, 2):
        r = await ok(fray, fray.player, "attack", target="Duelist 2", type="C")
    text = resolution(r)
    assert "Left Arm" in text and "**12**" in text and "hit" in text
    assert "🎲 damage [3 4 2]" in text  # every damage die shown, by its role
    assert not any(c.startswith("fray:end-turn:") for m in r.followups for c in m.custom_ids)
    read, turn2 = await current(fray)
    assert turn2.key == turn.key  # 3 delay left: the turn goes on
    d2 = combatant_row(read, "Duelist 2")
    assert d2.location_damage["Left Arm"] == 12
    # The aimed slash at the Head: d10 2 (1 under the halved 3) vs Defense 2 (3 under) → defended; the turn ends.
    with fray.script(2, 2):
        r = await ok(fray, fray.player, "attack", target="Duelist 2", type="S", aim="Head")
    text = resolution(r)
    assert "defended" in text and "Head" in text
    message = announcement(r)
    assert "Duelist 2" in message.content and fray.gm.id in fray.fd.pings(message)
    read, turn3 = await current(fray)
    assert turn3.actors == (str(read.combatant("Duelist 2").id),)
    d2 = combatant_row(read, "Duelist 2")
    assert d2.location_damage["Left Arm"] == 12 and d2.location_damage.get("Head", 0) == 0
    status = await ok(fray, fray.player, "encounter status", public=True)
    assert "Left Arm 12" in status.embeds[0]["description"]


async def test_delay_spent_ends_the_turn_and_move_costs_delay(fray: Harness) -> None:
    await nyra_duel(fray)
    with fray.script(3, 4, 3, 3, 4, 2):
        await ok(fray, fray.player, "attack", target="Duelist 2", type="C")
    fray.script()
    r = await ok(fray, fray.gm, "move", cost=3, distance=2, **{"as": "Duelist 1"})
    assert "(GM)" in r.content
    message = announcement(r)  # 6 − 3 − 3 = 0 delay: the turn passed
    assert "Duelist 2" in message.content
    read, turn = await current(fray)
    assert turn.actors == (str(read.combatant("Duelist 2").id),)


async def test_nyra_refusals_change_nothing(fray: Harness) -> None:
    await nyra_duel(fray)
    fray.script()
    cases = [
        (fray.player, "grapple", "no grappling in nyra", {"action": "start", "target": "Duelist 2"}),
        (fray.player, "heal", "no heal pool", {"target": "Duelist 2"}),
        (fray.player, "attack", "cannot attack itself", {"target": "Duelist 1", "type": "C"}),
        (fray.player, "attack", "no combatant here is called", {"target": "Nobody", "type": "C"}),
        (fray.player, "attack", "Duelist 1", {"target": "Duelist 2", "weapon": "Halberd", "type": "C"}),
        (fray.player, "attack", "no blunt damage", {"target": "Duelist 2", "type": "B"}),
        (fray.player, "attack", "no location", {"target": "Duelist 2", "type": "C", "aim": "Tail"}),
        (fray.gm, "attack", "not duelist 2's turn", {"target": "Duelist 1", "type": "C"}),
        (fray.player, "attack", "only a gm", {"target": "Duelist 1", "type": "C", "as": "Duelist 2"}),
        (fray.player, "deathsave", "no death saves", {}),
    ]
    for member, command, expect, options in cases:
        await refused_unchanged(fray, member, command, expect, **options)


async def test_check_nyra_uses_queued_gm_dice(fray: Harness) -> None:
    await nyra_duel(fray)
    await fray.fd.invoke(fray.channel, fray.gm, "gm dice", values="3")
    fray.script()
    r = await ok(fray, fray.player, "check", stat="Swords")
    assert "Duelist 1" in r.content and f"3{GM_MARK}" in r.content, r.content
    read, _ = await current(fray)
    assert read.encounter.version >= 1
