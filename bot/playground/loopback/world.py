"""The fake's world: snowflakes, users, guilds, channels, threads, roles, members and messages.

Everything here is plain data plus ``to_dict`` methods that produce the JSON shapes Discord sends.
Nothing in this module does I/O; the server (``server.py``) owns a :class:`World` and pushes gateway
events when the world changes after the bot is connected.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

DISCORD_EPOCH_MS = 1420070400000

# Permission bits (https://discord.com/developers/docs/topics/permissions)
CREATE_INSTANT_INVITE = 1 << 0
KICK_MEMBERS = 1 << 1
BAN_MEMBERS = 1 << 2
ADMINISTRATOR = 1 << 3
MANAGE_CHANNELS = 1 << 4
MANAGE_GUILD = 1 << 5
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
MENTION_EVERYONE = 1 << 17
USE_EXTERNAL_EMOJIS = 1 << 18
CHANGE_NICKNAME = 1 << 26
MANAGE_ROLES = 1 << 28
USE_APPLICATION_COMMANDS = 1 << 31
MANAGE_THREADS = 1 << 34
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
SEND_MESSAGES_IN_THREADS = 1 << 38
ALL_PERMISSIONS = (1 << 53) - 1

EVERYONE_DEFAULT = (
    CREATE_INSTANT_INVITE
    | ADD_REACTIONS
    | VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | USE_EXTERNAL_EMOJIS
    | CHANGE_NICKNAME
    | USE_APPLICATION_COMMANDS
    | CREATE_PUBLIC_THREADS
    | SEND_MESSAGES_IN_THREADS
)
BOT_DEFAULT = (
    EVERYONE_DEFAULT | MANAGE_MESSAGES | MANAGE_THREADS | CREATE_PRIVATE_THREADS | READ_MESSAGE_HISTORY
)

EPHEMERAL = 1 << 6
LOADING = 1 << 7

# Channel types
GUILD_TEXT = 0
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12


def iso(ts: float | None = None) -> str:
    return datetime.fromtimestamp(time.time() if ts is None else ts, UTC).isoformat()


class Snowflakes:
    """Monotonic snowflake generator (timestamp << 22 | counter).

    ``counting_from=N`` hands out N+1, N+2, … until ``follow_clock()``: the playground builds its server with
    the same ids on every start (the bot's database keys sheets by them) and lets messages follow the clock.
    """

    def __init__(self, *, counting_from: int | None = None) -> None:
        self._last = counting_from or 0
        self._counting = counting_from is not None

    def follow_clock(self) -> None:
        self._counting = False

    def next(self) -> int:
        if self._counting:
            self._last += 1
            return self._last
        value = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        value = max(value, self._last + 1)
        self._last = value
        return value


@dataclass(eq=False)
class FakeUser:
    id: int
    name: str
    bot: bool = False
    global_name: str | None = None

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "username": self.name,
            "discriminator": "0",
            "global_name": self.global_name or self.name,
            "avatar": None,
            "public_flags": 0,
            "flags": 0,
        }
        if self.bot:
            data["bot"] = True
        return data


@dataclass(eq=False)
class FakeRole:
    id: int
    name: str
    guild: FakeGuild
    permissions: int = 0
    position: int = 1
    mentionable: bool = False
    color: int = 0
    managed: bool = False

    @property
    def mention(self) -> str:
        return f"<@&{self.id}>"

    @property
    def is_everyone(self) -> bool:
        return self.id == self.guild.id

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": self.color,
            "colors": {"primary_color": self.color, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": self.managed,
            "mentionable": self.mentionable,
            "flags": 0,
        }


@dataclass(eq=False)
class FakeMember:
    user: FakeUser
    guild: FakeGuild
    roles: list[FakeRole] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=iso)

    @property
    def id(self) -> int:
        return self.user.id

    @property
    def name(self) -> str:
        return self.user.name

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    @property
    def permissions(self) -> int:
        """Guild-level permissions computed like Discord (owner/admin get everything)."""
        if self.guild.owner is self:
            return ALL_PERMISSIONS
        perms = self.guild.everyone.permissions
        for role in self.roles:
            perms |= role.permissions
        if perms & ADMINISTRATOR:
            return ALL_PERMISSIONS
        return perms

    def to_dict(self, *, with_user: bool = True, with_permissions: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "roles": [str(r.id) for r in self.roles if not r.is_everyone],
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user.to_dict()
        if with_permissions:
            data["permissions"] = str(self.permissions)
        return data


@dataclass(eq=False)
class FakeChannel:
    """A guild text channel, or a thread when ``type`` is 11/12 (then ``parent_id`` is set)."""

    id: int
    name: str
    guild: FakeGuild
    type: int = GUILD_TEXT
    parent_id: int | None = None
    owner_id: int | None = None
    topic: str | None = None
    position: int = 0
    archived: bool = False
    locked: bool = False

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    @property
    def is_thread(self) -> bool:
        return self.type in (10, PUBLIC_THREAD, PRIVATE_THREAD)

    def to_dict(self, *, permissions: int | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild.id),
            "name": self.name,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "nsfw": False,
            "flags": 0,
        }
        if self.is_thread:
            data.update(
                parent_id=str(self.parent_id),
                owner_id=str(self.owner_id or self.guild.owner.id),
                message_count=0,
                member_count=0,
                total_message_sent=0,
                thread_metadata={
                    "archived": self.archived,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": iso(),
                    "locked": self.locked,
                    "create_timestamp": iso(),
                },
            )
        else:
            data.update(
                position=self.position,
                permission_overwrites=[],
                topic=self.topic,
                parent_id=str(self.parent_id) if self.parent_id else None,
                default_thread_rate_limit_per_user=0,
            )
        if permissions is not None:
            data["permissions"] = str(permissions)
        return data


@dataclass(eq=False)
class FakeAttachment:
    id: int
    filename: str
    data: bytes
    url: str
    content_type: str | None = None
    description: str | None = None
    ephemeral: bool = False

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": self.url,
            "proxy_url": self.url,
        }
        if self.content_type:
            data["content_type"] = self.content_type
        if self.description:
            data["description"] = self.description
        if self.ephemeral:
            data["ephemeral"] = True
        return data


@dataclass(eq=False)
class FakeMessage:
    """A message as the fake stores it (everything the bot sent, plus bookkeeping)."""

    id: int
    channel_id: int
    guild_id: int | None
    author: dict[str, Any]
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    flags: int = 0
    allowed_mentions: dict[str, Any] | None = None
    attachments: list[FakeAttachment] = field(default_factory=list)
    interaction_id: int | None = None  # the interaction this message answers (response or followup)
    webhook_id: int | None = None
    application_id: int | None = None
    message_reference: dict[str, Any] | None = None
    interaction_metadata: dict[str, Any] | None = None
    tts: bool = False
    poll: dict[str, Any] | None = None
    timestamp: str = field(default_factory=iso)
    edited_timestamp: str | None = None
    deleted: bool = False
    history: list[dict[str, Any]] = field(default_factory=list)  # previous versions (edits)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & LOADING)

    @property
    def files(self) -> list[FakeAttachment]:
        return self.attachments

    @property
    def text(self) -> str:
        """Content plus every embed's visible text, handy for loose assertions."""
        parts = [self.content]
        for e in self.embeds:
            for key in ("title", "description"):
                if e.get(key):
                    parts.append(str(e[key]))
            for fld in e.get("fields", []):
                parts.append(f"{fld.get('name', '')}: {fld.get('value', '')}")
            if (e.get("footer") or {}).get("text"):
                parts.append(e["footer"]["text"])
            if (e.get("author") or {}).get("name"):
                parts.append(e["author"]["name"])
        return "\n".join(p for p in parts if p)

    def iter_components(self) -> list[dict[str, Any]]:
        """All interactive components (buttons, selects, ...) found anywhere in the tree."""
        out: list[dict[str, Any]] = []

        def walk(items: list[dict[str, Any]]) -> None:
            for c in items:
                if "custom_id" in c or c.get("type") in (2, 3, 5, 6, 7, 8):
                    out.append(c)
                walk(c.get("components", []))
                if isinstance(c.get("accessory"), dict):
                    walk([c["accessory"]])
                if isinstance(c.get("component"), dict):
                    walk([c["component"]])

        walk(self.components)
        return out

    def find_component(self, custom_id: str) -> dict[str, Any] | None:
        for c in self.iter_components():
            if c.get("custom_id") == custom_id:
                return c
        return None

    @property
    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in self.iter_components() if "custom_id" in c]

    def to_dict(self, world: World | None = None) -> dict[str, Any]:
        mentions, mention_roles, mention_everyone = [], [], False
        if world is not None:
            p = world.pings(self)
            mentions = [world.users[u].to_dict() for u in sorted(p) if u in world.users]
            mention_roles = [str(r) for r in sorted(p.roles)]
            mention_everyone = p.everyone
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": 20 if self.interaction_id and self.message_reference is None else 0,
            "channel_id": str(self.channel_id),
            "author": self.author,
            "content": self.content,
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
            "tts": self.tts,
            "mention_everyone": mention_everyone,
            "mentions": mentions,
            "mention_roles": mention_roles,
            "attachments": [a.to_dict() for a in self.attachments],
            "embeds": self.embeds,
            "components": self.components,
            "pinned": False,
            "flags": self.flags,
        }
        if self.guild_id is not None:
            data["guild_id"] = str(self.guild_id)
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
        if self.application_id is not None:
            data["application_id"] = str(self.application_id)
        if self.message_reference is not None:
            data["message_reference"] = self.message_reference
        if self.interaction_metadata is not None:
            data["interaction_metadata"] = self.interaction_metadata
        if self.poll is not None:
            data["poll"] = self.poll
        return data


class Pings(frozenset):
    """The user ids a message would notify, with ``everyone`` (@everyone/@here) and ``roles`` flags.

    Computed worst-case: as if the author had MENTION_EVERYONE and every role were mentionable, so
    only ``allowed_mentions`` protects against a ping.
    """

    everyone: bool
    here: bool
    roles: frozenset[int]

    def __new__(cls, users=(), *, everyone=False, here=False, roles=()):
        obj = super().__new__(cls, users)
        obj.everyone = everyone
        obj.here = here
        obj.roles = frozenset(roles)
        return obj

    @property
    def users(self) -> frozenset[int]:
        return frozenset(self)

    def __bool__(self) -> bool:
        """True if anyone at all would be notified (users, @everyone/@here or a role)."""
        return bool(len(self) or self.everyone or self.here or self.roles)

    def __repr__(self) -> str:
        return f"Pings(users={set(self)!r}, everyone={self.everyone}, here={self.here}, roles={set(self.roles)!r})"


_USER_MENTION = re.compile(r"<@!?(\d{15,21})>")
_ROLE_MENTION = re.compile(r"<@&(\d{15,21})>")


class World:
    """All state of the fake Discord. ``on_change(event, data, guild)`` is called for gateway pushes."""

    def __init__(self, snowflakes: Snowflakes | None = None) -> None:
        self.snowflakes = snowflakes or Snowflakes()
        self.bot_user = FakeUser(self.snowflakes.next(), "Fray", bot=True)
        self.application_id = self.bot_user.id
        self.application_flags = 1 << 23 | 1 << 19  # GATEWAY_MESSAGE_CONTENT_LIMITED | GUILD_MEMBERS_LIMITED
        self.owner_user = FakeUser(self.snowflakes.next(), "app-owner")
        self.guilds: dict[int, FakeGuild] = {}
        self.users: dict[int, FakeUser] = {
            self.bot_user.id: self.bot_user,
            self.owner_user.id: self.owner_user,
        }
        self.messages: dict[int, FakeMessage] = {}
        self.bot_permissions = BOT_DEFAULT
        self.on_change: Callable[[str, dict[str, Any], FakeGuild | None], None] = lambda *_: None
        self._counter = itertools.count(1)

    def next_id(self) -> int:
        return self.snowflakes.next()

    def add_guild(self, name: str, *, owner: str = "owner") -> FakeGuild:
        guild = FakeGuild(self, self.next_id(), name)
        guild._setup(owner)
        self.guilds[guild.id] = guild
        self.on_change("GUILD_CREATE", {}, guild)
        return guild

    def channel(self, channel_id: int) -> FakeChannel | None:
        for g in self.guilds.values():
            ch = g.channels.get(channel_id) or g.threads.get(channel_id)
            if ch is not None:
                return ch
        return None

    def role(self, role_id: int) -> FakeRole | None:
        for g in self.guilds.values():
            if role_id in g.roles:
                return g.roles[role_id]
        return None

    def pings(self, message: FakeMessage) -> Pings:
        """Who ``message`` would actually notify, honouring allowed_mentions like Discord does."""
        content = message.content or ""
        am = message.allowed_mentions
        if am is None:
            parse = {"users", "roles", "everyone"}
            allow_users: set[int] = set()
            allow_roles: set[int] = set()
        else:
            parse = set(am.get("parse") or [])
            allow_users = {int(u) for u in am.get("users") or []}
            allow_roles = {int(r) for r in am.get("roles") or []}
        guild = self.guilds.get(message.guild_id) if message.guild_id else None
        users: set[int] = set()
        for m in _USER_MENTION.finditer(content):
            uid = int(m.group(1))
            if "users" in parse or uid in allow_users:
                users.add(uid)
        roles: set[int] = set()
        for m in _ROLE_MENTION.finditer(content):
            rid = int(m.group(1))
            if "roles" in parse or rid in allow_roles:
                roles.add(rid)
        everyone = "everyone" in parse and "@everyone" in content
        here = "everyone" in parse and "@here" in content
        if guild is not None:
            if everyone or here:
                users.update(guild.members)
            for rid in roles:
                users.update(m.id for m in guild.members.values() if any(r.id == rid for r in m.roles))
            if guild.id in roles:  # <@&guild_id> is @everyone
                users.update(guild.members)
        users.discard(self.bot_user.id)
        return Pings(users, everyone=everyone, here=here, roles=roles)


class FakeGuild:
    def __init__(self, world: World, guild_id: int, name: str) -> None:
        self.world = world
        self.id = guild_id
        self.name = name
        self.roles: dict[int, FakeRole] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.threads: dict[int, FakeChannel] = {}
        self.members: dict[int, FakeMember] = {}
        self.owner: FakeMember
        self.everyone: FakeRole
        self.bot_member: FakeMember
        self._flag_roles: dict[int, FakeRole] = {}

    def __repr__(self) -> str:
        return f"<FakeGuild {self.name!r} id={self.id}>"

    def _setup(self, owner_name: str) -> None:
        self.everyone = FakeRole(self.id, "@everyone", self, permissions=EVERYONE_DEFAULT, position=0)
        self.roles[self.id] = self.everyone
        bot_role = FakeRole(self.world.next_id(), self.world.bot_user.name, self, managed=True)
        bot_role.permissions = self.world.bot_permissions
        self.roles[bot_role.id] = bot_role
        self.bot_role = bot_role
        self.bot_member = FakeMember(self.world.bot_user, self, roles=[bot_role])
        self.members[self.bot_member.id] = self.bot_member
        owner_user = FakeUser(self.world.next_id(), owner_name)
        self.world.users[owner_user.id] = owner_user
        self.owner = FakeMember(owner_user, self)
        self.members[owner_user.id] = self.owner

    # -- builders -------------------------------------------------------------------------------
    def add_channel(self, name: str, *, topic: str | None = None) -> FakeChannel:
        ch = FakeChannel(self.world.next_id(), name, self, topic=topic, position=len(self.channels))
        self.channels[ch.id] = ch
        self.world.on_change("CHANNEL_CREATE", ch.to_dict(), self)
        return ch

    def add_thread(
        self, channel: FakeChannel, name: str, *, private: bool = False, owner: FakeMember | None = None
    ) -> FakeChannel:
        th = FakeChannel(
            self.world.next_id(),
            name,
            self,
            type=PRIVATE_THREAD if private else PUBLIC_THREAD,
            parent_id=channel.id,
            owner_id=(owner or self.owner).id,
        )
        self.threads[th.id] = th
        self.world.on_change("THREAD_CREATE", {**th.to_dict(), "newly_created": True}, self)
        return th

    def add_role(
        self, name: str, *, permissions: int = 0, mentionable: bool = False, color: int = 0
    ) -> FakeRole:
        role = FakeRole(
            self.world.next_id(),
            name,
            self,
            permissions=permissions,
            position=len(self.roles),
            mentionable=mentionable,
            color=color,
        )
        self.roles[role.id] = role
        self.world.on_change("GUILD_ROLE_CREATE", {"guild_id": str(self.id), "role": role.to_dict()}, self)
        return role

    def _flag_role(self, bit: int, name: str) -> FakeRole:
        if bit not in self._flag_roles:
            self._flag_roles[bit] = self.add_role(name, permissions=bit)
        return self._flag_roles[bit]

    def add_member(
        self,
        name: str,
        roles: list[FakeRole] | tuple[FakeRole, ...] = (),
        *,
        manage_guild: bool = False,
        admin: bool = False,
        nick: str | None = None,
        permissions: int = 0,
    ) -> FakeMember:
        """Add a member. ``manage_guild``/``admin``/``permissions`` are granted through extra roles
        (named ``fd:manage_guild``, ``fd:admin``, ``fd:perms:<n>``) so discord.py's cache and the
        interaction payload agree."""
        user = FakeUser(self.world.next_id(), name)
        self.world.users[user.id] = user
        member_roles = list(roles)
        if manage_guild:
            member_roles.append(self._flag_role(MANAGE_GUILD, "fd:manage_guild"))
        if admin:
            member_roles.append(self._flag_role(ADMINISTRATOR, "fd:admin"))
        if permissions:
            member_roles.append(self._flag_role(permissions, f"fd:perms:{permissions}"))
        member = FakeMember(user, self, roles=member_roles, nick=nick)
        self.members[user.id] = member
        self.world.on_change("GUILD_MEMBER_ADD", {**member.to_dict(), "guild_id": str(self.id)}, self)
        return member

    def update_member(
        self, member: FakeMember, *, roles: list[FakeRole] | None = None, nick: str | None = None
    ) -> FakeMember:
        """Change a member's roles/nick (pushes GUILD_MEMBER_UPDATE to a connected bot)."""
        if roles is not None:
            member.roles = list(roles)
        if nick is not None:
            member.nick = nick
        self.world.on_change("GUILD_MEMBER_UPDATE", {**member.to_dict(), "guild_id": str(self.id)}, self)
        return member

    # -- payloads -------------------------------------------------------------------------------
    def channel_permissions(self, member: FakeMember, channel: FakeChannel | None = None) -> int:
        return member.permissions  # no overwrites modelled

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner.id),
            "region": "deprecated",
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 1,
            "explicit_content_filter": 0,
            "features": [],
            "mfa_level": 0,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": "en-US",
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "max_members": 500000,
            "roles": [r.to_dict() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
        }

    def create_payload(self, *, with_members: bool = True) -> dict[str, Any]:
        data = self.to_dict()
        data.update(
            joined_at=self.bot_member.joined_at,
            large=False,
            unavailable=False,
            member_count=len(self.members),
            voice_states=[],
            members=[m.to_dict() for m in self.members.values()]
            if with_members
            else [self.bot_member.to_dict()],
            channels=[c.to_dict() for c in self.channels.values()],
            threads=[t.to_dict() for t in self.threads.values()],
            presences=[],
            stage_instances=[],
            guild_scheduled_events=[],
            soundboard_sounds=[],
            lazy=True,
            application_command_counts={},
        )
        return data
