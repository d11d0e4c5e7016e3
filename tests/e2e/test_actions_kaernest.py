"""Kaernest actions through the fake Discord: the seed's timeline (Izuki's speed-9 attack declared at 17 lands
at 8), a declaration that wraps into the next minute, an active defense interrupting an attack that restarts,
and the refusals."""

from __future__ import annotations

from tests.e2e.conftest import Harness
from tests.e2e.test_actions_helpers import refused_unchanged, resolution
from tests.e2e.test_encounters import announcement, current, make_character, ok, setup_gm
from tests.rules.kaernest.helpers import fighter


def izuki(**fields):
    fields.setdefault("weapons", ("Sword, Bastard", "Sword, Short", "Club, War"))
    fields.setdefault("instinct", 5)
    return fighter("Izuki", grace=6, skills={"Swords": 5}, **fields)


def andretti(**fields):
    fields.setdefault("weapons", ("Club, War",))
    return fighter("Andretti", grace=7, skills={"Clubs/Maces": 7, "Parry": 4}, **fields)


async def kaernest_fight(fray: Harness, izuki_sheet, andretti_sheet, init, mico=None) -> None:
    """The player's Izuki, the owner's Mico (when given), the GM's own Andretti, in that entry order."""
    await setup_gm(fray, "kaernest")
    await make_character(fray, fray.player, "Izuki", "kaernest", izuki_sheet)
    await make_character(fray, fray.gm, "Andretti", "kaernest", andretti_sheet)
    if mico is not None:
        await make_character(fray, fray.owner, "Mico", "kaernest", mico)
    await ok(fray, fray.gm, "encounter start", name="Courtyard")
    await ok(fray, fray.player, "encounter join", side="izuki")
    if mico is not None:
        await ok(fray, fray.owner, "encounter join", side="mico")
    await ok(fray, fray.gm, "encounter join", character="Andretti", side="andretti")
    with fray.script(*init):
        await ok(fray, fray.gm, "encounter begin")


async def damage_of(fray: Harness, name: str) -> int | None:
    read, _ = await current(fray)
    return read.combatant(name).damage


async def test_izuki_declares_at_17_and_the_attack_lands_at_8(fray: Harness) -> None:
    await kaernest_fight(fray, izuki(), andretti(instinct=4), [12, 8])
    read, turn = await current(fray)
    assert turn.label == "Minute 1, segment 17"
    fray.script()
    r = await ok(fray, fray.player, "attack", target="Andretti")
    text = resolution(r)
    assert "speed 9" in text and "lands at **1:08**" in text, text
    message = announcement(r)
    assert "Andretti" in message.content and "segment 12" in message.content
    await ok(fray, fray.gm, "turn end")  # Andretti waits a segment: 11
    # Andretti moves (GM speed 4); the clock runs to 8 where Izuki's attack lands: 3 + 4 = 7 ≤ 9, a hit for 9.
    with fray.script(3, 4):
        r = await ok(fray, fray.gm, "move", cost=4)
    text = resolution(r)
    assert "1:08" in text and "**hits**" in text and "**9**" in text, text
    assert await damage_of(fray, "Andretti") == 9
    read, turn = await current(fray)
    assert turn.label == "Minute 1, segment 8" and turn.actors == (str(read.combatant("Izuki").id),)
    status = await ok(fray, fray.player, "encounter status", public=True)
    assert "damage 9" in status.embeds[0]["description"]


async def test_an_attack_declared_at_5_wraps_into_minute_2(fray: Harness) -> None:
    await kaernest_fight(fray, izuki(instinct=3), andretti(instinct=1), [2, 2])
    fray.script()
    r = await ok(fray, fray.player, "attack", target="Andretti", weapon="Sword, Bastard", grip="1h")
    assert "lands at **2:26**" in resolution(r)
    read, turn = await current(fray)
    assert read.tracker().order[0].next_segment == "2:26" or any(
        c.next_segment == "2:26" for c in read.tracker().order
    )
    assert turn.label == "Minute 1, segment 3"


async def test_an_active_defense_interrupts_and_the_attack_restarts(fray: Harness) -> None:
    mico = fighter("Mico", instinct=2)
    await kaernest_fight(fray, izuki(), andretti(instinct=1, reflex=6), [12, 6, 2], mico=mico)
    fray.script()
    r = await ok(fray, fray.gm, "defend", stance="active")  # off its segment: a change of posture
    assert "**active**" in resolution(r) and not r.followups
    # RULES.md §4: the active defense first (4 4); it interrupts, so the attack's dice are not drawn.
    with fray.script(4, 4):
        r = await ok(fray, fray.player, "attack", target="Andretti", weapon="Sword, Short")
    text = resolution(r)
    assert (
        "active defense **stops** **Izuki**" in text
        and "starts again at 1:11" in text
        and "lands at **1:05**" in text
    ), text
    assert "rolled 8, needed ≤ 10 (+6 Reflex +4 Parry) 🎲 active defense [4 4]" in text
    with fray.script(5, 5, 3, 3):  # the active defense (fails), then the attack
        r = await ok(fray, fray.owner, "move", cost=10, distance=12)
    text = resolution(r)
    assert "1:05" in text and "**hits**" in text and "earlier defenses" in text, text
    assert (await damage_of(fray, "Andretti") or 0) > 0


async def test_kaernest_refusals(fray: Harness) -> None:
    await kaernest_fight(fray, izuki(), andretti(instinct=4), [12, 8])
    fray.script()
    await refused_unchanged(fray, fray.player, "attack", "weapon", target="Andretti", weapon="Halberd")
    await refused_unchanged(fray, fray.player, "attack", "itself", target="Izuki")
    await refused_unchanged(
        fray, fray.player, "attack", "not 2h", target="Andretti", weapon="Sword, Short", grip="2h"
    )
    await refused_unchanged(fray, fray.player, "grapple", "no grappling", action="start", target="Andretti")
    await refused_unchanged(fray, fray.player, "lockin", "no lock-in")
    await refused_unchanged(fray, fray.gm, "attack", "acts at minute 1, segment 12", target="Izuki")
