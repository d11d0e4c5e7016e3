"""`/help` answers privately, per system (its turn flow from the traits) and per phase (setup, your turn,
someone else's turn, Last Gasp), with the house rules in force; its topics autocomplete."""

from __future__ import annotations

import pytest

from rules.systems.registry import get_system, system_names
from tests.e2e.conftest import Harness
from tests.e2e.test_actions_helpers import d6_fight, d6_sheet, nyra_duel
from tests.e2e.test_encounters import ok, setup_gm


async def ask(fray: Harness, member, **options) -> str:
    r = await fray.fd.invoke(fray.channel, member, "help", **options)
    assert r.ephemeral and len(r.content) <= 2000, r.content
    return r.content


async def test_help_without_a_system_says_how_to_pick_one(fray: Harness) -> None:
    assert "`/gm system`" in await ask(fray, fray.player)


@pytest.mark.parametrize("system", system_names())
async def test_help_in_setup_names_the_system_its_flow_and_the_house_rules(
    fray: Harness, system: str
) -> None:
    await setup_gm(fray, system)
    adapter = get_system(system)
    text = await ask(fray, fray.player)
    assert adapter.title in text and adapter.traits.turn_flow in text
    assert "`/character create`" in text and "House rules" in text
    choices = await fray.fd.autocomplete(fray.channel, fray.player, "help", focused="topic", value="")
    values = [c["value"] for c in choices]
    assert "flow" in values and "rules" in values
    assert ("last-gasp" in values) == adapter.traits.death_saves
    assert all(" — " in c["name"] for c in choices)


async def test_help_names_changed_house_rules(fray: Harness) -> None:
    await setup_gm(fray, "nyra")
    await ok(fray, fray.gm, "gm rules", rule="tie_rule", value="attacker")
    assert "`tie_rule` attacker" in await ask(fray, fray.player, topic="rules")


async def test_help_on_your_turn_and_on_someone_elses(fray: Harness) -> None:
    await nyra_duel(fray)  # Duelist 1 (the player's) acts first
    mine = await ask(fray, fray.player)
    assert "**Your turn.**" in mine and "`/attack target:`" in mine
    theirs = await ask(fray, fray.gm)
    assert "**Waiting.**" in theirs and "Duelist 1" in theirs


async def test_help_in_last_gasp_offers_only_the_death_save(fray: Harness) -> None:
    await d6_fight(fray, [("Orn", d6_sheet("Orn", hp_max=5))], [("B", "bandit")], init=[6, 1, 1, 1])
    await ok(fray, fray.gm, "gm damage", target="Orn", amount=5)
    text = await ask(fray, fray.player)
    assert (
        "**Last Gasp.**" in text
        and "Death Save" in text
        and "`/lockin`" not in text.split("**Last Gasp.**")[1]
    )
