"""Shared set-ups for the action tests (no tests here): one encounter per system, state reads, refusals that
must change nothing."""

from __future__ import annotations

from typing import Any

from bot.models import Combatant
from bot.playground.loopback import FakeMember, InteractionResult
from rules.systems.registry import get_system
from tests.e2e.conftest import Harness
from tests.e2e.test_encounters import (
    current,
    db_state,
    make_character,
    ok,
    refused,
    setup_gm,
    without_version,
)

GM_MARK = "ᴳ"
WILD_MARK = "ᵂ"


def resolution(r: InteractionResult) -> str:
    """Every public message an action posted (the resolution may be split), without the announcements."""
    return "\n".join(m.content for m in r.messages if not m.ephemeral)


def combatant_row(read: Any, name: str) -> Combatant:
    return read.combatant(name)


async def stored(fray: Harness) -> dict:
    read, _ = await current(fray)
    return await db_state(fray, read.encounter.id)


async def refused_unchanged(
    fray: Harness, member: FakeMember, command: str, expect: str, **options: Any
) -> InteractionResult:
    """``command`` is refused ephemerally with ``expect`` in the answer, and the stored encounter (and the
    log) is exactly as before."""
    before = await stored(fray)
    r = await refused(fray, member, command, expect, **options)
    after = await stored(fray)
    assert after == before, f"/{command} {options} changed the encounter"
    return r


async def stored_without_version(fray: Harness) -> dict:
    return without_version(await stored(fray))


# --- Nyra -------------------------------------------------------------------------------------------------


def nyra_sheet(name: str, skills: dict[str, int], sequence: int) -> Any:
    nyra = get_system("nyra")
    raw = {
        "name": name,
        "stats": {"STR": 7, "AGI": 6, "CON": 6},
        "skills": skills,
        "sequence": sequence,
        "weapons": ["Short Sword"],
    }
    return nyra.sheet_from_dict(raw)


async def nyra_duel(fray: Harness) -> None:
    """The seed's duel: the player's Duelist 1 (Swords 7, Dodge 5, Sequence 5) against the GM's own PC Duelist 2
    (Swords 7, Defense 5, Sequence 4); begun (no die: the Sequences differ), Duelist 1's turn."""
    await setup_gm(fray, "nyra")
    await make_character(
        fray, fray.player, "Duelist 1", "nyra", nyra_sheet("Duelist 1", {"Swords": 7, "Dodge": 5}, 5)
    )
    await make_character(
        fray, fray.gm, "Duelist 2", "nyra", nyra_sheet("Duelist 2", {"Swords": 7, "Defense": 5}, 4)
    )
    await ok(fray, fray.gm, "encounter start", name="Friendly duel")
    await ok(fray, fray.player, "encounter join", side="one")
    await ok(fray, fray.gm, "encounter join", side="two")
    fray.script()
    await ok(fray, fray.gm, "encounter begin")


# --- D6 ---------------------------------------------------------------------------------------------------


def d6_sheet(name: str, **kw: Any) -> Any:
    """A D6 sheet like the rules tests' ``pc``/``npc``: every attribute 3D unless given, Perception 1D (one
    initiative die), a short sword (1D+2), 20 HP."""
    from tests.rules.d6.helpers import SHORT_SWORD, sheet

    kw.setdefault("weapons", (SHORT_SWORD,))
    kw.setdefault("hp_max", 20)
    kw.setdefault("perception", "1D")
    return sheet(name, **kw)


async def d6_fight(
    fray: Harness,
    pcs: list[tuple[str, Any]],
    npcs: list[tuple[str, Any]],
    init: list[int],
    *,
    lock_ends_turn: bool = False,
) -> None:
    """A D6 encounter: the player's PCs join in order, then the GM adds the NPCs (a sheet, or a template name
    as ``("B", "bandit:2")`` for two copies); begun with the initiative dice ``init`` (entry order).
    ``lock_ends_turn``: the house rule; off (a turn stays open after lock-in until `/turn end`) unless said,
    the reading the older scenarios were written for."""
    await setup_gm(fray, "d6")
    if not lock_ends_turn:
        await ok(fray, fray.gm, "gm rules", rule="lock_ends_turn", value="off")
    d6 = get_system("d6")
    for name, sheet in pcs:
        await make_character(fray, fray.player, name, "d6", sheet)
    for name, sheet in npcs:
        if not isinstance(sheet, str):
            await make_character(fray, fray.gm, name, "d6", sheet)
    await ok(fray, fray.gm, "encounter start", name="Road fight")
    for name, _ in pcs:
        await ok(fray, fray.player, "encounter join", character=name)
    for name, sheet in npcs:
        if isinstance(sheet, str):
            template, _, count = sheet.partition(":")
            await ok(fray, fray.gm, "encounter add", name=name, template=template, count=int(count or 1))
        else:
            await ok(fray, fray.gm, "encounter add", name=name)
    assert d6.name == "d6"
    with fray.script(*init):
        await ok(fray, fray.gm, "encounter begin")


async def whose_turn(fray: Harness) -> str:
    read, turn = await current(fray)
    return read.names[turn.actors[0]] if turn.actors else ""
