"""/gm dice (queued physical dice) and /gm rules (house rules), as a GM and a player meet them."""

from __future__ import annotations

import re

import pytest

from bot.models import ChannelConfig
from bot.store import Where
from rules.systems.registry import get_system, system_names
from tests.e2e.conftest import Harness

SYSTEMS = system_names()


def text_of(content: str) -> str:
    """The message without mentions (their IDs could contain any digits)."""
    return re.sub(r"<@[&!]?\d+>", "@someone", content)


async def queue_of(fray: Harness, channel_id: int) -> list[int]:
    assert fray.bot is not None
    async with fray.bot.sessions() as session:
        row = await session.get(ChannelConfig, channel_id)
        return list(row.dice_queue) if row is not None else []


async def stored_rules(fray: Harness, channel_id: int) -> dict:
    assert fray.bot is not None
    async with fray.bot.sessions() as session:
        row = await session.get(ChannelConfig, channel_id)
        return dict(row.house_rules) if row is not None else {}


# --- /gm dice ---------------------------------------------------------------------------------------------


async def test_queued_dice_are_used_by_the_next_roll_and_marked(fray: Harness) -> None:
    r = await fray.fd.invoke(fray.channel, fray.owner, "gm dice", values="3 4 2")
    assert r.ephemeral and "3 4 2" in r.content, r.content
    (note,) = r.followups
    assert not note.ephemeral and "queued 3 physical dice" in note.content
    assert not re.search(r"[2-4]", text_of(note.content).replace("queued 3", "")), note.content
    assert not fray.fd.pings(note)
    assert await queue_of(fray, fray.channel.id) == [3, 4, 2]

    with fray.script():  # no random die may be drawn
        rolled = await fray.fd.invoke(fray.channel, fray.player, "roll", expression="3d6")
    assert "[3ᴳ, 4ᴳ, 2ᴳ] = 9" in rolled.content, rolled.content
    assert await queue_of(fray, fray.channel.id) == []


async def test_commas_append_show_and_clear(fray: Harness) -> None:
    await fray.fd.invoke(fray.channel, fray.owner, "gm dice", values="5, 6")
    r = await fray.fd.invoke(fray.channel, fray.owner, "gm dice", values="1")
    assert "5 6 1" in r.content and "(3/100)" in r.content
    (note,) = r.followups
    assert "queued 1 physical die" in note.content and "3 waiting" in note.content
    shown = await fray.fd.invoke(fray.channel, fray.owner, "gm dice", values="show")
    assert shown.ephemeral and "5 6 1" in shown.content and not shown.followups
    cleared = await fray.fd.invoke(fray.channel, fray.owner, "gm dice", values="clear")
    assert cleared.ephemeral and "Cleared the 3 queued dice" in cleared.content
    (note,) = cleared.followups
    assert "cleared" in note.content and not note.ephemeral
    assert await queue_of(fray, fray.channel.id) == []
    again = await fray.fd.invoke(fray.channel, fray.owner, "gm dice", values="none")
    assert "Nothing was queued" in again.content and not again.followups  # nothing changed: no public note


@pytest.mark.parametrize(
    ("values", "says"),
    [
        ("3 x 2", "`x` is not a die result"),
        ("3d6", "`3d6` is not a die result"),
        ("0", "1 to 1000"),
        ("1001", "1 to 1000"),
        ("-2", "not a die result"),
        (" ".join(["1"] * 101), "101 dice"),
        ("", "no die results"),
        (" , ", "no die results"),
    ],
)
async def test_bad_values_are_refused_and_change_nothing(fray: Harness, values: str, says: str) -> None:
    await fray.fd.invoke(fray.channel, fray.owner, "gm dice", values="2")
    before = list(fray.fd.channel_messages(fray.channel))
    r = await fray.fd.invoke(fray.channel, fray.owner, "gm dice", values=values)
    assert r.ephemeral and r.content.startswith("I did not queue anything"), r.content
    assert says in r.content, r.content
    assert "incident" not in r.content and not r.followups
    assert await queue_of(fray, fray.channel.id) == [2]
    assert fray.fd.channel_messages(fray.channel) == before


async def test_at_most_100_dice_wait_in_all(fray: Harness) -> None:
    await fray.fd.invoke(fray.channel, fray.owner, "gm dice", values=" ".join(["6"] * 60))
    r = await fray.fd.invoke(fray.channel, fray.owner, "gm dice", values=" ".join(["1"] * 41))
    assert r.ephemeral and "60 queued now, room for 40" in r.content, r.content
    assert await queue_of(fray, fray.channel.id) == [6] * 60
    ok = await fray.fd.invoke(fray.channel, fray.owner, "gm dice", values=",".join(["1000"] * 40))
    assert "(100/100)" in ok.content
    assert len(ok.content) <= 2000


async def test_a_thread_has_its_own_queue(fray: Harness) -> None:
    await fray.fd.invoke(fray.thread, fray.owner, "gm dice", values="6")
    assert await queue_of(fray, fray.thread.id) == [6]
    with fray.script(2):  # the channel's roll does not take the thread's die
        r = await fray.fd.invoke(fray.channel, fray.player, "roll", expression="1d6")
    assert "[2] = 2" in r.content
    with fray.script():
        r = await fray.fd.invoke(fray.thread, fray.player, "roll", expression="1d6")
    assert "[6ᴳ] = 6" in r.content
    assert await queue_of(fray, fray.thread.id) == []


async def test_players_are_refused_dice_and_rules(fray: Harness) -> None:
    await fray.fd.invoke(fray.channel, fray.owner, "gm system", system="d6")
    before = list(fray.fd.channel_messages(fray.channel))
    r = await fray.fd.invoke(fray.channel, fray.player, "gm dice", values="6 6 6")
    assert r.ephemeral and "Only a GM" in r.content
    for options in ({}, {"rule": "explode"}, {"rule": "explode", "value": "full"}):
        r = await fray.fd.invoke(fray.channel, fray.player, "gm rules", **options)
        assert r.ephemeral and "Only a GM" in r.content and not r.embeds, options
    assert await queue_of(fray, fray.channel.id) == []
    assert "explode" not in (await stored_rules(fray, fray.channel.id)).get("d6", {})
    assert fray.fd.channel_messages(fray.channel) == before


async def test_the_gm_role_may_queue_dice(fray: Harness) -> None:
    await fray.make_gm_role()
    r = await fray.fd.invoke(fray.channel, fray.gm, "gm dice", values="4")
    assert r.ephemeral and "Queue now" in r.content
    assert await queue_of(fray, fray.channel.id) == [4]


# --- /gm rules --------------------------------------------------------------------------------------------


async def test_rules_without_a_system_point_to_gm_system(fray: Harness) -> None:
    r = await fray.fd.invoke(fray.channel, fray.owner, "gm rules")
    assert r.ephemeral and "/gm system" in r.content and "incident" not in r.content
    r = await fray.fd.invoke(fray.channel, fray.owner, "gm rules", rule="explode", value="full")
    assert r.ephemeral and "/gm system" in r.content
    assert await fray.fd.autocomplete(fray.channel, fray.owner, "gm rules", focused="rule", value="") == []


@pytest.mark.parametrize("system", SYSTEMS)
async def test_rules_lists_every_rule_of_the_system(fray: Harness, system: str) -> None:
    await fray.fd.invoke(fray.channel, fray.owner, "gm system", system=system)
    adapter = get_system(system)
    infos = adapter.describe_house(adapter.default_house())
    r = await fray.fd.invoke(fray.channel, fray.owner, "gm rules")
    assert r.ephemeral
    (embed,) = r.embeds
    assert adapter.title in embed["title"]
    names = [field["name"].split(":")[0] for field in embed["fields"]]
    assert names == [info.name for info in infos]
    for field, info in zip(embed["fields"], infos, strict=True):
        assert field["name"].startswith(f"{info.name}: {info.value}")
        assert f"default `{info.default}`" in field["value"]
        assert all(f"`{value}`" in field["value"] for value in info.allowed)

    one = await fray.fd.invoke(fray.channel, fray.owner, "gm rules", rule=infos[0].name)
    assert one.ephemeral and infos[0].name in one.embeds[0]["description"]


@pytest.mark.parametrize("system", SYSTEMS)
async def test_every_system_sets_and_resets_a_rule(fray: Harness, system: str) -> None:
    await fray.fd.invoke(fray.channel, fray.owner, "gm system", system=system)
    adapter = get_system(system)
    info = next(i for i in adapter.describe_house(adapter.default_house()) if len(i.allowed) > 1)
    other = next(v for v in info.allowed if v != info.default)
    r = await fray.fd.invoke(fray.channel, fray.owner, "gm rules", rule=info.name, value=other)
    assert not r.ephemeral and f"`{info.name}` is now `{other}`" in r.content, r.content
    stored = adapter.house_from_dict((await stored_rules(fray, fray.channel.id))[system])
    assert adapter.house_to_dict(stored) == adapter.house_to_dict(
        adapter.set_house_rule(adapter.default_house(), info.name, other)
    )
    r = await fray.fd.invoke(fray.channel, fray.owner, "gm rules", rule=info.name, value="default")
    assert f"is now `{info.default}`" in r.content
    assert (
        adapter.house_from_dict((await stored_rules(fray, fray.channel.id))[system])
        == adapter.default_house()
    )


async def test_a_rule_change_persists_and_changes_d6_rolls(fray: Harness) -> None:
    await fray.fd.invoke(fray.channel, fray.owner, "gm system", system="d6")
    with fray.script(1, 1, 6, 5):  # two normal dice, the Wild Die 6 then 5: halved adds 2
        r = await fray.fd.invoke(fray.channel, fray.player, "roll", expression="3D")
    assert r.content.endswith("= 10") and "(+2)" in r.content, r.content

    r = await fray.fd.invoke(fray.channel, fray.owner, "gm rules", rule="explode", value="full")
    assert not r.ephemeral
    assert "House rule `explode` is now `full` (default `halved`" in r.content
    assert r.response in fray.fd.channel_messages(fray.channel)

    await fray.restart()
    shown = await fray.fd.invoke(fray.channel, fray.owner, "gm rules", rule="explode")
    assert "`explode`: **full**" in shown.embeds[0]["description"]
    with fray.script(1, 1, 6, 5):  # full adds the whole 5
        r = await fray.fd.invoke(fray.channel, fray.player, "roll", expression="3D")
    assert r.content.endswith("= 13") and "(+5)" in r.content, r.content

    r = await fray.fd.invoke(fray.channel, fray.owner, "gm rules", rule="explode", value="default")
    assert "is now `halved`" in r.content
    with fray.script(1, 1, 6, 5):
        r = await fray.fd.invoke(fray.channel, fray.player, "roll", expression="3D")
    assert r.content.endswith("= 10"), r.content


async def test_wild_one_drop_changes_d6_rolls(fray: Harness) -> None:
    await fray.fd.invoke(fray.channel, fray.owner, "gm system", system="d6")
    with fray.script(4, 3, 1):
        before = await fray.fd.invoke(fray.channel, fray.player, "roll", expression="3D")
    assert before.content.endswith("= 8"), before.content  # complication: the 1 counts
    await fray.fd.invoke(fray.channel, fray.owner, "gm rules", rule="Wild-One", value="DROP")
    assert (await stored_rules(fray, fray.channel.id))["d6"]["wild_one"] == "drop"
    with fray.script(4, 3, 1):  # the 1 and the highest other die (4) go
        after = await fray.fd.invoke(fray.channel, fray.player, "roll", expression="3D")
    assert after.content.endswith("= 3"), after.content


@pytest.mark.parametrize("system", SYSTEMS)
async def test_bad_values_and_unknown_rules_are_refused_naming_what_is_allowed(
    fray: Harness, system: str
) -> None:
    await fray.fd.invoke(fray.channel, fray.owner, "gm system", system=system)
    adapter = get_system(system)
    infos = adapter.describe_house(adapter.default_house())
    before = list(fray.fd.channel_messages(fray.channel))
    choice = next(i for i in infos if i.allowed)
    r = await fray.fd.invoke(fray.channel, fray.owner, "gm rules", rule=choice.name, value="sideways")
    assert r.ephemeral and "`sideways`" in r.content and "incident" not in r.content, r.content
    assert all(f"`{v}`" in r.content for v in choice.allowed), r.content
    number = next((i for i in infos if not i.allowed), None)
    if number is not None:
        r = await fray.fd.invoke(fray.channel, fray.owner, "gm rules", rule=number.name, value="9999")
        assert r.ephemeral and "9999" in r.content and ".." in r.content, r.content
    r = await fray.fd.invoke(fray.channel, fray.owner, "gm rules", rule="gravity", value="on")
    assert r.ephemeral and "`gravity` is not a house rule" in r.content
    assert all(f"`{i.name}`" in r.content for i in infos), r.content
    r = await fray.fd.invoke(fray.channel, fray.owner, "gm rules", rule="gravity")
    assert r.ephemeral and "`gravity` is not a house rule" in r.content
    r = await fray.fd.invoke(fray.channel, fray.owner, "gm rules", value="full")
    assert r.ephemeral and "Which rule" in r.content
    assert (await stored_rules(fray, fray.channel.id)).get(system, {}) == {}
    assert fray.fd.channel_messages(fray.channel) == before


async def test_rule_autocomplete_filters_by_what_was_typed(fray: Harness) -> None:
    await fray.fd.invoke(fray.channel, fray.owner, "gm system", system="d6")
    adapter = get_system("d6")
    names = [i.name for i in adapter.describe_house(adapter.default_house())]
    every = await fray.fd.autocomplete(fray.channel, fray.owner, "gm rules", focused="rule", value="")
    assert [c["value"] for c in every] == names[:25]
    ex = await fray.fd.autocomplete(fray.channel, fray.owner, "gm rules", focused="rule", value="ex")
    assert [c["value"] for c in ex] == ["explode"]
    assert "now halved" in ex[0]["name"]
    wild = await fray.fd.autocomplete(fray.channel, fray.owner, "gm rules", focused="rule", value="ONE")
    assert [c["value"] for c in wild] == ["wild_one"]
    none = await fray.fd.autocomplete(fray.channel, fray.owner, "gm rules", focused="rule", value="zzz")
    assert none == []


async def test_value_autocomplete_lists_the_allowed_values_of_the_rule(fray: Harness) -> None:
    await fray.fd.invoke(fray.channel, fray.owner, "gm system", system="d6")
    values = await fray.fd.autocomplete(
        fray.channel, fray.owner, "gm rules", focused="value", value="", rule="wild_one"
    )
    assert [c["value"] for c in values] == ["complication", "drop", "none", "default"]
    assert "now" in values[0]["name"]
    filtered = await fray.fd.autocomplete(
        fray.channel, fray.owner, "gm rules", focused="value", value="f", rule="explode"
    )
    assert [c["value"] for c in filtered] == ["full", "default"]  # starting with it first, then containing it
    number = await fray.fd.autocomplete(
        fray.channel, fray.owner, "gm rules", focused="value", value="", rule="called_shot_bonus"
    )
    assert [c["value"] for c in number] == ["5", "default"]
    unknown = await fray.fd.autocomplete(
        fray.channel, fray.owner, "gm rules", focused="value", value="", rule="gravity"
    )
    assert unknown == []
    nothing = await fray.fd.autocomplete(fray.channel, fray.owner, "gm rules", focused="value", value="")
    assert nothing == []


async def test_a_thread_override_leaves_its_parent_alone(fray: Harness) -> None:
    assert fray.bot is not None
    await fray.fd.invoke(fray.channel, fray.owner, "gm system", system="d6")
    await fray.fd.invoke(fray.channel, fray.owner, "gm rules", rule="wild_one", value="none")

    r = await fray.fd.invoke(fray.thread, fray.owner, "gm rules", rule="explode", value="full")
    assert not r.ephemeral and "in this thread" in r.content
    assert (await stored_rules(fray, fray.thread.id)) == {"d6": {"explode": "full"}}
    channel = await fray.bot.store.channel_view(Where(fray.guild.id, fray.channel.id))
    thread = await fray.bot.store.channel_view(Where(fray.guild.id, fray.thread.id, fray.channel.id))
    assert channel.rules_for("d6")["explode"] == "halved"
    assert thread.rules_for("d6")["explode"] == "full" and thread.rules_for("d6")["wild_one"] == "none"

    listed = await fray.fd.invoke(fray.thread, fray.owner, "gm rules")
    fields = {f["name"].split(":")[0]: f["name"] for f in listed.embeds[0]["fields"]}
    assert "set in this thread" in fields["explode"] and "set in this thread" not in fields["wild_one"]

    with fray.script(1, 1, 6, 5):
        r = await fray.fd.invoke(fray.channel, fray.player, "roll", expression="3D")
    assert r.content.endswith("= 10"), r.content
    with fray.script(1, 1, 6, 5):
        r = await fray.fd.invoke(fray.thread, fray.player, "roll", expression="3D")
    assert r.content.endswith("= 13"), r.content

    # a later change of the channel still reaches the thread's other rules
    await fray.fd.invoke(fray.channel, fray.owner, "gm rules", rule="wild_one", value="drop")
    thread = await fray.bot.store.channel_view(Where(fray.guild.id, fray.thread.id, fray.channel.id))
    assert thread.rules_for("d6")["wild_one"] == "drop"

    values = await fray.fd.autocomplete(
        fray.thread, fray.owner, "gm rules", focused="value", value="in", rule="explode"
    )
    assert [c["value"] for c in values] == ["inherit"]
    r = await fray.fd.invoke(fray.thread, fray.owner, "gm rules", rule="explode", value="inherit")
    assert "follows the channel again: `halved`" in r.content
    assert (await stored_rules(fray, fray.thread.id)) == {"d6": {}}
    r = await fray.fd.invoke(fray.channel, fray.owner, "gm rules", rule="explode", value="inherit")
    assert r.ephemeral and "only for threads" in r.content
