"""The D6 campaign at the table through the fake Discord, with the default house rules and scripted dice
(RULES.md §4): a one-action turn in one command, `/lockin` ending the turn, owed Death Saves (one skipped by
the GM) with a growing malus, the seed's Eva example planned with `/check` and `/free`, `/attack flank`,
moving while hidden, a contest then a throw in one plan, undoing a lock-in, and the instance carried across
two encounters and a restart (the seed's Markarth example)."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import Harness
from tests.e2e.test_actions_helpers import d6_fight, d6_sheet, resolution, whose_turn
from tests.e2e.test_encounters import current, make_character, ok, refused, setup_gm


async def fight(
    fray: Harness, pcs: list[tuple[str, Any]], npcs: list[tuple[str, Any]], init: list[int]
) -> None:
    await d6_fight(fray, pcs, npcs, init, lock_ends_turn=True)


async def gm_dice(fray: Harness, *values: int) -> None:
    """The GM queues physical dice for the next rolls; no other die may be drawn (the script is empty)."""
    fray.script()
    r = await fray.fd.invoke(fray.channel, fray.gm, "gm dice", values=" ".join(map(str, values)))
    assert r.ephemeral and "queued" in r.content.lower(), r.content


async def declare(fray: Harness, command: str, **options: Any) -> str:
    r = await fray.fd.invoke(fray.channel, fray.player, command, **options)
    assert r.ephemeral and "plan so far" in r.content, r.content
    return r.content


# --- one command for a one-action turn ----------------------------------------------------------------
async def test_lock_and_lockin_end_the_turn(fray: Harness) -> None:
    tassadar = d6_sheet("Tassadar", coordination="3D", physique="2D")
    await fight(fray, [("Tassadar", tassadar)], [("Bandit", "bandit")], init=[5, 1, 2])
    await gm_dice(fray, 4, 4, 4, 2)
    r = await ok(fray, fray.player, "attack", target="Bandit", lock=True)
    assert "against save 10" in resolution(r)
    assert await whose_turn(fray) == "Bandit"  # declared, resolved and ended: one command
    await ok(fray, fray.gm, "turn end", **{"as": "Bandit"})
    fray.script()
    await declare(fray, "attack", target="Bandit")
    await gm_dice(fray, 1, 1, 2)
    await ok(fray, fray.player, "lockin")
    assert await whose_turn(fray) == "Bandit"


# --- Death Saves are owed -----------------------------------------------------------------------------
async def test_a_last_gasp_character_owes_its_save_and_the_malus_grows_over_three_turns(
    fray: Harness,
) -> None:
    orn = d6_sheet("Orn", physique="3D", charisma="2D", hp_max=10)
    await fight(fray, [("Orn", orn)], [("Thug", d6_sheet("Thug"))], init=[2, 5])
    fray.script()
    await ok(fray, fray.gm, "gm damage", target="Orn", amount=12)
    await ok(fray, fray.gm, "turn end", **{"as": "Thug"})
    assert await whose_turn(fray) == "Orn"
    r = await refused(fray, fray.player, "turn end", "owes this turn's Death Save")
    assert "make it with `/deathsave`" in r.content, r.content  # code, not escaped backticks
    assert any(c.startswith("fray:death-save:") for c in r.custom_ids), r.custom_ids
    # Last Gasp turn 1: 5D, 15 → no effect; the save made, the turn ends by itself.
    await gm_dice(fray, 3, 3, 3, 3, 3)
    r = await ok(fray, fray.player, "deathsave", **{"with": "charisma"})
    assert "Death Save 1" in resolution(r)
    assert await whose_turn(fray) == "Thug"
    await ok(fray, fray.gm, "turn end", **{"as": "Thug"})
    # Last Gasp turn 2: the GM skips the save; the turn still counts.
    r = await ok(fray, fray.gm, "turn end", **{"as": "Orn"})
    assert "skips **Orn**'s Death Save; Last Gasp turn 2 still counts" in r.content, r.content
    await ok(fray, fray.gm, "turn end", **{"as": "Thug"})
    # Last Gasp turn 3: −2D.
    await gm_dice(fray, 5, 5, 5)
    r = await ok(fray, fray.player, "deathsave", **{"with": "charisma"})
    text = resolution(r)
    assert "Death Save 3" in text and "−2D bleeding out (Last Gasp turn 3)" in text, text
    read, _ = await current(fray)
    assert read.combatant("Orn").last_gasp_round == 3


# --- any action can be planned ------------------------------------------------------------------------
async def eva_fight(fray: Harness) -> None:
    eva = d6_sheet("Eva", charisma="3D", coordination="4D")
    await fight(fray, [("Eva", eva)], [("Tassadar", d6_sheet("Tassadar"))], init=[5, 2])
    fray.script()


async def test_seed_eva_charms_the_wolf_and_backstabs_tassadar_at_minus_1d(fray: Harness) -> None:
    await eva_fight(fray)
    said = await declare(fray, "check", stat="charisma", note="charm the wolf")
    assert "check charisma (charm the wolf)" in said
    said = await declare(fray, "attack", target="Tassadar", flank=True)
    assert "(flank/backstab)" in said and "every roll at −1D" in said
    await gm_dice(fray, 4, 5, 3, 3, 3)
    r = await ok(fray, fray.player, "lockin")
    text = resolution(r)
    assert "charisma (charm the wolf): **9** (2D: −1D multi-action)" in text, text
    assert "🎲 charisma [4ᴳ 5ᵂᴳ]" in text, text  # the GM's physical dice, the Wild Die last
    assert await whose_turn(fray) == "Tassadar"


async def test_a_player_declaring_many_actions_still_reads_the_penalty(fray: Harness) -> None:
    await eva_fight(fray)
    for _ in range(8):
        await declare(fray, "attack", target="Tassadar")
    said = await declare(fray, "attack", target="Tassadar")
    assert (
        ", every roll at −8D at lock-in (9 actions count): 1–9. attack Tassadar with short sword." in said
    ), said


async def test_seed_eva_also_commands_her_cat_all_at_minus_2d_and_a_shout_is_free(fray: Harness) -> None:
    await eva_fight(fray)
    await declare(fray, "free", note="shout at the wolf")
    await declare(fray, "check", stat="charisma", note="charm the wolf")
    await declare(fray, "check", stat="charisma", note="command the cat")
    said = await declare(fray, "attack", target="Tassadar", flank=True)
    assert "every roll at −2D at lock-in (3 actions count; 1 free declared, 1 allowed)" in said, said
    await gm_dice(fray, 4, 5, 3, 3)
    r = await ok(fray, fray.player, "lockin")
    text = resolution(r)
    # The three counted rolls at −2D (the "Just now" recap repeats the last: count the rolls themselves).
    rolls = [line for line in text.splitlines() if "−2D multi-action" in line and not line.startswith("›")]
    assert len(rolls) == 3, text
    assert "charisma (charm the wolf): **4** (1D: −2D multi-action)" in rolls[0], text
    assert "charisma (command the cat): **5** (1D: −2D multi-action)" in rolls[1], text
    assert "rolled 6 (2D: −2D multi-action)" in rolls[2], text
    assert "**Eva**: shout at the wolf (free action)" in text, text


async def test_a_check_off_turn_rolls_at_once(fray: Harness) -> None:
    await eva_fight(fray)
    await ok(fray, fray.gm, "turn end", **{"as": "Eva"})
    await gm_dice(fray, 2, 2, 2)
    r = await ok(fray, fray.player, "check", stat="charisma")
    assert "charisma: **6** (3D)" in resolution(r)
    assert await whose_turn(fray) == "Tassadar"


# --- flank, moving while hidden -----------------------------------------------------------------------
async def test_flank_is_shown_with_the_critical_terms(fray: Harness) -> None:
    await eva_fight(fray)
    await gm_dice(fray, 5, 5, 5, 5, 2, 2, 1, 1)
    r = await ok(fray, fray.player, "attack", target="Tassadar", flank=True, lock=True)
    text = resolution(r)
    # 20 against save 10; stage +2 (flank) → 100 %: the threshold is 10, a critical.
    assert "**a critical hit** — stage 2 (+2 flank/backstab): 100% of the save" in text, text
    assert "so 10 or more is critical" in text and "critical: the natural dice doubled" in text, text


async def test_moving_while_hidden_declares_the_check_and_a_failed_one_reveals(fray: Harness) -> None:
    await eva_fight(fray)
    await ok(fray, fray.gm, "gm condition", target="Eva", condition="hidden")
    said = await declare(fray, "move", distance=2)
    assert "new stealth check" in said
    await gm_dice(fray, 1, 1, 1, 4, 4, 4)
    await ok(fray, fray.player, "lockin")
    read, _ = await current(fray)
    assert "hidden" not in read.combatant("Eva").conditions


# --- plans checked as they unfold; undo is whole ------------------------------------------------------
async def grappling(fray: Harness) -> None:
    """G (Physique 4D) has grappled T (2D): the counter at 1 toward G, G's turn again."""
    g, t = d6_sheet("G", physique="4D"), d6_sheet("T", physique="2D")
    await fight(fray, [("G", g)], [("T", t)], init=[5, 2])
    await gm_dice(fray, 3, 3, 3, 3, 1, 2)
    await ok(fray, fray.player, "grapple", action="start", target="T", lock=True)
    await ok(fray, fray.gm, "turn end", **{"as": "T"})


async def test_a_contest_then_a_throw_in_one_plan(fray: Harness) -> None:
    await grappling(fray)
    fray.script()
    await refused(fray, fray.player, "grapple", "(it is 1)", action="throw", target="T")
    await declare(fray, "grapple", action="contest", target="T")
    await declare(fray, "grapple", action="throw", target="T")
    # Contest at −1D: 3D 6 + 6 + 5 = 17 against 2D 1 + 1 = 2, by 10 or more: counter 3; the throw: 3 + 4.
    await gm_dice(fray, 6, 6, 5, 1, 1, 3, 4)
    r = await ok(fray, fray.player, "lockin")
    text = resolution(r)
    assert "counter 3 toward **G**" in text and "throws" in text, text
    read, _ = await current(fray)
    assert read.grapples == []


async def test_the_throw_is_refused_at_resolution_when_the_contest_falls_short(fray: Harness) -> None:
    await grappling(fray)
    await declare(fray, "grapple", action="contest", target="T")
    await declare(fray, "grapple", action="throw", target="T")
    # Contest at −1D: 3D 2 + 2 + 3 = 7 against 2D 1 + 2 = 3: won, counter 2; the throw cannot follow.
    await gm_dice(fray, 2, 2, 3, 1, 2)
    r = await ok(fray, fray.player, "lockin")
    text = resolution(r)
    assert "counter 2 toward **G**" in text, text
    assert (
        "G's grapple (throw) is skipped: a throw needs the grapple counter at 3 in G's favour (it is 2)."
        in text
    ), text
    assert "throws" not in text


async def test_undoing_a_lock_in_puts_the_plan_back_and_says_so(fray: Harness) -> None:
    await eva_fight(fray)
    await declare(fray, "attack", target="Tassadar")
    await gm_dice(fray, 1, 1, 1, 2)
    await ok(fray, fray.player, "lockin")
    assert await whose_turn(fray) == "Tassadar"
    r = await ok(fray, fray.gm, "gm undo")
    assert "plan so far (not locked in): attack Tassadar" in r.content, r.content
    assert await whose_turn(fray) == "Eva"
    await gm_dice(fray, 1, 1, 1, 2)
    r = await ok(fray, fray.player, "lockin")
    assert "−1D" not in resolution(r)  # one action again, not two


# --- the instance across encounters -------------------------------------------------------------------
async def room(fray: Harness, name: str, init: list[int]) -> str:
    """The party enters a room: what their joins said."""
    await ok(fray, fray.gm, "encounter start", name=name)
    said = [
        (await ok(fray, fray.player, "encounter join", character=pc)).text
        for pc in ("Eva", "Markarth", "Orn")
    ]
    await ok(fray, fray.gm, "encounter add", name="Thrall")
    await gm_dice(fray, *init)
    await ok(fray, fray.gm, "encounter begin")
    return "\n".join(said)


async def test_seed_markarth_across_two_encounters_of_one_instance_and_a_restart(fray: Harness) -> None:
    await setup_gm(fray, "d6")
    await make_character(fray, fray.player, "Eva", "d6", d6_sheet("Eva", intellect="3D", healing_level=1))
    await make_character(
        fray, fray.player, "Markarth", "d6", d6_sheet("Markarth", restoration_level=1, hp_max=12)
    )
    await make_character(fray, fray.player, "Orn", "d6", d6_sheet("Orn", hp_max=10))
    await make_character(fray, fray.gm, "Thrall", "d6", d6_sheet("Thrall"))
    await room(fray, "Room 1", [5, 1, 2, 3])
    read, _ = await current(fray)
    assert (read.encounter.heal_pool_size, read.encounter.heal_pool_used) == (2, 0)
    fray.script()
    await ok(fray, fray.gm, "gm damage", target="Orn", amount=6)
    # The party heals Orn before the next room: Intellect 3D 12 → 1D: 3 (Orn 4 → 7).
    await gm_dice(fray, 4, 4, 4, 3)
    await ok(fray, fray.player, "heal", target="Orn", lock=True)
    await ok(fray, fray.gm, "gm damage", target="Markarth", amount=2)
    await ok(fray, fray.gm, "encounter end")
    await fray.restart()
    r = await fray.fd.invoke(fray.channel, fray.player, "encounter status")
    assert "instance 1: heal pool 1 of 2 left (1 used)" in r.content and "Orn: 7 HP" in r.content, r.content
    await room(fray, "Room 2", [5, 1, 2, 3])
    read, _ = await current(fray)
    assert read.combatant("Orn").hp == 7 and read.combatant("Markarth").hp == 10
    assert (read.encounter.heal_pool_size, read.encounter.heal_pool_used) == (2, 1)
    # Markarth is mauled to −3: the extra heal is gone and none is left.
    fray.script()
    await ok(fray, fray.gm, "gm damage", target="Markarth", amount=13)
    read, _ = await current(fray)
    assert (read.encounter.heal_pool_size, read.encounter.heal_pool_used) == (1, 1)
    await refused(fray, fray.player, "heal", "no heals left this instance", target="Markarth")
    await ok(fray, fray.player, "turn end")  # Eva
    await ok(fray, fray.gm, "turn end", **{"as": "Thrall"})
    await ok(fray, fray.player, "turn end")  # Orn
    # Markarth's first Last Gasp turn: Physique 3D + Charisma 3D: 24 → +1D stored healing: 3.
    await gm_dice(fray, 4, 4, 4, 4, 4, 4, 3)
    r = await ok(fray, fray.player, "deathsave", **{"with": "charisma"})
    assert "Death Save 1" in resolution(r) and "stored healing now 3" in resolution(r), resolution(r)
    await ok(fray, fray.gm, "encounter end")
    await fray.restart()
    # A new instance refills the pool; HP and Last Gasp stay as they are (Markarth still down).
    r = await ok(fray, fray.gm, "gm instance")
    assert (
        "instance 2" in r.content
        and "Markarth: −3 HP, in Last Gasp (1 turn so far), stored healing 3" in r.content
    )
    await fray.restart()
    said = await room(fray, "Room 3", [5, 1, 2, 3])
    assert "🧭 **Markarth** comes in as instance 2 left them: HP −3/12, in Last Gasp (1 turn so far)" in said
    shrinks = "heal pool shrinks to 1 heal (Markarth is down, as the instance left them): **1** left"
    assert shrinks in said, said
    read, _ = await current(fray)
    markarth = read.combatant("Markarth")
    assert (markarth.hp, markarth.last_gasp_round, markarth.stored_healing) == (-3, 1, 3)
    assert (read.encounter.heal_pool_used, read.encounter.heal_pool_instance) == (0, 2)
    r = await fray.fd.invoke(fray.channel, fray.player, "encounter status")  # private by default now
    assert "instance 2" in str(r.embeds), (r.content, r.embeds)
