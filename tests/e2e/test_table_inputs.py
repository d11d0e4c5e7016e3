"""The inputs a real table needs, through the fake Discord (RULES.md §4): the GM's bonus and move cost, sheet
edits reaching the combatant at its turn, Sequence kept on the sheet, healing a named location (Nyra); wounds
on `/check`, the attack options, Luck on initiative, the GM's wound effect, ties said so (Kaernest)."""

from __future__ import annotations

import json

from bot.characters import CharacterBook
from rules.systems.registry import get_system
from tests.e2e.conftest import Harness
from tests.e2e.test_actions_helpers import (
    combatant_row,
    nyra_duel,
    nyra_sheet,
    refused_unchanged,
    resolution,
)
from tests.e2e.test_actions_kaernest import andretti, damage_of, izuki, kaernest_fight
from tests.e2e.test_encounters import current, make_character, ok, refused, setup_gm
from tests.rules.kaernest.helpers import fighter


async def sheet_of(fray: Harness, character_id: int) -> dict:
    assert fray.bot is not None
    record = await CharacterBook(fray.bot.store).get(character_id)
    assert record is not None
    return dict(record.sheet)


# --- Nyra -----------------------------------------------------------------------------------------------------
async def test_a_players_bonus_is_refused_and_a_gms_applies(fray: Harness) -> None:
    await nyra_duel(fray)
    fray.script()
    await refused_unchanged(
        fray, fray.player, "attack", "the gm's to give", target="Duelist 2", type="C", bonus=20
    )
    # The GM acting for Duelist 1: Swords 7 + 2 = 9; a 9 succeeds (margin 0), Defense 5 rolls 1 (margin 4).
    with fray.script(9, 1):
        r = await ok(fray, fray.gm, "attack", target="Duelist 2", type="C", bonus=2, **{"as": "Duelist 1"})
    text = resolution(r)
    assert "defended" in text and "9" in text, text
    # /check: a player's bonus is refused, the GM's (here on the GM's own character) applies.
    r = await refused(fray, fray.player, "check", "the gm's to give", stat="Swords", bonus=5)
    with fray.script(10):
        r = await ok(fray, fray.gm, "check", stat="Swords", character="Duelist 2", bonus=1)
    assert "rolled 10" in r.content or "10" in r.content


async def test_only_a_gm_sets_the_move_cost_and_the_house_rule_is_the_default(fray: Harness) -> None:
    await nyra_duel(fray)
    fray.script()
    await refused_unchanged(fray, fray.player, "move", "the gm's to give", cost=2)
    await ok(fray, fray.gm, "gm rules", rule="move_cost", value="2")
    r = await ok(fray, fray.player, "move")
    read, _ = await current(fray)
    assert read.state.get(str(read.combatant("Duelist 1").id)).delay_pool == 4, resolution(r)
    await ok(fray, fray.gm, "move", cost=1, **{"as": "Duelist 1"})
    read, _ = await current(fray)
    assert read.state.get(str(read.combatant("Duelist 1").id)).delay_pool == 3


async def test_a_weapon_added_after_joining_is_carried_from_the_next_turn(fray: Harness) -> None:
    await nyra_duel(fray)
    fray.script()
    await ok(fray, fray.player, "character weapon", name="Nodachi")
    r = await refused(
        fray, fray.player, "attack", "carries no `nodachi`", target="Duelist 2", weapon="Nodachi", type="S"
    )
    assert "carried from the start of Duelist 1's next turn" in r.content, r.content  # not a contradiction
    await ok(fray, fray.player, "turn end")  # Duelist 2's turn
    r = await ok(fray, fray.gm, "turn end")  # Duelist 1's turn starts with the sheet as it is now
    assert "Nodachi" in "\n".join(m.content for m in r.messages), [m.content for m in r.messages]
    with fray.script(10):  # a natural 10: a miss, but the Nodachi is carried now
        r = await ok(fray, fray.player, "attack", target="Duelist 2", weapon="Nodachi", type="S")
    assert "Nodachi" in resolution(r)


async def test_a_rolled_sequence_is_written_to_the_sheet(fray: Harness) -> None:
    await setup_gm(fray, "nyra")
    sheet = nyra_sheet("Duelist 1", {"Swords": 7, "Dodge": 5}, 5)
    unset = get_system("nyra").set_sheet_field(sheet, "sequence", "none")
    cid = await make_character(fray, fray.player, "Duelist 1", "nyra", unset)
    await make_character(
        fray, fray.gm, "Duelist 2", "nyra", nyra_sheet("Duelist 2", {"Swords": 7, "Defense": 5}, 4)
    )
    await ok(fray, fray.gm, "encounter start", name="Duel")
    await ok(fray, fray.player, "encounter join")
    await ok(fray, fray.gm, "encounter join")
    with fray.script(7):
        await ok(fray, fray.gm, "encounter begin")
    assert (await sheet_of(fray, cid))["sequence"] == 7


async def test_gm_heal_names_the_location(fray: Harness) -> None:
    await nyra_duel(fray)
    fray.script()
    await ok(fray, fray.gm, "gm damage", target="Duelist 2", amount=5, location="Head")
    await ok(fray, fray.gm, "gm damage", target="Duelist 2", amount=9, location="Chest")
    await ok(fray, fray.gm, "gm heal", target="Duelist 2", amount=3, location="Head")
    read, _ = await current(fray)
    d2 = combatant_row(read, "Duelist 2")
    assert (d2.location_damage["Head"], d2.location_damage["Chest"]) == (2, 9)


# --- Kaernest -------------------------------------------------------------------------------------------------
async def test_a_wound_lowers_a_check_target_by_1_in_the_encounter(fray: Harness) -> None:
    await kaernest_fight(fray, izuki(), andretti(instinct=4), [12, 8])
    fray.script()
    with fray.script(3, 3):
        r = await ok(fray, fray.player, "check", stat="Grace")
    assert "needs ≤ 6" in r.content, r.content
    await ok(fray, fray.gm, "gm damage", target="Izuki", amount=8)  # > 1.5 × Health 5: a wound
    with fray.script(3, 3):
        r = await ok(fray, fray.player, "check", stat="Grace")
    assert "needs ≤ 5" in r.content and "wounds" in r.content, r.content


async def test_kaernest_attack_options_and_whose_they_are(fray: Harness) -> None:
    await kaernest_fight(fray, izuki(weapons=("Sword, Short",)), andretti(instinct=4, reflex=6), [12, 8])
    fray.script()
    await refused_unchanged(
        fray, fray.player, "attack", "the gm's to give", target="Andretti", circumstance=2
    )
    await refused_unchanged(fray, fray.player, "attack", "the gm's to give", target="Andretti", speed=40)
    # The short sword lands at 12 (before Andretti declares there): 2 + 2 hits; enchantment +2 by the player.
    with fray.script(2, 2):
        r = await ok(fray, fray.player, "attack", target="Andretti", enchantment=2, element="energy")
    text = resolution(r)
    assert "enchantment" in text and "energy" in text, text


async def test_a_gm_sets_a_speed_beyond_a_minute(fray: Harness) -> None:
    await kaernest_fight(fray, izuki(), andretti(instinct=4), [12, 8])
    fray.script()
    r = await ok(fray, fray.gm, "attack", target="Andretti", speed=75, **{"as": "Izuki"})
    assert "lands at **3:02**" in resolution(r), resolution(r)


async def test_fists_need_no_weapon(fray: Harness) -> None:
    await kaernest_fight(fray, izuki(weapons=()), andretti(instinct=4), [12, 8])
    with fray.script(12, 12):  # speed 4 from 17 lands at 13, before Andretti's 12: a miss
        r = await ok(fray, fray.player, "attack", target="Andretti", weapon="fists")
    assert "Unarmed" in resolution(r) and "speed 4" in resolution(r), resolution(r)


async def test_luck_spent_on_initiative_when_joining(fray: Harness) -> None:
    await setup_gm(fray, "kaernest")
    await make_character(fray, fray.player, "Izuki", "kaernest", izuki(luck=3))
    await make_character(fray, fray.gm, "Andretti", "kaernest", andretti(instinct=4))
    await ok(fray, fray.gm, "encounter start", name="Courtyard")
    await ok(fray, fray.player, "encounter join", luck=True)
    await ok(fray, fray.gm, "encounter join", character="Andretti")
    with fray.script(9, 8):
        r = await ok(fray, fray.gm, "encounter begin")
    everything = "\n".join(m.content for m in r.messages)
    assert "Luck" in everything, everything
    read, _ = await current(fray)
    izuki_now = read.state.get(str(read.combatant("Izuki").id))
    assert (izuki_now.initiative, izuki_now.sheet.luck) == (17, 0)


async def test_luck_pledged_before_begin_and_refused_after(fray: Harness) -> None:
    await setup_gm(fray, "kaernest")
    await make_character(fray, fray.player, "Izuki", "kaernest", izuki(luck=2))
    await make_character(fray, fray.gm, "Andretti", "kaernest", andretti(instinct=4))
    await ok(fray, fray.gm, "encounter start", name="Courtyard")
    await ok(fray, fray.player, "encounter join")
    await ok(fray, fray.gm, "encounter join", character="Andretti")
    await ok(fray, fray.player, "initiative luck")
    with fray.script(9, 8):
        await ok(fray, fray.gm, "encounter begin")
    read, _ = await current(fray)
    assert read.state.get(str(read.combatant("Izuki").id)).initiative == 16
    await refused(fray, fray.player, "initiative luck", "already has initiative")


async def test_the_gm_writes_a_wounds_effect(fray: Harness) -> None:
    await kaernest_fight(fray, izuki(), andretti(instinct=4), [12, 8])
    fray.script()
    await ok(fray, fray.gm, "gm damage", target="Andretti", amount=13, location="left arm")
    await refused(fray, fray.player, "gm wound", "gm", target="Andretti", wound=1, effect="x")
    await ok(fray, fray.gm, "gm wound", target="Andretti", wound=1, effect="drops the club")
    r = await ok(fray, fray.player, "encounter status", public=True)  # private unless public
    shown = r.embeds[0]["description"] + "".join(str(f) for f in r.embeds[0].get("fields", []))
    assert "drops the club" in shown, shown


async def test_equal_initiative_is_announced_with_its_rule(fray: Harness) -> None:
    await setup_gm(fray, "kaernest")
    await make_character(fray, fray.player, "A", "kaernest", fighter("A", instinct=5))
    await make_character(fray, fray.gm, "B", "kaernest", fighter("B", instinct=4))
    await ok(fray, fray.gm, "encounter start", name="Tie")
    await ok(fray, fray.player, "encounter join")
    await ok(fray, fray.gm, "encounter join", character="B")
    with fray.script(5, 6):  # both 10
        r = await ok(fray, fray.gm, "encounter begin")
    everything = "\n".join(m.content for m in r.messages)
    assert "Instinct" in everything, everything
    _, turn = await current(fray)
    read, _ = await current(fray)
    assert turn.actors == (str(read.combatant("A").id),)


async def test_defense_needs_a_shield_by_house_rule_and_shields_on_sheets(fray: Harness) -> None:
    await nyra_duel(fray)
    await ok(fray, fray.gm, "gm rules", rule="defense_needs_shield", value="on")
    # Duelist 2 has Defense but no shield and no Dodge: no reaction die; 3 hits, d6 3 Left Arm, 3d6.
    with fray.script(3, 3, 3, 4, 2):
        r = await ok(fray, fray.player, "attack", target="Duelist 2", type="C")
    text = resolution(r)
    assert "no shield" in text and "hit" in text, text
    await ok(fray, fray.gm, "character set", field="shield", value="Buckler", character="Duelist 2")
    await ok(fray, fray.player, "turn end")
    await ok(fray, fray.gm, "turn end")  # Duelist 2's sheet (now with a shield) reached it on its turn
    with fray.script(7, 1):  # 7 succeeds by 0; Defense 1 by 4: defended
        r = await ok(fray, fray.player, "attack", target="Duelist 2", type="C")
    assert "Defense" in resolution(r) and "defended" in resolution(r), resolution(r)


async def test_a_branch_skill_is_rolled_for_its_weapon(fray: Harness) -> None:
    await nyra_duel(fray)
    fray.script()
    await ok(fray, fray.player, "character set", field="Swords/Short Sword", value="9")
    await ok(fray, fray.player, "turn end")
    await ok(fray, fray.gm, "turn end")
    with fray.script(9, 1):  # 9 would miss Swords 7; the branch is 9
        r = await ok(fray, fray.player, "attack", target="Duelist 2", type="C")
    assert "Swords/Short Sword" in resolution(r), resolution(r)


async def define_the_oar(fray: Harness) -> None:
    """The player's sheet gets a weapon of its own: an oar."""
    await ok(
        fray,
        fray.player,
        "character set",
        field="custom_weapon Oar",
        value="handed 2, speed 7, bludgeon 5, skill Clubs/Maces",
    )


async def test_reserved_names_and_custom_weapons_on_sheets(fray: Harness) -> None:
    await setup_gm(fray, "kaernest")
    await ok(fray, fray.player, "character create", name="Izuki")
    await refused(fray, fray.player, "character set", "cannot be a skill", field="hp", value="20")
    await define_the_oar(fray)
    r = await ok(fray, fray.player, "character show")
    assert "Oar" in str(r.embeds[0]), r.embeds[0]


# --- what the table reads, and the inputs' exact effect ---------------------------------------------------------
async def test_a_players_bonus_refusal_speaks_to_the_player_and_a_gms_bonus_is_a_term(fray: Harness) -> None:
    await nyra_duel(fray)
    fray.script()
    r = await refused(fray, fray.player, "attack", "your gm", target="Duelist 2", type="C", bonus=20)
    assert "RULES.md" not in r.content and "not yours" in r.content, r.content
    with fray.script(9, 1):
        r = await ok(fray, fray.gm, "attack", target="Duelist 2", type="C", bonus=2, **{"as": "Duelist 1"})
    assert "Swords 7 +2 bonus needs ≤ 9, rolled 9: succeeds by 0" in resolution(r), resolution(r)
    with fray.script(8):
        r = await ok(fray, fray.gm, "check", stat="Swords", character="Duelist 2", bonus=1)
    assert "Swords 7 +1 bonus needs ≤ 8, rolled 8: succeeds by 0" in r.content, r.content


async def test_armour_and_stats_edited_mid_fight_reach_the_strike_and_the_log(fray: Harness) -> None:
    await nyra_duel(fray)
    fray.script()
    await ok(fray, fray.gm, "gm damage", target="Duelist 2", amount=5, location="Chest")
    await ok(fray, fray.gm, "character armour", name="Iron Helm", character="Duelist 2")
    await ok(fray, fray.player, "character set", field="STR", value="9")
    with fray.script(3, 10, 1, 3, 4, 2):  # before the refresh: no helm, STR 7 (+3): 9 + 3 = 12 on the Head
        r = await ok(fray, fray.player, "attack", target="Duelist 2", type="C")
    assert "**12**" in resolution(r), resolution(r)
    await ok(fray, fray.player, "turn end")  # Duelist 2's turn: its sheet (the helm) reaches it
    r = await ok(fray, fray.gm, "turn end")  # Duelist 1's turn: STR 9
    said = "\n".join(m.content for m in r.messages)
    assert "Duelist 1** fights on with its edited sheet: STR 7 → 9" in said, said
    with fray.script(3, 10, 1, 3, 4, 2):  # STR 9 (+4), the helm's C 3: 9 + 4 − 3 = 10
        r = await ok(fray, fray.player, "attack", target="Duelist 2", type="C")
    assert "Iron Helm" in resolution(r) and "**10**" in resolution(r), resolution(r)
    read, _ = await current(fray)
    d2 = combatant_row(read, "Duelist 2")
    # The fight's damage stays: 12, then a serious wound's 1 bleeding, then 10.
    assert (d2.location_damage["Head"], d2.location_damage["Chest"]) == (23, 5)
    log = await fray.fd.invoke(fray.channel, fray.gm, "encounter log")  # the GM's, privately
    entries = log.embeds[0]["description"]
    assert "*sheet refreshed* · combatant = Duelist 2 · changes = armour + Iron Helm (Head)" in entries
    assert "*sheet refreshed* · combatant = Duelist 1 · changes = STR 7 → 9" in entries


async def test_a_weapon_with_delay_0_is_refused_on_import(fray: Harness) -> None:
    nyra = get_system("nyra")
    doc = {**nyra.sheet_to_dict(nyra_sheet("Feather", {"Swords": 7}, 5)), "system": "nyra"}
    weapon = {"name": "Quill", "skill": "Swords", "modifier": "AGI", "delay": 0, "damage": {"P": "1d4"}}
    doc["weapons"] = [weapon]
    r = await fray.fd.invoke(
        fray.channel, fray.player, "character import", file=("f.json", json.dumps(doc).encode())
    )
    assert r.ephemeral and "weapons[0].delay" in r.content and "at least 1" in r.content, r.content
    assert await CharacterBook(fray.bot.store).refs(fray.guild.id) == []  # type: ignore[union-attr]
    weapon["delay"] = 1
    r = await fray.fd.invoke(
        fray.channel, fray.player, "character import", file=("f.json", json.dumps(doc).encode())
    )
    assert "Imported **Feather**" in r.content, r.content


async def test_gm_heal_without_a_location_heals_the_worst_wound(fray: Harness) -> None:
    await nyra_duel(fray)
    fray.script()
    await ok(fray, fray.gm, "gm damage", target="Duelist 2", amount=5, location="Head")
    await ok(fray, fray.gm, "gm damage", target="Duelist 2", amount=9, location="Chest")
    r = await ok(fray, fray.gm, "gm heal", target="Duelist 2", amount=3)
    assert "Chest" in resolution(r), resolution(r)
    read, _ = await current(fray)
    d2 = combatant_row(read, "Duelist 2")
    assert (d2.location_damage["Head"], d2.location_damage["Chest"]) == (5, 6)


async def test_a_gms_circumstance_and_an_arcane_attack_through_armour(fray: Harness) -> None:
    sheets = izuki(weapons=("Sword, Short",)), andretti(instinct=4, reflex=6, armour="Hardened Leather")
    await kaernest_fight(fray, *sheets, [12, 8])
    fray.script()
    # Arcane: the leather's arcane 1 joins the defense (Reflex 6 − 1 penalty + 1) and no armour is subtracted.
    with fray.script(2, 2):
        r = await ok(
            fray,
            fray.gm,
            "attack",
            target="Andretti",
            enchantment=2,
            circumstance=3,
            element="arcane",
            **{"as": "Izuki"},
        )
    text = resolution(r)
    assert "needed ≤ 8" in text and "−6 Andretti's defense (passive)" in text, text
    assert "an arcane attack" in text, text
    assert "+2 Muscle 5/2 +5 Sword, Short pierce 1h +2 enchantment +3 circumstance = 12" in text, text
    assert await damage_of(fray, "Andretti") == 12


async def test_a_failed_active_defense_names_the_passive_defense_that_stood(fray: Harness) -> None:
    mico = fighter("Mico", instinct=2)
    await kaernest_fight(fray, izuki(), andretti(instinct=1, reflex=6), [12, 6, 2], mico=mico)
    fray.script()
    await ok(fray, fray.gm, "defend", stance="active")
    with fray.script(6, 5, 3, 3):  # it lands at 1:12: the active defense first (11 > 10: fails), then 3 3
        r = await ok(fray, fray.player, "attack", target="Andretti", weapon="Sword, Short")
    text = resolution(r)
    defense, attack = (line for line in text.splitlines() if line.startswith(("🛡️ 1:", "⚔️ 1:")))
    assert "active defense [6 5]" in defense and "to-hit [3 3]" in attack, text
    assert "−6 Andretti's defense (passive)" in attack and "(active)" not in attack, attack


async def test_a_custom_weapon_on_the_sheet_attacks(fray: Harness) -> None:
    await setup_gm(fray, "kaernest")
    await make_character(fray, fray.player, "Izuki", "kaernest", izuki(weapons=()))
    await make_character(fray, fray.gm, "Andretti", "kaernest", andretti(instinct=4))
    await define_the_oar(fray)
    await ok(fray, fray.gm, "encounter start", name="Courtyard")
    await ok(fray, fray.player, "encounter join")
    await ok(fray, fray.gm, "encounter join", character="Andretti")
    with fray.script(12, 8):
        await ok(fray, fray.gm, "encounter begin")
    r = await refused(fray, fray.player, "attack", "next turn", target="Andretti", weapon="Club, War")
    assert "does not carry the Club, War" in r.content, r.content
    r = await ok(fray, fray.player, "attack", target="Andretti", weapon="Oar")
    assert "(Oar, 2-handed, bludgeon)" in resolution(r) and "lands at **1:10** (speed 7)" in resolution(r)


async def test_a_three_way_initiative_tie_is_settled_by_instinct_then_a_kept_roll_off(fray: Harness) -> None:
    await setup_gm(fray, "kaernest")
    await make_character(fray, fray.player, "A", "kaernest", fighter("A", instinct=5))
    await make_character(fray, fray.gm, "B", "kaernest", fighter("B", instinct=4))
    await make_character(fray, fray.owner, "C", "kaernest", fighter("C", instinct=4))
    await ok(fray, fray.gm, "encounter start", name="Tie")
    await ok(fray, fray.player, "encounter join")
    await ok(fray, fray.gm, "encounter join", character="B")
    await ok(fray, fray.owner, "encounter join")
    with fray.script(5, 6, 6, 3, 9):  # all at 10; B and C roll off (in entry order): 3, 9
        r = await ok(fray, fray.gm, "encounter begin")
    said = "\n".join(m.content for m in r.messages)
    assert (
        "**A**, **C** and **B** act in that order, all at initiative 10: higher Instinct first, then a d12 "
        "roll-off kept for the fight: **C** rolled 9, **B** rolled 3" in said
    ), said
    read, turn = await current(fray)
    assert turn.actors == (str(read.combatant("A").id),)


async def test_a_kaernest_sheet_edited_mid_fight_reaches_the_combatant_and_its_wound_stays(
    fray: Harness,
) -> None:
    await kaernest_fight(fray, izuki(), andretti(instinct=4), [12, 8])
    fray.script()
    await ok(fray, fray.gm, "gm damage", target="Izuki", amount=8)  # a wound (> 1.5 × Health 5)
    await ok(fray, fray.player, "character set", field="Grace", value="8")
    r = await ok(fray, fray.player, "turn end")  # Izuki waits a segment: its turn at 16 takes the sheet
    said = "\n".join(m.content for m in r.messages)
    assert "**Izuki** fights on with its edited sheet: Grace 6 → 8" in said, said
    read, _ = await current(fray)
    izuki_now = read.state.get(str(read.combatant("Izuki").id))
    assert izuki_now.sheet.grace == 8 and read.combatant("Izuki").damage == 8
    # The GM's check bonus applies; the wound still counts: Grace 8 + 2 − 1.
    with fray.script(3, 3):
        r = await ok(fray, fray.gm, "check", stat="Grace", character="Izuki", bonus=2)
    assert "needs ≤ 9" in r.content, r.content
    await refused(fray, fray.player, "check", "the gm's to give", stat="Grace", bonus=2)


async def test_leftover_delay_after_the_last_affordable_strike_goes_to_a_move(fray: Harness) -> None:
    await setup_gm(fray, "nyra")
    quick = get_system("nyra").set_sheet_field(
        nyra_sheet("Duelist 1", {"Swords": 7, "Dodge": 5}, 5), "AGI", "7"
    )  # 7 delay, Short Sword 3: two strikes, 1 left
    await make_character(fray, fray.player, "Duelist 1", "nyra", quick)
    await make_character(
        fray, fray.gm, "Duelist 2", "nyra", nyra_sheet("Duelist 2", {"Swords": 7, "Defense": 5}, 4)
    )
    await ok(fray, fray.gm, "encounter start", name="Duel")
    await ok(fray, fray.player, "encounter join")
    await ok(fray, fray.gm, "encounter join")
    await ok(fray, fray.gm, "encounter begin")
    for _ in range(2):
        with fray.script(10):  # a natural 10 misses: no defender's die
            await ok(fray, fray.player, "attack", target="Duelist 2", type="C")
    read, turn = await current(fray)
    d1 = read.state.get(str(read.combatant("Duelist 1").id))
    assert turn.actors == (str(read.combatant("Duelist 1").id),) and d1.delay_pool == 1
    await ok(fray, fray.gm, "move", cost=1, **{"as": "Duelist 1"})  # the last delay: the turn ends
    read, turn = await current(fray)
    assert turn.actors == (str(read.combatant("Duelist 2").id),)
