"""/gm system and /gm role: GM-only, stored, inherited by threads, kept across restarts."""

from __future__ import annotations

from bot.store import Where
from tests.e2e.conftest import Harness


async def test_a_member_without_manage_server_or_the_gm_role_is_refused(fray: Harness) -> None:
    r = await fray.fd.invoke(fray.channel, fray.player, "gm system", system="d6")
    assert r.ephemeral and "Only a GM" in r.content and "Manage Server" in r.content
    r = await fray.fd.invoke(fray.channel, fray.gm, "gm system", system="d6")  # no GM role set yet
    assert r.ephemeral and "Only a GM" in r.content
    r = await fray.fd.invoke(fray.channel, fray.player, "gm role", role=fray.gm_role)
    assert r.ephemeral and "Only a GM" in r.content
    assert fray.fd.channel_messages(fray.channel) == []
    assert fray.bot is not None
    assert (await fray.bot.store.channel_view(Where(fray.guild.id, fray.channel.id))).system is None


async def test_manage_server_sets_the_role_and_the_role_makes_a_gm(fray: Harness) -> None:
    r = await fray.fd.invoke(fray.channel, fray.owner, "gm role", role=fray.gm_role)
    assert not r.ephemeral and fray.gm_role.mention in r.content
    assert not fray.fd.pings(r).roles  # the confirmation names the role without pinging it
    r = await fray.fd.invoke(fray.channel, fray.gm, "gm system", system="d6")
    assert not r.ephemeral and "D6" in r.content


async def test_everyone_cannot_be_the_gm_role(fray: Harness) -> None:
    everyone = fray.fd.world.role(fray.guild.id)
    r = await fray.fd.invoke(fray.channel, fray.owner, "gm role", role=everyone)
    assert r.ephemeral and "@everyone" in r.content


async def test_threads_inherit_the_channel_system_unless_they_set_their_own(fray: Harness) -> None:
    assert fray.bot is not None
    await fray.fd.invoke(fray.channel, fray.owner, "gm system", system="kaernest")
    thread = Where(fray.guild.id, fray.thread.id, fray.channel.id)
    view = await fray.bot.store.channel_view(thread)
    assert view.system == "kaernest" and view.inherited_system
    r = await fray.fd.invoke(fray.thread, fray.owner, "gm system", system="nyra")
    assert "this thread" in r.content
    assert (await fray.bot.store.channel_view(thread)).system == "nyra"
    assert (await fray.bot.store.channel_view(Where(fray.guild.id, fray.channel.id))).system == "kaernest"


async def test_system_and_gm_role_survive_a_restart(fray: Harness) -> None:
    await fray.make_gm_role()
    await fray.fd.invoke(fray.channel, fray.gm, "gm system", system="d6")
    bot = await fray.restart()
    assert fray.starts == 2
    assert (await bot.store.channel_view(Where(fray.guild.id, fray.channel.id))).system == "d6"
    r = await fray.fd.invoke(
        fray.channel, fray.gm, "gm system", system="nyra"
    )  # still a GM by the stored role
    assert not r.ephemeral and "Nyra" in r.content
