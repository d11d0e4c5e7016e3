"""Compact undo records: a change's log row keeps a reverse patch, small (≤ 2 KB for a change to an
8-combatant D6 fight), and undo stays exact: after 200 mixed changes, undoing them all, in steps of every
size, passes back through every stored state exactly."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import Text, cast, func, select

from bot import undo_record
from bot.encounters import edit_encounter, undo
from bot.models import EventLog
from rules.dice import RandomDice
from rules.errors import RulesError
from rules.systems.registry import system_names
from tests.bot.test_encounter_store import GM, HERE, FakeBot, db_state
from tests.bot.test_encounter_store import bot as bot  # the fixture

CHANGES = 200


def test_patches_give_the_earlier_value_back() -> None:
    before = {"a": 1, "b": [1, 2, {"c": 3}], "gone": True, "same": {"x": [1]}}
    after = {"a": 2, "b": [1, 2, {"c": 4}], "new": None, "same": {"x": [1]}}
    patch = undo_record.reverse_patch(before, after)
    assert undo_record.apply_patch(after, patch) == before
    assert "same" not in json.dumps(patch) and undo_record.reverse_patch(before, before) is None
    for longer, shorter in (([1, 2, 3], [1, 3]), ([1, 2, 3], [1, 2]), ([0, 1], []), ([1, 1, 1], [1, 1])):
        for b, a in ((longer, shorter), (shorter, longer)):
            assert undo_record.apply_patch(a, undo_record.reverse_patch(b, a)) == b
    fighters = [{"id": "1", "hp": 3}, {"id": "2", "hp": 5}, {"id": "3", "hp": 7}]
    fewer = [{"id": "1", "hp": 3}, {"id": "3", "hp": 6}]
    patch = undo_record.reverse_patch(fighters, fewer)
    assert undo_record.apply_patch(fewer, patch) == fighters and '"hp": 3' not in json.dumps(patch)
    assert undo_record.apply_patch(fighters, undo_record.reverse_patch(fewer, fighters)) == fewer
    shared = [fighters[0], {"id": "2", "hp": 4}, fighters[2]]  # records left alone are the same objects
    assert undo_record.reverse_patch(fighters, shared) == {"[": {"1": {"{": {"hp": {"=": 5}}}}}
    swapped = [fighters[2], fighters[1], fighters[0]]  # the same records in another order
    assert undo_record.apply_patch(swapped, undo_record.reverse_patch(fighters, swapped)) == fighters
    assert undo_record.jsonable({"t": (1, (2, 3))}) == {"t": [1, [2, 3]]}


def test_a_state_as_code_built_it_is_compared_as_json() -> None:
    """The snapshot after a change holds the state as its ``to_dict`` gave it (tuples, number keys): what
    JSON would store the same is no change, and a patch still gives the stored value back."""
    stored = {"order": [1, 2], "marks": {"3": [4]}, "fighters": [{"id": "1", "hp": 3}]}
    same = {"order": (1, 2), "marks": {3: (4,)}, "fighters": ({"id": "1", "hp": 3},)}
    assert undo_record.reverse_patch(stored, same) is None
    changed = {"order": (2, 1), "marks": {3: (5,)}, "fighters": ({"id": "1", "hp": 2},), "new": (1,)}
    patch = undo_record.reverse_patch(stored, changed)
    assert patch is not None
    assert undo_record.apply_patch(undo_record.jsonable(changed), json.loads(json.dumps(patch))) == stored
    assert (
        undo_record.earlier({"whole": 1}, {"encounter": {}, "combatants": [], "grapples": []})["encounter"]
        == {}
    )


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(["a", "b"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["id", "hp", "x", "y"]), inner, max_size=4)
        | st.lists(st.fixed_dictionaries({"id": st.sampled_from(["1", "2", "3"]), "hp": inner}), max_size=3)
    ),
    max_leaves=12,
)


def _as_code_builds_it(value: Any) -> Any:
    """``value`` with tuples for its lists, as a state's ``to_dict`` may give it."""
    if isinstance(value, list):
        return tuple(_as_code_builds_it(v) for v in value)
    if isinstance(value, dict):
        return {k: _as_code_builds_it(v) for k, v in value.items()}
    return value


@given(JSON_VALUES, JSON_VALUES)
def test_any_patch_gives_the_earlier_value_back_and_is_none_only_for_no_change(
    before: Any, after: Any
) -> None:
    for now in (after, _as_code_builds_it(after)):
        patch = undo_record.reverse_patch(before, now)
        assert (patch is None) == (before == after)
        back = after if patch is None else undo_record.apply_patch(after, json.loads(json.dumps(patch)))
        assert back == before


async def _fight(bot: FakeBot, system: str, fighters: int = 8) -> int:
    await bot.store.set_system(HERE, system)
    async with edit_encounter(bot, HERE, GM, "encounter start", opening="Long fight") as edit:
        edit.summary = "opened"
    async with edit_encounter(bot, HERE, GM, "encounter add") as edit:
        names = edit.system.creature_names()
        for i in range(fighters):
            sheet = edit.system.creature_sheet(names[i % len(names)], f"F{i}")
            await edit.add_combatant(
                sheet,
                name=f"F{i}",
                owner_id=None,
                character_id=None,
                is_pc=False,
                side=f"s{i % 2}",
                distance=i,
            )
    async with edit_encounter(bot, HERE, GM, "encounter begin") as edit:
        edit.apply(edit.system.begin(edit.state, edit.dice, edit.house, attackers=None, surprise=0))
    assert edit.result is not None
    return edit.result.encounter_id


async def _change(bot: FakeBot, rng: random.Random, n: int) -> bool:
    """One random change through the change path; False when the rules refused it (nothing saved)."""
    kind = rng.choice(["damage", "heal", "condition", "next", "next", "add", "remove"])
    try:
        async with edit_encounter(bot, HERE, GM, f"gm {kind}") as edit:
            rows = edit.combatants
            row = rng.choice(rows) if rows else None
            s, cid = edit.system, str(row.id) if row else ""
            if kind == "damage" and row:
                places = s.damage_locations(edit.state, cid)
                edit.apply(
                    s.gm_damage(
                        edit.state,
                        cid,
                        rng.randint(1, 4),
                        places[0] if places else None,
                        edit.dice,
                        edit.house,
                    )
                )
            elif kind == "heal" and row:
                edit.apply(s.gm_heal(edit.state, cid, rng.randint(1, 3), edit.dice, edit.house))
            elif kind == "condition" and row:
                condition = rng.choice(s.conditions())
                edit.apply(s.gm_condition(edit.state, cid, condition, rng.random() < 0.4, edit.house))
            elif kind == "add" and len(rows) < 12:
                sheet = s.creature_sheet(s.creature_names()[0], f"N{n}")
                await edit.add_combatant(
                    sheet,
                    name=f"N{n}",
                    owner_id=None,
                    character_id=None,
                    is_pc=False,
                    side="late",
                    distance=1,
                )
            elif kind == "remove" and row and len(rows) > 4:
                await edit.remove_combatant(row)
            else:
                edit.apply(s.gm_next(edit.state, edit.dice, edit.house))
            edit.summary = kind
    except RulesError:
        return False
    return True


def _unversioned(state: dict[str, Any]) -> dict[str, Any]:
    enc = {
        k: v
        for k, v in state["encounter"].items()
        if k not in ("version", "reminder_due_at", "reminders_sent")
    }
    return {**state, "encounter": enc}


@pytest.mark.parametrize("system", system_names())
async def test_undo_is_exact_after_two_hundred_mixed_changes(bot: FakeBot, system: str) -> None:
    bot.dice = RandomDice(5)
    eid = await _fight(bot, system)
    rng = random.Random(system)
    states = [await db_state(bot, eid)]
    made = 0
    for n in range(3 * CHANGES):  # bounded: refusals make no change
        if made == CHANGES:
            break
        if await _change(bot, rng, n):
            made += 1
            states.append(await db_state(bot, eid))
    assert made == CHANGES
    async with bot.store.sessions() as session:
        records = (
            (await session.exec(select(EventLog.undo).where(EventLog.encounter_id == eid))).scalars().all()
        )
    assert all("patch" in r for r in records if r is not None)
    steps = [1, 2, 3, 5, 8, 13, 20]
    at = len(states) - 1
    i = 0
    while at > 0:
        step = min(steps[i % len(steps)], at)
        await undo(bot, HERE, GM, step)
        at -= step
        i += 1
        assert _unversioned(await db_state(bot, eid)) == _unversioned(states[at]), f"after undoing to {at}"


async def test_a_change_to_an_eight_combatant_d6_fight_keeps_at_most_two_kilobytes(bot: FakeBot) -> None:
    bot.dice = RandomDice(9)
    eid = await _fight(bot, "d6")
    rng = random.Random(3)
    for n in range(60):
        await _change(bot, rng, n)
    async with bot.store.sessions() as session:
        rows = (
            await session.exec(
                select(EventLog.command, func.length(cast(EventLog.undo, Text))).where(  # as stored
                    EventLog.encounter_id == eid, EventLog.seq > 3, EventLog.undo.is_not(None)
                )
            )
        ).all()
    largest: dict[str, int] = {}
    for command, size in rows:
        largest[command] = max(size, largest.get(command, 0))
    assert {"gm damage", "gm next", "gm condition", "gm remove"} <= largest.keys()
    removed = largest.pop("gm remove")  # the combatant taken out is kept whole (its sheet brings it back)
    assert max(largest.values()) <= 2048 and removed <= 3072, (largest, removed)
