"""More of the D6 campaign at the table through the fake Discord, with the GM's physical dice (RULES.md §4):
a thread shares its channel's instance, the live tracker names the instance, a flank breaks a parry, a
successful move while hidden stays hidden, undoing a declaration takes it out of the plan, and throw and
take-down damage roll their Wild Die."""

from __future__ import annotations

import asyncio

from tests.e2e.conftest import Harness
from tests.e2e.test_actions_helpers import d6_fight, d6_sheet, resolution, whose_turn
from tests.e2e.test_d6_table import declare, eva_fight, gm_dice, grappling
from tests.e2e.test_encounters import current, make_character, ok, setup_gm

WAIT = 5.0  # the live tracker is posted after the reply; a bounded wait for it


async def tracker_text(fray: Harness, expect: str) -> str:
    """The channel's live tracker (the embed with the Heal pool field) once it shows ``expect``."""
    seen = ""
    for _ in range(int(WAIT / 0.05)):
        for m in fray.fd.channel_messages(fray.channel):
            if any(f.get("name") == "Heal pool" for e in m.embeds for f in e.get("fields", [])):
                seen = m.text
        if expect in seen:
            return seen
        await asyncio.sleep(0.05)
    return seen


# --- the instance: threads share it, the tracker shows it ---------------------------------------------
async def test_a_thread_shares_its_channels_instance_and_the_tracker_names_it(fray: Harness) -> None:
    await setup_gm(fray, "d6")
    await make_character(fray, fray.player, "Orn", "d6", d6_sheet("Orn", hp_max=10))
    await make_character(fray, fray.gm, "Thug", "d6", d6_sheet("Thug"))
    await ok(fray, fray.gm, "encounter start", name="Cellar")
    await ok(fray, fray.player, "encounter join", character="Orn")
    await ok(fray, fray.gm, "encounter add", name="Thug")
    await gm_dice(fray, 5, 2)
    await ok(fray, fray.gm, "encounter begin")
    shown = await tracker_text(fray, "instance 1")
    assert "Heal pool: 1 of 1 heals left (used 0), instance 1" in shown, shown
    fray.script()
    await ok(fray, fray.gm, "gm damage", target="Orn", amount=6)
    await ok(fray, fray.gm, "encounter end")
    # The side fight in the channel's thread is the same stretch of play: Orn comes in at 4 HP.
    r = await fray.fd.invoke(fray.thread, fray.player, "encounter status")
    assert "instance 1: heal pool 1 of 1 left (0 used)" in r.content and "Orn: 4 HP" in r.content, r.content
    await ok(fray, fray.gm, "gm instance")  # in the channel: the thread follows
    r = await fray.fd.invoke(fray.thread, fray.gm, "encounter start", name="Side fight")
    assert not r.ephemeral, r.content
    r = await fray.fd.invoke(fray.thread, fray.player, "encounter join", character="Orn")
    assert "🧭 **Orn** comes in as instance 2 left them: HP 4/10" in r.text, r.text


# --- flank, hidden moves ------------------------------------------------------------------------------
async def test_a_flanking_attack_breaks_through_a_parry(fray: Harness) -> None:
    await eva_fight(fray)
    await ok(fray, fray.gm, "turn end", **{"as": "Eva"})
    # Tassadar parries: Coordination 3D 5 + 5 + 5 = 15, the save against two attackers.
    await gm_dice(fray, 5, 5, 5)
    await ok(fray, fray.gm, "defend", stance="parry", lock=True, **{"as": "Tassadar"})
    assert await whose_turn(fray) == "Eva"
    # Eva flanks: 4D 3 + 3 + 3 + 3 = 12 beats the save 8 the backstab leaves (not the parry's 15).
    await gm_dice(fray, 3, 3, 3, 3, 1, 1, 1, 1)
    r = await ok(fray, fray.player, "attack", target="Tassadar", flank=True, lock=True)
    text = resolution(r)
    assert "💢 **Tassadar**: backstabbed through the parry by **Eva** → staggered, save **8**" in text, text
    assert "**hits** **Tassadar** (short sword, flank/backstab): rolled 12 (4D) against save 8" in text, text


async def test_a_move_while_hidden_that_succeeds_stays_hidden_and_the_attack_counts_from_stealth(
    fray: Harness,
) -> None:
    await eva_fight(fray)
    r = await ok(fray, fray.gm, "gm condition", target="Eva", condition="hidden")
    assert "GM: Eva gains hidden" in r.content, r.content  # the name, not the combatant's number
    await declare(fray, "move", distance=2)
    # Stealth: Agility 3D 5 + 5 + 5 + 3 (already hidden) = 18 against Tassadar's Acumen 3D 1 + 1 + 1 = 3.
    await gm_dice(fray, 5, 5, 5, 1, 1, 1)
    r = await ok(fray, fray.player, "lockin")
    text = resolution(r)
    assert "= 18 vs **Tassadar** 3 (unseen) → **hidden**" in text, text
    assert "🎲 stealth [5ᴳ 5ᴳ 5ᵂᴳ] · Acumen [1ᴳ 1ᴳ 1ᵂᴳ]" in text, text
    read, _ = await current(fray)
    assert read.combatant("Eva").conditions and "hidden" in " ".join(read.combatant("Eva").conditions)
    await ok(fray, fray.gm, "turn end", **{"as": "Tassadar"})
    # 4D 16 against save 10; stage +2 (from stealth) → 100 %: a critical at 10.
    await gm_dice(fray, 4, 4, 4, 4, 1, 1, 1, 1)
    r = await ok(fray, fray.player, "attack", target="Tassadar", lock=True)
    assert "**a critical hit** — stage 2 (+2 from stealth)" in resolution(r), resolution(r)
    read, _ = await current(fray)
    assert "hidden" not in " ".join(read.combatant("Eva").conditions)  # the attack revealed her


# --- undo of a declaration; the lock-in's one penalty line --------------------------------------------
async def test_undoing_a_declaration_takes_it_out_of_the_plan(fray: Harness) -> None:
    await eva_fight(fray)
    await declare(fray, "attack", target="Tassadar")
    said = await declare(fray, "check", stat="charisma", note="charm the wolf")
    assert "every roll at −1D at lock-in (2 actions count)" in said, said
    r = await ok(fray, fray.gm, "gm undo")
    assert "check" in r.content, r.content
    await gm_dice(fray, 1, 1, 1, 2)
    r = await ok(fray, fray.player, "lockin")
    text = resolution(r)
    assert "charm the wolf" not in text and "−1D" not in text, text
    assert "rolled 5 (4D) against save 10" in text, text


async def test_a_multi_action_lock_in_states_its_penalty_once(fray: Harness) -> None:
    await eva_fight(fray)
    await declare(fray, "check", stat="charisma", note="charm the wolf")
    await declare(fray, "attack", target="Tassadar")
    await gm_dice(fray, 4, 5, 3, 3, 3)
    r = await ok(fray, fray.player, "lockin")
    lines = resolution(r).splitlines()
    assert (
        "📎 Eva locks in: 1. check charisma (charm the wolf); 2. attack Tassadar with short sword." in lines
    )
    penalty = [x for x in lines if "on every roll" in x or "every roll at" in x]
    assert penalty == [
        "🔒 **Eva**: 2 actions count, so **−1D** on every roll this turn (the multi-action penalty)"
    ]


# --- Wild Die on throw and take-down damage -----------------------------------------------------------
async def grappled_at_3(fray: Harness) -> None:
    await grappling(fray)
    fray.script()
    await ok(fray, fray.gm, "gm set", target="G", field="grapple_counter", value="T 3")


async def test_a_throw_rolls_its_damage_with_a_wild_die(fray: Harness) -> None:
    await grappled_at_3(fray)
    # 2D: 3, then the Wild Die 6 explodes into 4 (halved: +2): 3 + 6 + 2 = 11.
    await gm_dice(fray, 3, 6, 4)
    r = await ok(fray, fray.player, "grapple", action="throw", target="T", lock=True)
    text = resolution(r)
    assert "→ **11** damage; the Wild Die exploded (6 + 4)" in text and "🎲 damage [3ᴳ 6ᵂᴳ 4ᵂᴳ]" in text, text


async def test_a_take_down_rolls_its_damage_with_a_wild_die(fray: Harness) -> None:
    await grappled_at_3(fray)
    # Physique 4D: 2, 3, 4 and the Wild Die 1 (a complication, counted): 10.
    await gm_dice(fray, 2, 3, 4, 1)
    r = await ok(fray, fray.player, "grapple", action="takedown", target="T", lock=True)
    text = resolution(r)
    assert "rolled 10 → **10**; counter 0; the Wild Die came up 1 (a complication)" in text, text
    assert "🎲 takedown [2ᴳ 3ᴳ 4ᴳ 1ᵂᴳ]" in text, text


# --- the house rule that keeps a locked turn open -----------------------------------------------------
async def test_with_lock_ends_turn_off_a_locked_turn_waits_for_turn_end(fray: Harness) -> None:
    eva = d6_sheet("Eva", coordination="4D")
    await d6_fight(fray, [("Eva", eva)], [("Tassadar", d6_sheet("Tassadar"))], init=[5, 2])
    await gm_dice(fray, 1, 1, 1, 2)
    r = await ok(fray, fray.player, "attack", target="Tassadar", lock=True)
    assert "Eva's turn is locked in; end it with `/turn end`." in resolution(r), resolution(r)
    assert await whose_turn(fray) == "Eva"
    await ok(fray, fray.player, "turn end")
    assert await whose_turn(fray) == "Tassadar"
