"""bot.channel_rules without Discord: parsing /gm dice values, the queue and house rules through the store."""

from __future__ import annotations

import pytest

from bot import channel_rules as cr
from bot.errors import NoSystem
from bot.rolling import d6_rules
from bot.store import Store, Where
from rules.encounter import RuleInfo
from rules.systems.registry import get_system, system_names

CHANNEL = Where(guild_id=1, channel_id=10)
THREAD = Where(guild_id=1, channel_id=11, parent_id=10)

SYSTEMS = system_names()


# --- parsing -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "values"),
    [("3 4 2", (3, 4, 2)), ("3,4,2", (3, 4, 2)), (" 1, 1000 ;7\n", (1, 1000, 7)), ("6", (6,))],
)
def test_values_parse_with_spaces_and_commas(text: str, values: tuple[int, ...]) -> None:
    assert cr.parse_dice_values(text) == cr.DiceRequest("add", values)


@pytest.mark.parametrize(("text", "kind"), [("clear", "clear"), ("None", "clear"), ("show", "show")])
def test_words(text: str, kind: str) -> None:
    assert cr.parse_dice_values(text).kind == kind


@pytest.mark.parametrize(
    ("text", "problem", "tokens"),
    [
        ("", "empty", ()),
        (",,", "empty", ()),
        ("3 x 2", "not_number", ("x",)),
        ("1.5", "not_number", ("1.5",)),
        ("-1", "not_number", ("-1",)),
        ("٣", "not_number", ("٣",)),  # an Arabic-Indic digit is not a die result here
        ("0 7 1001", "out_of_range", ("0", "1001")),
        ("clear 3", "not_number", ("clear",)),
    ],
)
def test_bad_values(text: str, problem: str, tokens: tuple[str, ...]) -> None:
    with pytest.raises(cr.DiceValuesRefused) as caught:
        cr.parse_dice_values(text)
    assert caught.value.problem == problem and caught.value.tokens == tokens


def test_more_than_100_values_in_one_go() -> None:
    assert len(cr.parse_dice_values(" ".join(["2"] * 100)).values) == 100
    with pytest.raises(cr.DiceValuesRefused) as caught:
        cr.parse_dice_values(" ".join(["2"] * 101))
    assert caught.value.problem == "too_many" and caught.value.count == 101


# --- the queue ----------------------------------------------------------------------------------------------


async def test_queue_appends_caps_and_clears(store: Store) -> None:
    change = await cr.change_dice_queue(store, CHANNEL, cr.DiceRequest("add", (1,) * 99))
    assert change.added == 99 and change.changed
    with pytest.raises(cr.DiceValuesRefused) as caught:
        await cr.change_dice_queue(store, CHANNEL, cr.DiceRequest("add", (2, 3)))
    assert (caught.value.count, caught.value.queued) == (2, 99)
    change = await cr.change_dice_queue(store, CHANNEL, cr.DiceRequest("add", (6,)))
    assert change.after == (1,) * 99 + (6,)
    shown = await cr.change_dice_queue(store, CHANNEL, cr.DiceRequest("show"))
    assert not shown.changed and len(shown.after) == 100
    cleared = await cr.change_dice_queue(store, CHANNEL, cr.DiceRequest("clear"))
    assert cleared.after == () and len(cleared.before) == 100
    assert (await cr.change_dice_queue(store, THREAD, cr.DiceRequest("show"))).after == ()


# --- house rules --------------------------------------------------------------------------------------------


async def test_no_system_is_refused(store: Store) -> None:
    with pytest.raises(NoSystem):
        await cr.rules_here(store, CHANNEL)
    with pytest.raises(NoSystem):
        await cr.change_house_rule(store, CHANNEL, "explode", "full")


@pytest.mark.parametrize("system", SYSTEMS)
async def test_each_system_round_trips_every_rule(store: Store, system: str) -> None:
    adapter = get_system(system)
    await store.set_system(CHANNEL, system)
    infos = (await cr.rules_here(store, CHANNEL)).infos
    assert infos == tuple(adapter.describe_house(adapter.default_house()))
    for info in infos:
        other = next((v for v in info.allowed if v != info.default), None)
        if other is None:
            continue
        change = await cr.change_house_rule(store, CHANNEL, info.name.upper(), other)
        assert change.after.value == other and change.before.value == info.default
        again = await cr.rules_here(store, CHANNEL)
        assert again.find(info.name).value == other  # type: ignore[union-attr]
        reset = await cr.change_house_rule(store, CHANNEL, info.name, "Default")
        assert reset.after.value == info.default


async def test_d6_keys_are_what_roll_reads(store: Store) -> None:
    await store.set_system(CHANNEL, "d6")
    await cr.change_house_rule(store, CHANNEL, "explode", "full")
    await cr.change_house_rule(store, CHANNEL, "wild-one", "drop")
    assert d6_rules((await store.channel_view(CHANNEL)).house_rules) == ("full", "drop")


async def test_unknown_rules_and_bad_values_change_nothing(store: Store) -> None:
    await store.set_system(CHANNEL, "d6")
    with pytest.raises(cr.UnknownRule) as unknown:
        await cr.change_house_rule(store, CHANNEL, "gravity", "on")
    assert "explode" in unknown.value.names
    with pytest.raises(cr.BadRuleValue) as bad:
        await cr.change_house_rule(store, CHANNEL, "explode", "triple")
    assert bad.value.info.allowed == ("halved", "full")
    with pytest.raises(cr.InheritOutsideThread):
        await cr.change_house_rule(store, CHANNEL, "explode", "inherit")
    assert (await store.channel_view(CHANNEL)).house_rules == {}


async def test_a_thread_stores_only_its_own_rule(store: Store) -> None:
    await store.set_system(CHANNEL, "d6")
    await cr.change_house_rule(store, THREAD, "explode", "full")
    async with store.edit_channel(THREAD) as edit:
        assert edit.config.house_rules == {"d6": {"explode": "full"}}
    assert (await store.channel_view(CHANNEL)).rules_for("d6") == {}
    here = await cr.rules_here(store, THREAD)
    assert here.thread and here.own == {"explode"}
    await cr.change_house_rule(store, CHANNEL, "explode", "halved")
    assert (await cr.rules_here(store, THREAD)).find("explode").value == "full"  # type: ignore[union-attr]
    change = await cr.change_house_rule(store, THREAD, "explode", "inherit")
    assert change.inherited and change.after.value == "halved"
    assert (await cr.rules_here(store, THREAD)).own == frozenset()


async def test_stored_junk_falls_back_to_defaults(store: Store) -> None:
    await store.set_system(CHANNEL, "d6")
    async with store.edit_channel(CHANNEL) as edit:
        edit.config.house_rules = {"d6": {"explode": "full", "gravity": "on", "wild_one": 7}}
    here = await cr.rules_here(store, CHANNEL)
    assert here.find("explode").value == "full"  # type: ignore[union-attr]
    assert here.find("wild_one").value == "complication"  # type: ignore[union-attr]


# --- autocomplete helpers -----------------------------------------------------------------------------------


def test_matching_filters_orders_and_caps() -> None:
    items = [(f"rule {i}", f"rule_{i:02}") for i in range(40)]
    assert len(cr.matching(items, "")) == 25
    assert [v for _, v in cr.matching(items, "RULE 3")] == [f"rule_{i:02}" for i in range(30, 40)]
    assert [v for _, v in cr.matching([("a", "wild_one"), ("b", "one_more")], "one")] == [
        "one_more",
        "wild_one",
    ]
    assert cr.matching(items, "zzz") == []


def test_find_rule_takes_a_unique_start() -> None:
    infos = [
        RuleInfo("explode", "halved", "halved", ("halved", "full"), ""),
        RuleInfo("exact", "1", "1", (), ""),
    ]
    assert cr.find_rule(infos, "EXPLODE").name == "explode"  # type: ignore[union-attr]
    assert cr.find_rule(infos, "expl").name == "explode"  # type: ignore[union-attr]
    assert cr.find_rule(infos, "ex") is None
    assert cr.find_rule(infos, "") is None


def test_value_options() -> None:
    choice = RuleInfo("explode", "full", "halved", ("halved", "full"), "")
    assert cr.value_options(choice, thread=False) == ["halved", "full", "default"]
    number = RuleInfo("bonus", "7", "5", (), "")
    assert cr.value_options(number, thread=True) == ["7", "5", "default", "inherit"]
