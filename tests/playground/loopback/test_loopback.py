"""Prove the fake with a minimal, unmodified discord.py bot defined here."""

from __future__ import annotations

import asyncio
import io
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

import discord
import pytest
import pytest_asyncio
from discord import app_commands
from discord.ext import commands

from bot.playground.loopback import (
    CommandNotAvailable,
    CommandNotFound,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeMember,
    FakeRole,
)


class CounterButton(discord.ui.DynamicItem[discord.ui.Button], template=r"counter:(?P<count>\d+)"):
    def __init__(self, count: int) -> None:
        super().__init__(discord.ui.Button(label=f"+1 ({count})", custom_id=f"counter:{count}"))
        self.count = count

    @classmethod
    async def from_custom_id(cls, interaction, item, match: re.Match[str]) -> CounterButton:
        return cls(int(match["count"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(CounterButton(self.count + 1))
        await interaction.response.edit_message(content=f"count {self.count + 1}", view=view)


class Sheet(discord.ui.Modal, title="Character sheet"):
    name = discord.ui.TextInput(label="Name", custom_id="sheet-name")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"saved {self.name.value}", ephemeral=True)


class Confirm(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=30)

    @discord.ui.button(label="Yes", style=discord.ButtonStyle.success, custom_id="confirm-yes")
    async def yes(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        await interaction.response.send_message("confirmed", ephemeral=True)

    @discord.ui.select(
        custom_id="pick-weapon",
        options=[discord.SelectOption(label="Axe"), discord.SelectOption(label="Bow")],
    )
    async def pick(self, interaction: discord.Interaction, select: discord.ui.Select) -> None:
        await interaction.response.defer()
        await interaction.edit_original_response(content=f"picked {select.values[0]}", view=None)


class MiniBot(commands.Bot):
    def __init__(self, guild_id: int) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.default(), guild_ready_timeout=0.05)
        self.guild_id = guild_id
        self.errors: list[BaseException] = []
        self.tree.on_error = self._on_tree_error
        gm = app_commands.Group(name="gm", description="Game master tools")

        @gm.command(name="system", description="Pick the rules system")
        @app_commands.choices(
            system=[app_commands.Choice(name="D6", value="d6"), app_commands.Choice(name="D20", value="d20")]
        )
        async def system(interaction: discord.Interaction, system: app_commands.Choice[str]) -> None:
            embed = discord.Embed(title="System", description=f"now {system.value}")
            await interaction.response.send_message(embed=embed)

        self.tree.add_command(gm)

        @self.tree.command(description="Roll dice")
        async def roll(
            interaction: discord.Interaction, expression: str, secret: bool = False, times: int = 1
        ) -> None:
            await interaction.response.send_message(f"{expression} x{times}", ephemeral=secret)

        async def target_ac(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
            names = ["Orc", "Ogre", "Goblin"]
            return [
                app_commands.Choice(name=n, value=n.lower())
                for n in names
                if n.lower().startswith(current.lower())
            ]

        @self.tree.command(description="Attack someone")
        @app_commands.autocomplete(target=target_ac)
        async def attack(interaction: discord.Interaction, target: str) -> None:
            await interaction.response.send_message(f"attacking {target}")

        @self.tree.command(description="A counter button")
        async def counter(interaction: discord.Interaction) -> None:
            view = discord.ui.View(timeout=None)
            view.add_item(CounterButton(0))
            await interaction.response.send_message("count 0", view=view)

        @self.tree.command(description="Slow work")
        async def slow(interaction: discord.Interaction, private: bool = False) -> None:
            await interaction.response.defer(ephemeral=private, thinking=True)
            await interaction.followup.send("done")
            await interaction.followup.send("second", ephemeral=True)

        @self.tree.command(description="Think in public, answer in private")
        async def reconsider(interaction: discord.Interaction) -> None:
            await interaction.response.defer(thinking=True)
            await interaction.delete_original_response()
            await interaction.followup.send("only you", ephemeral=True)

        @self.tree.command(description="Edit the deferred original")
        async def edit(interaction: discord.Interaction) -> None:
            await interaction.response.defer()
            await interaction.edit_original_response(content="edited")

        @self.tree.command(description="Remind a member")
        async def remind(interaction: discord.Interaction, name: str) -> None:
            await interaction.response.send_message(
                f"{interaction.user.mention}: {name}",
                allowed_mentions=discord.AllowedMentions(
                    everyone=False, roles=False, users=[interaction.user]
                ),
            )

        @self.tree.command(description="Remind unsafely")
        async def shout(interaction: discord.Interaction, name: str) -> None:
            await interaction.response.send_message(f"{interaction.user.mention}: {name}")

        @self.tree.command(name="import", description="Import a sheet")
        async def import_(interaction: discord.Interaction, sheet: discord.Attachment) -> None:
            data = json.loads(await sheet.read())
            await interaction.response.send_message(f"{sheet.filename}: {data['name']}", ephemeral=True)

        @self.tree.command(description="Inspect a member")
        async def whois(
            interaction: discord.Interaction, who: discord.Member, role: discord.Role | None = None
        ) -> None:
            await interaction.response.send_message(f"{who.display_name} {role.name if role else '-'}")

        @self.tree.command(description="Open a form")
        async def form(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(Sheet())

        @self.tree.command(description="Post in the channel")
        async def post(interaction: discord.Interaction) -> None:
            await interaction.channel.send("posted", file=discord.File(__file__, filename="bot.py"))
            await interaction.response.send_message("ok", ephemeral=True)

        @self.tree.command(description="Ask for confirmation")
        async def confirm(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("sure?", view=Confirm())

        @self.tree.command(description="Never answers")
        async def silent(interaction: discord.Interaction) -> None:
            return

        @self.tree.command(description="Answers late")
        async def late(interaction: discord.Interaction) -> None:
            await asyncio.sleep(0.4)
            await interaction.response.send_message("too late")

        @self.tree.command(description="Export a sheet")
        async def export(interaction: discord.Interaction) -> None:
            file = discord.File(io.BytesIO(b'{"name": "Nyra"}'), filename="nyra.json")
            await interaction.response.send_message("here", file=file, ephemeral=True)

        @self.tree.command(description="Admins only")
        @app_commands.default_permissions(manage_guild=True)
        async def admin(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(f"perms {interaction.permissions.manage_guild}")

        @self.tree.command(description="Broken")
        async def broken(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("x" * 2001)

        @self.tree.command(description="Reply, then announce")
        async def announce(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("ok", ephemeral=True)
            await interaction.channel.send("announced")

        @self.tree.command(description="Say and take back")
        async def oops(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("oops")
            await interaction.delete_original_response()

        @self.tree.context_menu(name="Inspect member")
        async def inspect(interaction: discord.Interaction, member: discord.Member) -> None:
            await interaction.response.send_message(f"inspecting {member.display_name}", ephemeral=True)

        @self.tree.context_menu(name="Quote")
        async def quote(interaction: discord.Interaction, message: discord.Message) -> None:
            await interaction.response.send_message(f"> {message.content}")

    async def _on_tree_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        self.errors.append(error)

    async def setup_hook(self) -> None:
        self.add_dynamic_items(CounterButton)
        guild = discord.Object(self.guild_id)
        self.tree.copy_global_to(guild=guild)
        await self.tree.sync(guild=guild)


@dataclass
class Table:
    fd: FakeDiscord
    bot: MiniBot
    guild: FakeGuild
    channel: FakeChannel
    gm_role: FakeRole
    alice: FakeMember
    bob: FakeMember


@pytest_asyncio.fixture
async def table() -> AsyncIterator[Table]:
    async with FakeDiscord() as fd:
        guild = fd.add_guild("Table")
        channel = guild.add_channel("combat")
        gm_role = guild.add_role("GM", mentionable=True)
        alice = guild.add_member("alice", roles=[gm_role], manage_guild=True)
        bob = guild.add_member("bob")
        bot = MiniBot(guild.id)
        async with fd.run_bot(bot):
            await fd.wait_until_ready(timeout=5)
            yield Table(fd, bot, guild, channel, gm_role, alice, bob)


async def test_login_ready_and_sync(table: Table) -> None:
    fd, bot = table.fd, table.bot
    assert bot.user is not None and bot.user.id == fd.bot_user.id
    assert bot.application_id == fd.application_id
    g = bot.get_guild(table.guild.id)
    assert g is not None and g.get_channel(table.channel.id) is not None
    assert g.me is not None and g.me.guild_permissions.send_messages
    assert g.get_role(table.gm_role.id).name == "GM"
    # synced exactly once, for the guild, and accepted
    assert [scope for scope, _ in fd.sync_calls] == [table.guild.id]
    names = {c["name"] for c in fd.guild_commands[table.guild.id]}
    assert {"roll", "gm", "attack", "counter", "import"} <= names
    gm = next(c for c in fd.guild_commands[table.guild.id] if c["name"] == "gm")
    assert gm["options"][0]["type"] == 1 and gm["id"] and gm["version"] and gm["application_id"]
    # zlib-stream compression really in use
    assert fd.gateway_queries[0] == {"encoding": "json", "v": "10", "compress": "zlib-stream"}
    assert fd.stats["zlib_frames"] >= 3
    assert fd.identify_payloads[0]["intents"] == discord.Intents.default().value


async def test_slash_command_reply_and_ephemeral(table: Table) -> None:
    fd = table.fd
    r = await fd.invoke(table.channel, table.alice, "roll", expression="2d6+3", times=2)
    assert r.content == "2d6+3 x2" and not r.ephemeral and not r.deferred and r.type == 4
    assert fd.channel_messages(table.channel)[-1] is r.response
    r2 = await fd.invoke(table.channel, table.alice, "roll", expression="1d20", secret=True)
    assert r2.ephemeral and r2.content == "1d20 x1"
    assert r2.response not in fd.channel_messages(table.channel)


async def test_group_subcommand_with_choices(table: Table) -> None:
    r = await table.fd.invoke(
        table.channel, table.alice, "gm system", system="D20"
    )  # choice by name or value
    assert r.embeds[0]["description"] == "now d20"
    with pytest.raises(CommandNotFound):
        await table.fd.invoke(table.channel, table.alice, "gm system", system="d100")
    with pytest.raises(CommandNotFound):
        await table.fd.invoke(table.channel, table.alice, "gm nope")
    with pytest.raises(CommandNotFound):
        await table.fd.invoke(table.channel, table.alice, "roll", expresion="typo")


async def test_autocomplete(table: Table) -> None:
    choices = await table.fd.autocomplete(table.channel, table.alice, "attack", focused="target", value="O")
    assert choices == [{"name": "Orc", "value": "orc"}, {"name": "Ogre", "value": "ogre"}]


async def test_dynamic_button_click(table: Table) -> None:
    fd = table.fd
    r = await fd.invoke(table.channel, table.alice, "counter")
    assert r.custom_ids == ["counter:0"]
    r2 = await fd.click(r.response, table.bob, "counter:0")
    assert r2.type == 7 and r2.response is r.response
    assert r.content == "count 1" and r.custom_ids == ["counter:1"]
    r3 = await fd.click(r, table.bob, label="+1 (1)")
    assert r3.content == "count 2"


async def test_deferred_followups(table: Table) -> None:
    fd = table.fd
    r = await fd.invoke(table.channel, table.alice, "slow", private=True)
    assert r.deferred and r.ephemeral and r.content == "done"  # first followup fills the deferred original
    await r.wait_followups(1, timeout=5)
    assert [m.content for m in r.messages] == ["done", "second"]
    assert [m.content for m in r.followups] == ["second"] and r.followups[0].ephemeral
    r2 = await fd.invoke(table.channel, table.alice, "edit")
    assert r2.deferred and not r2.ephemeral and r2.content == "edited" and not r2.followups


async def test_a_deleted_placeholder_gives_way_to_the_followup(table: Table) -> None:
    """What the member sees after a public "thinking…" was deleted is the private followup."""
    fd = table.fd
    r = await fd.invoke(table.channel, table.alice, "reconsider")
    await r.interaction.wait_for(lambda: r.ephemeral, 5, "the private answer")
    assert r.deferred and r.interaction.original is not None and r.interaction.original.deleted
    assert r.ephemeral and r.content == "only you" and not r.followups


async def test_allowed_mentions_pings(table: Table) -> None:
    fd = table.fd
    name = f"@everyone {table.gm_role.mention} {table.bob.mention}"
    r = await fd.invoke(table.channel, table.alice, "remind", name=name)
    p = fd.pings(r)
    assert set(p) == {table.alice.id} and not p.everyone and not p.roles
    r2 = await fd.invoke(table.channel, table.alice, "shout", name=name)
    p2 = fd.pings(r2)
    assert p2.everyone and table.gm_role.id in p2.roles and table.bob.id in p2


async def test_attachment_option_and_resolved(table: Table) -> None:
    fd = table.fd
    sheet = json.dumps({"name": "Nyra"}).encode()
    r = await fd.invoke(table.channel, table.alice, "import", file=("sheet.json", sheet))
    assert r.content == "sheet.json: Nyra" and r.ephemeral
    r2 = await fd.invoke(table.channel, table.alice, "whois", who=table.bob, role=table.gm_role)
    assert r2.content == "bob GM"


async def test_modal_and_channel_message_with_file(table: Table) -> None:
    fd = table.fd
    r = await fd.invoke(table.channel, table.alice, "form")
    assert r.type == 9 and r.modal["title"] == "Character sheet"
    r2 = await fd.submit_modal(r, table.alice, {"sheet-name": "Kaernest"})
    assert r2.content == "saved Kaernest" and r2.ephemeral
    r3 = await fd.invoke(table.channel, table.alice, "post")
    posted = fd.channel_messages(table.channel)[-1]
    assert r3.content == "ok" and posted.content == "posted"
    assert posted.attachments[0].filename == "bot.py" and posted.attachments[0].data.startswith(b'"""')


async def test_default_member_permissions(table: Table) -> None:
    fd = table.fd
    r = await fd.invoke(table.channel, table.alice, "admin")
    assert r.content == "perms True"
    with pytest.raises(CommandNotAvailable):
        await fd.invoke(table.channel, table.bob, "admin")


async def test_invalid_answer_fails_fast(table: Table) -> None:
    fd = table.fd
    with pytest.raises(AssertionError, match="max 2000"):
        await fd.invoke(table.channel, table.alice, "broken")
    assert any("max 2000" in p for p in fd.take_problems())
    assert fd.problems == []


async def test_invalid_command_payload_caught(table: Table) -> None:
    fd, bot = table.fd, table.bot
    bad = [
        {"name": "Roll", "description": "uppercase", "type": 1},
        {
            "name": "ok",
            "description": "",
            "options": [
                {"name": "a", "description": "x", "type": 3},
                {"name": "b", "description": "x", "type": 3, "required": True},
            ],
        },
    ]
    with pytest.raises(discord.HTTPException) as info:
        await bot.http.bulk_upsert_guild_commands(bot.application_id, table.guild.id, payload=bad)
    assert info.value.status == 400 and info.value.code == 50035
    problems = fd.take_problems()
    assert any("'Roll' must be lowercase" in p for p in problems)
    assert any("description must be 1-100" in p for p in problems)
    assert any("required options must be placed before" in p for p in problems)
    # The previous (valid) sync is still in place.
    assert fd.find_command(table.guild, "roll") is not None


async def test_unknown_route_caught(table: Table) -> None:
    fd, bot = table.fd, table.bot
    with pytest.raises(discord.NotFound):
        await bot.http.request(discord.http.Route("GET", "/guilds/{guild_id}/bans", guild_id=table.guild.id))
    assert fd.take_problems() == [f"REST: unimplemented route GET /api/v10/guilds/{table.guild.id}/bans"]


async def test_world_changes_reach_the_bot(table: Table) -> None:
    fd = table.fd
    thread = table.guild.add_thread(table.channel, "side-fight")
    r = await fd.invoke(thread, table.alice, "roll", expression="1d4")
    assert r.content == "1d4 x1" and r.response.channel_id == thread.id
    assert table.bot.get_guild(table.guild.id).get_thread(thread.id) is not None


async def test_file_in_interaction_response(table: Table) -> None:
    r = await table.fd.invoke(table.channel, table.alice, "export")
    assert r.ephemeral and r.content == "here"
    assert [(f.filename, f.data) for f in r.files] == [("nyra.json", b'{"name": "Nyra"}')]


async def test_reconnect_resume(table: Table) -> None:
    fd = table.fd
    await fd.reconnect()
    assert fd.stats["resumes"] == 1 and len(fd.gateway_queries) == 2
    r = await fd.invoke(table.channel, table.alice, "roll", expression="3d6")
    assert r.content == "3d6 x1"


async def test_guild_added_later_and_global_sync(table: Table) -> None:
    fd, bot = table.fd, table.bot
    other = fd.add_guild("Second table")
    hall = other.add_channel("hall")
    carol = other.add_member("carol")
    await fd.flush()
    for _ in range(200):  # bounded: GUILD_CREATE is processed by the bot's event loop task
        if bot.get_guild(other.id) is not None:
            break
        await asyncio.sleep(0.01)
    assert bot.get_guild(other.id).get_channel(hall.id) is not None
    with pytest.raises(CommandNotFound):  # commands were only synced to the first guild
        await fd.invoke(hall, carol, "roll", expression="1d6")
    await bot.tree.sync()  # global
    assert fd.sync_calls[-1][0] == "global" and fd.global_commands
    r = await fd.invoke(hall, carol, "roll", expression="1d6")
    assert r.content == "1d6 x1"


async def test_persistent_view_button_and_select(table: Table) -> None:
    fd = table.fd
    r = await fd.invoke(table.channel, table.alice, "confirm")
    assert set(r.custom_ids) == {"confirm-yes", "pick-weapon"}
    yes = await fd.click(r, table.bob, "confirm-yes")
    assert yes.type == 4 and yes.ephemeral and yes.content == "confirmed"
    picked = await fd.select(r, table.bob, "pick-weapon", values=["Bow"])
    assert picked.deferred and picked.response is r.response
    assert r.content == "picked Bow" and r.components == []
    with pytest.raises(CommandNotFound):
        await fd.click(r, table.bob, "confirm-yes")  # the view was removed


async def test_raw_rest_content_type(fake_discord: FakeDiscord) -> None:
    import aiohttp

    async with aiohttp.ClientSession() as session:
        async with session.get(fake_discord.api_base + "/gateway") as resp:
            assert resp.headers["Content-Type"] == "application/json"
            assert (await resp.json())["url"] == fake_discord.gateway_url
        async with session.get(fake_discord.api_base + "/nope") as resp:
            assert resp.status == 404 and (await resp.json())["message"] == "404: Not Found"
    assert fake_discord.take_problems() == ["REST: unimplemented route GET /api/v10/nope"]


async def test_no_answer_and_late_answer(table: Table) -> None:
    fd = table.fd
    fd.callback_deadline = 0.2
    with pytest.raises(TimeoutError, match="no interaction callback"):
        await fd.invoke(table.channel, table.alice, "silent")
    with pytest.raises(AssertionError, match="callback after"):
        await fd.invoke(table.channel, table.alice, "late")
    assert any("callback after" in p for p in fd.take_problems())
    for _ in range(100):  # bounded: the bot sees the 404 (Unknown interaction) right after
        if table.bot.errors:
            break
        await asyncio.sleep(0.01)
    assert isinstance(table.bot.errors[-1].original, discord.NotFound)


async def test_context_menus(table: Table) -> None:
    fd = table.fd
    r = await fd.context_menu(table.channel, table.alice, "Inspect member", table.bob)
    assert r.ephemeral and r.content == "inspecting bob"
    said = await fd.post_message(table.channel, table.bob, "hello there")
    r2 = await fd.context_menu(table.channel, table.alice, "Quote", said)
    assert r2.content == "> hello there"
    assert [m.content for m in fd.channel_messages(table.channel)][-2:] == ["hello there", "> hello there"]


async def test_delete_original(table: Table) -> None:
    r = await table.fd.invoke(table.channel, table.alice, "oops")
    assert r.response.deleted and r.response not in table.fd.channel_messages(table.channel)


async def test_bot_side_rest_calls(table: Table) -> None:
    fd, bot = table.fd, table.bot
    channel = bot.get_channel(table.channel.id)
    first = await channel.send("one")
    second = await channel.send("two", embed=discord.Embed(title="T"))
    async with channel.typing():
        pass
    await second.add_reaction("\N{THUMBS UP SIGN}")
    assert [m.content async for m in channel.history(limit=5)] == ["two", "one"]
    fetched = await channel.fetch_message(first.id)
    await fetched.edit(content="uno")
    assert fd.world.messages[first.id].content == "uno" and fd.world.messages[first.id].edited_timestamp
    thread = await second.create_thread(name="aside")
    assert thread.parent_id == channel.id and thread.id in table.guild.threads
    await thread.send("inside")
    assert [m.content for m in fd.channel_messages(table.guild.threads[thread.id])] == ["inside"]
    member = await bot.get_guild(table.guild.id).fetch_member(table.bob.id)
    assert member.name == "bob"
    await first.delete()
    assert [m.content for m in fd.channel_messages(table.channel)] == ["two"]
    with pytest.raises(discord.NotFound):
        await channel.fetch_message(first.id)
    assert fd.not_found == [("message", first.id)] and fd.problems == []  # deleted: a normal 404
    with pytest.raises(discord.NotFound):
        await channel.fetch_message(12345678901234567)
    assert fd.take_problems() == [f"REST: unknown message 12345678901234567 in channel {channel.id}"]


async def test_invoke_waits_for_the_bot_to_go_quiet(table: Table) -> None:
    r = await table.fd.invoke(table.channel, table.alice, "announce")
    assert r.ephemeral and r.content == "ok"
    assert [m.content for m in table.fd.channel_messages(table.channel)] == ["announced"]
