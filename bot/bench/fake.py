"""The benchmark's one import point for the loopback fake Discord."""

from bot.playground.loopback import (
    DEFAULT_TOKEN,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeMember,
    InteractionResult,
)

__all__ = ["DEFAULT_TOKEN", "FakeChannel", "FakeDiscord", "FakeGuild", "FakeMember", "InteractionResult"]
