"""Loopback fake Discord: the playground's Discord and the end-to-end tests' (see README.md)."""

from .commands import valid_chat_input_name, validate_commands
from .interactions import CommandNotAvailable, CommandNotFound, InteractionRecord, InteractionResult
from .server import DEFAULT_TOKEN, FakeDiscord, InteractionFailed
from .world import (
    ADMINISTRATOR,
    EPHEMERAL,
    MANAGE_GUILD,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    Pings,
    Snowflakes,
)

__all__ = [
    "ADMINISTRATOR",
    "DEFAULT_TOKEN",
    "EPHEMERAL",
    "MANAGE_GUILD",
    "CommandNotAvailable",
    "CommandNotFound",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "InteractionFailed",
    "InteractionRecord",
    "InteractionResult",
    "Pings",
    "Snowflakes",
    "valid_chat_input_name",
    "validate_commands",
]
