"""A fourth rule system, registered only here, played through the real bot: nothing in ``bot/`` or ``cogs/``
knows it, yet `/gm system` offers it, sheets are made and changed in it, and an encounter runs a turn.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.settings import Settings
from tests import fourth_system
from tests.e2e.conftest import Harness
from tests.e2e.test_actions_more import values
from tests.e2e.test_encounters import announcement, current, ok

DUEL = fourth_system.SYSTEM.name


@pytest.fixture
def e2e_settings(e2e_settings: Settings) -> Iterator[Settings]:
    """The duel is registered before the bot starts (``fray`` needs these settings) and taken out after."""
    with fourth_system.registered():
        yield e2e_settings


def offered(fray: Harness, command: str, sub: str, option: str) -> list[str]:
    """The choices the synced command offers for ``option``."""
    cmd = fray.fd.find_command(fray.guild, command)
    assert cmd is not None
    subcommand = next(o for o in cmd["options"] if o["name"] == sub)
    return [c["value"] for o in subcommand["options"] if o["name"] == option for c in o["choices"]]


def hp_of(read, name: str) -> int | None:
    return next(c.hp for c in read.tracker().order if c.name == name)


async def test_the_duel_plays_a_turn_through_the_bot(fray: Harness) -> None:
    gm, player = fray.gm, fray.player
    await fray.make_gm_role()
    assert offered(fray, "gm", "system", "system")[-1] == DUEL
    assert offered(fray, "character", "create", "system")[-1] == DUEL
    r = await ok(fray, gm, "gm system", system=DUEL)
    assert "the Duel" in r.content

    r = await ok(fray, player, "character create", name="Vale")
    assert "Vale" in r.content and "Duel" in r.content
    await ok(fray, player, "character set", field="skill", value="8")
    await ok(fray, player, "character set", field="hp", value="12")
    shown = await ok(fray, player, "character show")
    assert "8" in str(shown.embeds[0]) and "12" in str(shown.embeds[0])

    await ok(fray, gm, "encounter start", name="Yard")
    r = await ok(fray, player, "encounter join")
    assert "Vale" in r.content
    assert await values(fray, gm, "encounter add", "template") == ["Brigand", "Duellist"]
    r = await ok(fray, gm, "encounter add", name="Brigand", template="Brigand", side="foes")
    assert "Brigand" in r.content

    r = await ok(fray, gm, "encounter begin")
    read, turn = await current(fray)
    assert read.encounter.status == "running" and read.encounter.round == 1
    assert [read.names[a] for a in turn.actors] == ["Vale"]  # skill 8 before the Brigand's 4
    assert "Vale" in announcement(r).content and player.id in fray.fd.pings(announcement(r))

    fray.script(3)  # 3 ≤ skill 8: a hit for the house damage of 3
    r = await ok(fray, player, "attack", target="Brigand")
    read, turn = await current(fray)
    assert hp_of(read, "Brigand") == 6 - 3 and hp_of(read, "Vale") == 12
    assert [read.names[a] for a in turn.actors] == ["Vale"]  # attacking does not end the turn
    r = await fray.fd.invoke(fray.channel, player, "attack", target="Brigand")
    assert r.ephemeral and "attacked this turn" in r.content  # the system's own refusal, nothing drawn

    r = await ok(fray, player, "turn end")
    read, after = await current(fray)
    assert after.key != turn.key and [read.names[a] for a in after.actors] == ["Brigand"]
    assert "Brigand" in announcement(r).content

    fray.script(9)  # 9 > skill 4: a miss
    await ok(fray, gm, "attack", target="Vale", **{"as": "Brigand"})
    read, _ = await current(fray)
    assert hp_of(read, "Vale") == 12
    await ok(fray, gm, "gm next")
    read, turn = await current(fray)
    assert read.encounter.round == 2 and [read.names[a] for a in turn.actors] == ["Vale"]

    status = await ok(fray, player, "encounter status", public=True)
    shown = status.embeds[0]["description"]
    assert "Round 2" in shown and "HP 12/12" in shown
    assert "Brigand** *(NPC)* · wounded" in shown  # a player sees the NPC's state, not its numbers
    status = await fray.fd.invoke(fray.channel, gm, "encounter status", numbers=True)
    assert "HP 3/6" in status.embeds[0]["description"]


def test_every_duel_event_has_a_sentence_while_the_duel_is_registered() -> None:
    from cogs.text.events.registry import renderer_for
    from tests.fourth_system.events import EVENTS

    with fourth_system.registered():
        assert all(renderer_for(cls) is not None for cls in EVENTS)
    assert all(renderer_for(cls) is None for cls in EVENTS)
