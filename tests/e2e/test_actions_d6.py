"""The D6 campaign's actions through the fake Discord: the seed's worked examples (Tassadar against padded
leather, Eva's three actions at −2D, grappling, Last Gasp with Death Saves and a heal, the Markarth heal pool),
a whole round undone, and the refusals."""

from __future__ import annotations

from tests.e2e.conftest import Harness
from tests.e2e.test_actions_helpers import (
    WILD_MARK,
    d6_fight,
    d6_sheet,
    refused_unchanged,
    resolution,
    stored_without_version,
    whose_turn,
)
from tests.e2e.test_encounters import current, ok


def row(read, name):
    return read.combatant(name)


async def test_tassadar_hits_the_padded_bandit_and_does_no_damage(fray: Harness) -> None:
    tassadar = d6_sheet("Tassadar", coordination="3D", physique="2D")
    await d6_fight(fray, [("Tassadar", tassadar)], [("Bandit", "bandit")], init=[5, 1, 2])
    assert await whose_turn(fray) == "Tassadar"
    # Coordination 3D 4+4+4 = 12 > save 10: a hit; short sword 1D+2: 2+2 = 4, not above padded AR 4.
    with fray.script(4, 4, 4, 2):
        r = await ok(fray, fray.player, "attack", target="Bandit", lock=True)
    text = resolution(r)
    assert "**hits**" in text and "rolled 12 (3D) against save 10" in text and f"4{WILD_MARK}" in text
    assert "takes no damage (HP 14)" in text
    read, _ = await current(fray)
    assert row(read, "Bandit").hp == 14
    assert await whose_turn(fray) == "Tassadar"  # locked, not ended
    r = await ok(fray, fray.player, "turn end")
    assert await whose_turn(fray) == "Bandit"


async def test_eva_declares_three_actions_each_at_minus_2d_and_the_round_is_undone(fray: Harness) -> None:
    eva = d6_sheet("Eva", coordination="4D", agility="4D")
    await d6_fight(fray, [("Eva", eva)], [("B", "bandit:2")], init=[5, 1, 2, 1, 1])
    before = await stored_without_version(fray)
    fray.script()
    r = await fray.fd.invoke(fray.channel, fray.player, "attack", target="B 1")
    assert r.ephemeral and "no multi-action penalty at lock-in (1 action counts)" in r.content, r.content
    r = await fray.fd.invoke(fray.channel, fray.player, "attack", target="B 2", weapon="Short Sword")
    assert r.ephemeral and "every roll at −1D" in r.content
    r = await fray.fd.invoke(fray.channel, fray.player, "defend", stance="dodge")
    assert r.ephemeral and "every roll at −2D at lock-in (3 actions count)" in r.content
    # Declarations are saved and logged (undo covers them), though nothing was rolled.
    read, _ = await current(fray)
    assert read.encounter.version > 0
    with fray.script(1, 2, 2, 2, 3, 3):
        r = await ok(fray, fray.player, "lockin")
    text = resolution(r)
    assert "−2D" in text and "multi-action" in text
    read, _ = await current(fray)
    assert "dodge 6 (0/1)" in row(read, "Eva").conditions
    await refused_unchanged(fray, fray.player, "attack", "already locked in", target="B 1")
    await ok(fray, fray.player, "turn end")
    await ok(fray, fray.gm, "turn end", **{"as": "B 1"})
    await ok(fray, fray.gm, "gm next")
    assert await whose_turn(fray) == "Eva"
    await ok(fray, fray.gm, "gm undo", steps=7)
    assert await stored_without_version(fray) == before


async def grapple_fight(fray: Harness) -> None:
    await d6_fight(
        fray, [("G", d6_sheet("G", physique="4D"))], [("T", d6_sheet("T", physique="2D"))], init=[5, 2]
    )


async def round_trip(fray: Harness) -> None:
    await ok(fray, fray.player, "turn end")
    await ok(fray, fray.gm, "turn end", **{"as": "T"})


async def grapple_at_3(fray: Harness) -> None:
    await grapple_fight(fray)
    with fray.script(3, 3, 3, 3, 1, 2):
        await ok(fray, fray.player, "grapple", action="start", target="T", lock=True)
    await round_trip(fray)
    await ok(fray, fray.gm, "gm set", target="G", field="grapple_counter", value="T 3")


async def grapples(fray: Harness) -> list[tuple[int, int, int, int | None]]:
    read, _ = await current(fray)
    return [(g.a_id, g.b_id, g.counter, g.pinned_id) for g in read.grapples]


async def test_a_grapple_reaching_3_and_a_throw_into_a_wall(fray: Harness) -> None:
    await grapple_fight(fray)
    read, _ = await current(fray)
    g, t = row(read, "G").id, row(read, "T").id
    await refused_unchanged(fray, fray.player, "grapple", "not grappling T", action="throw", target="T")
    with fray.script(3, 3, 3, 3, 1, 2):
        r = await ok(fray, fray.player, "grapple", action="start", target="T", lock=True)
    assert "counter 1 toward **G**" in resolution(r)
    await round_trip(fray)
    assert await grapples(fray) == [(g, t, 1, None)]
    await refused_unchanged(fray, fray.player, "grapple", "(it is 1)", action="throw", target="T")
    with fray.script(5, 5, 5, 5, 1, 2):
        r = await ok(fray, fray.player, "grapple", action="contest", target="T", lock=True)
    assert "counter 3 toward **G**" in resolution(r)
    await round_trip(fray)
    assert await grapples(fray) == [(g, t, 3, None)]
    choices = await fray.fd.autocomplete(
        fray.channel, fray.player, "grapple", focused="action", value="", target="T"
    )
    assert [c["value"] for c in choices] == ["contest", "throw", "pin", "takedown", "release"]
    with fray.script(3, 4):
        r = await ok(fray, fray.player, "grapple", action="throw", target="T", into="wall", lock=True)
    assert "**10** damage" in resolution(r)
    read, _ = await current(fray)
    assert row(read, "T").hp == 10 and read.grapples == []


async def test_a_pin_broken_by_damage(fray: Harness) -> None:
    await grapple_at_3(fray)
    fray.script()
    r = await ok(fray, fray.player, "grapple", action="pin", target="T", lock=True)
    assert "pins" in resolution(r)
    await ok(fray, fray.player, "turn end")
    read, _ = await current(fray)
    g, t = row(read, "G").id, row(read, "T").id
    assert await grapples(fray) == [(g, t, 3, t)]
    await refused_unchanged(
        fray, fray.gm, "grapple", "pinned by G", action="contest", target="G", **{"as": "T"}
    )
    with fray.script(5, 5, 5, 3, 4):
        r = await ok(fray, fray.gm, "attack", target="G", lock=True, **{"as": "T"})
    assert "breaks" in resolution(r) and "(GM)" in r.content
    read, _ = await current(fray)
    assert row(read, "G").hp == 11 and await grapples(fray) == [(g, t, 0, None)]


async def test_a_take_down(fray: Harness) -> None:
    await grapple_at_3(fray)
    with fray.script(2, 3, 4, 1):
        r = await ok(fray, fray.player, "grapple", action="takedown", target="T", bonus=2, lock=True)
    assert "**12**" in resolution(r)
    read, _ = await current(fray)
    assert row(read, "T").hp == 8 and "staggered" in " ".join(row(read, "G").conditions)
    assert [g.counter for g in read.grapples] == [0]


def death_save_id(message) -> str:
    return next(c for c in message.custom_ids if c.startswith("fray:death-save:"))


def death_save_prompt(r):
    found = [m for m in r.followups if any(c.startswith("fray:death-save:") for c in m.custom_ids)]
    assert found, f"no Death Save button after {r.content!r}"
    return found[-1]


async def test_last_gasp_death_saves_across_turns_and_a_heal_that_uses_the_stored_healing(
    fray: Harness,
) -> None:
    orn = d6_sheet("Orn", physique="3D", charisma="2D", hp_max=10)
    eva = d6_sheet("Eva", intellect="3D", healing_level=1)
    thug = d6_sheet("Thug", coordination="3D", physique="2D")
    await d6_fight(fray, [("Orn", orn), ("Eva", eva)], [("Thug", thug)], init=[4, 3, 5])
    assert await whose_turn(fray) == "Thug"
    with fray.script(5, 5, 4, 5, 4):
        r = await ok(fray, fray.gm, "attack", target="Orn", lock=True, **{"as": "Thug"})
    assert "Last Gasp" in resolution(r)
    fray.script()
    r = await ok(fray, fray.gm, "turn end", **{"as": "Thug"})
    await r.wait_followups(1, timeout=5)
    first_prompt = death_save_prompt(r)
    # the turn announcement itself carries the button and pings only Orn's player
    assert "Orn" in first_prompt.content and set(fray.fd.pings(first_prompt)) == {fray.player.id}
    await refused_unchanged(fray, fray.player, "attack", "only action is the Death Save", target="Thug")
    # Death Save 1: Physique 3D + Charisma 2D = 5D: 5+5+5+4+4 = 23 → +1D stored healing: 3.
    with fray.script(5, 5, 5, 4, 4, 3):
        r = await ok(fray, fray.player, "deathsave", **{"with": "charisma"})
    assert "Death Save 1" in resolution(r)
    read, _ = await current(fray)
    assert (row(read, "Orn").stored_healing, row(read, "Orn").last_gasp_round) == (3, 1)
    await ok(fray, fray.player, "turn end")  # Orn
    await ok(fray, fray.player, "turn end")  # Eva
    r = await ok(fray, fray.gm, "turn end", **{"as": "Thug"})
    await r.wait_followups(1, timeout=5)
    prompt = death_save_prompt(r)
    # A stale click (the first prompt) and a foreign one are refused politely; nothing changes.
    stranger = fray.guild.add_member("zed")
    before = await stored_without_version(fray)
    stale = await fray.fd.click(first_prompt, fray.player, death_save_id(first_prompt))
    assert stale.ephemeral and "already over" in stale.content
    foreign = await fray.fd.click(prompt, stranger, death_save_id(prompt))
    assert foreign.ephemeral and "not your combatant" in foreign.content
    assert await stored_without_version(fray) == before
    # Death Save 2 by the button: −1D (bleeding out) → 4D: 5+5+5+5 = 20 → +1D: 2; stored 5.
    with fray.script(5, 5, 5, 5, 2):
        r = await fray.fd.click(prompt, fray.player, death_save_id(prompt))
    assert not r.ephemeral, r.content
    text = resolution(r)
    assert "Death Save 2" in text and "−1D bleeding out" in text
    read, _ = await current(fray)
    assert (row(read, "Orn").stored_healing, row(read, "Orn").last_gasp_round) == (5, 2)
    await ok(fray, fray.player, "turn end")  # Orn → Eva
    await refused_unchanged(fray, fray.player, "deathsave", "not in Last Gasp")
    fray.script()
    r = await fray.fd.invoke(fray.channel, fray.player, "heal", target="Orn")
    assert r.ephemeral and "Heal pool: 0 of 1 left after this heal" in r.content
    # Intellect 3D 4+4+4 = 12 → 1D healing: 2, + 5 stored = 7: −1 → 6, out of Last Gasp.
    with fray.script(4, 4, 4, 2):
        r = await ok(fray, fray.player, "lockin")
    assert "is out of Last Gasp" in resolution(r)
    read, _ = await current(fray)
    orn_row = row(read, "Orn")
    assert (orn_row.hp, orn_row.stored_healing, orn_row.last_gasp_round) == (6, None, None)
    assert (read.encounter.heal_pool_size, read.encounter.heal_pool_used) == (1, 1)
    status = await ok(fray, fray.player, "encounter status", public=True)
    assert "HP 6/10" in status.embeds[0]["description"]


async def test_the_markarth_heal_pool_and_an_empty_pool(fray: Harness) -> None:
    pcs = [
        ("Eva", d6_sheet("Eva", healing_level=1)),
        ("Markarth", d6_sheet("Markarth", restoration_level=1)),
        ("Orn", d6_sheet("Orn")),
        ("Tassadar", d6_sheet("Tassadar", intellect="3D")),
    ]
    await d6_fight(fray, pcs, [], init=[4, 3, 2, 5])
    read, _ = await current(fray)
    assert (read.encounter.heal_pool_size, read.encounter.heal_pool_used) == (2, 0)
    assert await whose_turn(fray) == "Tassadar"
    with fray.script(3, 3, 3):
        r = await ok(fray, fray.player, "heal", target="Orn", lock=True)
    assert "0 healing dice" in resolution(r)
    read, _ = await current(fray)
    assert (read.encounter.heal_pool_size, read.encounter.heal_pool_used) == (2, 1)
    await ok(fray, fray.player, "turn end")
    await ok(fray, fray.gm, "gm damage", target="Markarth", amount=23)
    read, _ = await current(fray)
    assert row(read, "Markarth").hp == -3
    assert (read.encounter.heal_pool_size, read.encounter.heal_pool_used) == (1, 1)
    assert await whose_turn(fray) == "Eva"
    await refused_unchanged(fray, fray.player, "heal", "no heals left this instance", target="Markarth")


async def test_d6_refusals(fray: Harness) -> None:
    eva = d6_sheet("Eva", coordination="4D", agility="4D")
    await d6_fight(fray, [("Eva", eva)], [("B", "bandit:2")], init=[5, 1, 2, 1, 1])
    fray.script()
    await refused_unchanged(fray, fray.player, "attack", "cannot attack itself", target="Eva")
    await refused_unchanged(fray, fray.player, "attack", "no combatant here is called", target="Ghost")
    await refused_unchanged(fray, fray.player, "attack", "axe", target="B 1", weapon="Great Axe")
    await refused_unchanged(fray, fray.player, "grapple", "not grappling", action="pin", target="B 1")
    await refused_unchanged(fray, fray.gm, "attack", "do not control a combatant", target="Eva")
    await refused_unchanged(fray, fray.gm, "attack", "turn", target="Eva", **{"as": "B 1"})
    await ok(fray, fray.player, "turn end")
    await refused_unchanged(fray, fray.player, "attack", "it is B 1's turn", target="B 1")
    await ok(fray, fray.gm, "encounter end")
    await refused_unchanged_no_encounter(fray)


async def refused_unchanged_no_encounter(fray: Harness) -> None:
    r = await fray.fd.invoke(fray.channel, fray.player, "attack", target="B 1")
    assert r.ephemeral and "no open encounter" in r.content.lower()
