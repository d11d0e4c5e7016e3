"""/roll, secret rolls and their reveal button, /gm roll — as members meet them."""

from __future__ import annotations

import re

import pytest

from bot.models import ChannelConfig
from bot.store import Where
from tests.e2e.conftest import Harness

SECRET_ID = re.compile(r"^fray:secret:\d+$")


def text_of(content: str) -> str:
    """The message without mentions (their IDs could contain any digits)."""
    return re.sub(r"<@[&!]?\d+>", "@someone", content)


async def test_roll_shows_each_die_and_the_total(fray: Harness) -> None:
    with fray.script(4, 2):
        r = await fray.fd.invoke(
            fray.channel, fray.player, "roll", expression="2d6+3", reason="climb the wall"
        )
    assert not r.ephemeral
    assert "[4, 2] + 3 = 9" in r.content
    assert "climb the wall" in r.content and fray.player.mention in r.content
    assert [m.content for m in fray.fd.channel_messages(fray.channel)] == [r.content]
    assert not fray.fd.pings(r)  # naming the roller does not ping anyone


async def test_d6_code_with_the_wild_die_uses_the_channel_house_rules(fray: Harness) -> None:
    assert fray.bot is not None
    async with fray.bot.store.edit_channel(Where(fray.guild.id, fray.channel.id)) as edit:
        edit.config.house_rules = {"d6": {"explode": "full"}}
    with fray.script(3, 6, 6, 1):  # normal 3, wild 6 → 6 → 1: full explosions add 7
        r = await fray.fd.invoke(fray.channel, fray.player, "roll", expression="2D+1")
    assert r.content.endswith("= 17"), r.content
    assert "wild [6→6→1 (+7)]" in r.content


async def test_gm_queued_dice_come_first_and_are_marked(fray: Harness) -> None:
    assert fray.bot is not None
    async with fray.bot.store.edit_channel(Where(fray.guild.id, fray.channel.id)) as edit:
        edit.config.dice_queue = [5]
    with fray.script(1):
        r = await fray.fd.invoke(fray.channel, fray.player, "roll", expression="2d6")
    assert "[5ᴳ, 1] = 6" in r.content
    async with fray.bot.sessions() as session:
        assert (await session.get(ChannelConfig, fray.channel.id)).dice_queue == []


@pytest.mark.parametrize(
    ("expression", "says"),
    [
        ("500d6", "100"),
        ("1d0", "side"),
        ("((((", ""),
        ("", ""),
        ("1d6+" + "1" * 200, "200"),
    ],
)
async def test_bad_expressions_get_a_clear_ephemeral_refusal(
    fray: Harness, expression: str, says: str
) -> None:
    with fray.script():  # no die may be drawn
        r = await fray.fd.invoke(fray.channel, fray.player, "roll", expression=expression)
    assert r.ephemeral
    assert r.content.startswith("I could not roll that:"), r.content
    assert says in r.content
    assert "incident" not in r.content
    assert fray.fd.channel_messages(fray.channel) == []


async def test_secret_roll_reveals_only_to_roller_and_gms(fray: Harness) -> None:
    await fray.make_gm_role()
    outsider = fray.guild.add_member("otto")
    with fray.script(6, 6):
        r = await fray.fd.invoke(
            fray.channel, fray.player, "roll", expression="2d6", reason="sneak", secret=True
        )
    assert r.ephemeral and "[6, 6] = 12" in r.content
    (public,) = r.followups
    assert not public.ephemeral and "secret roll" in public.content and "12" not in text_of(public.content)
    (custom_id,) = public.custom_ids
    assert SECRET_ID.match(custom_id)
    assert public in fray.fd.channel_messages(fray.channel)

    for member in (fray.player, fray.gm, fray.owner):
        shown = await fray.fd.click(public, member, custom_id)
        assert shown.ephemeral and "[6, 6] = 12" in shown.content, member.name
    refused = await fray.fd.click(public, outsider, custom_id)
    assert (
        refused.ephemeral
        and "12" not in refused.content
        and "only for the roller and the GMs" in refused.content
    )

    await fray.restart()  # the button keeps working after a restart
    again = await fray.fd.click(public, fray.gm, custom_id)
    assert again.ephemeral and "[6, 6] = 12" in again.content
    assert "12" not in text_of((await fray.fd.click(public, outsider, custom_id)).content)


async def test_gm_roll_is_secret_with_a_public_note(fray: Harness) -> None:
    with fray.script(7):
        r = await fray.fd.invoke(fray.channel, fray.owner, "gm roll", expression="1d10")
    assert r.ephemeral and "[7] = 7" in r.content
    (note,) = r.followups
    assert not note.ephemeral and "GM" in note.content and "7" not in text_of(note.content)
    refused = await fray.fd.click(note, fray.player, note.custom_ids[0])
    assert "only for the roller and the GMs" in refused.content


async def test_gm_roll_is_gm_only(fray: Harness) -> None:
    with fray.script():
        r = await fray.fd.invoke(fray.channel, fray.player, "gm roll", expression="1d10")
    assert r.ephemeral and "Only a GM" in r.content
    assert fray.fd.channel_messages(fray.channel) == []
