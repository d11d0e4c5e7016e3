"""The rest of the action commands through the fake Discord: autocomplete for every option that has it,
`/check` in each system (GM-queued dice marked ᴳ, a GM checking someone else's character), the D6 whole-turn
reroll, disengage-then-move, stealth refused in melee, the Death Save button after a restart, and the split of
long resolutions into messages within Discord's limit."""

from __future__ import annotations

from cogs.text import actions as render
from cogs.text.events.parts import dice_list
from tests.e2e.conftest import Harness
from tests.e2e.test_actions_helpers import (
    GM_MARK,
    WILD_MARK,
    d6_fight,
    d6_sheet,
    nyra_duel,
    refused_unchanged,
    resolution,
    whose_turn,
)
from tests.e2e.test_encounters import current, make_character, ok, setup_gm
from tests.rules.kaernest.helpers import fighter


async def values(fray: Harness, member, command: str, focused: str, value: str = "", **options) -> list[str]:
    choices = await fray.fd.autocomplete(
        fray.channel, member, command, focused=focused, value=value, **options
    )
    assert len(choices) <= 25
    return [c["value"] for c in choices]


async def test_autocomplete_in_nyra(fray: Harness) -> None:
    await nyra_duel(fray)
    p = fray.player
    assert await values(fray, p, "attack", "target") == ["Duelist 2"]  # the enemy; never yourself
    assert await values(fray, p, "attack", "target", "2") == ["Duelist 2"]
    assert await values(fray, p, "attack", "weapon", target="Duelist 2") == ["Short Sword"]
    assert await values(fray, p, "attack", "type", target="Duelist 2") == ["P", "S", "C"]
    assert "Left Arm" in await values(fray, p, "attack", "aim", target="Duelist 2")
    assert await values(fray, p, "attack", "aim", "he", target="Duelist 2") == ["Head", "Chest"]
    assert await values(fray, p, "defend", "stance") == ["dodge", "defense", "auto"]
    assert await values(fray, fray.gm, "attack", "as", "1") == ["Duelist 1"]
    assert "Swords" in await values(fray, p, "check", "stat")
    assert await values(fray, fray.gm, "check", "character", "duel") == ["Duelist 1", "Duelist 2"]


async def test_autocomplete_in_d6_and_kaernest(fray: Harness) -> None:
    await d6_fight(
        fray, [("G", d6_sheet("G", physique="4D"))], [("T", d6_sheet("T", physique="2D"))], init=[5, 2]
    )
    p = fray.player
    assert await values(fray, p, "attack", "weapon") == ["short sword", "unarmed"]
    assert await values(fray, p, "grapple", "action", target="T") == ["start"]
    assert await values(fray, p, "grapple", "into", action="throw", target="T") == ["wall", "object"]
    assert await values(fray, p, "defend", "stance") == ["parry", "dodge", "total-parry", "total-dodge"]
    assert await values(fray, p, "disengage", "enemy", "t") == ["T"]
    assert "physique" in [v.lower() for v in await values(fray, p, "check", "stat")]
    await ok(fray, fray.gm, "encounter end")
    # Kaernest grips and types follow the weapon typed so far.
    await ok(fray, fray.gm, "gm system", system="kaernest")
    sheet = fighter("Izuki", weapons=("Sword, Bastard",), instinct=5)
    await make_character(fray, fray.player, "Izuki", "kaernest", sheet)
    await ok(fray, fray.gm, "encounter start")
    await ok(fray, fray.player, "encounter join", character="Izuki")
    assert await values(fray, p, "attack", "grip", weapon="Sword, Bastard") == ["1h", "2h"]
    assert await values(fray, p, "attack", "type", weapon="Sword, Bastard", grip="1h")
    assert await values(fray, p, "defend", "stance") == ["passive", "active", "aggressive"]


async def test_autocomplete_never_fails_without_an_encounter(fray: Harness) -> None:
    await setup_gm(fray, "d6")
    assert await values(fray, fray.player, "attack", "target") == []
    assert await values(fray, fray.player, "attack", "weapon") == []
    assert await values(fray, fray.player, "check", "stat") == []


async def test_check_in_each_system(fray: Harness) -> None:
    await setup_gm(fray, "d6")
    await make_character(fray, fray.player, "Eva", "d6", d6_sheet("Eva", agility="2D"))
    # D6 pool: Agility 2D, the GM's dice first (a 4, marked ᴳ), then the Wild Die 6 explodes into 2.
    await fray.fd.invoke(fray.channel, fray.gm, "gm dice", values="4")
    with fray.script(6, 2):
        r = await ok(fray, fray.player, "check", stat="agility", difficulty="5")
    assert "Eva" in r.content and f"4{GM_MARK}" in r.content and f"6{WILD_MARK}" in r.content, r.content
    # The queue was consumed and saved back: the next check draws only scripted dice.
    with fray.script(1, 3):
        r = await ok(fray, fray.gm, "check", stat="agility", character="Eva")  # a GM checks a player's sheet
    assert GM_MARK not in r.content
    r = await fray.fd.invoke(fray.channel, fray.player, "check", stat="flying")
    assert r.ephemeral and "not an attribute or skill" in r.content
    await ok(fray, fray.gm, "gm system", system="kaernest")
    await make_character(
        fray, fray.player, "Izuki", "kaernest", fighter("Izuki", grace=6, skills={"Swords": 5})
    )
    with fray.script(3, 4):
        # RULES.md §4: the bonus is the GM's to give (a GM may roll a player's character's check).
        r = await ok(fray, fray.gm, "check", stat="Grace", character="Izuki", bonus=1)
    assert "Izuki" in r.content and "rolled 7" in r.content, r.content
    r = await fray.fd.invoke(fray.channel, fray.player, "check", stat="Grace", character="Izuki", bonus=500)
    assert r.ephemeral and "bonus" in r.content


async def test_d6_reroll_disengage_move_and_stealth(fray: Harness) -> None:
    await d6_fight(fray, [("Eva", d6_sheet("Eva"))], [("T", d6_sheet("T"))], init=[5, 2])
    with fray.script(1, 2, 3):
        await ok(fray, fray.player, "attack", target="T", lock=True)  # a miss; now engaged in melee
    await ok(fray, fray.player, "turn end")
    await ok(fray, fray.gm, "turn end", **{"as": "T"})
    fray.script()
    await refused_unchanged(fray, fray.player, "stealth", "engaged in melee with T", light="dim")
    await refused_unchanged(fray, fray.player, "move", "engaged in melee with T", distance=2)
    r = await fray.fd.invoke(fray.channel, fray.player, "disengage", enemy="T")
    assert r.ephemeral and "disengage T" in r.content
    r = await fray.fd.invoke(fray.channel, fray.player, "move", distance=2)
    assert r.ephemeral and "move 2" in r.content
    await refused_unchanged(fray, fray.player, "initiative reroll", "whole turn")
    await ok(fray, fray.gm, "gm undo", steps=2)
    with fray.script(2):
        r = await ok(fray, fray.player, "initiative reroll")
    assert "rerolls initiative" in resolution(r)
    assert await whose_turn(fray) == "Eva"


async def test_the_death_save_button_works_after_a_restart(fray: Harness) -> None:
    orn = d6_sheet("Orn", physique="3D", charisma="2D", hp_max=10)
    await d6_fight(
        fray, [("Orn", orn)], [("Thug", d6_sheet("Thug", coordination="3D", physique="2D"))], init=[4, 5]
    )
    with fray.script(5, 5, 4, 5, 4):
        await ok(fray, fray.gm, "attack", target="Orn", lock=True, **{"as": "Thug"})
    fray.script()
    r = await ok(fray, fray.gm, "gm next")
    await r.wait_followups(1, timeout=5)
    prompt = next(m for m in r.followups if any(c.startswith("fray:death-save:") for c in m.custom_ids))
    custom_id = next(c for c in prompt.custom_ids if c.startswith("fray:death-save:"))
    await fray.restart()
    with fray.script(5, 5, 5, 4, 4, 3):
        r = await fray.fd.click(prompt, fray.player, custom_id)
    assert not r.ephemeral and "Death Save 1" in r.content, r.content
    read, _ = await current(fray)
    assert read.combatant("Orn").last_gasp_round == 1


def test_long_resolutions_are_split_between_lines_within_the_limit() -> None:
    lines = [f"line {i}: " + "12345 " * 30 for i in range(60)]
    messages = render.split_messages("Title", lines)
    assert 1 < len(messages) <= render.MAX_MESSAGES
    assert all(len(m) <= 2000 for m in messages)
    shown = "\n".join(messages)
    assert "line 0:" in shown and "Title" in messages[0]
    for m in messages:  # never cut inside a number
        for line in m.split("\n"):
            assert not line.rstrip("…").endswith(("1", "12", "123", "1234")) or line.endswith("12345")
    huge = render.split_messages("T", ["9" * 5000])
    assert all(len(m) <= 2000 for m in huge)


def test_dice_are_marked() -> None:
    dice = [
        {"value": 4, "origin": "gm", "label": "attack"},
        {"value": 6, "origin": "random", "label": "attack wild"},
        {"value": 2, "origin": "script", "label": ""},
    ]
    assert dice_list(dice) == f"🎲 [4{GM_MARK} 6{WILD_MARK} 2]"
