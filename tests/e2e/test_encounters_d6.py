"""The D6 seed's initiative example through Discord: bandits ambush at 15 each (`attackers`, `surprise` 10),
P 17, O 16, T 15, A 15, E 9, positions `B1 B2 B3 (centre) P T O A E` → P, O, A, T, B1, B2, B3, E; then two
full rounds with `/turn end` (players), `/gm next`, `/turn end as` and the End turn button (GM), drawing no
die after the initiative roll.
"""

from __future__ import annotations

from rules.systems.registry import get_system
from tests.e2e.conftest import Harness
from tests.e2e.test_encounters import (
    announcement,
    current,
    end_turn_id,
    make_character,
    ok,
    setup_gm,
)

# Entry order P T O A E B1 B2 B3; party Perception 4D, bandits 2D (+10 ambush); each pool's Wild Die last.
SEED_DICE = [5, 4, 4, 4,  4, 4, 4, 3,  4, 4, 4, 4,  3, 4, 4, 4,  2, 2, 2, 3,  2, 3,  2, 3,  2, 3]  # fmt: skip
DISTANCE = {"P": 1, "T": 2, "O": 3, "A": 4, "E": 5}
SEED_ORDER = ["P", "O", "A", "T", "Bandit 1", "Bandit 2", "Bandit 3", "E"]


def d6_sheet(name: str, perception: str, hp_max: int):
    d6 = get_system("d6")
    sheet = d6.new_sheet(name)
    sheet = d6.set_sheet_field(sheet, "perception", perception)
    return d6.set_sheet_field(sheet, "hp_max", str(hp_max))


async def test_the_seed_initiative_example_and_two_rounds(fray: Harness) -> None:
    await setup_gm(fray, "d6")
    for name in DISTANCE:
        await make_character(fray, fray.player, name, "d6", d6_sheet(name, "4D", 20))
    await make_character(fray, fray.gm, "Bandit", "d6", d6_sheet("Bandit", "2D", 14))
    await ok(fray, fray.gm, "encounter start", name="Bandits on the road")
    for name, distance in DISTANCE.items():
        await ok(fray, fray.player, "encounter join", character=name.lower(), distance=distance)
    r = await ok(fray, fray.gm, "encounter add", name="Bandit", count=3, side="bandits", distance=3)
    assert "Bandit 3" in r.content
    await ok(fray, fray.gm, "gm set", target="Bandit 2", field="distance", value="2")
    await ok(fray, fray.gm, "gm set", target="Bandit 3", field="distance", value="1")

    with fray.script(*SEED_DICE):
        r = await ok(fray, fray.gm, "encounter begin", attackers="bandits", surprise=10)
    read, turn = await current(fray)
    tracker = read.tracker()
    assert [c.name for c in tracker.order] == SEED_ORDER
    assert [c.initiative for c in tracker.order] == [17, 16, 15, 15, 15, 15, 15, 9]
    assert [c.initiative for c in read.combatants] == [
        17,
        15,
        16,
        15,
        9,
        15,
        15,
        15,
    ]  # typed columns, entry order
    message = announcement(r)
    assert "P" in message.content and set(fray.fd.pings(message)) == {fray.player.id}
    assert "17" in r.content and "🎲" in r.content  # every initiative die is shown

    fray.script()  # no die may be drawn while turns pass
    seen = []
    for i in range(2 * len(SEED_ORDER)):
        read, turn = await current(fray)
        actor = read.combatant(read.names[turn.actors[0]])
        seen.append(actor.name)
        if actor.owner_id == fray.player.id:
            r = await ok(fray, fray.player, "turn end")
        elif i % 3 == 0:
            r = await ok(fray, fray.gm, "gm next")
        elif i % 3 == 1:
            r = await fray.fd.click(message, fray.gm, end_turn_id(message))
        else:
            r = await ok(fray, fray.gm, "turn end", **{"as": actor.name})
        assert not r.ephemeral, r.content
        message = announcement(r)
        pings = set(fray.fd.pings(message))
        assert pings == (
            set()
            if read.combatant(read.names[(await current(fray))[1].actors[0]]).owner_id is None
            else {fray.player.id}
        )
    assert seen == SEED_ORDER * 2
    read, turn = await current(fray)
    assert read.encounter.round == 3 and read.turn().actors == (str(read.combatant("P").id),)
    assert read.encounter.heal_pool_size is not None and read.encounter.heal_pool_instance == 1
