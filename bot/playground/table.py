"""The playground's server: a channel per rule system, a thread, the GM and three players.

The server is laid out with the same ids on every start (``TABLE_IDS_FROM``), so sheets and encounters the
bot stored in ``var/playground.db`` belong to the same server, channels and members next time.
Everything the table does to the bot goes through interactions, as a member's Discord client would.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass

from bot.playground.loopback import FakeChannel, FakeDiscord, FakeGuild, FakeMember, InteractionResult
from bot.sheet_files import export_bytes, export_filename
from rules.systems.registry import all_systems, get_system

log = logging.getLogger(__name__)

# 2023-01-01 as a Discord snowflake: older than any message the fake stamps with the clock.
TABLE_IDS_FROM = (1_672_531_200_000 - 1_420_070_400_000) << 22
SERVER_NAME = "Fray playground"
GM_NAME = "Greta"
PLAYER_NAMES = ("Ash", "Bryn", "Cato")
THREAD_NAME = "side-fight"

# Demo characters: per system, one per player (names differ across systems: a name is unique per owner);
# a system not listed here gets its first creature template under each player's name.
DEMO_CHARACTERS: dict[str, tuple[tuple[str, str], ...]] = {
    "nyra": (("Ilsa", "Duelist"), ("Corvin", "Sellsword"), ("Maren", "Bandit")),
    "kaernest": (("Izuki", "Knight"), ("Mico", "Town Guard"), ("Tavi", "Berserker")),
    "d6": (("Rook", "guard"), ("Sable", "catboy"), ("Wren", "bandit")),
}


@dataclass
class Table:
    fd: FakeDiscord
    guild: FakeGuild
    gm: FakeMember
    players: tuple[FakeMember, ...]
    channels: dict[str, FakeChannel]  # system name → its channel
    thread: FakeChannel

    @property
    def members(self) -> tuple[FakeMember, ...]:
        return (self.gm, *self.players)

    def member(self, member_id: int) -> FakeMember | None:
        return next((m for m in self.members if m.id == member_id), None)

    def channel(self, channel_id: int) -> FakeChannel | None:
        return next((c for c in (*self.channels.values(), self.thread) if c.id == channel_id), None)


def lay_table(fd: FakeDiscord) -> Table:
    """Create the server in the fake (before the bot connects, so READY carries it)."""
    guild = fd.add_guild(SERVER_NAME, owner=GM_NAME)
    channels = {
        system.name: guild.add_channel(system.name, topic=f"Fights in {system.title}")
        for system in all_systems()
    }
    first = next(iter(channels.values()))
    thread = guild.add_thread(first, THREAD_NAME)
    players = tuple(guild.add_member(name) for name in PLAYER_NAMES)
    fd.world.snowflakes.follow_clock()
    return Table(fd, guild, guild.owner, players, channels, thread)


async def set_systems(table: Table) -> list[str]:
    """The GM sets ``/gm system`` in every channel (the thread inherits its parent's). Returns refusals."""
    refusals = []
    for name, channel in table.channels.items():
        r = await table.fd.invoke(channel, table.gm, "gm system", system=name)
        if r.ephemeral:
            refusals.append(f"#{channel.name}: {r.content}")
    return refusals


def demo_sheet_file(system_name: str, name: str, template: str) -> tuple[str, bytes, str]:
    """A player's sheet as a file ``/character import`` reads: a creature template under the player's name."""
    system = get_system(system_name)
    sheet = system.creature_sheet(template, name)
    if any(f.name == "npc" for f in dataclasses.fields(sheet)):  # Kaernest marks templates as NPCs
        sheet = dataclasses.replace(sheet, npc=False)
    return export_filename(name), export_bytes(system.name, sheet), "application/json"


async def seat_demo(table: Table) -> list[InteractionResult]:
    """Every player imports a character in every system's channel, through ``/character import``."""
    results = []
    for system in all_systems():
        channel = table.channels[system.name]
        first = system.creature_names()[0]
        characters = DEMO_CHARACTERS.get(system.name) or tuple(
            (f"{p.name} {system.title}", first) for p in table.players
        )
        for player, (name, template) in zip(table.players, characters, strict=False):
            r = await table.fd.invoke(
                channel, player, "character import", file=demo_sheet_file(system.name, name, template)
            )
            log.info("demo: %s imported %s (%s): %s", player.name, name, system.name, r.text)
            results.append(r)
    return results
